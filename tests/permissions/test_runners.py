"""Deny and ask rules see through runners: ``uv run rm x`` under ``Bash(uv run:*)`` is still ``rm``.

An allow rule for a runner (``uv run``, ``npx``, ``docker exec``, ``python -m`` …) allows what it
runs; deny and ask rules must match the program it runs.  Options of unknown width are read
both ways, which may deny a command whose option value happens to be a denied program's name,
never allow one.  The real-run rows show the runner really runs the program the rule denies.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from jupyter_agent.permissions.bash_analysis import analyze_uncached
from jupyter_agent.permissions.bash_runners import RUNNERS, runner_forms
from jupyter_agent.permissions.bash_sed import sed_commands
from jupyter_agent.permissions.bash_words import Word
from tests.permissions.conftest import verdict_name
from tests.permissions.tools import decide_bash, make_ctx

RM = ("Bash(rm:*)",)
RUNNER_ALLOWS = (
    "Bash(uv:*)", "Bash(uvx:*)", "Bash(poetry run:*)", "Bash(npx:*)", "Bash(npm exec:*)", "Bash(conda run:*)",
    "Bash(pipenv run:*)", "Bash(hatch run:*)", "Bash(docker:*)", "Bash(kubectl exec:*)", "Bash(direnv exec:*)",
    "Bash(nix-shell:*)", "Bash(nix develop:*)", "Bash(script:*)", "Bash(python:*)", "Bash(python3:*)",
    "Bash(fakeroot:*)", "Bash(xvfb-run:*)", "Bash(pnpm dlx:*)", "Bash(tox exec:*)", "Bash(op run:*)",
)

ROWS = [
    # the program a runner runs meets the deny rule
    ("uv-run", "uv run rm x", "deny"),
    ("uv-run-dashdash", "uv run -- rm -rf build", "deny"),
    ("uv-global-option", "uv --quiet run rm x", "deny"),
    ("uv-with-value", "uv run --with requests rm x", "deny"),
    ("uv-tool-run", "uv tool run rm x", "deny"),
    ("uvx", "uvx --from pkg rm x", "deny"),
    ("poetry", "poetry run rm x", "deny"),
    ("npx", "npx -y rm x", "deny"),
    ("npx-call", "npx -c 'rm x'", "deny"),
    ("npm-exec", "npm exec -- rm x", "deny"),
    ("pnpm-dlx", "pnpm dlx rm x", "deny"),
    ("conda", "conda run -n base rm x", "deny"),
    ("pipenv", "pipenv run rm x", "deny"),
    ("hatch", "hatch run -e test rm x", "deny"),
    ("docker-exec", "docker exec -it web rm x", "deny"),
    ("docker-exec-env", "docker exec -e A=1 -u root web rm x", "deny"),
    ("docker-global", "docker --context prod exec web rm x", "deny"),
    ("docker-run", "docker run --rm -v a:/a alpine rm x", "deny"),
    ("docker-compose", "docker compose exec web rm x", "deny"),
    ("kubectl-exec", "kubectl exec -n prod pod -c web -- rm x", "deny"),
    ("direnv", "direnv exec . rm x", "deny"),
    ("nix-shell-run", "nix-shell -p hello --run 'ls; rm x'", "deny"),
    ("nix-develop", "nix develop -c rm x", "deny"),
    ("nix-develop-combined", "nix develop -ic rm x", "deny"),
    ("script-combined-attached", "script -qcrm /dev/null", "deny"),
    ("script-c", "script -qc 'rm x' /dev/null", "deny"),
    ("fakeroot", "fakeroot rm x", "deny"),
    ("xvfb-run", "xvfb-run -a rm x", "deny"),
    ("tox-exec", "tox exec -e py -- rm x", "deny"),
    ("op-run", "op run --env-file .env.tpl -- rm x", "deny"),
    ("python-m", "python -m shutil_rm x", "allow"),  # a module named otherwise: no rule
    ("slash-name", "/usr/local/bin/uv run rm x", "deny"),
    ("runner-in-runner", "uv run npx rm x", "deny"),
    ("wrapper-in-runner", "uv run timeout 5 rm x", "deny"),
    ("shell-in-runner", "uv run bash -c 'rm x'", "deny"),
    ("runner-in-wrapper", "timeout 60 uv run rm x", "deny"),
    ("runner-in-script", "bash -c 'poetry run rm x'", "deny"),
    # a word known only at run time where the command starts: may be rm, so never allowed
    ("dynamic-program", "uv run $TOOL x", "ask"),
    ("dynamic-shell-code", 'nix-shell --run "$CODE"', "ask"),
    # what the runner runs that no rule names is the runner's allow rule's business
    ("uv-pytest", "uv run pytest -q", "allow"),
    ("uv-python-value", "uv run --python 3.12 pytest", "allow"),
    ("docker-ls", "docker exec web ls", "allow"),
    ("docker-run-name", "docker run --name rmx alpine ls", "allow"),
    ("kubectl-ls", "kubectl exec pod -- ls /", "allow"),
    # the script's (the code's) arguments are no command python runs, but the script may run them:
    # a word a deny rule names among them asks (bash._argument_commands), it is not denied
    ("python-script", "python script.py rm", "ask"),
    ("python-code", "python -c 'print(1)' rm", "ask"),
    ("python-script-other", "python script.py --mode fast", "allow"),
]


@pytest.mark.parametrize(("command", "expected"), [r[1:] for r in ROWS], ids=[r[0] for r in ROWS])
async def test_runner_rows(world, command, expected):
    ctx = make_ctx(world.project, allow=RUNNER_ALLOWS, deny=RM)
    verdict = await decide_bash(ctx, command)
    assert verdict_name(verdict) == expected, verdict


PYTHON_ROWS = [
    ("python -m pip uninstall -y x", "deny"),
    ("python3 -I -m pip uninstall -y x", "deny"),
    ("python -Im pip uninstall x", "deny"),
    ("python -mpip uninstall x", "deny"),
    ("python -W ignore -m pip uninstall x", "deny"),
    ("python -X dev -m pip uninstall x", "deny"),
    ("python3.12 -m pip uninstall x", "deny"),
    ("python -m pip install x", "allow"),
    ("python -c 'import pip' -m pip uninstall x", "ask"),  # -c ends python's options: the code's argv
]


@pytest.mark.parametrize(("command", "expected"), PYTHON_ROWS)
async def test_python_m_runs_the_module_as_its_program(world, command, expected):
    ctx = make_ctx(world.project, allow=("Bash(python:*)", "Bash(python3:*)", "Bash(python3.12:*)"),
                   deny=("Bash(pip uninstall:*)",))
    verdict = await decide_bash(ctx, command)
    assert verdict_name(verdict) == expected, verdict


async def test_an_ask_rule_sees_through_a_runner(world):
    ctx = make_ctx(world.project, allow=("Bash(uv run:*)",), ask=("Bash(git push:*)",), mode="bypassPermissions")
    assert verdict_name(await decide_bash(ctx, "uv run git push origin main")) == "ask"
    assert verdict_name(await decide_bash(ctx, "uv run git status")) == "allow"


def test_runner_forms_are_extra_forms_not_the_innermost():
    (info,) = analyze_uncached("uv run --with rich rm x").commands
    assert info.text == "uv run --with rich rm x"  # allow rules match what the user allowed
    texts = [t for t, _known, _complete in info.form_texts]
    assert "rm x" in texts
    assert "rich rm x" not in texts  # --with is known to take a value


def test_unknown_option_width_gives_both_readings():
    forms = runner_forms(tuple(Word(w) for w in ("uv", "run", "--bogus", "rm", "x")))
    assert [" ".join(w.text for w in f) for f in forms] == ["rm x", "x"]


def test_too_many_readings_become_an_unknown_program():
    words = tuple(Word(w) for w in ("uv", "run", *["-a", "b"] * 12, "rm"))
    (form,) = runner_forms(words)
    assert not form[0].static


def test_every_runner_entry_names_its_path_words():
    for program, entries in RUNNERS.items():
        assert entries, program
        for path, _runner in entries:
            assert all(word and not word.startswith("-") for word in path), (program, path)


def _stub_bin(tmp_path: Path) -> tuple[Path, Path]:
    marker = tmp_path / "ran"
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    stub = bin_dir / "qc"
    stub.write_text(f"#!/bin/sh\necho qc >> {marker}\n")
    stub.chmod(0o755)
    return bin_dir, marker


def _ran_the_stub(tmp_path: Path, program: str, command: str) -> str:
    """Run ``command`` in real bash with a stub ``qc`` on PATH (and ``a.txt`` to read); what
    the stub logged.  Skips when ``program`` is not installed."""
    if shutil.which(program) is None:
        pytest.skip(f"{program} is not installed")
    bin_dir, marker = _stub_bin(tmp_path)
    (tmp_path / "a.txt").write_text("line\n")
    env = {"PATH": f"{bin_dir}:/usr/bin:/bin", "HOME": str(tmp_path), "TERM": "dumb"}
    subprocess.run(["/bin/bash", "-c", command], cwd=tmp_path, env=env, timeout=30,
                   stdin=subprocess.DEVNULL, capture_output=True)
    return marker.read_text() if marker.exists() else ""


async def _denied_under_its_rule(world, program: str, command: str) -> bool:
    ctx = make_ctx(world.project, allow=(f"Bash({program}:*)",), deny=("Bash(qc:*)",))
    return verdict_name(await decide_bash(ctx, command)) == "deny"


REAL = [
    ("script", "script -qc qc /dev/null"),
    ("script", "script -q -e --command 'true; qc' /dev/null"),
    ("fakeroot", "fakeroot qc"),
]


@pytest.mark.parametrize(("runner", "command"), REAL)
async def test_the_real_runner_runs_what_the_deny_rule_names(world, tmp_path, runner, command):
    """Ground truth first (the runner really runs qc), then the decision (denied)."""
    assert _ran_the_stub(tmp_path, runner, command).strip() == "qc"
    assert await _denied_under_its_rule(world, runner, command)


GLOB_ROWS = [
    ("npm e[x]ec rm x", "deny"),  # a glob may expand to the runner's word
    ("npm $SUB rm x", "deny"),
    ("python $OPT pip uninstall x", "deny"),
    ("python -[m] pip uninstall x", "deny"),
    ("npm install", "allow"),
    ("python app.py", "allow"),
]


@pytest.mark.parametrize(("command", "expected"), GLOB_ROWS)
async def test_words_known_at_run_time_may_be_the_runners_words(world, command, expected):
    ctx = make_ctx(world.project, allow=("Bash(npm:*)", "Bash(python:*)"),
                   deny=("Bash(rm:*)", "Bash(pip uninstall:*)"))
    assert verdict_name(await decide_bash(ctx, command)) == expected


GIT_ROWS = [
    # git subcommands that run shell code or a command they are given
    ("git rebase -x 'rm x' HEAD~3", "deny"),
    ("git rebase --exec='rm x' HEAD~3", "deny"),
    ("git rebase HEAD~3 --exec 'ls; rm x'", "deny"),
    ("git -C . rebase -x 'rm x' HEAD~3", "deny"),
    ("git bisect run rm x", "deny"),
    ("git submodule foreach 'rm x'", "deny"),
    ("git submodule foreach --recursive rm x", "deny"),
    ("git difftool -x 'rm x'", "deny"),
    ("git filter-branch --tree-filter 'rm x' HEAD", "deny"),
    ("git fetch --upload-pack='rm x' origin", "deny"),
    ("git clone -u 'rm x' origin d", "deny"),
    ("git push --receive-pack='rm x' origin", "deny"),
    ("git archive --remote=x --exec='rm x' HEAD", "deny"),
    ("git send-email --to-cmd='rm x' p.patch", "deny"),
    ("git re[b]ase -x 'rm x' HEAD", "deny"),  # a glob may expand to rebase
    # shell code is analyzed like sh -c: a command in it no rule allows asks
    ("git rebase -x make HEAD~3", "ask"),
    ("git rebase -x 'pytest -q' HEAD~3", "allow"),
    ("git submodule foreach 'git status'", "allow"),
    ("git rebase -x \"$CMD\" HEAD~3", "ask"),
    ("git fetch origin", "allow"),
    ("git rebase -i HEAD~3", "allow"),
]


def _real_repository(project) -> None:
    """A repository git can list (``world``'s ``.git`` holds only a config): a rebase brings
    other revisions' files, which are checked against the listed history (``git_worktree``)."""
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(project), "GIT_CONFIG_NOSYSTEM": "1"}
    for argv in (["init", "-q"], ["-c", "user.name=a", "-c", "user.email=a@b", "commit", "-q", "--allow-empty", "-m", "x"]):
        subprocess.run(["git", *argv], cwd=project, env=env, check=True, capture_output=True)


