"""Programs that read whole folders when a rule allows them: ``tar cf - .``, ``cp -r . /tmp/x``,
``rsync -a . host:``, ``zip -r x.zip .``, ``find . -exec cat {} +``, and the host folders and
files a container is given (``docker run -v .:/w img``, ``--mount type=bind,source=…``,
``docker build --secret id=x,src=.env``).

None of them is read-only, so they run only when a rule (``Bash(tar:*)``) or the user allows
them.  A ``Read`` deny rule must hold even then: the folder they copy, archive or hand file by
file to another program holds the denied file under its own name.  ``copied_sources`` names
the operands such a command reads recursively; the caller asks when a ``Read`` deny rule may
match below one of them.  Destinations are left out (``cp a.txt .`` writes into ``.``).
"""

from __future__ import annotations

import os
from collections.abc import Sequence

from .bash_readonly import operand_words, option_arguments
from .bash_runner_table import PYTHONS
from .bash_words import Word, long_option_named
from .uploaders import UPLOADERS, uploaded_folders

_LAST_IS_DESTINATION = frozenset({"cp", "rsync", "scp"})
_ARCHIVERS_7Z = frozenset({"7z", "7za", "7zz"})
_TAR_CREATE_LONG = ("--create", "--append", "--update", "--concatenate", "--catenate")
_FIND_RUNNERS = frozenset({"-exec", "-execdir", "-ok", "-okdir"})
CONTAINER_PROGRAMS = frozenset({"docker", "podman", "nerdctl", "docker-compose", "podman-compose"})
# compressors that take more names from a file or standard input: xz --files[=F], zstd --filelist F
LISTING_COMPRESSORS = {"xz": ("--files", "--files0"), "lzma": ("--files", "--files0"), "unxz": ("--files", "--files0"),
                        "unlzma": ("--files", "--files0"), "xzcat": ("--files", "--files0"),
                        "zstd": ("--filelist",), "unzstd": ("--filelist",), "zstdcat": ("--filelist",)}
# compressors whose -r / --recursive takes every file below a folder operand (`gzip -rc . |
# gunzip` prints .env; `zcat -rf .` too: -f passes what is not compressed through)
RECURSIVE_COMPRESSORS = frozenset({"gzip", "gunzip", "zcat", "pigz", "unpigz", "zstd", "unzstd", "zstdcat",
                                   "lz4", "unlz4", "lz4cat", "compress", "uncompress"})
_TARS = frozenset({"tar", "bsdtar", "gtar", "star"})
# image and file-system builders: every word that is no option may be a folder they take whole
# (an option's value too: `genisoimage -V LABEL -o x.iso .`; what is no folder is left out)
_IMAGE_BUILDERS = frozenset({"genisoimage", "mkisofs", "xorriso", "xorrisofs", "mksquashfs", "mkfs.erofs",
                             "mkcramfs", "shar"})
_E2FS_BUILDERS = frozenset({"mke2fs", "mkfs.ext2", "mkfs.ext3", "mkfs.ext4"})  # -d FOLDER
# mounts show a folder's files under another name (`mount --bind . /tmp/m`, then `cat
# /tmp/m/.env`), which path rules cannot follow: each operand is a folder read whole (the mount
# point is a write below it: bash_option_writes)
MOUNTERS = frozenset({"mount", "bindfs", "sshfs", "unionfs", "unionfs-fuse", "mergerfs", "squashfuse",
                      "archivemount", "fuse-overlayfs"})
# sandboxes that bind a host folder at another path for the command they run
_BWRAP_BINDS = frozenset({"--bind", "--bind-try", "--dev-bind", "--dev-bind-try", "--ro-bind", "--ro-bind-try"})
COPYING_PROGRAMS = (_LAST_IS_DESTINATION | _ARCHIVERS_7Z | CONTAINER_PROGRAMS | UPLOADERS | RECURSIVE_COMPRESSORS
                    | _TARS | _IMAGE_BUILDERS | _E2FS_BUILDERS | PYTHONS | MOUNTERS | {"bwrap", "proot"}
                    | {"zip", "find", "fd", "fdfind", "cpio", "pax", "jar", "rar", "mkfs.btrfs", "ln"}
                    | frozenset(LISTING_COMPRESSORS))
