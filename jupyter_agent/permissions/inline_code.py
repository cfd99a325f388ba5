"""The string literals of code an interpreter takes on its command line.

``python -c "print(open('.env').read())"``, ``node -e 'fs.readFileSync(".env")'``, ``ruby -e``,
``perl -e``, ``php -r``, ``Rscript -e``, ``expect -c``, ``gnuplot -e``, ``elixir -e``, ``bb -e``,
``raku -e``, ``nix eval --expr`` …: a rule allowing the
interpreter allows running code, not reading a file a ``Read`` deny rule closes or writing a
protected one. What the code computes cannot be seen (the sandbox holds the rules for that), but a
path it spells as a string literal can: each literal is checked as a path the command names
(``bash_arguments.protected_arguments``), and so is each word of a literal that reads as a command
line (``os.system('cat .env')``, perl's and ruby's backquotes).
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence

from .bash_runner_table import PYTHONS
from .bash_words import Word

# interpreter -> (one-letter options whose value is code, long ones)
_PYTHON_CODE = ("c", ())
INTERPRETERS: dict[str, tuple[str, tuple[str, ...]]] = {
    **{name: _PYTHON_CODE for name in PYTHONS | {"ipython"}},
    **{name: ("ep", ("--eval", "--print")) for name in ("node", "nodejs", "bun")},
    "ruby": ("e", ()), "perl": ("eE", ()), "php": ("r", ()), "Rscript": ("e", ()), "R": ("e", ()),
    "julia": ("eE", ("--eval", "--print")), "lua": ("e", ()), "luajit": ("e", ()),
    "expect": ("c", ()), "gnuplot": ("e", ()), "octave": ("", ("--eval",)), "osascript": ("e", ()),
    # the Lisps, the ML family, Raku, the TypeScript runners, QuickJS, Janet, Hy, CoffeeScript
    **{name: ("e", ("--eval",)) for name in ("elixir", "clojure", "clj", "bb", "racket", "qjs", "fennel", "coffee")},
    "guile": ("c", ()), "sbcl": ("", ("--eval",)), "ghc": ("e", ()), "ghci": ("e", ()), "scala": ("e", ()),
    "raku": ("e", ()), "perl6": ("e", ()), "janet": ("e", ()), "hy": ("c", ()),
    **{name: ("ep", ("--eval", "--print")) for name in ("ts-node", "tsx")},
    # nix reads files by bare path literals: builtins.readFile ./.env
    "nix": ("", ("--expr",)), **{name: ("E", ("--expr",)) for name in ("nix-instantiate", "nix-build", "nix-shell")},
}
_LITERAL = re.compile(r"""(['"`])((?:\\.|(?!\1)[^\\\n])*)\1""")
# perl's and ruby's quote operators: q{…}, qq(…), qx[…], qw<…>; %q(…), %Q{…}, %x[…], %w<…>
_QUOTE_OPERATOR = re.compile(r"(?:\bq[qwx]?|%[qQxwWiI])\s*"
                             r"(?:\{([^{}\n]*)\}|\(([^()\n]*)\)|\[([^\[\]\n]*)\]|<([^<>\n]*)>)")
_MAX_LITERAL = 4096
# Library calls that read a .env file no string of the code names: python-dotenv's load_dotenv(),
# dotenv_values(), find_dotenv() (from the current folder, or the calling file's, upwards),
# environs' and django-environ's read_env(), python-decouple, IPython's %dotenv, node's
# require('dotenv').config() and 'dotenv/config', ruby's Dotenv.load and 'dotenv/load', PHP's
# Dotenv::createImmutable(), Go's godotenv.Load(), Rust's dotenvy::dotenv().  They count as
# naming .env here and up to three folders above (`load_dotenv(); print(os.environ)` printed it).
_IMPLICIT_DOTENV = re.compile(
    r"\b(?:load_dotenv|dotenv_values|find_dotenv|read_dotenv|read_env|decouple|Dotenv\.load|Dotenv::create\w*"
    r"|godotenv\.(?:Load|Overload|Read|Exec)|dotenvy?::\w+)\b|%dotenv\b|['\"]dotenv(?:/config|/load)?['\"]")
_DOTENV_NAMES = (".env", "../.env", "../../.env", "../../../.env")
_COMMAND_WORDS = re.compile(r"[\s;|&<>()]+")
_CODE_WORDS = re.compile(r"[\s;|&<>(){}\[\],'\"`=+*]+")


def is_interpreter(program: str | None) -> bool:
    return program is not None and (program in INTERPRETERS or _versioned_python(program))


def _versioned_python(program: str) -> bool:
    return program.startswith("python") and program[6:].replace(".", "").isdigit()


def inline_code(words: Sequence[Word]) -> list[str]:
    """The code words ``words`` (an interpreter first) runs from its command line (fixed ones;
    a word known only at run time is checked as a word of its own).  Every word is looked at:
    an option of unknown width (``python -X dev -c …``) does not hide the code, and a script's
    own ``-c`` only adds literals to check."""
    program = words[0].literal or ""
    letters, longs = INTERPRETERS.get(program, _PYTHON_CODE)
    codes: list[str] = []
    i = 1
    while i < len(words):
        text = words[i].literal
        taken = None
        if text is None or text[:1] != "-" or text in ("-", "--"):
            i += 1
            continue
        if text[:2] == "--":
            name, equals, value = text.partition("=")
            if name in longs:
                taken = value if equals else _next(words, i)
                i += 0 if equals else 1
        else:
            at = next((j for j, c in enumerate(text[1:], 1) if c in letters), None)
            if at is not None:
                attached = text[at + 1:]
                if set(attached) <= set(letters):  # -ne 'code'; node -pe 'code' (-p -e)
                    attached = ""
                taken = attached or _next(words, i)  # -e'code'
                i += 0 if attached else 1
        if taken:
            codes.append(taken)
        i += 1
    return codes


def _next(words: Sequence[Word], i: int) -> str | None:
    return words[i + 1].literal if i + 1 < len(words) else None


def code_literals(codes: Sequence[str], bare: bool = True, words: bool = True) -> list[str]:
    """The string literals of ``codes`` that may name a file (one line, not too long), the words
    of those that read as command lines (not with ``words`` False), (``bare``: an interpreter's
    command-line code, whose language may run a command outside quotes) its path-like words
    outside any quotes, and the ``.env`` files a dotenv library call reads unnamed."""
    found: list[str] = []
    for code in codes if bare else ():  # a path outside any quotes: ruby's %x(cat .env), perl's qx{cat .env}
        found.extend(w for w in _CODE_WORDS.split(code) if path_like(w) and len(w) > 2 and w not in found)
    todo = list(codes)
    while todo:  # and the literals inside a literal: the shell's quotes around the code
        for text in _literal_texts(todo.pop()):
            if text and text not in found:
                todo.append(text)
                if len(text) <= _MAX_LITERAL:
                    found.append(text)
                    # a command line in a string (os.system('cat .env'), perl's `cat .env`): its words
                    if words:
                        found.extend(w for w in _COMMAND_WORDS.split(text)
                                     if w and w != text and w not in found)
    if any(("env" in code or "decouple" in code) and _IMPLICIT_DOTENV.search(code) for code in codes):
        found.extend(name for name in _DOTENV_NAMES if name not in found)
    return found


def _literal_texts(code: str) -> Iterator[str]:
    """The texts of the string literals of ``code``: quoted, and perl's and ruby's quote operators."""
    for match in _LITERAL.finditer(code):
        yield match.group(2)
    if "q" in code or "%" in code:
        for match in _QUOTE_OPERATOR.finditer(code):
            yield next(group for group in match.groups() if group is not None)


def path_like(literal: str) -> bool:
    """A literal that reads as a file path (``src/app.py``, ``.env``), not as a word or a
    sentence (``hello``, ``%d rows``): the one kind checked against Edit rules, which cover
    any new name in a folder."""
    return ("/" in literal or "." in literal) and not any(c in literal for c in " \t%{}")


__all__ = ["INTERPRETERS", "code_literals", "inline_code", "is_interpreter", "path_like"]
