"""Archive extraction writes the files the archive names: ``tar -xf x.tar`` or ``unzip x.zip``
may create ``.claude/settings.local.json``, ``.git/hooks/pre-commit`` or ``../../.bashrc``.

Like a patch (``patch_guard.py``), the archive's member list is read when deciding (tar,
compressed or not, through ``tarfile``; zip through ``zipfile``) and every member is checked as
if written directly (with ``-C DIR`` / ``-d DIR``): a protected or outside path asks in every
mode, an Edit-denied one is denied.  An archive that cannot be listed now (standard input, a
word known only at run time, a format these modules do not read, one too large to list in a
moment: ``_MAX_BYTES``, ``_MAX_COMPRESSED``), or
that holds a link pointing out of the folder it is extracted into, asks.  Listing (``tar -t``,
``unzip -l``), testing and extracting to standard output write nothing.
"""

from __future__ import annotations

import os
import posixpath
import tarfile
import zipfile
from collections.abc import Callable, Sequence

from .bash_verdict import Verdict
from .bash_words import Word, long_option_named
from .bash_writes import UNZIP_NO_WRITE
from .compiled import PathScope
from .git_guards import named_writes_guard
from .paths import open_regular

_MAX_BYTES = 50 * 1024 * 1024  # a plain tar is listed by seeking from header to header: quick
_MAX_COMPRESSED = 5 * 1024 * 1024  # a compressed one is read through, on the decision's thread
_COMPRESSED_MAGIC = (b"\x1f\x8b", b"BZh", b"\xfd7zXZ\x00", b"\x28\xb5\x2f\xfd")  # gzip bzip2 xz zstd
_MAX_MEMBERS = 100_000
_TAR_VALUE_LETTERS = frozenset("bCfFgHIKLNTVX")  # short options of GNU tar that take a value
_TAR_LONG_VALUE = frozenset({"--file", "--directory", "--files-from", "--exclude-from", "--format",
                             "--blocking-factor", "--use-compress-program", "--to-command", "--label",
                             "--newer", "--starting-file", "--tape-length", "--listed-incremental",
                             "--info-script", "--exclude", "--owner", "--group", "--mode", "--transform"})
TAR_PROGRAMS = frozenset({"tar", "gtar", "bsdtar"})
SEVEN_ZIP = frozenset({"7z", "7za", "7zr"})



def _first(texts: list[str | None]) -> str:
    """The first word that is no long option (a command or a bundle of letters: ``x``, ``-xvf``)."""
    return next((t for t in texts if t is None or not t.startswith("--")), "") or ""


def _positional(texts: list[str | None]) -> str | None:
    return next((t for t in texts if t is None or not t.startswith("-")), "")


# extractors of formats these modules do not read: (program, does this command line extract?)
_UNLISTED: dict[str, Callable[[list[str | None]], bool]] = {
    "ar": lambda t: "x" in _first(t).lstrip("-"),
    "unrar": lambda t: _positional(t) in ("x", "e", None),
    "rar": lambda t: _positional(t) in ("x", "e", None),
    "arj": lambda t: _positional(t) in ("x", "e", None),
    "lha": lambda t: bool({"x", "e"} & set(_first(t).lstrip("-")[:1])),
    "pax": lambda t: any(w is None or (w[:1] == "-" and w[1:2] != "-" and "r" in w) for w in t),
    "cabextract": lambda t: not any(w in ("-l", "--list", "-t", "--test", "-p", "--pipe", "-h", "--help") for w in t),
    "unsquashfs": lambda t: not any(w is not None and w.lstrip("-") in (
        "l", "ls", "ll", "lls", "lc", "llc", "s", "stat", "cat", "help", "h", "v", "version") for w in t),
    "dpkg-deb": lambda t: any(w is None or w in ("-x", "--extract", "-X", "--vextract", "-R", "--raw-extract")
                              for w in t),
    "unar": lambda t: not any(w in ("-h", "--help", "-v", "--version") for w in t),
    "aunpack": lambda t: not any(w in ("-h", "--help", "--version") for w in t),
    "atool": lambda t: any(w is None or w in ("-x", "--extract", "-X", "--extract-to") or (
        w is not None and w.startswith("--extract-to=")) for w in t),
    "xar": lambda t: any(w is None or (w[:1] == "-" and w[1:2] != "-" and "x" in w) for w in t),
}