_PAX_VALUE_LETTERS = frozenset("bfopsxUGTBE")
# options whose value hands the container a host path: -v SRC:DST, --mount type=bind,source=SRC,
# and for builds --secret id=x,src=FILE, --ssh default=KEY, --build-context name=DIR
_MOUNT_OPTIONS = {"-v": "volume", "--volume": "volume", "--mount": "csv", "--secret": "csv",
                  "--ssh": "ssh", "--build-context": "context"}
_HOST_PATH_START = ("/", ".", "~")


def copied_sources(words: Sequence[Word]) -> list[str]:
    """The fixed operands ``words`` (program first) reads every file below, if it is a copier."""
    program = words[0].literal if words else None
    args = [w.literal for w in words[1:]]
    fixed = [a for a in args if a is not None]
    operands = [a for a in fixed if a[:1] != "-" or a == "-"]
    if program in _LAST_IS_DESTINATION:
        if program == "cp" and option_arguments(words[1:], "t", "--target-directory"):
            return operands  # -t DIR: every operand is a source (DIR too: harmless, it is written)
        return operands[:-1]
    if program in _TARS:
        return operands if tar_creates(fixed) else []
    if program == "zip":
        return operands[1:]  # zip ARCHIVE SOURCES…
    if program in _ARCHIVERS_7Z:
        return operands[2:] if operands[:1] in (["a"], ["u"]) else []
    if program == "rar":  # rar a|u|m|f ARCHIVE SOURCES…
        return operands[2:] if operands[:1] in (["a"], ["u"], ["m"], ["f"]) else []
    if program == "jar":  # jar cf X.jar DIR, jar --create --file X.jar DIR (its own name among them: no folder)
        creates = tar_creates(fixed) or any(a[:2] == "--" and len(a) > 3 and "--create".startswith(a) for a in fixed)
        return operands if creates else []
    if program in PYTHONS:  # python -m zipfile -c OUT SOURCES…, python -m tarfile -c OUT SOURCES…
        module = fixed[1] if fixed[:1] == ["-m"] and len(fixed) > 1 else (fixed[0][2:] if fixed[:1] and fixed[0][:2] == "-m" else "")
        rest = fixed[2:] if fixed[:1] == ["-m"] else fixed[1:]
        if module in ("zipfile", "tarfile") and rest[:1] and rest[0] in ("-c", "--create"):
            return rest[2:]
        return []
    if program in _IMAGE_BUILDERS:
        return operands
    if program in _E2FS_BUILDERS:
        return _fixed_values(words[1:], "d")
    if program == "mkfs.btrfs":
        return _fixed_values(words[1:], "r", "--rootdir")
    if program == "ln":
        return linked_folders(words[1:])
    if program in MOUNTERS:  # unionfs a=RW:b=RO /mnt, mergerfs /a:/b /mnt: each branch
        return [branch.partition("=")[0] for text in operands for branch in text.split(":") if branch]
    if program == "bwrap":  # --bind SRC DEST: SRC shows at DEST inside (the same path: nothing new)
        return [src for i, src in enumerate(args[1:-1], 1) if args[i - 1] in _BWRAP_BINDS and src is not None
                and src != args[i + 1]]
    if program == "proot":  # -b SRC[:DEST], --bind=SRC[:DEST], -r ROOT / --rootfs=ROOT
        binds = _fixed_values(words[1:], "b", "--bind")
        roots = [root for root in _fixed_values(words[1:], "r", "--rootfs") if root != "/"]
        return [src for src, colon, dest in (b.partition(":") for b in binds) if colon and src != dest] + roots
    if program == "pax":  # pax -w FILES (an archive of them), pax -rw FILES… DIR (a copy)
        letters, named = _pax_words(words[1:])
        if "w" not in letters:
            return []
        return named[:-1] if "r" in letters else named
    if program == "find":
        return find_starts(fixed) if any(a in _FIND_RUNNERS for a in fixed) else []
    if program in ("fd", "fdfind"):
        return fd_searched(args)
    if program in CONTAINER_PROGRAMS:
        return [m for m in container_mounts(words[1:]) if m is not None]
    if program in UPLOADERS:  # aws s3 sync . s3://b, huggingface-cli upload repo . (uploaders.py)
        return uploaded_folders(words)
    if program in RECURSIVE_COMPRESSORS:
        return operands if compresses_recursively(words[1:]) else []
    return []


