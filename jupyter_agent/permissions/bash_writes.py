"""What well-known writing programs write: ``rm locked/f``, ``cp a.txt locked/``, ``sed -i … f``.

A redirection is a write the analyzer sees; so is an operand of these programs.  When an
``Edit`` deny rule covers what they would write, the line is denied, whatever rule allows the
program and whatever the mode (a deny at any level wins).  ``written_targets`` gives each
operand that is written, and whether the program writes or removes everything below it (a
folder given to ``rm -r``, moved by ``mv``, or that ``tar x`` extracts into).  Programs that
write through an option value or one operand among others (``git diff --output=F``,
``curl -o F``) are in ``bash_option_writes``.
"""

from __future__ import annotations

import os
from collections.abc import Sequence

from .bash_awk import AWKS, awk_program
from .bash_copies import find_starts
from .bash_option_writes import missing_parents, option_written
from .bash_readonly import option_arguments
from .bash_runners import may_name
from .bash_sed import sed_script
from .bash_words import Word, make_word

_EVERY_OPERAND = frozenset({"rmdir", "unlink", "shred", "truncate", "touch", "tee"})
_MODE_FIRST = frozenset({"chmod", "chown", "chgrp"})  # the first operand is a mode or an owner
_COPIERS = frozenset({"cp", "install", "ln", "mv"})
UNZIP_NO_WRITE = frozenset("lptvzZ")  # unzip's list, pipe, test, verbose, comment, zipinfo modes
WRITING_PROGRAMS = _EVERY_OPERAND | _MODE_FIRST | _COPIERS | {"rm", "sed", "gsed", "perl", "dd", "sort", "tar",
                                                               "unzip", "find", "history"} | AWKS


_FIND_FILE_ACTIONS = frozenset({"-fprint", "-fprint0", "-fprintf", "-fls"})
RUNTIME_TARGET = Word("<a file its program names at run time>", static=False)  # awk's print > f
# an awk program awks may read otherwise (a / taken for a division here): any file
AMBIGUOUS_TARGET = Word("<a file its program, read another way, may name>", static=False)


