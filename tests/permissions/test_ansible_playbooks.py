"""An Ansible playbook's tasks run commands (``ansible_playbooks.py``, session 40).

``ansible-playbook site.yml`` with ``shell: rm -rf /tmp/x`` in a task ran ``rm`` under
``Bash(rm:*)`` in bypassPermissions, as did ``command``, ``raw``, ``script`` (a local script run
there) and ``local_action``: the playbook was not read (``ansible -a`` already was).  Each task's
command is now a command of the line that may run (``when:``, tags and hosts decide): a deny rule
asks.  (ansible-core is not in the test extras; the rows follow its documentation.)
"""

from __future__ import annotations

import pytest

from tests.permissions.conftest import verdict_name
from tests.permissions.tools import decide_bash, make_ctx

PLAYS = {
    "shell.yml": "- hosts: all\n  tasks:\n    - name: clean\n      shell: rm -rf /tmp/x\n",
    "fq.yml": "- hosts: all\n  tasks:\n    - ansible.builtin.shell:\n        cmd: rm -rf build\n",
    "argv.yml": "- hosts: localhost\n  tasks:\n    - block:\n        - command:\n            argv: [rm, -rf, '{{ d }}']\n",
    "raw.yml": "- hosts: all\n  pre_tasks:\n    - raw: rm -rf /opt/x\n",
    "handler.yml": "- hosts: all\n  handlers:\n    - name: h\n      command: rm -f /run/x.pid\n",
    "local.yml": "- hosts: all\n  tasks:\n    - local_action: shell rm x\n",
    "script.yml": "- hosts: all\n  tasks:\n    - script: deploy.sh --fast\n",
    "template.yml": "- hosts: all\n  tasks:\n    - shell: '{{ cleanup_cmd }} /tmp/x'\n",
    "roles.yml": "- hosts: all\n  roles: [web]\n",
    "include.yml": "- hosts: all\n  tasks:\n    - include_tasks: more.yml\n",
    "ok.yml": ("- hosts: all\n  tasks:\n    - command: echo \"rm x\"\n    - debug: msg=hi\n"
               "    - shell:\n        cmd: echo {{ x }} > /tmp/out\n    - apt: name=git\n"),
    "bad.yml": "hosts: all\n",
}
ROWS = [
    ("ansible-playbook shell.yml", "ask"),
    ("ansible-playbook -i hosts.ini -l web fq.yml", "ask"),
    ("ansible-playbook argv.yml", "ask"),
    ("ansible-playbook raw.yml", "ask"),
    ("ansible-playbook handler.yml", "ask"),
    ("ansible-playbook local.yml", "ask"),
    ("ansible-playbook script.yml", "ask"),  # deploy.sh's rm
    ("ansible-playbook template.yml", "ask"),  # a program only known at run time
    ("ansible-playbook roles.yml", "ask"),  # roles: not read
    ("ansible-playbook include.yml", "ask"),
    ("ansible-playbook bad.yml", "ask"),  # not a list of plays
    ('ansible-playbook "$P"', "ask"),
    ("ansible-playbook ok.yml", "allow"),  # echo 'rm x', a write to /tmp there
    ("ansible-playbook --check shell.yml", "allow"),  # check mode: shell does not run
    ("ansible-playbook --syntax-check shell.yml", "allow"),
    ("ansible-playbook --list-tasks shell.yml", "allow"),
    ("ansible-playbook missing.yml", "allow"),  # no such playbook: it stops
]


@pytest.mark.parametrize(("command", "expected"), ROWS)
async def test_playbook_tasks_meet_the_deny_rules(tmp_path, command, expected):
    for name, text in PLAYS.items():
        (tmp_path / name).write_text(text)
    (tmp_path / "deploy.sh").write_text("rm -rf y\n")
    ctx = make_ctx(tmp_path, allow=("Bash(*)",), deny=("Bash(rm:*)",), mode="bypassPermissions")
    verdict = verdict_name(await decide_bash(ctx, command))
    assert verdict == expected, (command, verdict)


async def test_a_task_writing_a_protected_path_asks(tmp_path):
    (tmp_path / "p.yml").write_text("- hosts: localhost\n  tasks:\n    - shell: echo x > .claude/settings.json\n")
    ctx = make_ctx(tmp_path, allow=("Bash(*)",), mode="bypassPermissions")
    assert verdict_name(await decide_bash(ctx, "ansible-playbook p.yml")) == "ask"
    free = make_ctx(tmp_path, allow=("Bash(*)",), mode="bypassPermissions")
    (tmp_path / "q.yml").write_text("- hosts: all\n  tasks:\n    - shell: make deploy\n")
    assert verdict_name(await decide_bash(free, "ansible-playbook q.yml")) == "allow"
