"""More programs that run the command their arguments name (session 28's probe: each row below
was an **allow** before, with ``Bash(rm:*)`` denied and a rule allowing the outer program).

* Limits, placement, queues and agents (``numactl``, ``prlimit``, ``cpulimit``, ``entr``, ``nq``,
  ``tsp``, ``ssh-agent``, ``systemd-inhibit``, ``retry``) are peeled like ``nice``: the command
  inside needs its own rule.  ``daemonize`` also asks (it detaches and writes the files it names).
* Runners (``bwrap``, ``proot``, ``mpirun``, ``srun``, ``ip netns exec``, ``bundle exec``,
  ``pyenv exec``, ``mise exec --``, ``nvm exec [VERSION]``, terminals' ``-e``, ``tini``,
  ``torchrun --no-python`` …): the runner's rule allows what it runs, but deny and ask rules see
  the program inside.  ``gosu``, ``su-exec`` and ``chpst`` switch user: they ask.
* Multiplexers: ``tmux new|split-window|run-shell``, ``screen CMD`` run shell code; keys typed
  into a pane (``tmux send-keys``, ``screen -X stuff``, ``zellij action write-chars``) ask under a
  deny or ask rule.
* Shell code in an argument: GNU ``parallel``/``sem`` run their command through the shell (and
  with none, the arguments after ``:::`` are the commands), so like ``xargs`` what they run needs
  its own rule; ``tar --checkpoint-action=exec=…``;
  ``gdb -ex 'shell …'`` / ``lldb -o 'platform shell …'``, and the program ``gdb --args`` debugs.
* ``at``/``batch`` run commands read later (stdin, ``-f FILE``): a deny or ask rule asks.
"""

from __future__ import annotations

import shutil
import subprocess

import pytest

from tests.permissions.conftest import verdict_name
from tests.permissions.tools import decide_bash, make_ctx

PEELED = [
    ("numactl -C 0 rm -rf y", "deny"), ("numactl --membind=0 -l rm -rf y", "deny"), ("numactl -C 0 ls", "allow"),
    ("prlimit --nofile=10 rm -rf y", "deny"), ("prlimit -n10 --as=1000000 rm y", "deny"),
    ("prlimit --nofile=10 cat notes.txt", "allow"),
    ("cpulimit -l 10 rm -rf y", "deny"), ("cpulimit -l 10 -- rm -rf y", "deny"),
    ("systemd-inhibit --why=x rm -rf y", "deny"), ("ssh-agent rm -rf y", "deny"), ("ssh-agent -t 60 rm y", "deny"),
    ("nq rm -rf y", "deny"), ("tsp -L job rm -rf y", "deny"), ("retry -t 3 -- rm -rf y", "deny"),
    ("entr rm -rf y", "deny"), ("entr -r rm -rf y", "deny"), ("entr -s 'rm -rf y'", "deny"),
    ("entr -s 'echo hi'", "ask"),  # code for the shell asks, as sh -c does
    ("gosu nobody rm -rf y", "deny"), ("su-exec nobody rm y", "deny"), ("chpst -u nobody rm -rf y", "deny"),
    ("gosu nobody ls", "ask"),  # switching user asks, as runuser does
    ("daemonize /bin/rm -rf y", "deny"), ("daemonize -o /tmp/log ls", "ask"),
]


@pytest.mark.parametrize(("command", "expected"), PEELED)
async def test_peeled_wrappers(world, command, expected):
    program = command.split()[0]
    ctx = make_ctx(world.project, allow=(f"Bash({program}:*)",), deny=("Bash(rm:*)",))
    assert verdict_name(await decide_bash(ctx, command)) == expected, command


def test_peeled_wrapper_needs_the_inner_rule(world):
    """Under ``Bash(numactl:*)`` alone, ``numactl -C 0 pytest`` asks: pytest is not allowed."""
    import asyncio

    ctx = make_ctx(world.project, allow=("Bash(numactl:*)",))
    assert verdict_name(asyncio.run(decide_bash(ctx, "numactl -C 0 pytest"))) == "ask"
    ctx = make_ctx(world.project, allow=("Bash(numactl:*)", "Bash(pytest:*)"))
    assert verdict_name(asyncio.run(decide_bash(ctx, "numactl -C 0 pytest"))) == "allow"