def written_targets(words: Sequence[Word], cwd: str) -> list[tuple[Word, bool]]:
    """``(operand, recursive)`` for each operand ``words`` (program first) writes or removes.

    Operands are words as written (the caller expands patterns); ``recursive``: everything below
    it is written or removed.  ``cwd`` tells whether a destination is an existing folder.
    """
    program = words[0].literal if words else None
    args = list(words[1:])
    options = [w.literal for w in args if (w.literal or "")[:1] == "-" and w.literal != "-"]
    operands = [w for w in args if not ((w.literal or "")[:1] == "-" and w.literal != "-")]
    recursive = any(o is not None and (o in ("--recursive", "-R") or (o[:2] != "--" and ("r" in o or "R" in o)))
                    for o in options)
    if program == "rm":
        return [(w, recursive) for w in operands]
    if program in _EVERY_OPERAND:
        return [(w, False) for w in operands]
    if program in _MODE_FIRST:
        return [(w, recursive) for w in operands[1:]]
    if program in _COPIERS:
        return _copied_to(program, args, operands, cwd)
    if program in ("sed", "gsed", "perl"):
        in_place = any(o is not None and (o.startswith("--in-place") or (o[:2] != "--" and "i" in o)) for o in options)
        scripted = any(o in ("-e", "-f", "--expression", "--file") or (o or "").startswith(("--expression=", "--file="))
                       for o in options)
        files = operands if scripted else operands[1:]  # else the first operand is the script
        edited = [(w, False) for w in files] if in_place else []
        script = sed_script(args) if program != "perl" else None  # sed -n 'w out.txt': w and s///w write
        return edited + [(make_word(path), False) for path in script.writes] if script else edited
    if program == "dd":  # of=FILE; bash expands `of=~/x`, `of=~+/x` (an argument like an assignment)
        return [(make_word(w.text[3:], static=w.literal is not None), False) for w in operands
                if w.text.startswith("of=")]
    if program == "sort":
        return [(w, False) for w in option_arguments(args, "o", "--output")]
    if program == "tar":
        if not any((o or "").startswith(("--extract", "--get")) or (o[:2] != "--" and "x" in o)
                   for o in options if o is not None) and not (args and "x" in (args[0].literal or "")):
            return option_written(words)  # tar cf ARCHIVE …: the archive
        if any(o == "--to-stdout" or (o is not None and o[:2] != "--" and "O" in o) for o in options) or (
                args and (args[0].literal or "-")[:1] != "-" and "O" in (args[0].literal or "")):
            return []  # tar -xOf: members to standard output
        found = option_arguments(args, "C", "--directory")
        return [(w, True) for w in found] or [(make_word("."), True)]
    if program == "unzip":
        if any(o is not None and o[:2] != "--" and UNZIP_NO_WRITE.intersection(o[1:]) for o in options):
            return []  # a listing, a test, or members piped to standard output
        return [(w, True) for w in option_arguments(args, "d")] or [(make_word("."), True)]
    if program in AWKS:  # awk '{ print > "out.txt" }'; print > $1: RUNTIME_TARGET
        awk = awk_program(args)
        if awk is not None and awk.ambiguous:
            return [(AMBIGUOUS_TARGET, False)]
        return [(make_word(path) if path is not None else RUNTIME_TARGET, False) for path in awk.writes] if awk else []
    if program == "history":  # history -w FILE / -a FILE writes the list to FILE
        writes = any(o is not None and o[:2] != "--" and ("w" in o or "a" in o) for o in options)
        return [(w, False) for w in operands] if writes else []
    if program == "find":  # -delete removes below its starting points; -fprint FILE writes FILE
        targets = [(args[i + 1], False) for i, w in enumerate(args[:-1]) if w.literal in _FIND_FILE_ACTIONS]
        if any(w.literal == "-delete" for w in args):
            fixed = [w.literal for w in args if w.literal is not None]
            targets.extend((make_word(start), True) for start in find_starts(fixed))
        return targets
    return option_written(words, cwd)  # git diff --output=F, uniq IN OUT, curl -o F, … (bash_option_writes.py)


_INSTALL_LEADING = frozenset({"-D"})


def _copied_to(program: str, args: list[Word], operands: list[Word], cwd: str) -> list[tuple[Word, bool]]:
    """``cp``/``install``/``ln``/``mv``: the destination (``DEST/name`` for a folder); ``mv``
    also removes its sources."""
    target = option_arguments(args, "t", "--target-directory")
    if target:
        folder, sources = target[0], [w for w in operands if w is not target[0]]
    elif len(operands) >= 2 or program != "ln":
        folder, sources = (operands[-1], operands[:-1]) if operands else (None, [])
    else:  # ln TARGET: the link is made in the cwd under the target's name
        folder, sources = make_word("."), operands
    found: list[tuple[Word, bool]] = []
    if program == "mv":
        found.extend((w, True) for w in sources)
    if folder is None:
        return found
    base = folder.literal
    if target or (base is not None and (base.endswith("/") or os.path.isdir(os.path.join(cwd, base)))):
        for source in sources:
            name = os.path.basename((source.literal or source.text).rstrip("/"))
            if base is None or not name:
                found.append((folder, True))  # where it lands is not known: the whole folder
            else:
                found.append((make_word(os.path.join(base, name)), program in ("cp", "mv")))
        return found or [(folder, True)]
    found.append((folder, program in ("cp", "mv")))
    if program == "install" and base is not None and any(may_name(w, _INSTALL_LEADING) for w in args):
        # install -D a.txt x/y/z makes x and x/y first (as mkdir -p)
        found.extend((make_word(parent), False) for parent in missing_parents(base, cwd))
    return found


__all__ = ["AMBIGUOUS_TARGET", "RUNTIME_TARGET", "UNZIP_NO_WRITE", "WRITING_PROGRAMS", "written_targets"]