def _gzip_restores_name(program: str, texts: list[str | None]) -> bool:
    """``gunzip -N F.gz`` (``gzip -dN``, ``unpigz -N``) writes the name the gzip header holds
    (``.bashrc`` too), not one the line spells; not to standard output (``-c``) or listing."""
    flags = ""
    for text in texts:
        if text is None:
            return True  # a word only known at run time may be -N
        if text[:2] == "--":
            key = text.partition("=")[0]
            flags += {"--name": "N", "--decompress": "d", "--uncompress": "d", "--stdout": "c",
                      "--to-stdout": "c", "--list": "l", "--test": "t"}.get(key, "")
        elif text[:1] == "-" and len(text) > 1:
            flags += text[1:]
    decompresses = program in ("gunzip", "unpigz") or "d" in flags
    return decompresses and "N" in flags and not set(flags) & set("clt")


def _uudecode_names(texts: list[str | None]) -> bool:
    """``uudecode F`` writes the file its ``begin`` line names (``begin 644 .git/config``)
    unless ``-o FILE`` names it."""
    return not any(t is None or t == "-o" or t.startswith(("-o", "--output-file")) or t in ("-h", "--help", "--version")
                   for t in texts)


# programs that write files named inside the data they decode: (program, does this line?)
_NAMED_BY_DATA: dict[str, Callable[[list[str | None]], bool]] = {
    "uudecode": _uudecode_names,
    "gunzip": lambda t: _gzip_restores_name("gunzip", t), "unpigz": lambda t: _gzip_restores_name("unpigz", t),
    "gzip": lambda t: _gzip_restores_name("gzip", t), "pigz": lambda t: _gzip_restores_name("pigz", t),
    "gpg": lambda t: any(w is None or w == "--use-embedded-filename" for w in t),
    "gpg2": lambda t: any(w is None or w == "--use-embedded-filename" for w in t),
}
ARCHIVE_PROGRAMS = TAR_PROGRAMS | SEVEN_ZIP | frozenset(_UNLISTED) | frozenset(_NAMED_BY_DATA) | {"unzip", "cpio", "jar"}


def archive_guard(words: tuple[Word, ...], cwds: list[str], scope: PathScope, v: Verdict) -> None:
    """Check every member an extracting ``tar``/``unzip``/``python -m tarfile|zipfile`` writes."""
    named_writes_guard(lambda cwd: archive_writes(words, cwd), cwds, scope, v, "archive")


def archive_writes(words: Sequence[Word], cwd: str) -> tuple[str | None, list[str]]:
    """``(why it must ask, the paths it writes)`` for one command (program first)."""
    texts = [w.literal for w in words]
    program = texts[0]
    if program in TAR_PROGRAMS:
        found = _tar_options(texts[1:])
    elif program == "unzip":
        found = _unzip_options(texts[1:])
    elif program in SEVEN_ZIP:
        found = _seven_zip_options(texts[1:])
    elif program == "jar":  # jar xf A.jar: a zip
        found = _jar_options(texts[1:])
    elif program in _UNLISTED:  # unrar x, dpkg-deb -x, cabextract …: members these modules cannot list
        extracts = _UNLISTED[program](texts[1:])
        return (f"{program} extracts an archive whose members this check cannot list" if extracts else None), []
    elif program in _NAMED_BY_DATA:  # uudecode, gunzip -N, gpg --use-embedded-filename
        named = _NAMED_BY_DATA[program](texts[1:])
        return (f"{program} writes the file named inside what it decodes" if named else None), []
    elif program == "cpio":  # -i / -p: members or a file list from standard input
        copies = any(t is None or (t[:2] == "--" and len(t) > 3 and any(
            o.startswith(t.partition("=")[0]) for o in ("--extract", "--pass-through"))) or (
            t[:1] == "-" and t[1:2] != "-" and ("i" in t or "p" in t)) for t in texts[1:])
        return ("cpio extracts or copies what standard input names, so the files it writes are unknown"
                if copies else None), []
    elif len(texts) > 3 and texts[1] == "-m" and texts[2] in ("tarfile", "zipfile"):
        found = _python_options(texts[3:])
    else:
        return None, []
    if isinstance(found, str):
        return found, []
    if found is None:
        return None, []  # nothing extracted
    archive, folder = found
    return _members(archive, folder, cwd)


