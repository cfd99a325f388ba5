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

import functools
import json
import os
from collections.abc import Callable
from dataclasses import dataclass, replace

from .bash_readonly import option_arguments
from .bash_runners import after_path
from .bash_verdict import Verdict, resolved_once
from .bash_words import Word
from .compiled import PathScope
from .filesystem import edit_deny_below
from .git_guards import check_named_writes
from .paths import is_within, open_regular_text, protected_inside


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
    alone: str | None = None  # where a lone remote operand lands (s3cmd get s3://b/x: in .)
    aliases: bool = False  # ALIAS/PATH names a remote where ALIAS is in mc's configuration


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
_S3CMD_FLAGS = frozenset({"-r", "--recursive", "-f", "--force", "--skip-existing", "--continue", "-n", "--dry-run",
                          "-v", "--verbose", "-d", "--debug", "-q", "--quiet", "--delete-removed",
                          "--no-delete-removed", "-H", "--human-readable-sizes", "--progress", "--no-progress",
                          "-p", "--preserve", "--no-preserve", "--check-md5", "--no-check-md5"})
_B2 = _url("b2", "b2id")
_B2_BY_NAME = _Copy(_url(), False, into=False, local_sources=True)  # BUCKET NAME LOCAL, ID LOCAL
_MC_FLAGS = frozenset({"-r", "--recursive", "--overwrite", "--remove", "--preserve", "-a", "--watch", "-w",
                       "--dry-run", "-q", "--quiet", "--json", "--debug", "--insecure", "--disable-multipart"})
_MC = _Copy(_url(), frozenset({"-r", "--recursive"}), merge=True, local_sources=True, flags=_MC_FLAGS,
            aliases=True)

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
    "s3cmd": (
        (("get",), _Copy(_url("s3"), frozenset({"-r", "--recursive"}), merge=True, flags=_S3CMD_FLAGS, alone=".")),
        (("sync",), _Copy(_url("s3"), True, merge=True, flags=_S3CMD_FLAGS)),
    ),
    "b2": (
        (("file", "download"), _Copy(_B2, False, into=False)),
        (("download-file",), _Copy(_B2, False, into=False)),
        *(((verb,), _B2_BY_NAME) for verb in ("download-file-by-name", "download_file_by_name",
                                              "download-file-by-id", "download_file_by_id")),
        (("sync",), _Copy(_B2, True, merge=True, flags=frozenset({"--delete", "--dry-run", "--skip-newer",
                                                                  "--replace-newer", "--no-progress"}))),
    ),
    "mc": ((("cp",), _MC), (("get",), _MC), (("mv",), replace(_MC, move=True)),
           (("mirror",), replace(_MC, folder=True))),
    # duplicity [restore] URL DIR restores the backup into DIR (a backup goes to the URL instead);
    # file:///backups is a backup there as much as sftp://host/backups
    "duplicity": (((), _Copy(lambda path: "://" in path, True, into=False)),),
}
_DUPLICITY_NO_WRITES = frozenset({"verify", "collection-status", "list-current-files", "cleanup", "remove-older-than",
                                  "remove-all-but-n-full", "remove-all-inc-of-but-n-full", "full", "incremental",
                                  "incr", "backup"})
# restores from a backup repository: what lands in a folder (restic restore --target DIR,
# borg extract into the current folder, kopia restore SNAPSHOT DIR, rdiff-backup … DEST) is named
# in the backup; unison ROOT1 ROOT2 makes each root like the other
_RESTORES = frozenset({"restic", "borg", "kopia", "rdiff-backup", "unison"})
REMOTE_COPY_PROGRAMS = frozenset(COPIES) | _RESTORES
_AUTO_NAMES = frozenset({"-a", "--auto-filename", "--header-filename"})


def remote_copy_guard(words: tuple[Word, ...], cwds: list[str], scope: PathScope, v: Verdict) -> None:
    for cwd in cwds:
        found = _restored(words) if words[0].literal in _RESTORES else _copies(words, cwd)
        if isinstance(found, str):
            v.sticky.append(found)
            return
        for copy, sources, dest, folder in found:
            verb = "copies" if sources else "removes"
            for path, may_be_folder in _landings(copy, sources, dest, folder, cwd, v):
                if not _landing_check(f"{words[0].literal} {verb}", path, may_be_folder, cwd, scope, v):
                    return


_RESTORE = _Copy(_url(), True, into=False)


def _restored(words: tuple[Word, ...]) -> list[tuple[_Copy, list[str], str, bool]] | str:
    """``restic restore SNAPSHOT --target DIR`` and ``borg extract REPO::ARCHIVE`` (into the
    current folder, unless to standard output or a dry run): the folder where a backup lands."""
    program = words[0].literal
    if program in ("kopia", "rdiff-backup", "unison"):
        return _synced(program, words)
    out: list[tuple[_Copy, list[str], str, bool]] = []
    for start in after_path(words, ("restore",) if program == "restic" else ("extract",)):
        texts = [w.literal for w in words[start:]]
        if program == "borg":
            if None in texts:
                return "borg extract has a word only known at run time"
            if not {"--stdout", "-n", "--dry-run"} & set(texts):
                out.append((_RESTORE, ["the backup"], ".", True))
            continue
        targets = [w for w in option_arguments(words[start:], "t", "--target")]
        if any(w.literal is None for w in targets):
            return "restic restore has a word only known at run time where it names the folder it writes"
        out.extend((_RESTORE, ["the backup"], w.text, True) for w in targets)
    return out


