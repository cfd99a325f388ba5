"""The commands the pre-commit framework runs from ``.pre-commit-config.yaml``.

``pre-commit run`` (and the hook it installs in git, which ``git commit`` runs: ``git_hooks``)
runs each hook's ``entry``: for a ``local`` repository a command the config itself spells
(``language: system``, ``entry: rm -rf build``), for a remote one the entry of that repository's
``.pre-commit-hooks.yaml`` unless the config overrides it.  ``bash.py`` holds them to the deny
and ask rules and the safety checks, as a script file's commands, in the repository's top folder
(pre-commit's own).  The files pre-commit hands each hook are the repository's, which
``formatters`` already counts as written by ``pre-commit run`` and by the hook git runs.

A remote repository's manifest is read from pre-commit's cache (``PRE_COMMIT_HOME``, else
``~/.cache/pre-commit``: ``db.db`` says which clone holds which ``repo``/``rev``); one not fetched
yet is code pre-commit will download, only known at run time.  ``language: script`` runs a file
of the repository (read if it is a shell script), ``fail`` and ``pygrep`` run nothing, and
``meta`` hooks are pre-commit's own.  ``pre-commit run HOOK`` runs that hook only; a config that
cannot be read, ``try-repo``, or a word only known at run time is code only known at run time.
"""

from __future__ import annotations

import os
import shlex
import sqlite3
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from .bash_analysis import CommandInfo
from .bash_git import top_level
from .bash_words import Word
from .paths import BadPath, resolve_below
from .script_files import Script, not_there, parsed_file, scripts_of_forms, yaml_of

PRE_COMMITS = frozenset({"pre-commit", "pre_commit", "prek"})  # python -m pre_commit; prek: a rewrite
CONFIG = ".pre-commit-config.yaml"
_VALUES = frozenset({"-c", "--config", "--color", "--hook-stage", "--from-ref", "--to-ref", "-s", "-o", "--source",
                     "--origin", "--remote-branch", "--local-branch", "--remote-name", "--remote-url", "--ref",
                     "--rev", "--hook-type", "-t", "--commit-msg-filename", "--prepare-commit-message-source",
                     "--commit-object-name", "--checkout-type", "--is-squash-merge", "--rewrite-command",
                     "--hook-dir"})
_RUNS_HOOKS = frozenset({"run", "hook-impl"})
_NOTHING_RUNS = frozenset({"fail", "pygrep"})
_SCRIPT_LANGUAGES = frozenset({"script", "unsupported_script"})
# languages whose hooks install nothing from their repository: a command the config gives is all that runs
_NO_INSTALL = frozenset({"system", "unsupported", "fail", "pygrep"})
_STAGE_NAMES = {"commit": "pre-commit", "push": "pre-push", "merge-commit": "pre-merge-commit"}  # the old names


def precommit_scripts(info: CommandInfo, cwds: list[str], memo: dict[tuple[object, ...], object]) -> list[Script]:
    """The hook commands the ``pre-commit`` of this command runs (every form)."""
    return scripts_of_forms(info, cwds, memo, PRE_COMMITS, _of_form, per_folder=True)


def _of_form(form: tuple[Word, ...], cwd: str, cwd_unknown: bool) -> list[Script]:
    name = form[0].text
    args = form[1:]
    if any(w.literal is None for w in args):
        return [Script(name, None, "its words are only known at run time")]
    texts = [w.literal or "" for w in args]
    if any(t in ("-h", "--help", "-V", "--version") for t in texts):
        return []
    config, stage, positional, i = CONFIG, "pre-commit", [], 0
    while i < len(texts):
        text = texts[i]
        option, eq, value = text.partition("=")
        if option in ("-c", "--config", "--hook-stage", "--hook-type", "-t") and (eq or i + 1 < len(texts)):
            if not eq:
                value, i = texts[i + 1], i + 1
            if option in ("-c", "--config"):
                config = value
            else:
                stage = _STAGE_NAMES.get(value, value)
        elif text in _VALUES:
            i += 1
        elif text == "--":
            positional.extend(texts[i + 1:])
            break
        elif text[:1] != "-":
            positional.append(text)
        i += 1
    sub = positional[0] if positional else "run"
    if sub == "try-repo":
        return [Script(name, None, "pre-commit try-repo runs the hooks of the repository it names")]
    if sub not in _RUNS_HOOKS:
        return []
    wanted = positional[1] if sub == "run" and len(positional) > 1 else None
    if cwd_unknown and config[:1] != "/":
        return [Script(name, None, "its config is found from a folder only known at run time")]
    try:
        path = resolve_below(config, cwd)[1]
    except BadPath:
        return [Script(name, None, f"{config} could not be resolved")]
    return _hooks_of(name, path, top_level(cwd), wanted, stage)


