"""Copies from containers and cloud storage write local files named over there:
``docker cp c:/app/. .`` fills the project with whatever the container's folder holds, and
``aws s3 cp s3://b/.mcp.json .`` creates ``.mcp.json``, though no argument spells either.

For ``docker``/``podman``/``nerdctl`` ``cp``, ``kubectl``/``oc`` ``cp`` (and ``oc rsync``),
``aws s3 cp|mv|sync``, ``gsutil cp|mv|rsync``, ``gcloud storage cp|mv|rsync``, ``rclone``'s
copies and ``azcopy copy|sync``: the local destination is the last operand (options of unknown
width are read both ways, so every word that may be last is taken).  Where the copy lands
(``DEST/name`` when the program copies into an existing folder) is checked as if written
directly (``git_guards.check_named_writes``: protected paths, Edit rules, the working
directories).  When what lands may be a folder (a recursive copy, a sync, a container path),
its names are known only over there: it asks when the folder is or holds a working directory or
home, holds a protected folder or file, or lies where an Edit deny rule may match below.  A move
removes its local sources: they are checked the same way.  A word known only at run time where
the destination or a source may be asks.  Uploads write nothing here (``protected_arguments``
checks what they read).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass

from .bash_runners import after_path
from .bash_verdict import Verdict, resolved_once
from .bash_words import Word
from .compiled import PathScope
from .filesystem import edit_deny_below
from .git_guards import check_named_writes
from .paths import is_within, protected_inside


def _container(path: str) -> bool:
    """docker's ``CONTAINER:PATH`` (an absolute path or one starting with ``.`` is local)."""
    head, colon, _ = path.partition(":")
    return bool(colon and head) and not path.startswith((".", "/")) and "/" not in head


def _pod(path: str) -> bool:
    """kubectl's ``[NAMESPACE/]POD:PATH``."""
    return ":" in path and not path.startswith((".", "/"))


def _rclone(path: str) -> bool:
    """rclone's ``REMOTE:PATH`` or ``:BACKEND:PATH``."""
    head, colon, _ = path.partition(":")
    return path.startswith(":") or (bool(colon and head) and "/" not in head and not path.startswith("."))


def _url(*schemes: str) -> Callable[[str], bool]:
    def remote(path: str) -> bool:
        scheme, sep, _ = path.partition("://")
        return bool(sep) and (scheme.lower() in schemes if schemes else scheme.lower() != "file")
    return remote


@dataclass(frozen=True)
class _Copy:
    remote: Callable[[str], bool]
    folder: bool | frozenset[str]  # what lands may be a folder: always, never, or with one of these options
    into: bool = True  # an existing folder as destination gets DEST/name
    merge: bool = False  # the source's contents may land in DEST itself (with ``into``: both are checked)
    move: bool = False  # local sources are removed
    local_sources: bool = False  # a local source is copied too (rclone ./a ./b)
    flags: frozenset[str] = frozenset()  # options known to take no value


_DOCKER = _Copy(_container, True, flags=frozenset({"-a", "--archive", "-L", "--follow-link", "-q", "--quiet"}))
_KUBE = _Copy(_pod, True, merge=True, flags=frozenset({"--no-preserve"}))  # lands in DEST or DEST/name: both checked
_S3_FLAGS = frozenset({"--recursive", "--dryrun", "--quiet", "--delete", "--exact-timestamps", "--size-only",
                       "--no-progress", "--only-show-errors", "--follow-symlinks", "--no-follow-symlinks",
                       "--debug", "--no-verify-ssl", "--no-sign-request", "--no-guess-mime-type"})
_GS_RECURSIVE = frozenset({"-r", "-R", "--recursive"})
_GS_FLAGS = frozenset({"-r", "-R", "--recursive", "-n", "-p", "-e", "-c", "-D", "-M", "-v", "-U", "-J", "-P",
                       "-m", "-d", "-C", "-u", "--no-clobber", "--preserve-posix", "--continue-on-error"})
_RCLONE_FLAGS = frozenset({"-v", "-vv", "-q", "-P", "--progress", "--dry-run", "-n", "-i", "--interactive",
                           "-c", "--checksum", "--size-only", "--update", "-u", "--no-traverse", "--copy-links",
                           "-L", "--links", "-l", "--ignore-existing", "--delete-empty-src-dirs"})
