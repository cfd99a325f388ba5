"""The commands an Ansible playbook's tasks run: ``ansible-playbook site.yml``.

Each task of each play (``tasks``, ``pre_tasks``, ``post_tasks``, ``handlers``, and the
``block``/``rescue``/``always`` lists inside them) may run a command: the ``shell`` and ``raw``
modules shell code, ``command`` a command line (``cmd``, or ``argv`` as words), ``script`` a
local script file with its arguments (``ansible.builtin.…``/``ansible.legacy.…`` names too).
They run on the play's hosts — this machine with ``hosts: localhost``, ``connection: local``,
``delegate_to: localhost`` or ``local_action`` — so each is checked as a command of the line, in
the playbook's folder (``chdir`` not followed); ``when:``, tags, ``--limit`` and failures decide
which run, so none is certain (a deny rule asks).  ``{{ … }}`` templates are words only known at
run time.  Roles, ``include_*``/``import_*`` files, and a playbook that cannot be read are code
only known at run time.  ``--syntax-check``, ``--list-tasks``/``--list-hosts``/``--list-tags``
and ``--check`` (where shell and command do not run) run nothing.
"""

from __future__ import annotations

import os
import re
import shlex
from dataclasses import replace
from typing import Any

from .bash_analysis import CommandInfo
from .bash_words import Word, run_time_word
from .script_files import (
    NotKnown,
    Script,
    located,
    options_of,
    parsed_file,
    per_form,
    scripts_of_forms,
    templated,
    yaml_of,
)

PLAYBOOK_RUNNERS = frozenset({"ansible-playbook"})
_VALUES = frozenset({"-i", "--inventory", "-e", "--extra-vars", "-l", "--limit", "-t", "--tags", "--skip-tags",
                     "-u", "--user", "-c", "--connection", "-f", "--forks", "-T", "--timeout", "--vault-id",
                     "--vault-password-file", "--private-key", "--key-file", "-M", "--module-path",
                     "--start-at-task", "--become-user", "--become-method", "--ssh-common-args", "--ssh-extra-args",
                     "--scp-extra-args", "--sftp-extra-args"})
_QUIET = frozenset({"--syntax-check", "--list-tasks", "--list-hosts", "--list-tags", "-C", "--check", "-h", "--help",
                    "--version"})
_TASK_LISTS = ("pre_tasks", "tasks", "post_tasks", "handlers")
_BLOCKS = ("block", "rescue", "always")
_PREFIXES = ("ansible.builtin.", "ansible.legacy.")
_NOT_READ = frozenset({"include_tasks", "import_tasks", "include_role", "import_role", "include", "import_playbook",
                       "include_vars"})
_TEMPLATE = re.compile(r"\{\{.*?\}\}|\{%.*?%\}", re.DOTALL)
_MAX_TASKS = 2000
_RUNTIME = run_time_word("ANSIBLE_VALUE")
_TOKEN = "\x00ansible-value\x00"  # a template in a command task's line, while it is split into words


def playbook_scripts(info: CommandInfo, cwds: list[str], memo: dict[tuple[object, ...], object]) -> list[Script]:
    """The commands the playbooks of this command may run (every form)."""
    return scripts_of_forms(info, cwds, memo, PLAYBOOK_RUNNERS, _READ, per_folder=True)


def _of_form(form: tuple[Word, ...], cwd: str, cwd_unknown: bool) -> list[Script]:
    playbooks: list[Word] = []
    for option, _value, word in options_of(form[1:], _VALUES, "ansible-playbook"):
        if option in _QUIET:
            return []
        if not option:
            playbooks.append(word)
    found: list[Script] = []
    for word in playbooks:
        if word.literal is None:
            raise NotKnown(f"the playbook {word.text} is only known at run time")
        if cwd_unknown:
            raise NotKnown("the playbook is found from a folder only known at run time")
        found += _Playbook(os.path.realpath(os.path.join(cwd, os.path.expanduser(word.literal)))).read()
    return found


_READ = per_form("the tasks of the playbook", _of_form)