_KOPIA_RESTORES = (("restore",), ("snapshot", "restore"), ("snap", "restore"))
_UNISON_URL = ("ssh://", "socket://", "rsh://")


def _synced(program: str, words: tuple[Word, ...]) -> list[tuple[_Copy, list[str], str, bool]] | str:
    """``kopia restore SNAPSHOT DIR``, ``rdiff-backup [backup|restore|-r TIME] SOURCE DEST`` (a
    backup mirrors SOURCE into DEST too), ``unison ROOT1 ROOT2``: each folder that may be
    written, as a folder whose names come from elsewhere."""
    texts = [w.literal for w in words[1:]]
    if program == "unison":  # every word that is no option may be a root (or an option's value)
        if None in texts:
            return "unison has a word only known at run time where it names a root it changes"
        roots = [t for t in texts if t is not None and t[:1] != "-" and not t.startswith(_UNISON_URL)]
        named = sum(1 for t in texts if t is not None and t[:1] != "-")
        if named < 2 and "-root" not in texts:
            return "unison syncs the roots its profile names, which this check does not read"
        return [(_RESTORE, ["the other root"], root, True) for root in roots]
    starts = [start - 1 for path in _KOPIA_RESTORES for start in after_path(words, path)] if program == "kopia" else [0]
    out: list[tuple[_Copy, list[str], str, bool]] = []
    for start in starts:
        rest = texts[start:]
        if program == "rdiff-backup" and next((t for t in rest if t is None or t[:1] != "-"), None) in _RDIFF_READS:
            continue
        operands = [t for t in rest if t is None or t[:1] != "-"]
        if len(operands) < 2:
            continue  # no destination named: nothing is written here
        for end in _destinations(rest, frozenset({"--force", "-v", "--verbose", "--no-compression"})):
            if rest[end] is None:
                return f"{program} has a word only known at run time where it names the folder it writes"
            out.append((_RESTORE, ["the backup"], rest[end] or ".", True))
    return out


_RDIFF_READS = frozenset({"list", "calculate", "compare", "info", "verify", "test", "server", "complete", "regress",
                          "remove"})


def _copies(words: tuple[Word, ...], cwd: str) -> list[tuple[_Copy, list[str], str, bool]] | str:
    """``(how, remote sources, local destination, what lands may be a folder)`` for each way
    ``words`` may copy something here (a move's local sources come as their own destinations),
    or why it must ask."""
    program = words[0].literal or ""
    out: list[tuple[_Copy, list[str], str, bool]] = []
    for path, copy in COPIES.get(program, ()):
        remote = _aliased(copy, cwd) if copy.aliases else copy.remote
        for start in after_path(words, path):
            texts = [w.literal for w in words[start:]]
            if program == "duplicity" and next((t for t in texts if t is None or t[:1] != "-"), None) in \
                    _DUPLICITY_NO_WRITES:
                continue  # a backup, a check or a clean-up
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
                    out.extend((copy, [], s, True) for s in operands if s != "-" and not remote(s))
                dest = _local(dest)
                if dest != "-" and remote(dest) and copy.alone is not None and not operands:
                    operands, dest = [dest], copy.alone  # s3cmd get s3://b/x: into the current folder
                if dest == "-" or remote(dest):
                    continue  # to standard output, or an upload
                sources = [s for s in operands if s != "-" and (remote(s) or copy.local_sources)]
                if sources:
                    out.append((copy, sources, dest, folder))
    return out


def _aliased(copy: _Copy, cwd: str) -> Callable[[str], bool]:
    """mc's ``ALIAS/BUCKET/…`` is remote when ALIAS is one of its configured aliases and no such
    file or folder is here; anything else is read as a local path (checked as a write)."""
    aliases = _mc_aliases()

    def remote(path: str) -> bool:
        first = path.partition("/")[0]
        return copy.remote(path) or (first in aliases and not os.path.lexists(os.path.join(cwd, first)))
    return remote


def _mc_aliases() -> frozenset[str]:
    """The aliases in mc's configuration (``~/.mc/config.json``: ``aliases``, once ``hosts``)."""
    config = os.path.join(os.path.expanduser("~"), ".mc", "config.json")
    try:
        stamp = os.stat(config)
    except OSError:
        return frozenset()
    return _read_aliases(config, stamp.st_mtime_ns, stamp.st_size)


@functools.lru_cache(maxsize=4)
def _read_aliases(config: str, _mtime: int, _size: int) -> frozenset[str]:
    try:
        with open_regular_text(config, encoding="utf-8") as f:
            data = json.load(f)
    except (OSError, ValueError):
        return frozenset()
    found: set[str] = set()
    for key in ("aliases", "hosts"):
        table = data.get(key) if isinstance(data, dict) else None
        if isinstance(table, dict):
            found.update(name for name in table if isinstance(name, str) and name)
    return frozenset(found)


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