_TAR_NAMED = ("--extract", "--get", "--file", "--directory", "--to-stdout")


def _tar_long(key: str) -> str:
    """GNU tar takes any unambiguous beginning of a long option (``--ext`` is ``--extract``)."""
    return long_option_named(key, (*_TAR_NAMED, *sorted(_TAR_LONG_VALUE)), 4) or key


def _tar_options(args: list[str | None]) -> tuple[str, str] | str | None:
    """``(archive, folder)`` when tar extracts; None when it does not; a reason when unknown."""
    extract = to_stdout = False
    values: dict[str, str] = {"C": ""}  # f: the archive, C: the folder (the last one given)
    pending: list[str] = []  # letters waiting for their value, in order (tar xfC a.tar dir)
    for index, text in enumerate(args):
        if text is None:
            return "tar has a word only known at run time"
        if pending:
            values[pending.pop(0)] = text
            continue
        if text.startswith("--"):
            key, eq, value = text.partition("=")
            key = _tar_long(key)
            extract = extract or key in ("--extract", "--get")
            to_stdout = to_stdout or key == "--to-stdout"
            letter = {"--file": "f", "--directory": "C"}.get(key, "-" if key in _TAR_LONG_VALUE else None)
            if letter is not None:
                if eq:
                    values[letter] = value
                else:
                    pending.append(letter)
            continue
        dashed = text.startswith("-")
        if not dashed and not (index == 0 and text.isalpha()):
            continue  # a member name (the first word may be a bundle without a dash: xzf)
        bundle = text[1:] if dashed else text
        for k, letter in enumerate(bundle):
            extract = extract or letter == "x"
            to_stdout = to_stdout or letter == "O"
            if letter in _TAR_VALUE_LETTERS:
                if dashed and bundle[k + 1:]:  # -fa.tar, -xzfa.tar: the rest is the value
                    values[letter] = bundle[k + 1:]
                    break
                pending.append(letter)
    if pending:
        return "tar has an option without its value"
    if not extract or to_stdout:
        return None
    archive = values.get("f")
    if archive is None or archive == "-":
        return "tar extracts an archive from standard input, so the files it writes are unknown"
    return archive, values["C"]


def _unzip_options(args: list[str | None]) -> tuple[str, str] | str | None:
    archive, folder, i = None, "", 0
    while i < len(args):
        text = args[i]
        i += 1
        if text is None:
            return "unzip has a word only known at run time"
        if text == "-d":
            value = args[i] if i < len(args) else None
            if value is None:
                return "unzip -d has no fixed value"
            folder = value
            i += 1
        elif text.startswith("-d") and len(text) > 2:
            folder = text[2:]
        elif text == "-x":
            break  # the rest are members left out
        elif text.startswith("-"):
            if UNZIP_NO_WRITE.intersection(text[1:]):
                return None
        elif archive is None:
            archive = text
    if archive is None:
        return "unzip has no archive named"
    return archive, folder