@pytest.mark.parametrize(("command", "expected"), GIT_ROWS)
async def test_git_subcommands_that_run_commands(world, command, expected):
    if "rebase" in command and shutil.which("git"):
        _real_repository(world.project)
    ctx = make_ctx(world.project, allow=("Bash(git:*)", "Bash(pytest:*)"), deny=RM)
    assert verdict_name(await decide_bash(ctx, command)) == expected


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
async def test_git_rebase_really_runs_its_exec_command(world, tmp_path):
    """Ground truth: ``git rebase -x qc`` runs qc once per commit; then: denied."""
    bin_dir, marker = _stub_bin(tmp_path)
    repo = tmp_path / "repo"
    env = {"PATH": f"{bin_dir}:{os.environ.get('PATH', '/usr/bin:/bin')}", "HOME": str(tmp_path),
           "GIT_CONFIG_NOSYSTEM": "1", "GIT_AUTHOR_NAME": "a", "GIT_AUTHOR_EMAIL": "a@b",
           "GIT_COMMITTER_NAME": "a", "GIT_COMMITTER_EMAIL": "a@b"}
    subprocess.run(["git", "init", "-q", str(repo)], env=env, check=True, capture_output=True)
    for n in range(2):
        subprocess.run(["git", "commit", "-q", "--allow-empty", "-m", str(n)], cwd=repo, env=env, check=True)
    command = "git rebase -q -x qc HEAD~1"
    subprocess.run(["/bin/bash", "-c", command], cwd=repo, env=env, timeout=60, capture_output=True)
    assert marker.read_text().split() == ["qc"]
    assert await _denied_under_its_rule(world, "git", command)