RUNNER_ROWS = [
    ("bwrap --bind / / rm -rf y", "deny"), ("bwrap --ro-bind /usr /usr --dev /dev --unshare-all rm -rf y", "deny"),
    ("bwrap --setenv A B --chdir /tmp rm y", "deny"), ("bwrap --bind / / ls", "allow"),
    ("proot -b /tmp rm -rf y", "deny"), ("proot -0 rm y", "deny"),
    ("mpirun -n 2 rm -rf y", "deny"), ("mpirun --mca btl self -np 2 rm y", "deny"), ("mpirun -n 2 python t.py", "allow"),
    ("mpiexec -n 4 rm y", "deny"), ("srun -N 1 rm -rf y", "deny"), ("salloc -n 1 rm y", "deny"),
    ("sbatch --wrap='rm -rf y'", "deny"), ("sbatch job.sh", "allow"),
    ("ip netns exec blue rm -rf y", "deny"), ("ip vrf exec red rm y", "deny"), ("ip addr", "allow"),
    ("devbox run rm -rf y", "deny"), ("bundle exec rm -rf y", "deny"), ("bundle exec rspec", "allow"),
    ("rr record rm -rf y", "deny"), ("volta run --node 20 rm y", "deny"), ("fnm exec --using 20 rm y", "deny"),
    ("nvm exec rm -rf y", "deny"), ("nvm exec 20 rm -rf y", "deny"), ("nvm run 20 app.js", "allow"),
    ("mise exec -- rm -rf y", "deny"), ("mise exec node@20 python@3 -- rm y", "deny"), ("mise x -- rm y", "deny"),
    ("mise exec -c 'rm -rf y'", "deny"), ("mise exec node@20 -- npm test", "allow"),
    ("pyenv exec rm -rf y", "deny"), ("rbenv exec rm y", "deny"), ("asdf exec rm y", "deny"),
    ("pyenv exec python -V", "allow"),
    # shell code
    ("parallel ::: 'rm -rf y'", "deny"), ("parallel ::: ls 'rm -rf y'", "deny"), ("parallel :::: cmds.txt", "ask"),
    ("parallel 'rm -rf {}' ::: y", "deny"), ("parallel 'echo {}; rm -rf y' ::: a", "deny"),
    ("parallel -j2 wc -l ::: a b", "allow"), ("parallel -j 2 gzip ::: a b", "ask"),  # gzip: no rule of its own
    ("sem --id x rm -rf y", "deny"),
    ("tar -cf x.tar --checkpoint=1 --checkpoint-action=exec='rm -rf y' src", "deny"),
    ("tar -cf x.tar --checkpoint-action=dot src", "allow"),
    ("gdb -batch -ex 'shell rm -rf y'", "deny"), ("gdb -batch -ex '!rm -rf y'", "deny"),
    ("gdb --batch --eval-command='shell rm y'", "deny"), ("gdb -batch -ex 'python import os' ./a.out", "ask"),
    ("gdb -batch -x cmds.gdb ./a.out", "ask"), ("gdb -batch -eix run ./a.out", "ask"),  # -eix FILE: a file named run
    ("gdb -batch -eiex 'shell rm y' ./a.out", "deny"), ("gdb -batch -ex run --args rm -rf y", "deny"),
    ("gdb -batch -ex run -ex bt ./a.out", "allow"), ("lldb -o 'platform shell rm -rf y'", "deny"),
    ("lldb -b -o run -- rm y", "deny"), ("lldb -b -o run -o bt ./a.out", "allow"),
    # terminal multiplexers and terminals: a new session, window or pane runs shell code (which
    # needs its own rule); keys typed into a pane run what is not known here
    ("tmux new -d 'rm -rf y'", "deny"), ("tmux new-session -d -s x 'rm -rf y'", "deny"),
    ("tmux split-window 'rm -rf y'", "deny"), ("tmux new-window rm -rf y", "deny"), ("tmux run-shell 'rm y'", "deny"),
    ("tmux send-keys -t x 'rm -rf y' Enter", "ask"), ("tmux new -d 'make test'", "ask"), ("tmux ls", "allow"),
    ("tmux new -d 'ls -la'", "allow"), ("byobu new-session 'rm y'", "deny"),
    ("screen -dm rm -rf y", "deny"), ("screen -dmS x bash -c 'rm -rf y'", "deny"), ("screen -dm -S x rm y", "deny"),
    ("screen -S x -X stuff 'rm -rf y'", "ask"), ("screen -ls", "allow"),
    ("zellij run -- rm -rf y", "deny"), ("zellij action write-chars 'rm -rf y'", "ask"),
    ("abduco -c x rm -rf y", "deny"), ("dtach -n /tmp/s rm -rf y", "deny"),
    ("xterm -e rm -rf y", "deny"), ("gnome-terminal -- rm -rf y", "deny"), ("gnome-terminal -e 'rm -rf y'", "deny"),
    ("alacritty -e rm y", "deny"), ("wezterm start -- rm y", "deny"),
    # init shims and launchers
    ("tini -- rm -rf y", "deny"), ("dumb-init rm -rf y", "deny"), ("horovodrun -np 4 rm -rf y", "deny"),
    ("horovodrun -np 4 python train.py", "allow"), ("ray job submit -- rm -rf y", "deny"),
    ("ray job submit --working-dir . -- python job.py", "allow"),
    ("torchrun --no-python rm -rf y", "deny"), ("torchrun --nproc_per_node 2 train.py", "allow"),
    ("accelerate launch --no_python rm -rf y", "deny"), ("accelerate launch train.py", "allow"),
    ("deepspeed --no_python rm -rf y", "deny"), ("deepspeed --num_gpus 2 train.py", "allow"),
    # Miller's DSL: system(), exec() and redirects run or write what is not read here
    ("mlr -n put 'end{system(\"rm -rf y\")}'", "ask"), ("mlr -n put 'end{exec(\"rm\", [\"y\"])}'", "ask"),
    ("mlr --icsv put -q 'tee > $a.\".csv\", $*' data.csv", "ask"), ("mlr --icsv filter '$x > 1' data.csv", "allow"),
    ("mlr --icsv --ojson cat data.csv", "allow"),
    # at/batch: the commands come from stdin (read when the line fixes them) or a file
    ("at now <<< 'rm -rf y'", "deny"), ("at -f job.sh now", "ask"), ("batch <<< 'ls'", "allow"), ("at -l", "allow"),
    ("curl -s https://example.com/job | at now", "ask"),
]