def _seven_zip_options(args: list[str | None]) -> tuple[str, str] | str | None:
    """``7z x A -oDIR`` / ``7z e A``: extraction; other commands (``l``, ``t``, ``a``) write no member."""
    if any(a is None for a in args):
        return "7z has a word only known at run time"
    words = [a or "" for a in args]
    positional = [w for w in words if not w.startswith("-")]
    if not positional or positional[0] not in ("x", "e"):
        return None
    if len(positional) < 2:
        return "7z has no archive named"
    folder = next((w[2:] for w in words if w.startswith("-o")), "")
    return positional[1], folder  # (e keeps only base names: checking whole names is stricter)


def _jar_options(args: list[str | None]) -> tuple[str, str] | str | None:
    """``jar xf A.jar`` / ``jar -xf A.jar`` / ``jar --extract --file=A.jar [--dir D]``."""
    if any(a is None for a in args):
        return "jar has a word only known at run time"
    words = [a or "" for a in args]
    bundle = words[0].lstrip("-") if words and not words[0].startswith("--") else ""
    if "x" not in bundle and "--extract" not in words:
        return None
    archive, folder, rest = None, "", iter(words[1:] if bundle else words)
    for word in rest:
        key, eq, value = word.partition("=")
        if key in ("--file", "--dir") or word == "-C":
            value = value if eq else next(rest, "")
            if key == "--file":
                archive = value
            else:
                folder = value
        elif not word.startswith("-") and archive is None and "f" in bundle:
            archive = word
    if not archive:
        return "jar extracts an archive from standard input, so the files it writes are unknown"
    return archive, folder


def _python_options(args: list[str | None]) -> tuple[str, str] | str | None:
    """``python -m tarfile -e A [DIR]`` / ``python -m zipfile -e A DIR``."""
    if not args or args[0] not in ("-e", "--extract"):
        return None
    rest = args[1:3]
    if not rest or any(a is None for a in rest):
        return "python extracts an archive named only at run time"
    return rest[0] or "", (rest[1] or "") if len(rest) > 1 else ""


def _members(archive: str, folder: str, cwd: str) -> tuple[str | None, list[str]]:
    path = os.path.join(cwd, archive)
    try:
        with open_regular(path) as f:  # one open file throughout: a named pipe is not waited on
            magic = f.read(6)
            limit = _MAX_COMPRESSED if magic.startswith(_COMPRESSED_MAGIC) else _MAX_BYTES
            if os.fstat(f.fileno()).st_size > limit:
                return f"the archive {archive} is too large to check", []
            f.seek(0)
            if zipfile.is_zipfile(f):
                with zipfile.ZipFile(f) as z:
                    infos = z.infolist()
                    if any((i.external_attr >> 16) & 0o170000 == 0o120000 for i in infos):
                        return f"the archive {archive} holds links", []
                    names = [i.filename for i in infos]
            else:
                f.seek(0)
                with tarfile.open(fileobj=f, mode="r:*") as t:
                    names = []
                    for member in t:
                        if len(names) >= _MAX_MEMBERS:
                            return f"the archive {archive} has too many members to check", []
                        if (member.issym() or member.islnk()) and _escapes(member.name, member.linkname,
                                                                         member.issym()):
                            return f"the archive {archive} holds a link out of the folder it is extracted to", []
                        names.append(member.name)
    except Exception as exc:  # any listing failure (corrupt headers, unsupported compression): ask
        return f"the archive {archive} cannot be listed now ({type(exc).__name__})", []
    return None, [os.path.join(folder, name) for name in dict.fromkeys(names) if name not in ("", ".", "./")]


def _escapes(name: str, target: str, symbolic: bool) -> bool:
    """Does a link member point outside the extraction folder (absolute, or ``..`` past it)?"""
    if target.startswith("/"):
        return True
    base = posixpath.dirname(name) if symbolic else ""
    joined = posixpath.normpath(posixpath.join(base, target))
    return joined == ".." or joined.startswith("../")


__all__ = ["ARCHIVE_PROGRAMS", "archive_guard", "archive_writes"]