_FD_EXEC = frozenset({"-x", "--exec", "-X", "--exec-batch"})
_FD_VALUED = frozenset({"-e", "--extension", "-t", "--type", "-d", "--max-depth", "--min-depth", "--exact-depth", "-E",
                        "--exclude", "-S", "--size", "-c", "--color", "-j", "--threads", "--changed-within",
                        "--changed-before", "--change-newer-than", "--change-older-than", "--newer", "--older", "-o",
                        "--owner", "--max-results", "--base-directory", "--path-separator", "--search-path",
                        "--ignore-file", "--format", "--max-buffer-time", "--batch-size"})


def fd_searched(args: Sequence[str | None]) -> list[str]:
    """``fd [PATTERN] [PATH…] -x|-X CMD``: the folders whose files fd hands CMD (as ``find
    -exec`` does) — its PATH operands and ``--search-path`` values, else ``.``; none without
    ``-x``/``-X`` (a listing of names).  A word only known at run time may be a folder: ``/``."""
    positional: list[str] = []
    searched: list[str] = []
    i, runs = 0, False
    while i < len(args):
        text = args[i]
        if text is None:
            positional.append("/")
        elif text in _FD_EXEC:
            runs = True
            break  # the rest is the command
        elif text[:1] == "-" and text != "-":
            name, equals, value = text.partition("=")
            if name in _FD_VALUED and not equals:
                following = args[i + 1] if i + 1 < len(args) else None
                value = following if following is not None else "/"
                i += 1
            if name == "--search-path":
                searched.append(value or "/")
        else:
            positional.append(text)
        i += 1
    if not runs:
        return []
    return searched + positional[1:] or ["."]


_LN_VALUED = frozenset({"-t", "-S", "--target-directory", "--suffix"})


def _fixed_values(args: Sequence[Word], letter: str, long: str = "") -> list[str]:
    """The fixed values given to an option (``-d DIR``, ``--rootdir=DIR``)."""
    return [w.literal for w in option_arguments(args, letter, long) if w.literal is not None]


def _flag(texts: Sequence[str | None], letter: str, long: str) -> bool:
    """Is the flag given: ``long``, or ``letter`` alone or in a cluster (``-sf``)?"""
    return any(t is not None and (t == long or (t[:1] == "-" and t[1:2] != "-" and letter in t)) for t in texts)


def linked_folders(args: Sequence[Word]) -> list[str]:
    """``ln -s TARGET LINK`` gives TARGET another name: ``ln -s . l && cat l/.env`` read ``.env``
    by a path no rule matched (the link was not there when the line was decided).  The targets,
    as paths from the current folder: a relative target is read from the link's folder (LINK
    itself when it is a folder, else its parent: both are given), or from here with ``-r``."""
    texts = [w.literal for w in args]
    if not _flag(texts, "s", "--symbolic"):
        return []  # a hard link: a file's other name (hard_links.py), never a folder's
    relative = _flag(texts, "r", "--relative")
    folders = _fixed_values(args, "t", "--target-directory")
    operands = [w.literal for w in operand_words(args, _LN_VALUED) if w.literal is not None]
    if folders:
        targets, places = [t for t in operands if t not in folders], folders
    elif len(operands) == 1:
        targets, places = operands, ["."]
    else:
        targets, places = operands[:-1], [operands[-1], os.path.dirname(operands[-1]) or "."]
    if relative:
        return targets
    return [os.path.join(place, t) for t in targets for place in dict.fromkeys(places)]


