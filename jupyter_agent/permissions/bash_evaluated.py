"""Bash builtins that evaluate a quoted argument as code: ``printf -v 'a[$(rm x)]' 1`` runs
``rm x`` though the quotes make the analyzer (and any rule) see one fixed word; and builtins
that change what the rest of the line means.

Bash evaluates an array subscript in a variable name given to a builtin (``printf -v``,
``read``, ``test -v``/``[ -v``, ``declare``/``typeset``/``local``/``export``/``readonly``,
``unset``, ``getopts``, ``wait -p``, ``mapfile``/``readarray``), expanding ``$(…)`` in it and
evaluating variables as arithmetic, whose values may hold more code.  ``let`` evaluates every
argument as arithmetic; ``declare -i`` evaluates values, ``declare -n`` makes a name whose
later use evaluates a subscript, and a quoted compound value (``declare -a 'a=($(rm x))'``) is
expanded again.  (Seen with bash 5.2 for printf -v, read, test -v, [ -v, declare, typeset,
let, declare -i and the quoted compound value; the others are asked about for other versions.)
Like ``a[$(rm x)]=1`` and ``$((x))`` written out, these ask whatever rule allows the builtin,
unless the subscript is a plain number and arithmetic holds numbers only (``let i=1+2``); and
the code is only known at run time, so a deny rule may name it in every mode (bash_analysis).
``[[ A -eq B ]]`` evaluates both sides as arithmetic too (bash_parse ``_numbers_compared``).

The rest of a line is analyzed as bash reads it by default, so these ask too:
``shopt -s dotglob`` (then ``rm -rf *`` takes ``.git`` and ``cat *`` reads a Read-denied
``.env``), ``nocaseglob`` (``.GI*``), ``shopt -u globskipdots`` (``.*`` takes ``..``),
``expand_aliases`` and every other shopt option not known to be harmless; ``set -k`` (``ls
LD_PRELOAD=./x.so`` sets the variable); ``hash -p /bin/rm ls`` (``ls`` then runs rm); and
``alias NAME=VALUE`` (code a later command name runs).  ``compgen -W '$(cmd)'`` expands its
word list (``-C``/``-F`` run a command or function); ``jobs -x CMD`` runs ``CMD``.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from .bash_words import Word

EVALUATING = frozenset({"printf", "read", "test", "[", "declare", "typeset", "local", "export", "readonly",
                        "unset", "getopts", "wait", "mapfile", "readarray", "let", "shopt", "set", "hash", "alias",
                        "compgen", "complete", "jobs", "setopt", "unsetopt", "emulate"})
# shopt options that change neither what a pattern matches nor what a word runs or names
_HARMLESS_SHOPT = frozenset({"checkwinsize", "histappend", "cmdhist", "lithist", "checkhash", "lastpipe",
                             "inherit_errexit", "xpg_echo", "huponexit", "checkjobs", "promptvars", "progcomp",
                             "progcomp_alias", "hostcomplete", "interactive_comments", "mailwarn",
                             "no_empty_cmd_completion", "complete_fullquote", "force_fignore", "gnu_errfmt",
                             "histreedit", "histverify", "shift_verbose", "noexpand_translation"})
DECLARES = frozenset({"declare", "typeset", "local", "export", "readonly"})
_NUMBERS_ONLY = frozenset("0123456789 \t+-*/%<>=!&|^~?:(),")
_LET_TARGET = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=(?!=)")  # `i=` (not `i==`: a comparison reads i)
# options whose value is a variable name, and the other options that take a value
_NAME_OPTIONS = {"printf": "v", "read": "a", "wait": "p"}
_VALUED = {"read": "dinNptu", "mapfile": "dnOsucC", "readarray": "dnOsucC"}


def evaluation_reason(words: Sequence[Word]) -> str | None:
    """Why the builtin ``words`` (program first) must ask: an argument it evaluates as code."""
    program = words[0].literal
    if program not in EVALUATING or len(words) < 2:
        return None
    texts = [w.literal if w.literal is not None else w.text for w in words[1:]]
    if program == "let":  # let 2+3, let i=2+3: numbers, and a plain name given them
        from .bash_wrappers import dangerous_env  # (bash_wrappers reads this module)

        for text in texts:  # let PATH=0: a relative folder (ls runs ./0/ls); BASH_ENV=0 a file
            target = _LET_TARGET.match(text)
            name = target.group(0)[:-1] if target is not None else ""
            if name and dangerous_env(name):
                return f"let sets {name}, which changes what programs run"
        if all(_NUMBERS_ONLY.issuperset(_LET_TARGET.sub("", t, count=1)) for t in texts):
            return None
        return "let evaluates arithmetic on variables, whose values may run code"
    if program in ("shopt", "set", "hash", "alias") or program in _ZSH_SETTERS:
        return run_time_option(program, words) or changes_meaning(program, texts)
    if program in ("compgen", "complete"):
        return _completion_code(program, texts)
    if program == "jobs":  # jobs -x CMD ARGS runs CMD (a runner; deny rules see it too)
        return "jobs -x runs a command" if any(t[:1] == "-" and "x" in t for t in texts) else None
    names, values, options = _names(program, texts)
    for name in names:
        head, _, _ = name.partition("=") if program in DECLARES else (name, "", "")
        if "[" in head and not _plain_subscripts(head):
            return f"{program} evaluates the array subscript in {head[:40]} (it can run code)"
        if program in DECLARES and not _NAME.match(head):  # K=HOME; export "$K"=/etc
            return f"{program} sets a variable whose name is only known at run time ({head[:40]})"
    if program in DECLARES:
        for value in values:
            if value.startswith("("):
                return f"{program} expands the quoted compound value {value[:40]} again (it can run code)"
            if "i" in options and not _NUMBERS_ONLY.issuperset(value):
                return f"{program} -i evaluates {value[:40]} as arithmetic (it can run code)"
            if "n" in options and "[" in value:
                return f"{program} -n names {value[:40]}, whose subscript is evaluated where it is used"
        if "i" in options and any("=" not in name for name in names):
            return f"{program} -i makes later assignments arithmetic (they can run code)"
        if "n" in options and program in _NAMEREF_DECLARES:
            return _NAMEREF
    return None


def _declared_name(program: str, text: str) -> str:
    """A word only known at run time as ``_names`` reads it: a declare's ``NAME=$VALUE`` keeps
    its name (``export PATH="$X"`` sets PATH); otherwise ``?``, a name only known at run time."""
    name, sep, _value = text.partition("=")
    return f"{name}=?" if program in DECLARES and sep and _NAME.fullmatch(name) else "?"


_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(\[|$)")  # a variable's name (an array's, with its subscript)
_NAMEREF_DECLARES = frozenset({"declare", "typeset", "local"})  # export -n only un-exports
_NAMEREF = ("declare -n makes a name refer to another variable: assigning it sets that one (PATH, "
            "GLOBIGNORE, LD_PRELOAD …)")


def run_time_option(program: str, words: Sequence[Word]) -> str | None:
    """Why ``set``/``shopt``/``hash`` may take an option only known at run time: ``shopt $X
    dotglob`` (X=-s: ``cat *`` then reads .env), ``hash $X /bin/rm ls`` (X=-p), ``set "$X"``
    (X=-k): a word that is not fixed before ``--`` (unquoted, ``$X`` may be several words:
    ``hash $X`` with X='-p /bin/rm ls')."""
    if program not in ("set", "shopt", "hash"):
        return None
    for word in words[1:]:
        if word.literal == "--":
            return None
        if word.literal is None:
            return (f"{program} {word.text} may be an option only known at run time, which may change how the "
                    "rest of the line is read")
    return None


def changes_meaning(program: str, texts: list[str]) -> str | None:
    """Why ``shopt``/``set``/``hash``/``alias`` (or zsh's ``setopt``/``unsetopt``/``emulate``)
    changes what later words of the line mean."""
    if program == "set":
        return _set_change(texts)
    if program in _ZSH_SETTERS:
        return f"{program} changes how the rest of the line is read ({' '.join(texts)[:40]})"
    options: list[str] = []
    operands: list[str] = []
    for k, text in enumerate(texts):
        if text == "--" or not (text[:1] in "-+" and len(text) > 1):
            operands = texts[k + (text == "--"):]
            break
        options.append(text)
    letters = "".join(o[1:] for o in options if not o.startswith("--"))
    if program == "shopt":
        if "s" not in letters and "u" not in letters:
            return None  # prints settings
        changed = [name for name in operands if name not in _HARMLESS_SHOPT]
        if "o" in letters or changed:  # shopt -so: set -o options
            return f"shopt changes how the rest of the line is read ({' '.join(changed or operands)[:40]})"
        return None
    if program == "hash":
        return "hash -p makes a command name run another program" if "p" in letters else None
    if any("=" in t for t in operands):  # alias
        return "alias defines code that a later command name runs"
    return None


_HISTORY = "set -H turns on history expansion: `!…` in a later line runs an earlier command again"
_KEYWORD = "set {} makes later NAME=VALUE arguments environment settings"
# bash's `set` letters and -o names that change no later word's meaning; any other is another
# shell's (ksh's -G: ** recursive).  Turning one off (+) is harmless: the analysis reads a line
# with bash's defaults, and off only matches or runs less
_HARMLESS_SET = frozenset("abefhmnptuvxBCEPT")
_HARMLESS_SET_NAMES = frozenset({"allexport", "braceexpand", "emacs", "errexit", "errtrace", "functrace", "hashall",
                                 "history", "ignoreeof", "interactive-comments", "monitor", "noclobber", "noexec",
                                 "noglob", "nolog", "notify", "nounset", "onecmd", "physical", "pipefail", "posix",
                                 "privileged", "verbose", "vi", "xtrace"})
# zsh's builtins that set its options: ``emulate zsh`` (what zsh's code gets first) and ``setopt
# globdots`` only change what patterns match; anything else may change what words run
_ZSH_SETTERS = frozenset({"setopt", "unsetopt", "emulate"})
# bash's shopt options that change only what a pattern matches (expand_aliases, sourcepath,
# extdebug … change what a word runs)
_SHOPT_PATTERN_OPTIONS = frozenset({"dotglob", "nullglob", "failglob", "nocaseglob", "globstar", "extglob",
                                    "globasciiranges", "globskipdots", "nocasematch"})
_ZSH_PATTERN_OPTIONS = frozenset({"globdots", "extendedglob", "nullglob", "nomatch", "globstarshort", "kshglob",
                                  "shglob", "bareglobqual", "caseglob", "casepaths", "numericglobsort", "markdirs",
                                  "globassignsubst", "badpattern", "cshnullglob", "glob", "dotglob"})


def _shopt_patterns_only(texts: list[str]) -> bool:
    """``shopt -s dotglob nullglob``: only pattern options (not ``-o``, a ``set -o`` name)."""
    names = [t for t in texts if not t.startswith("-")]
    return not any("o" in t[1:] for t in texts if t.startswith("-") and not t.startswith("--")) and all(
        name in _SHOPT_PATTERN_OPTIONS or name in _HARMLESS_SHOPT for name in names)


def _set_change(texts: list[str]) -> str | None:
    """``set`` as bash reads its options: clusters, each ``o`` taking the next word (``set -euo
    pipefail -k`` sets ``k`` too); a lone ``-`` or ``--`` or the first operand ends them."""
    k = 0
    while k < len(texts):
        text = texts[k]
        k += 1
        if text in ("-", "--") or text[:1] not in "-+" or len(text) < 2:
            return None
        for letter in text[1:]:
            if letter == "o":
                name = texts[k] if k < len(texts) else ""
                k += 1
                if text[0] == "+" or not name or name in _HARMLESS_SET_NAMES:
                    continue
                if name == "keyword":
                    return _KEYWORD.format("-o keyword")
                if name == "histexpand":
                    return _HISTORY
                return f"set -o {name[:40]} changes how the rest of the line is read"
            if text[0] == "+" or letter in _HARMLESS_SET:
                continue
            if letter == "k":
                return _KEYWORD.format("-k")
            return _HISTORY if letter == "H" else f"set -{letter} changes how the rest of the line is read"
    return None


def _zsh_patterns_only(texts: list[str]) -> bool:
    """``emulate zsh``, ``setopt globdots``: only what patterns match changes."""
    names = [t.lower().replace("_", "") for t in texts]
    if names == ["zsh"]:
        return True
    return bool(names) and all(n.removeprefix("no") in _ZSH_PATTERN_OPTIONS for n in names)


def _completion_code(program: str, texts: list[str]) -> str | None:
    """``compgen -W '$(cmd)'`` expands its word list; ``-C CMD`` and ``-F FUNC`` run code."""
    for k, text in enumerate(texts):
        if text[:1] != "-" or text[:2] == "--":
            continue
        for j, letter in enumerate(text[1:], 1):
            if letter in "CF":
                return f"{program} -{letter} runs a command or function to complete"
            if letter in "WXGP":  # the option's value: a word list, a filter, a glob, a prefix
                value = text[j + 1:] or (texts[k + 1] if k + 1 < len(texts) else "")
                if any(c in value for c in "$`"):
                    return f"{program} -{letter} expands {value[:40]} (it can run code)"
                break
    return None


_SETTERS = frozenset({"read", "printf", "getopts", "mapfile", "readarray", "wait"})


def assigned_names(words: Sequence[Word]) -> list[str]:
    """The variables a builtin other than a declare-like sets by name (``read PATH``, ``printf -v
    PATH``, ``getopts x PATH``, ``mapfile PATH``, ``wait -p PATH``; an array's name without its
    subscript): setting ``PATH`` or ``BASH_ENV`` that way changes what later commands run, as
    ``PATH=/tmp`` does.  A name only known at run time is ``?``."""
    program = words[0].literal if words else None
    if program not in _SETTERS or len(words) < 2:
        return []
    texts = [w.literal if w.literal is not None else "?" for w in words[1:]]
    return [name.partition("[")[0] for name in _names(program, texts)[0]]


def _names(program: str, texts: list[str]) -> tuple[list[str], list[str], str]:
    """The words ``program`` takes as variable names, the values a declare-like assigns, and
    the letters of its options."""
    if program in ("test", "["):
        return _test_names(texts), [], ""
    name_options = _NAME_OPTIONS.get(program, "")
    valued = _VALUED.get(program, "")
    names: list[str] = []
    values: list[str] = []
    letters = ""
    operands: list[str] = []
    i = 0
    options_done = False
    while i < len(texts):
        text = texts[i]
        i += 1
        if not options_done and text == "--":
            options_done = True
            continue
        if not options_done and text[:1] in "-+" and len(text) > 1 and program != "let":
            for k, letter in enumerate(text[1:], 1):
                letters += letter
                if letter in name_options or letter in valued:
                    value = text[k + 1:] or (texts[i] if i < len(texts) else "")
                    if not text[k + 1:]:
                        i += 1
                    if letter in name_options:
                        names.append(value)
                    break
            continue
        options_done = program not in DECLARES  # declare x -i y: options anywhere
        operands.append(text)
    if program in DECLARES or program in ("read", "unset", "mapfile", "readarray"):
        names.extend(operands)
        values.extend(t.partition("=")[2] for t in operands if "=" in t)
    elif program == "getopts":
        names.extend(operands[1:2])
    return names, values, letters


def _test_names(texts: list[str]) -> list[str]:
    """The operand after each ``-v`` or ``-R`` of a test (``test -v NAME``, ``[ ! -v NAME ]``)."""
    return [texts[k + 1] for k, t in enumerate(texts[:-1]) if t in ("-v", "-R")]


def _plain_subscripts(name: str) -> bool:
    """``a[0]``, ``a[12]``: every subscript a plain number (nothing to evaluate)."""
    rest = name
    while "[" in rest:
        _, _, after = rest.partition("[")
        inside, close, rest = after.partition("]")
        if not close or not inside.isdigit():
            return False
    return True


# variables that change what a pattern matches: GLOBIGNORE set at all turns dotglob on (``cat *``
# takes .env), and a bash started with BASHOPTS or SHELLOPTS in its environment sets those options
PATTERN_VARIABLES = frozenset({"GLOBIGNORE", "BASHOPTS", "SHELLOPTS"})


# what the paths of the rest of the line depend on besides patterns: ~ and a bare cd lead to
# $HOME, `history -w` with no file writes $HISTFILE (-r reads it)
HOME_CHANGE = "home"
HISTFILE_CHANGE = "histfile"
_WHY = {
    "HOME": (HOME_CHANGE, "{who} HOME, so ~ and a bare cd lead to a folder only known at run time, which may be "
                          "a protected one"),
    "HISTFILE": (HISTFILE_CHANGE, "{who} HISTFILE, so history writes or reads a file only known at run time, "
                                  "which may be a protected or denied one"),
}


def line_change(forms: Sequence[Sequence[Word]], assigned: Sequence[tuple[str, str | None]]
                ) -> tuple[str, bool | str] | None:
    """How a command changes what the other commands of its line mean, as ``(why, patterns)``:
    ``patterns`` True when only what patterns match changes (``shopt -s dotglob``,
    ``GLOBIGNORE=x``, ``export GLOBIGNORE``), ``HOME_CHANGE`` when only where ``~`` and ``cd``
    lead changes (``HOME=/etc; cp x ~/passwd``, ``read HOME``), else False: what words run or
    set (``hash -p /bin/rm ls``, ``set -k``).  ``assigned`` are the command's ``NAME=VALUE``
    settings (in front, or after ``env``)."""
    for name, _value in assigned:
        if name in PATTERN_VARIABLES:
            return f"it sets {name}, which changes what patterns match", True
    for name, _value in assigned:
        if name in _WHY:
            kind, template = _WHY[name]
            return template.format(who="it sets"), kind
    for form in forms:
        program = form[0].literal if form else None
        if program in ("shopt", "set", "hash") or program in _ZSH_SETTERS:
            texts = [w.literal if w.literal is not None else w.text for w in form[1:]]
            unknown = run_time_option(program, form)
            if unknown is not None:
                return unknown, False  # (shopt $X expand_aliases, set $X with X=-k: what words run)
            why = changes_meaning(program, texts)
            if why is not None:
                return why, program == "shopt" and _shopt_patterns_only(texts) or (
                    program in _ZSH_SETTERS and _zsh_patterns_only(texts))
        elif program in _SETTERS or program in DECLARES:
            texts = [w.literal if w.literal is not None else _declared_name(program, w.text) for w in form[1:]]
            names, _values, letters = _names(program, texts)
            if program in _NAMEREF_DECLARES and "n" in letters:
                return _NAMEREF, False  # r=/tmp after declare -n r=PATH sets PATH
            for name in names:
                if name.partition("=")[0] in PATTERN_VARIABLES:
                    return f"{program} sets {name.partition('=')[0]}, which changes what patterns match", True
            for name in names:
                base = name.partition("=")[0].partition("[")[0]
                if base == "?" or not _NAME.match(base):  # read "$K", export "$K"=…: HOME, HISTFILE, GLOBIGNORE …
                    return (f"{program} sets a variable whose name is only known at run time, which may change "
                            "what the rest of the line means"), False
                for variable, (kind, template) in _WHY.items():
                    if base == variable:
                        return template.format(who=f"{program} may set"), kind
    return None


__all__ = ["DECLARES", "EVALUATING", "HISTFILE_CHANGE", "HOME_CHANGE", "PATTERN_VARIABLES", "assigned_names",
           "changes_meaning", "evaluation_reason", "line_change"]
