"""Commands run on another machine or in a container meet the deny and ask rules (session 40).

``ssh HOST CMD`` joins the words after the host into one line for the host's shell; before this,
only ``ssh localhost CMD`` was read, so ``ssh build-server rm -rf data`` ran under ``Bash(rm:*)``
denied in bypassPermissions (and under ``Bash(ssh:*)`` in any mode), while ``docker exec``,
``kubectl exec``, ``ansible -a`` and ``rsync --rsync-path`` already met the rules.  Now:

* **Another machine** (``ssh``, ``autossh``, ``mosh``, ``sshpass … ssh``, ``pdsh``, ``pssh``,
  ``vagrant ssh -c``/``--``, ``docker-machine ssh``, ``gcloud compute ssh --command``/``--``,
  ``fly ssh console -C``, ``gh codespace ssh --``, ``heroku run``): its commands meet the deny and
  ask rules, and nothing else — their paths, files and programs are that machine's, so
  ``ssh host 'cat .env'`` is not this project's ``.env`` and a write to ``/tmp`` there is no write
  here.  Code only known at run time (``ssh host "$CMD"``, a line that does not parse, and with
  no command the login shell reading standard input: ``ssh host < deploy.sh``, ``echo … | ssh
  host``) asks under a deny or ask rule, as ``bash -c "$X"`` does; ``-N``, ``-n``, ``-O``,
  ``-W``, ``-G`` run no shell (a tunnel to a remote Jupyter stays quiet).
* **Containers and machines of this computer that share its folders** (``distrobox``,
  ``toolbox run``, ``flatpak-spawn --host``, ``apptainer``/``singularity exec``, ``guix shell --``,
  ``lima``, ``multipass``, ``lxc``/``incus exec``, ``colima``/``minikube ssh``, ``nerdctl``, ``ctr``,
  ``crictl``, ``buildah run``, ``kubectl run|debug``, ``oc exec|rsh|run|debug``): what they run is
  checked as ``docker exec``'s is, as a command of the line.

Each row was an **allow** before (bypassPermissions, ``Bash(rm:*)`` denied).
"""

from __future__ import annotations

import pytest

from jupyter_agent.permissions.bash_analysis import analyze_uncached
from jupyter_agent.permissions.hook_match import matcher_applies
from jupyter_agent.tools.bash import BashInput, BashTool
from tests.permissions.conftest import verdict_name
from tests.permissions.tools import decide_bash, make_ctx

REMOTE = [
    "ssh build-server rm -rf data",
    "ssh build-server 'rm -rf data'",
    "ssh -p 2222 me@build-server 'ls; rm x'",
    "ssh build-server -t rm x",  # ssh reads options after the host, up to the command
    "ssh build-server -- rm x",
    "ssh build-server \"cd /srv && rm -rf build\"",
    "ssh build-server 'bash -c \"rm x\"'",
    "ssh build-server sudo rm x",
    "ssh ssh://me@build-server:22 rm x",
    "ssh -o RemoteCommand='rm -rf data' build-server",  # the command ssh runs when the line gives none
    "ssh -oRemoteCommand='rm -rf data' build-server",
    "sshpass -p pw ssh build-server rm x",
    "autossh -M 0 build-server rm x",
    "mosh build-server -- rm x",
    "mosh build-server rm x",
    "pdsh -w node[1-4] rm x",
    "pssh -H node1 -l me rm x",
    "parallel-ssh -h hosts.txt rm x",
    "vagrant ssh -c 'rm x'",
    "vagrant ssh default -- rm x",
    "docker-machine ssh dev rm x",
    "gcloud compute ssh vm --zone z --command 'rm x'",
    "gcloud compute ssh vm -- rm x",
    "fly ssh console -C 'rm x'",
    "flyctl ssh console --app a --command 'rm x'",
    "gh codespace ssh -c cs -- rm x",
    "gh cs ssh -- rm x",
    "heroku run rm x",
    "heroku run -a app rm x",
    "aws ssm send-command --document-name AWS-RunShellScript --parameters 'commands=[\"ls\",\"rm -rf /data\"]'",
    "aws --profile prod ssm send-command --document-name AWS-RunShellScript "
    "--parameters '{\"commands\": [\"rm x\"]}' --instance-ids i-1",
    "az vm run-command invoke -g rg -n vm --command-id RunShellScript --scripts 'echo hi' 'rm -rf /data'",
]
SHARED = [
    "distrobox enter box -- rm x",
    "distrobox-enter -n box -- rm x",
    "toolbox run rm x",
    "toolbox run -c fedora rm x",
    "flatpak-spawn --host rm x",
    "flatpak run --command=rm org.example.App x",
    "apptainer exec img.sif rm x",
    "singularity exec --bind /data img.sif rm x",
    "guix shell python -- rm x",
    "lima rm x",
    "limactl shell default rm x",
    "multipass exec vm -- rm x",
    "lxc exec c -- rm x",
    "incus exec c --cwd /root -- rm x",
    "colima ssh -- rm x",
    "minikube ssh 'rm x'",
    "nerdctl exec c rm x",
    "nerdctl run --rm img rm x",
    "ctr run docker.io/library/alpine:latest id rm x",
    "ctr task exec --exec-id e1 c rm x",
    "crictl exec -i c rm x",
    "buildah run c rm x",
    "kubectl run p --image=busybox -- rm x",
    "kubectl debug node/n -it --image=busybox -- rm x",
    "oc exec p -- rm x",
    "oc rsh p rm x",
    "with-contenv rm x",
]
STILL_ALLOWED = [
    "ssh build-server ls",
    "ssh -N -L 8888:localhost:8888 build-server",  # a tunnel to a remote Jupyter: no shell runs
    "ssh -fN -L 8888:localhost:8888 me@build-server",
    "autossh -M 0 -N -L 8888:localhost:8888 build-server",
    "ssh -n build-server",
    "ssh -O check build-server",
    "ssh -Ocheck build-server",
    "ssh -o RemoteCommand=uptime build-server",
    "ssh -W db:5432 bastion",
    "ssh -G build-server",
    "ssh -V",
    "pdsh -L",
    "ssh build-server 'cat .env'",  # that machine's .env
    "ssh build-server 'echo done > /tmp/marker'",  # a write there
    "ssh build-server 'cd /srv && make'",  # its make, its Makefile
    "ssh -o StrictHostKeyChecking=no build-server uptime",
    "vagrant ssh",
    "vagrant ssh -c 'ls'",
    "heroku run python manage.py migrate",
    "gcloud compute ssh vm --command 'nvidia-smi'",
    "pdsh -w node[1-4] uptime",
    "gh pr list",
    "toolbox run ls",
    "kubectl run p --image=busybox -- ls",
    "aws ssm send-command --document-name AWS-RunShellScript --parameters commands=uptime",
    "az vm run-command invoke -g rg -n vm --command-id RunShellScript --scripts nvidia-smi",
    "aws s3 ls", "az vm list",
]