def compresses_recursively(args: Sequence[Word]) -> bool:
    """``-r`` (alone or in a cluster: ``-rc``) or ``--recursive`` (or a beginning of it, as
    getopt_long takes one); a word only known at run time may be either."""
    for word in args:
        text = word.literal
        if text is None:
            return True
        if text[:2] == "--":
            if long_option_named(text.partition("=")[0], ("--recursive",), 5):
                return True
        elif text[:1] == "-" and "r" in text[1:]:
            return True
    return False


def container_mounts(args: Sequence[Word]) -> list[str | None]:
    """The host paths ``docker``/``podman`` options give a container or a build (None: one only
    known at run time, ``-v "$PWD":/app``).  Named volumes (``-v data:/data``) are not paths."""
    found: list[str | None] = []
    for i, word in enumerate(args):
        text = word.text
        if text[:1] != "-":
            continue
        name, eq, value = text.partition("=")
        kind = _MOUNT_OPTIONS.get(name)
        if kind is None and text[:2] == "-v" and len(text) > 2:  # -v.:/w (pflag's attached short value)
            kind, eq, value = "volume", "=", text[2:].removeprefix("=")
        if kind is None:
            continue
        if not eq:
            following = args[i + 1] if i + 1 < len(args) else None
            if following is None:
                continue
            fixed = following.literal
            if fixed is None and following.static and following.text[:1] == "~" and not any(
                c in following.text for c in "*?[{"
            ):  # -v ~/.ssh:/k: bash expands the ~ at the start of the word
                fixed = os.path.expanduser(following.text)
            if fixed is None:
                found.append(None)
                continue
            value = fixed
        elif not word.static or word.glob:
            found.append(None)
            continue
        found.extend(_mount_sources(kind, value))
    return found


def _mount_sources(kind: str, value: str) -> list[str | None]:
    if kind == "volume":  # SRC:DST[:OPTS]; a single part is an anonymous volume
        source, colon, _ = value.partition(":")
        return [source] if colon and source.startswith(_HOST_PATH_START) else []
    if kind == "ssh":  # default=KEY[,KEY…] or default (the agent)
        _, eq, keys = value.partition("=")
        return [k for k in keys.split(",") if k] if eq else []
    if kind == "context":  # name=DIR (or docker-image://…, https://…)
        path = value.partition("=")[2]
        return [path] if path.startswith(_HOST_PATH_START) else []
    sources: list[str | None] = []
    for field in value.split(","):  # type=bind,source=SRC,target=DST / id=x,src=FILE
        key, _, path = field.partition("=")
        if key.strip().lower() in ("source", "src") and path:
            sources.append(path)
    return sources