_RCLONE_DIR = _Copy(_rclone, True, merge=True, local_sources=True, flags=_RCLONE_FLAGS)
_RCLONE_MOVE = _Copy(_rclone, True, merge=True, move=True, local_sources=True, flags=_RCLONE_FLAGS)
_RCLONE_TO = _Copy(_rclone, True, into=False, local_sources=True, flags=_RCLONE_FLAGS)
_AZ_FLAGS = frozenset({"--recursive", "--dry-run", "--overwrite"})

COPIES: dict[str, tuple[tuple[tuple[str, ...], _Copy], ...]] = {
    "docker": ((("cp",), _DOCKER), (("container", "cp"), _DOCKER)),
    "podman": ((("cp",), _DOCKER), (("container", "cp"), _DOCKER)),
    "nerdctl": ((("cp",), _DOCKER), (("container", "cp"), _DOCKER)),
    "kubectl": ((("cp",), _KUBE),),
    "oc": ((("cp",), _KUBE), (("rsync",), _KUBE)),
    "aws": (
        (("s3", "cp"), _Copy(_url("s3"), frozenset({"--recursive"}), merge=True, flags=_S3_FLAGS)),
        (("s3", "mv"), _Copy(_url("s3"), frozenset({"--recursive"}), merge=True, move=True, flags=_S3_FLAGS)),
        (("s3", "sync"), _Copy(_url("s3"), True, merge=True, flags=_S3_FLAGS)),
    ),
    "gsutil": (
        (("cp",), _Copy(_url(), _GS_RECURSIVE, merge=True, flags=_GS_FLAGS)),
        (("mv",), _Copy(_url(), True, merge=True, move=True, flags=_GS_FLAGS)),
        (("rsync",), _Copy(_url(), True, merge=True, flags=_GS_FLAGS)),
    ),
    "gcloud": (
        (("storage", "cp"), _Copy(_url(), _GS_RECURSIVE, merge=True, flags=_GS_FLAGS)),
        (("storage", "mv"), _Copy(_url(), True, merge=True, move=True, flags=_GS_FLAGS)),
        (("storage", "rsync"), _Copy(_url(), True, merge=True, flags=_GS_FLAGS)),
    ),
    "rclone": tuple(((verb,), _RCLONE_DIR) for verb in ("copy", "sync", "bisync"))
    + ((("move",), _RCLONE_MOVE), (("copyto",), _RCLONE_TO),
       (("moveto",), _Copy(_rclone, True, into=False, move=True, local_sources=True, flags=_RCLONE_FLAGS)),
       (("copyurl",), _Copy(_url(), False, into=False, flags=_RCLONE_FLAGS | {"-a", "--auto-filename"}))),
    "azcopy": (
        (("copy",), _Copy(_url("http", "https"), frozenset({"--recursive"}), merge=True, flags=_AZ_FLAGS)),
        (("cp",), _Copy(_url("http", "https"), frozenset({"--recursive"}), merge=True, flags=_AZ_FLAGS)),
        (("sync",), _Copy(_url("http", "https"), True, merge=True, flags=_AZ_FLAGS | {"--delete-destination"})),
    ),
}
REMOTE_COPY_PROGRAMS = frozenset(COPIES)
_AUTO_NAMES = frozenset({"-a", "--auto-filename", "--header-filename"})


def remote_copy_guard(words: tuple[Word, ...], cwds: list[str], scope: PathScope, v: Verdict) -> None:
    found = _copies(words)
    if isinstance(found, str):
        v.sticky.append(found)
        return
    for cwd in cwds:
        for copy, sources, dest, folder in found:
            verb = "copies" if sources else "removes"
            for path, may_be_folder in _landings(copy, sources, dest, folder, cwd, v):
                if not _landing_check(f"{words[0].literal} {verb}", path, may_be_folder, cwd, scope, v):
                    return