def _hooks_of(name: str, path: str, top: str, wanted: str | None, stage: str) -> list[Script]:
    repos, why = parsed_file(path, _repos)
    if repos is None and not why:
        return not_there(os.path.dirname(path), (os.path.basename(path),))  # pre-commit fails: no config
    if repos is None:
        return [Script(f"{name} ({os.path.basename(path)})", None, why)]
    found: list[Script] = []
    defaults = _stages(repos.default_stages)
    for repo in repos.repos:
        url, rev = repo.get("repo"), repo.get("rev")
        if url == "meta":
            continue
        hooks = repo.get("hooks")
        for hook in hooks if isinstance(hooks, list) else [None]:
            if not isinstance(hook, dict):
                found.append(Script(name, None, f"{os.path.basename(path)} has a hook this does not understand"))
                continue
            if wanted is not None and wanted not in (hook.get("id"), hook.get("alias")):
                continue
            script = _hook(path, top, str(url), rev, hook, stage, defaults)
            if script is not None:
                found.append(script)
    return found


def _hook(path: str, top: str, url: str, rev: object, hook: dict[str, Any], stage: str,
          defaults: frozenset[str] | None) -> Script | None:
    """The command one hook runs at ``stage`` (None: it runs nothing there)."""
    shown = f"pre-commit's hook {hook.get('id')!s}"
    entry, language, root, stages = hook.get("entry"), hook.get("language"), top, hook.get("stages")
    if url != "local" and not (isinstance(entry, str) and language in _NO_INSTALL):
        clone = _cached_clone(url, rev)
        if clone is None:
            return Script(shown, None, f"it comes from {url} at {rev}, which pre-commit has not fetched")
        manifest = _manifest(clone).get(hook.get("id"))
        if manifest is None:
            return Script(shown, None, f"{url} at {rev} has no hook {hook.get('id')!s} pre-commit has fetched")
        entry = entry if entry is not None else manifest.get("entry")
        language = language if language is not None else manifest.get("language")
        stages = stages if stages is not None else manifest.get("stages")
        root = clone
    runs_at = _stages(stages) if stages is not None else defaults
    if language in _NOTHING_RUNS or (runs_at is not None and stage not in runs_at):
        return None
    args = hook.get("args", [])
    if not isinstance(entry, str) or not isinstance(args, list):
        return Script(shown, None, "its entry is not a command this understands")
    try:
        words = [*shlex.split(entry), *(str(a) for a in args)]
    except ValueError as exc:
        return Script(shown, None, f"its entry could not be split ({exc})")
    if not words:
        return Script(shown, None, "its entry is empty")
    if language in _SCRIPT_LANGUAGES:  # a file of the repository, run by its path
        words[0] = os.path.join(root, words[0])
    return Script(shown, path, code=shlex.join(words), cwd=top)


def _stages(value: object) -> frozenset[str] | None:
    """The stages a hook runs at (None: every one; an unreadable value: every one too)."""
    if not isinstance(value, list):
        return None
    return frozenset(_STAGE_NAMES.get(str(s), str(s)) for s in value)


@dataclass(frozen=True)
class _Repos:
    repos: list[dict[str, Any]]
    default_stages: object


def _repos(data: bytes) -> _Repos:
    loaded = yaml_of(data)
    repos = loaded.get("repos") if isinstance(loaded, dict) else None
    if not isinstance(repos, list) or not all(isinstance(r, dict) for r in repos):
        raise ValueError("its repos are not a list of repositories")
    return _Repos(repos, loaded.get("default_stages"))


def _manifest_of(data: bytes) -> dict[object, dict[str, Any]]:
    loaded = yaml_of(data)
    return {hook.get("id"): hook for hook in loaded if isinstance(hook, dict)} if isinstance(loaded, list) else {}


def _store() -> str:
    home = os.environ.get("PRE_COMMIT_HOME")
    if home:
        return home
    cache = os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache")
    return os.path.join(cache, "pre-commit")


def _cached_clone(url: str, rev: object) -> str | None:
    """The folder of pre-commit's clone of ``url`` at ``rev`` (the one it reads the manifest
    from), or None when it has none."""
    db = os.path.join(_store(), "db.db")
    try:
        st = os.stat(db)
    except OSError:
        return None
    folder = _clones(db, st.st_ino, st.st_mtime_ns, st.st_size).get((url, str(rev)))
    return folder if folder is not None and os.path.isdir(folder) else None


@lru_cache(maxsize=4)
def _clones(db: str, _ino: int, _mtime: int, _size: int) -> dict[tuple[str, str], str]:
    try:
        with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as conn:
            rows = conn.execute("SELECT repo, ref, path FROM repos").fetchall()
    except sqlite3.Error:
        return {}
    return {(str(repo), str(ref)): str(path) for repo, ref, path in rows}


def _manifest(clone: str) -> dict[object, dict[str, Any]]:
    manifest, _why = parsed_file(os.path.join(clone, ".pre-commit-hooks.yaml"), _manifest_of)
    return manifest or {}


__all__ = ["CONFIG", "PRE_COMMITS", "precommit_scripts"]
