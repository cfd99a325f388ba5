"""Shell code cloud CLIs send to a virtual machine: ``aws ssm send-command``, ``az vm run-command``.

``aws ssm send-command --document-name AWS-RunShellScript --parameters 'commands=["rm x"]'``
(also ``--parameters '{"commands": [...]}'`` and ``commands=rm x``) and ``az vm run-command
invoke --command-id RunShellScript --scripts 'rm x' 'ls'`` (``az vm run-command create
--script``) run each command line in the machine's shell: another machine's commands, which
meet the deny and ask rules only (``bash_runners._remote``).  Another document or command id
(PowerShell on Windows machines), parameters that do not read as a list of commands, or a word
only known at run time is code only known at run time.
"""

from __future__ import annotations

import json

from .bash_words import Word

_SHELL_DOCUMENTS = frozenset({"aws-runshellscript"})
_SHELL_IDS = frozenset({"runshellscript"})


def aws_ssm_commands(form: tuple[Word, ...]) -> list[str | None]:
    """The command lines of ``aws … ssm send-command``; None for one only known at run time."""
    words = [w.literal for w in form[1:]]
    if not _has_path(words, ("ssm", "send-command")):
        return []
    document = _value(words, "--document-name")
    parameters = _value(words, "--parameters")
    if document is None or parameters is None:
        return [None] if None in words or "--parameters" in words else []
    if document.lower() not in _SHELL_DOCUMENTS:
        return [None]
    return _ssm_parameters(parameters)


def az_run_commands(form: tuple[Word, ...]) -> list[str | None]:
    """The script lines of ``az vm run-command invoke|create``; None for one not known here."""
    words = [w.literal for w in form[1:]]
    if not _has_path(words, ("vm", "run-command", "invoke")) and not _has_path(words, ("vm", "run-command", "create")):
        return []
    command_id = _value(words, "--command-id")
    out: list[str | None] = []
    taking = False
    for word in words:
        if word is not None and word.startswith("-"):
            taking = word in ("--scripts", "--script")
            continue
        if taking:
            out.append(word)  # --scripts takes every word up to the next option
    if out and command_id is not None and command_id.lower() not in _SHELL_IDS:
        return [None]  # RunPowerShellScript: a language this analyzer does not read
    return out


def _has_path(words: list[str | None], path: tuple[str, ...]) -> bool:
    """Do the subcommand words ``path`` follow one another (global options and their values
    before them: ``aws --profile p ssm send-command``)?"""
    return any(tuple(words[i:i + len(path)]) == path for i in range(len(words)))


def _value(words: list[str | None], name: str) -> str | None:
    for i, word in enumerate(words):
        if word is None:
            continue
        if word == name:
            return words[i + 1] if i + 1 < len(words) else None
        if word.startswith(name + "="):
            return word[len(name) + 1:]
    return None


def _ssm_parameters(text: str) -> list[str | None]:
    """``{"commands": [...]}``, ``commands=[...]`` or ``commands=LINE``: the command lines."""
    text = text.strip()
    try:
        loaded = json.loads(text) if text.startswith("{") else None
    except ValueError:
        return [None]
    if isinstance(loaded, dict):
        commands = loaded.get("commands")
    elif text.startswith("commands="):
        value = text[len("commands="):]
        try:
            commands = json.loads(value) if value.startswith("[") else [value]
        except ValueError:
            return [None]
    else:
        return [None]
    if not isinstance(commands, list) or not all(isinstance(c, str) for c in commands):
        return [None]
    return list(commands)


__all__ = ["aws_ssm_commands", "az_run_commands"]