def _copies(words: tuple[Word, ...]) -> list[tuple[_Copy, list[str], str, bool]] | str:
    """``(how, remote sources, local destination, what lands may be a folder)`` for each way
    ``words`` may copy something here (a move's local sources come as their own destinations),
    or why it must ask."""
    program = words[0].literal or ""
    out: list[tuple[_Copy, list[str], str, bool]] = []
    for path, copy in COPIES.get(program, ()):
        for start in after_path(words, path):
            texts = [w.literal for w in words[start:]]
            options = {t.partition("=")[0] for t in texts if t is not None and t[:1] == "-"}
            folder = copy.folder if isinstance(copy.folder, bool) else bool(options & copy.folder)
            if program == "rclone" and options & _AUTO_NAMES:
                return "rclone copyurl names the file it writes after the URL or the server"
            for end in _destinations(texts, copy.flags):
                before = texts[:end]
                dest = texts[end]
                if dest is None or None in before:
                    return f"{program} has a word only known at run time where it names what it copies"
                operands = [t for t in before if t is not None and (t[:1] != "-" or t == "-")]
                if copy.move:
                    out.extend((copy, [], s, True) for s in operands if s != "-" and not copy.remote(s))
                dest = _local(dest)
                if dest == "-" or copy.remote(dest):
                    continue  # to standard output, or an upload
                sources = [s for s in operands if s != "-" and (copy.remote(s) or copy.local_sources)]
                if sources:
                    out.append((copy, sources, dest, folder))
    return out


def _local(path: str) -> str:
    return path[7:] if path.lower().startswith("file://") else path


def _destinations(texts: list[str | None], flags: frozenset[str]) -> list[int]:
    """Each index of ``texts`` that may be the last operand: the last word that is no option,
    and, while the option before it may take it as its value, the one before that."""
    if "--" in texts:
        end = texts.index("--")
        return [len(texts) - 1] if len(texts) - 1 > end else []
    out = []
    j = len(texts) - 1
    while j >= 0:
        text = texts[j]
        if text is not None and text[:1] == "-" and text != "-":
            j -= 1
            continue
        out.append(j)
        before = texts[j - 1] if j > 0 else ""
        if not (before is None or (before[:1] == "-" and before != "-" and "=" not in before
                                   and before not in flags)):
            break
        j -= 2  # the word before may be an option with this one as its value
    return out


def _landings(copy: _Copy, sources: list[str], dest: str, folder: bool, cwd: str, v: Verdict) -> list[tuple[str, bool]]:
    """Where each source lands from ``cwd``, and whether a folder may land there."""
    if not sources:  # a moved local source: removed
        return [(dest, folder)]
    resolved = resolved_once(dest, cwd, v)
    is_dir = dest.endswith("/") or (resolved is not None and os.path.isdir(resolved[1]))
    out: list[tuple[str, bool]] = []
    for source in sources:
        name = os.path.basename(source.partition(":")[2].rstrip("/") if copy.remote(source) else source.rstrip("/"))
        if copy.merge or not copy.into or not is_dir or name in ("", ".", ".."):
            out.append((dest, folder))
        if copy.into and is_dir and name not in ("", ".", ".."):
            out.append((os.path.join(dest, name), folder))
    return list(dict.fromkeys(out))


def _landing_check(doing: str, path: str, may_be_folder: bool, cwd: str, scope: PathScope, v: Verdict) -> bool:
    """False once what lands at (or is removed from) ``path`` asks or is denied (in ``v``)."""
    if not check_named_writes([path], cwd, scope, v, "copy"):
        return False
    if not may_be_folder:
        return True
    resolved = resolved_once(path, cwd, v)
    real = resolved[1] if resolved is not None else None
    if real is None:
        return True  # check_named_writes has asked already
    home = os.path.realpath(os.path.expanduser("~"))
    why = None
    if any(is_within(root, real) for root in (*scope.roots, home)):
        why = "a working directory or home, where protected names matter"
    elif os.path.isdir(real) and (inside := protected_inside(real)) is not None:
        why = f"which holds {inside}"
    elif (rule := edit_deny_below(real, scope)) is not None:
        why = f"where the rule {rule} denies editing"
    if why is None:
        return True
    v.sticky.append(f"{doing} a folder whose names are known only elsewhere at {path}, {why}")
    return False


__all__ = ["REMOTE_COPY_PROGRAMS", "remote_copy_guard"]