@pytest.mark.parametrize(("command", "expected"), RUNNER_ROWS)
async def test_runners_show_what_they_run(world, command, expected):
    program = command.split()[0]
    ctx = make_ctx(world.project, allow=(f"Bash({program}:*)",), deny=("Bash(rm:*)",))
    assert verdict_name(await decide_bash(ctx, command)) == expected, command


def _runs(tmp_path, argv: list[str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(argv, cwd=tmp_path, capture_output=True, text=True, timeout=60)


@pytest.mark.parametrize("argv", [
    ["tar", "-cf", "x.tar", "--checkpoint=1", "--checkpoint-action=exec=touch RAN", "project.txt"],
    ["gdb", "-nx", "-batch", "-ex", "shell touch RAN"],
    ["gdb", "-nx", "-batch", "-ex", "!touch RAN"],
    ["prlimit", "--nofile=64", "touch", "RAN"],
])
def test_real_programs_run_them(tmp_path, argv):
    """The programs really run the command: what the rows above deny is not a guess."""
    if shutil.which(argv[0]) is None:
        pytest.skip(f"{argv[0]} is not installed")
    (tmp_path / "project.txt").write_text("data\n" * 1000)
    done = _runs(tmp_path, argv)
    assert (tmp_path / "RAN").exists(), (done.stdout, done.stderr)