ALWAYS_ASK_ROWS = [
    # what always asks on its own asks inside a runner the user allowed
    ("uv run sudo ls", "ask"),
    ("uv run bash -c 'ls'", "ask"),
    ("uv run $TOOL x", "ask"),
    ("npx $PKG", "ask"),
    ("find . -exec sh -c 'ls' \\;", "ask"),
    ("find . -exec {} \\;", "ask"),  # runs every file it finds
    ("git rebase -x \"$CMD\" HEAD~2", "ask"),
    # plain commands inside stay the runner's allow rule's business
    ("uv run pytest", "allow"),
    ("find . -name x -exec ls {} \\;", "allow"),
    ("git rebase -x ls HEAD~2", "allow"),
    ("docker exec $C ls", "allow"),  # $C is the container
]


@pytest.mark.parametrize(("command", "expected"), ALWAYS_ASK_ROWS)
async def test_what_always_asks_asks_inside_an_allowed_runner(world, command, expected):
    if "rebase" in command and shutil.which("git"):
        _real_repository(world.project)
    ctx = make_ctx(world.project, allow=("Bash(uv run:*)", "Bash(find:*)", "Bash(git:*)", "Bash(npx:*)",
                                         "Bash(docker:*)"))
    assert verdict_name(await decide_bash(ctx, command)) == expected


