"""The environment commands run with: the kernel's, minus Jupyter's terminal tweaks, plus login PATH.

The kernel inherited the user's environment from whatever started Jupyter.  ipykernel then
forces colours (``FORCE_COLOR``, ``CLICOLOR_FORCE``) and the inline matplotlib backend, which
make no sense for a subprocess; those are removed.  When Jupyter was not started from a login
shell (JupyterHub, a service) ``PATH`` can miss the user's own folders, so once per process the
login shell's environment is captured (``bash -l``, 5 s budget) and whatever the kernel lacks is
added from it: unknown variables, and PATH entries appended after the kernel's own.
Set ``JUPYTER_AGENT_BASH_LOGIN_ENV=0`` to skip the capture.  The settings files' ``env`` block
(``app_state.extra[ENV_KEY]``, put there by the session) is laid over the kernel's variables for
every process the agent starts, and for Bash commands, the variables SessionStart, CwdChanged
and FileChanged hooks left in ``CLAUDE_ENV_FILE`` over those (``permissions/hook_env.py``); the
kernel's own ``os.environ`` is left alone.

The permission check reads each line as a plain ``bash -c`` would, so the variables bash imports
that change how a line runs are not passed on: ``CDPATH`` (``cd src`` could land elsewhere),
``BASHOPTS`` / ``SHELLOPTS`` (``dotglob`` makes ``*`` match ``.env``), ``GLOBIGNORE``,
``POSIXLY_CORRECT`` (posix mode), ``BASH_ENV`` / ``ENV`` (a file every ``bash -c`` runs first)
and exported functions (``BASH_FUNC_ls%%`` turns ``ls`` into something else).
"""

from __future__ import annotations

import asyncio
import os
import re
import shutil
import subprocess
from collections.abc import Mapping
from dataclasses import replace
from typing import TYPE_CHECKING

from ...core.child_process import run_child
from ...permissions.path_programs import add_search_path

if TYPE_CHECKING:
    from ...core.context import ToolUseContext

LOGIN_ENV_SWITCH = "JUPYTER_AGENT_BASH_LOGIN_ENV"
ENV_KEY = "settings_env"  # app_state.extra: the settings files' merged ``env`` block
_DROP = ("FORCE_COLOR", "CLICOLOR_FORCE", "CLICOLOR", "JPY_PARENT_PID", "PYDEVD_USE_FRAME_EVAL")
_NOT_INHERITED = frozenset({"_", "SHLVL", "PWD", "OLDPWD"})
# read by bash at start-up; each changes what a line does from what the permission check read
SHELL_CHANGERS = frozenset({"CDPATH", "BASHOPTS", "SHELLOPTS", "GLOBIGNORE", "POSIXLY_CORRECT",
                            "BASH_ENV", "ENV", "PS4", "PROMPT_COMMAND", "IFS"})
_SET = {"PAGER": "cat", "GIT_PAGER": "cat", "GIT_TERMINAL_PROMPT": "0", "TERM": "dumb"}
_CAPTURE_TIMEOUT = 5.0
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")

_login_env: dict[str, str] | None = None


_bash_found: tuple[str | None, str] | None = None  # (the kernel's PATH, the bash found on it)


def find_bash() -> str:
    """The bash executable; raises FileNotFoundError when there is none.  Looked up again when
    the kernel's PATH changed or the one found is no longer there."""
    global _bash_found
    path = os.environ.get("PATH")
    if _bash_found is not None and _bash_found[0] == path and os.access(_bash_found[1], os.X_OK):
        return _bash_found[1]
    found = shutil.which("bash") or ("/bin/bash" if os.path.exists("/bin/bash") else None)
    if found is None:
        raise FileNotFoundError("bash was not found on PATH; the Bash tool needs bash.")
    _bash_found = (path, found)
    return found


def command_environment(
    base: Mapping[str, str], login: Mapping[str, str] | None = None
) -> dict[str, str]:
    """Pure: the environment for a command, from the kernel's ``base`` and the ``login`` one."""
    env = dict(base)
    for key, value in (login or {}).items():
        if key == "PATH":
            have = env.get("PATH", "").split(os.pathsep)
            extra = [p for p in value.split(os.pathsep) if p and p not in have]
            env["PATH"] = os.pathsep.join([*filter(None, have), *extra])
        elif key not in env and key not in _NOT_INHERITED and not key.startswith("BASH_FUNC_"):
            env[key] = value
    for key in _DROP:
        env.pop(key, None)
    for key in [k for k in env if k in SHELL_CHANGERS or k.startswith("BASH_FUNC_")]:
        del env[key]
    if env.get("MPLBACKEND", "").startswith("module://"):
        env.pop("MPLBACKEND")
    env.update(_SET)
    return env