def listed_sources(words: Sequence[Word]) -> str | None:
    """Where an archiver takes the names of the files it reads from, when no argument spells
    them: ``tar c -T LIST`` / ``--files-from``, ``zip -@`` / ``--names-stdin``, ``7z a x @LIST``
    (or ``-i@LIST``), ``cpio -o`` / ``-p`` (always standard input).  ``find . -name '.e*' | tar
    czf - -T -`` archives ``.env`` to standard output."""
    program = words[0].literal if words else None
    args = [w.text for w in words[1:]]
    if program == "tar":
        if not tar_creates(args):
            return None
        for i, arg in enumerate(args):
            key = arg.partition("=")[0]
            if key.startswith("--"):
                if len(key) > len("--file") and "--files-from".startswith(key):
                    return "tar --files-from reads the files a list names"
            elif (arg.startswith("-") or i == 0) and "T" in arg:
                return "tar -T reads the files a list names"
    elif program == "zip":
        if any(a == "-@" or a == "--names-stdin" or (a[:1] == "-" and a[1:2] != "-" and "@" in a) for a in args):
            return "zip -@ reads the files standard input names"
    elif program in _ARCHIVERS_7Z:
        if any(a.startswith("@") or (a.startswith("-i") and "@" in a) for a in args):
            return f"{program} @LIST reads the files a list names"
    elif program == "pax":
        letters, named = _pax_words(words[1:])
        if "w" in letters and not named[: -1 if "r" in letters else None]:
            return "pax -w reads the files standard input names"
    elif program in LISTING_COMPRESSORS:
        if any(lists_files(program, w.literal) for w in words[1:]):
            return f"{program} {LISTING_COMPRESSORS[program][0]} reads the files a list names"
    elif program == "cpio":
        for arg in args:
            if arg in ("--create", "--pass-through") or (arg[:1] == "-" and arg[1:2] != "-" and set(arg[1:]) & {"o", "p"}):
                return "cpio -o/-p reads the files standard input names"
    return None


def lists_files(program: str, text: str | None) -> bool:
    """Is ``text`` (None: a word only known at run time, which may be one) an option that makes
    the compressor ``program`` take more names from a list (``xz --files=F``, ``zstd --filelist F``)?"""
    options = LISTING_COMPRESSORS.get(program)
    if options is None:
        return False
    if text is None:
        return True
    key = text.partition("=")[0]
    return key[:2] == "--" and long_option_named(key, options, 4) is not None


def _pax_words(args: Sequence[Word]) -> tuple[str, list[str]]:
    """pax's option letters (``-r``, ``-w``, ``-rw`` …) and its operands; a word only known at run
    time counts as ``-w`` and an operand (it may be either)."""
    letters, named = "", []
    i = 0
    while i < len(args):
        text = args[i].literal
        i += 1
        if text is None:
            letters += "w"
            named.append("")
        elif text[:1] == "-" and len(text) > 1 and text != "--":
            for k, letter in enumerate(text[1:], 1):
                letters += letter
                if letter in _PAX_VALUE_LETTERS:
                    i += 0 if text[k + 1:] else 1
                    break
        elif text != "--":
            named.append(text)
    return letters, named


def tar_creates(args: Sequence[str]) -> bool:
    """``tar c…``/``-c``/``--create`` (or append, update): it reads its operands."""
    for i, arg in enumerate(args):
        if arg.startswith("--"):
            if any(long.startswith(arg.split("=", 1)[0]) for long in _TAR_CREATE_LONG) and len(arg) > 3:
                return True
        elif (arg.startswith("-") or i == 0) and set(arg.lstrip("-")) & {"c", "r", "u"}:
            return True  # a cluster, or tar's old style first word (czf)
    return False


def find_starts(args: Sequence[str]) -> list[str]:
    """find's starting points: the words after ``-H``/``-L``/``-P``/``-D …``/``-O…`` and before
    the expression (``.`` when there are none)."""
    starts: list[str] = []
    i = 0
    while i < len(args) and args[i] in ("-H", "-L", "-P", "-D") or (i < len(args) and args[i][:2] == "-O"):
        i += 2 if args[i] == "-D" else 1
    for arg in args[i:]:
        if arg[:1] in ("-", "(", "!", ")") or arg == ",":
            break
        starts.append(arg)
    return starts or ["."]


__all__ = ["CONTAINER_PROGRAMS", "MOUNTERS", "LISTING_COMPRESSORS", "RECURSIVE_COMPRESSORS", "compresses_recursively", "fd_searched", "linked_folders", "container_mounts", "listed_sources", "lists_files", "COPYING_PROGRAMS", "copied_sources", "find_starts", "tar_creates"]