OPTION_ROWS = [
    # an option of an allowed program that runs a command or shell code
    ("tar -xf a.tar --to-command='rm x'", "deny"),
    ("tar -I 'rm x' -xf a.tar", "deny"),
    ("tar --use-compress-program='rm x' -xf a.tar", "deny"),
    ("tar -cf a.tar --checkpoint=1 --rsh-command='rm x' h:a", "deny"),
    ("rsync -e 'rm x' a b:", "deny"),
    ("rsync -avze 'rm x' a b:", "deny"),
    ("rsync --rsh='sudo rm x' a b:", "deny"),
    ("zip -T -TT 'rm x' out.zip a.txt", "deny"),
    ("sort --compress-program=rm a.txt", "deny"),
    ("wget --use-askpass='rm x' http://example.com", "deny"),
    ("man -P 'rm x' ls", "deny"),
    ("aria2c --on-download-complete=rm https://example.com/a", "deny"),
    ("aria2c --on-download-error rm https://example.com/a", "deny"),
    ("scp -S rm a b:", "deny"),
    ("scp -o ProxyCommand='rm x' a b:", "deny"),
    ("ssh -oProxyCommand='rm x' host", "deny"),
    ("ssh -o 'LocalCommand rm x' -o PermitLocalCommand=yes host", "deny"),
    # GNU sed's e command and s///e flag
    ("sed -n '1e rm x' a.txt", "deny"),
    ("sed -ne '$e rm x' a.txt", "deny"),
    ("sed --expression='/a/e rm x' a.txt", "deny"),
    ("sed 's/x/y/e' a.txt", "ask"),  # runs the pattern space
    ("sed -f script.sed a.txt", "ask"),  # a script this decision cannot read
    ("sed \"s/$a/$b/\" a.txt", "ask"),  # $b may end in /e
    ("sed -n '1e ls' a.txt", "allow"),
    ("sed --sandbox -n '1e rm x' a.txt", "allow"),  # --sandbox refuses e
    ("sed -i 's/hello/world/g' a.txt", "allow"),
    ("sed -ie 's/a/b/' a.txt", "allow"),  # -ie is -i with the suffix e
    ("sed '/x/a hello; e rm x' a.txt", "allow"),  # appended text, not an e command
    # everyday uses stay allowed
    ("rsync -avz -e ssh src host:dst", "allow"),
    ("tar -czf x.tgz src", "allow"),
    ("ssh -o StrictHostKeyChecking=no host ls", "allow"),
    ("man ls", "allow"),
]