class _Playbook:
    def __init__(self, path: str) -> None:
        self.path, self.folder = path, os.path.dirname(path)
        self.found: list[Script] = []
        self.count = 0

    def read(self) -> list[Script]:
        data, why = parsed_file(self.path, yaml_of)
        if data is None:
            if not why:
                return []  # no such playbook: ansible-playbook stops
            raise NotKnown(f"{self.path} could not be read ({why})")
        if not isinstance(data, list):
            raise NotKnown(f"{self.path} is not a list of plays")
        for play in data:
            if not isinstance(play, dict):
                raise NotKnown(f"{self.path}: a play is not a mapping")
            if "import_playbook" in play or "ansible.builtin.import_playbook" in play:
                raise NotKnown(f"{self.path} imports another playbook, not read here")
            if play.get("roles"):
                raise NotKnown(f"{self.path}: a play's roles are not read here")
            for key in _TASK_LISTS:
                self._tasks(play.get(key))
        return self.found

    def _tasks(self, tasks: Any) -> None:
        if tasks is None:
            return
        if not isinstance(tasks, list):
            raise NotKnown(f"{self.path}: a task list is not a list")
        for task in tasks:
            self.count += 1
            if self.count > _MAX_TASKS:
                raise NotKnown(f"{self.path} has more than {_MAX_TASKS} tasks")
            if not isinstance(task, dict):
                raise NotKnown(f"{self.path}: a task is not a mapping")
            for key in _BLOCKS:
                self._tasks(task.get(key))
            for key, value in task.items():
                self._module(str(key), value, task)

    def _module(self, key: str, value: Any, task: dict[str, Any]) -> None:
        name = key
        for prefix in _PREFIXES:
            name = name.removeprefix(prefix)
        if name in _NOT_READ:
            raise NotKnown(f"{self.path}: {key} names tasks in another file, not read here")
        if name == "local_action":  # local_action: shell rm x (or a mapping with module:)
            if isinstance(value, str):
                module, _, args = value.partition(" ")
                self._module(module, args, task)
            elif isinstance(value, dict) and isinstance(value.get("module"), str):
                self._module(value["module"], {k: v for k, v in value.items() if k != "module"}, task)
            return
        if name in ("shell", "raw", "win_shell"):
            self._add(self._free_form(value, task, key), shell=True)
        elif name == "command":
            argv = value.get("argv") if isinstance(value, dict) else (task.get("args") or {}).get("argv")
            if argv is not None:
                if not isinstance(argv, list):
                    raise NotKnown(f"{self.path}: the argv of a command task is not a list")
                self._add(" ".join(shlex.quote(str(a)) for a in argv), shell=False)
            else:
                self._add(self._free_form(value, task, key), shell=False)
        elif name == "script":
            line = self._free_form(value, task, key)
            words = line.split(None, 1)
            if not words:
                return
            self.found.extend(replace(script, cwd=self.folder, certain=False)
                              for script in located(Word(words[0]), [self.folder], search_path=False))

    def _free_form(self, value: Any, task: dict[str, Any], key: str) -> str:
        """A module's command: the free-form text (``shell: rm x``) or its ``cmd``."""
        if isinstance(value, dict):
            value = value.get("cmd", value.get("_raw_params"))
        if value is None:
            args = task.get("args")
            value = args.get("cmd") if isinstance(args, dict) else None
        if not isinstance(value, str):
            raise NotKnown(f"{self.path}: a {key} task's command is not text")
        return value

    def _add(self, text: str, shell: bool) -> None:
        if shell:
            code = templated(text, _TEMPLATE, lambda _m: _RUNTIME)
        else:  # the command module splits the line into words, no shell: quote what a shell would read
            try:
                words = shlex.split(_TEMPLATE.sub(_TOKEN, text))
            except ValueError:
                raise NotKnown(f"{self.path}: a command task's line does not split into words") from None
            code = " ".join(_RUNTIME.join(shlex.quote(part) for part in w.split(_TOKEN)) for w in words)
        self.found.append(Script(f"a task of {self.path}", self.path, code=code, cwd=self.folder, certain=False))


__all__ = ["PLAYBOOK_RUNNERS", "playbook_scripts"]
