"""Cluster launchers run a YAML's commands on their cloud machines (``cluster_tasks.py``, session 40).

``sky launch task.yaml`` (``sky exec CLUSTER``, ``sky jobs launch``, ``sky serve up``) ran the
task's ``rm`` under ``Bash(rm:*)`` in bypassPermissions, as ``sky exec dev 'rm -rf x'`` did, and
``ray up cluster.yaml`` its ``setup_commands``, ``ray exec cluster.yaml 'rm x'`` its command:
none was read.  They are another machine's commands now, held to the deny and ask rules only
(their paths are the cluster's); ``sky launch --workdir .`` sends the folder, a read of every
file in it.
"""

from __future__ import annotations

import pytest

from tests.permissions.conftest import verdict_name
from tests.permissions.tools import decide_bash, make_ctx

TASK = """\
resources:
  accelerators: A100:1
setup: |
  pip install -r requirements.txt
run: |
  python train.py
  rm -rf /tmp/ckpt
"""
FILES = {
    "task.yaml": TASK,
    "ok.yaml": "setup: pip install torch\nrun: python train.py > /tmp/log.txt\n",
    "pipe.yaml": "name: a\nrun: echo a\n---\nname: b\nrun: rm -rf b\n",
    "bad.yaml": "run: [1, 2]\n",
    "cluster.yaml": "cluster_name: c\nsetup_commands:\n  - pip install torch\n  - rm -rf ~/cache\n",
    "ray-ok.yaml": "cluster_name: c\nhead_setup_commands: [pip install ray]\n",
    "ray-bad.yaml": "setup_commands: rm -rf x\n",
    "wd.yaml": "workdir: .\nrun: python train.py\n",
    "fm.yaml": "file_mounts:\n  /remote/cfg: ./conf\n  /remote/data: s3://bucket/data\nrun: python x.py\n",
    "fm-env.yaml": "file_mounts:\n  /r: {source: .env, mode: COPY}\nrun: ls\n",
    "ray-sync.yaml": "cluster_name: c\nfile_mounts:\n  '~/proj': '.'\n",
}
ROWS = [
    ("sky launch task.yaml", "deny"),
    ("sky launch -c dev --gpus A100:1 task.yaml", "deny"),
    ("sky exec dev task.yaml", "deny"),
    ("sky jobs launch task.yaml", "deny"),
    ("sky serve up task.yaml", "deny"),
    ("sky launch pipe.yaml", "deny"),  # a pipeline: each task's run
    ("sky exec dev 'rm -rf x'", "deny"),  # a command line
    ("sky exec dev rm -rf x", "deny"),
    ("sky launch bad.yaml", "ask"),  # a run that is not shell code: not known
    ("sky launch --workdir . -c dev ok.yaml", "ask"),  # sends .env, which Read(./.env) denies
    ("sky launch ok.yaml", "allow"),  # a write to the cluster's /tmp: not this machine's
    ("sky launch -c dev 'echo hi'", "allow"),
    ("sky launch missing.yaml", "allow"),  # no such file: sky stops
    ("sky status", "allow"),
    ("ray up cluster.yaml", "deny"),
    ("ray up -y --min-workers 2 cluster.yaml", "deny"),
    ("ray up -v --no-config-cache cluster.yaml", "deny"),  # -v is a flag: the YAML is still read
    ("ray exec cluster.yaml 'rm -rf /tmp/x'", "deny"),
    ("ray exec cluster.yaml 'nvidia-smi'", "allow"),
    ("ray up ray-ok.yaml", "allow"),
    ("ray up ray-bad.yaml", "ask"),  # not a list of commands: not known
    ("ray status", "allow"),
    # what the YAML sends to the cluster: a read of every file in it
    ("sky launch wd.yaml", "ask"),  # workdir: . holds .env
    ("sky launch fm-env.yaml", "ask"),
    ("ray up ray-sync.yaml", "ask"),
    ("sky launch fm.yaml", "allow"),  # ./conf and a bucket: nothing denied
    ("ray job submit --working-dir . -- python train.py", "ask"),  # sends .env with the job
    ("ray job submit --address http://head:8265 -- python train.py", "allow"),
    ("sky down dev", "allow"),
]


@pytest.mark.parametrize(("command", "expected"), ROWS)
async def test_sky_tasks_meet_the_deny_rules(tmp_path, command, expected):
    for name, text in FILES.items():
        (tmp_path / name).write_text(text)
    (tmp_path / ".env").write_text("KEY=1\n")
    (tmp_path / "conf").mkdir()
    (tmp_path / "conf" / "a.txt").write_text("x\n")
    ctx = make_ctx(tmp_path, allow=("Bash(*)",), deny=("Bash(rm:*)", "Read(./.env)"), mode="bypassPermissions")
    verdict = verdict_name(await decide_bash(ctx, command))
    assert verdict == expected, (command, verdict)


async def test_the_sky_rule_covers_the_task_except_ask_rules(tmp_path):
    (tmp_path / "task.yaml").write_text("run: |\n  git push origin main\n")
    (tmp_path / "ok.yaml").write_text("run: echo hi > /etc/motd\n")
    ctx = make_ctx(tmp_path, allow=("Bash(sky:*)",), ask=("Bash(git push:*)",))
    assert verdict_name(await decide_bash(ctx, "sky launch task.yaml")) == "ask"
    assert verdict_name(await decide_bash(ctx, "sky launch ok.yaml")) == "allow"