@pytest.mark.parametrize("command", REMOTE + SHARED)
async def test_what_runs_elsewhere_meets_the_deny_rules(tmp_path, command):
    ctx = make_ctx(tmp_path, allow=("Bash(*)",), deny=("Bash(rm:*)",), mode="bypassPermissions")
    assert verdict_name(await decide_bash(ctx, command)) == "deny", command


@pytest.mark.parametrize("command", STILL_ALLOWED)
async def test_what_no_rule_names_still_runs(tmp_path, command):
    (tmp_path / ".env").write_text("S=1\n")
    ctx = make_ctx(tmp_path, allow=("Bash(*)",), deny=("Bash(rm:*)", "Read(./.env)"), mode="bypassPermissions")
    assert verdict_name(await decide_bash(ctx, command)) == "allow", command


@pytest.mark.parametrize("command", ['ssh build-server "$CMD"', "ssh build-server 'if [ 1'",
                                     "pdsh -w n1 \"$CMD\"", "vagrant ssh -c \"$X\"",
                                     # no command: the login shell runs what it reads from stdin
                                     "ssh build-server < deploy.sh", "cat deploy.sh | ssh build-server",
                                     "ssh build-server <<'EOF'\nrm -rf data\nEOF",
                                     "ssh build-server 'bash -s' < deploy.sh", "ssh -T me@build-server",
                                     "pdsh -w node[1-4] < commands.txt",
                                     # a Windows machine's PowerShell: a language not read here
                                     "aws ssm send-command --document-name AWS-RunPowerShellScript "
                                     "--parameters commands=dir",
                                     "az vm run-command invoke -g r -n v --command-id RunPowerShellScript --scripts dir",
                                     "aws ssm send-command --document-name AWS-RunShellScript --parameters \"$P\""])
async def test_code_only_known_at_run_time_there_asks_under_a_deny_rule(tmp_path, command):
    ctx = make_ctx(tmp_path, allow=("Bash(*)",), deny=("Bash(rm:*)",), mode="bypassPermissions")
    assert verdict_name(await decide_bash(ctx, command)) == "ask", command
    free = make_ctx(tmp_path, allow=("Bash(*)",), mode="bypassPermissions")  # no rule it may match
    assert verdict_name(await decide_bash(free, command)) == "allow", command


async def test_the_ssh_rule_covers_the_remote_command_except_deny_and_ask_rules(tmp_path):
    """Under ``Bash(ssh:*)`` in the default mode: the remote command needs no rule of its own
    (the ssh rule lets it run), its paths are not this machine's, ask rules still ask."""
    ctx = make_ctx(tmp_path, allow=("Bash(ssh:*)",), ask=("Bash(git push:*)",), deny=("Read(./.env)",))
    for command, expected in [
        ("ssh build-server pytest -q", "allow"),
        ("ssh build-server 'echo hi > /etc/motd'", "allow"),
        ("ssh build-server 'cat .env'", "allow"),
        ("ssh build-server 'cd /srv && git push'", "ask"),
        ("ssh -J bastion build-server git push origin main", "ask"),
        ("ssh localhost 'ls -la'", "ask"),  # this machine: its home folder, outside the project
    ]:
        assert verdict_name(await decide_bash(ctx, command)) == expected, command


def test_remote_commands_are_kept_apart_from_the_lines_own():
    """The analysis lists them apart: path, write and script checks never see them."""
    analysis = analyze_uncached("ssh build-server 'rm -rf /srv/x > /tmp/log'")
    assert [c.text for c in analysis.remote] == ["rm -rf /srv/x"]
    assert analysis.redirects == []  # /tmp/log is written there
    assert all(c.text != "rm -rf /srv/x" for c in analysis.commands)
    local = analyze_uncached("ssh localhost 'rm -rf x'")
    assert local.remote == [] and any(c.text == "rm -rf x" for c in local.commands)


def test_a_hook_matching_rm_sees_the_remote_rm(tmp_path):
    tool = BashTool()
    hit = BashInput(command="ssh build-server rm -rf data")
    assert matcher_applies("Bash(rm:*)", "Bash", tool, hit, str(tmp_path))
    miss = BashInput(command="ssh build-server ls")
    assert not matcher_applies("Bash(rm:*)", "Bash", tool, miss, str(tmp_path))