def settings_env(context: ToolUseContext | None) -> Mapping[str, str]:
    """The settings files' ``env`` block for this session ({} without one)."""
    if context is None:
        return {}
    value = context.get_app_state().extra.get(ENV_KEY)
    return value if isinstance(value, Mapping) else {}


def use_settings_env(context: ToolUseContext, env: Mapping[str, str]) -> None:
    """Run the session's processes with ``env`` over the kernel's variables from now on.  A PATH
    it sets is registered with the permission check: its programs are protected like the
    kernel's (``path_programs.py``)."""
    if "PATH" in env:
        add_search_path(env["PATH"])
    frozen = dict(env)
    context.set_app_state(lambda s: replace(s, extra={**s.extra, ENV_KEY: frozen}))


def process_environment(context: ToolUseContext | None) -> dict[str, str]:
    """The kernel's variables with the session's settings ``env`` over them: what PowerShell and
    a language server start with."""
    return {**os.environ, **settings_env(context)}


async def session_environment(context: ToolUseContext | None = None) -> dict[str, str]:
    """The environment for this process's commands (login capture done once, then cached),
    with the session's settings ``env`` over the kernel's variables.  Built again only when
    one of those changed (a cell's ``os.environ[...] = ...`` is seen by the next command)."""
    global _login_env
    env = settings_env(context)
    hook_set, hook_unset = hook_variables(context)
    if hook_set:
        env = {**env, **hook_set}
    login: Mapping[str, str] | None = None
    if os.environ.get(LOGIN_ENV_SWITCH, "1") not in ("0", "false", "no"):
        if _login_env is None:
            # No lock: calls racing on the very first capture each run it (harmless), and a lock
            # would tie this module to one event loop.
            _login_env = await _capture_login_env()
            if "PATH" in _login_env:  # the folders it adds hold programs the commands run
                add_search_path(_login_env["PATH"])
        login = _login_env
    return dict(_built_environment(env, login, hook_unset))


def hook_variables(context: ToolUseContext | None) -> tuple[dict[str, str], frozenset[str]]:
    """What the session's SessionStart / CwdChanged / FileChanged hooks left in
    ``CLAUDE_ENV_FILE``: the variables set, and the names unset."""
    from ...permissions.hooks import get_hook_runner

    runner = get_hook_runner(context) if context is not None else None
    return runner.env_files.overlay() if runner is not None else ({}, frozenset())


_last_built: tuple[object, dict[str, str], Mapping[str, str] | None, frozenset[str], dict[str, str]] | None = None


def _built_environment(
    env: Mapping[str, str], login: Mapping[str, str] | None, unset: frozenset[str] = frozenset()
) -> dict[str, str]:
    """``command_environment`` of the kernel's variables (``env`` over them) and ``login``,
    ``unset`` taken out, remembered for as long as all four stay equal.  The kernel's variables
    are compared as ``os.environ`` keeps them (bytes, one C-level comparison); without that
    store, no memory."""
    global _last_built
    raw = getattr(os.environ, "_data", None)
    snapshot = dict(raw) if isinstance(raw, dict) else None
    last = _last_built
    if (snapshot is not None and last is not None and last[0] == snapshot and last[1] == env and last[2] is login
            and last[3] == unset):
        return last[4]
    base: Mapping[str, str] = {**os.environ, **env} if env else os.environ
    built = command_environment(base, login)
    for name in unset:  # after the login variables, which would bring an unset one back
        built.pop(name, None)
    if snapshot is not None:
        _last_built = (snapshot, dict(env), login, unset, built)
    return built


async def _capture_login_env() -> dict[str, str]:
    """``bash -l`` run once to print its environment; {} when it fails or is slow."""
    try:
        done = await run_child([find_bash(), "-l", "-c", "env -0"], stderr=subprocess.DEVNULL, timeout=_CAPTURE_TIMEOUT)
    except (OSError, asyncio.TimeoutError):
        return {}
    if done.returncode != 0:
        return {}
    out = done.stdout
    env = {}
    for item in out.decode("utf-8", "replace").split("\0"):
        key, sep, value = item.partition("=")
        if sep and _NAME.fullmatch(key):  # a chatty profile's own output is not a variable
            env[key] = value
    return env