@pytest.mark.parametrize(("command", "expected"), OPTION_ROWS)
async def test_options_that_run_commands(world, command, expected):
    programs = ("tar", "rsync", "zip", "sort", "wget", "man", "scp", "ssh", "sed", "aria2c")
    ctx = make_ctx(world.project, allow=tuple(f"Bash({p}:*)" for p in programs), deny=RM)
    assert verdict_name(await decide_bash(ctx, command)) == expected


REAL_OPTIONS = [
    ("sed", "sed -n '1e qc' a.txt"),
    ("tar", "tar -cf a.tar --to-command=qc a.txt && tar -xf a.tar --to-command=qc"),
]


@pytest.mark.parametrize(("program", "command"), REAL_OPTIONS)
async def test_the_real_program_runs_the_option_command(world, tmp_path, program, command):
    """Ground truth: GNU sed's e and tar's --to-command run qc; then: denied."""
    assert "qc" in _ran_the_stub(tmp_path, program, command).split()
    assert await _denied_under_its_rule(world, program, command)


def test_sed_text_lines_are_not_commands():
    def runs(*args):
        return sed_commands(tuple(Word(a) for a in args))

    assert runs("a\\\nhello e x\\\nmore", "f") == []
    assert runs("a\\\ntext\n2e id", "f") == ["id"]
    assert runs("-n", "/a/,/b/{s/x/y/;p}", "f") == []
    assert runs("-i.bak", "s/a/b/e", "f") == [None]
    assert runs("f1", "-e", "1e id") == ["id"]  # with -e, every other word is a file
    assert runs("1k") is None  # a command this reader does not know


XARGS_ROWS = [
    ("echo rm x | xargs uv run", "ask"),  # xargs hands uv run its program
    ("echo x | xargs npx", "ask"),
    ("ls | xargs git rebase -x", "ask"),
    ("echo x | xargs uv run rm", "deny"),
    ("ls | xargs uv run pytest", "ask"),  # a file named --basetemp=.git would have pytest empty .git
    ("ls | xargs uv run pytest --", "allow"),
]


@pytest.mark.parametrize(("command", "expected"), XARGS_ROWS)
async def test_a_runner_under_xargs_runs_words_from_stdin(world, command, expected):
    ctx = make_ctx(world.project, allow=("Bash(uv run:*)", "Bash(npx:*)", "Bash(git:*)"), deny=RM)
    assert verdict_name(await decide_bash(ctx, command)) == expected


MORE_ROWS = [
    ("docker run --entrypoint rm alpine -rf /x", "deny"),  # the entrypoint is the program
    ("docker run --entrypoint=rm alpine x", "deny"),
    ("nix-shell -p hello cowsay --run 'rm x'", "deny"),  # -p takes several packages
    ("nix-shell shell.nix --run 'rm x'", "deny"),
    ("nix develop .#dev -c rm x", "deny"),
    ("script out.log -c 'rm x'", "deny"),  # the operand is the typescript file
    ("script -t -c 'rm x' out.log", "deny"),  # -t's file is attached, if any
    ("docker run --entrypoint ls alpine", "allow"),
    ("nix develop .#dev -c pytest", "allow"),
]


@pytest.mark.parametrize(("command", "expected"), MORE_ROWS)
async def test_runner_options_that_name_the_program(world, command, expected):
    ctx = make_ctx(world.project, allow=RUNNER_ALLOWS, deny=RM)
    assert verdict_name(await decide_bash(ctx, command)) == expected
