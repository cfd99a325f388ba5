"""The values the Bash parser produces: simple commands, file redirections, the parsed line.

The walkers build one ``SimpleCommand`` per command, so besides the dataclass constructor
there is ``new_simple``, which fills the slots directly (the frozen dataclass ``__init__`` sets
each field through ``object.__setattr__``, several times slower).  ``bash_parse`` re-exports
these names.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .bash_words import Word

DEV_SINKS = frozenset({"/dev/null", "/dev/stdout", "/dev/stderr", "/dev/tty"})  # not files
# devices a command reads that hold no one's data (`cmd < /dev/null`): no read outside (and
# /dev/stdin, by its name: its real path is whatever standard input is)
DEV_SOURCES = frozenset({"/dev/null", "/dev/zero", "/dev/random", "/dev/urandom", "/dev/full"})
WRITE_OPS = frozenset({">", ">>", ">|", "&>", "&>>", ">&"})
READ_OPS = frozenset({"<"})


@dataclass(frozen=True, slots=True)
class Redirect:
    """A file redirection: ``write`` for ``>``-like operators, else a read (``<``)."""

    target: Word
    write: bool


@dataclass(frozen=True, slots=True)
class SimpleCommand:
    """One command: its words (program first), env assignments and where it was found."""

    words: tuple[Word, ...]
    assignments: tuple[tuple[str, Word], ...] = ()
    nested: bool = False  # inside a substitution, -c string or eval
    kind: str = "command"  # "command" | "test" | "assignment"
    test_operators: tuple[str, ...] = ()


@dataclass(slots=True, init=False)
class ParsedCommand:
    """All simple commands of a line, its file redirections and why it cannot be trusted."""

    commands: list[SimpleCommand] = field(default_factory=list)
    redirects: list[Redirect] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)

    def __init__(self, commands: list[SimpleCommand] | None = None,
                 redirects: list[Redirect] | None = None, problems: list[str] | None = None) -> None:
        self.commands = [] if commands is None else commands
        self.redirects = [] if redirects is None else redirects
        self.problems = [] if problems is None else problems


_new = object.__new__
# The slot setters of words, assignments, nested, kind, test_operators (in that order).
CMD_SLOT_SETTERS = tuple(getattr(SimpleCommand, f).__set__ for f in SimpleCommand.__slots__)


def new_simple(words: tuple, assignments: tuple, nested: bool, kind: str = "command",
               operators: tuple = ()) -> SimpleCommand:
    """``SimpleCommand(words, assignments, nested, kind, operators)``, several times faster."""
    cmd = _new(SimpleCommand)
    set_words, set_assignments, set_nested, set_kind, set_operators = CMD_SLOT_SETTERS
    set_words(cmd, words)
    set_assignments(cmd, assignments)
    set_nested(cmd, nested)
    set_kind(cmd, kind)
    set_operators(cmd, operators)
    return cmd
