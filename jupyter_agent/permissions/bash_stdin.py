"""What a shell reading its commands from standard input reads: ``sh <<'EOF' … EOF``, ``bash <<<
'code'``, ``sh < cmds.txt``, ``echo 'code' | sh``, ``printf 'a\\nb\\n' | bash``, ``cat cmds.txt | sh``.

Such a shell runs that text as its code, so ``bash_analysis`` reads it as it reads ``sh -c
CODE`` (fixed text) or ``sh FILE`` (a file, ``script_files``); anything else — ``curl … | sh``,
an unquoted heredoc with expansions, a pipe from a compound command, ``{ sh; } < f`` — stays code
only known at run time.  Only a line that runs such a shell is walked here, once per analysis.

A command is found again by its words (the texts the parser's walker reads); commands of one
line with equal words and different inputs get every input (each is read: the checks see a
superset of what runs).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from .bash_commands import ParsedCommand
from .bash_lexcheck import skipped_text
from .bash_loops import MAY_LOOP
from .bash_words import Node, Word, WordReader

if TYPE_CHECKING:
    from .bash_parse import _Walker

# what a shell reads: fixed text (its code), a file (its path as a word), or None (not known)
Source = str | Word | None
_STDIN_OPS = frozenset({"<", "<<", "<<-", "<<<", "<&", "<>", "<&-"})
_QUOTES = ("'", '"', "\\")
_ECHO_OPTION = re.compile(r"-[neE]+")
# what may make `echo`, `printf` or `cat` something else (an alias, through a file sourced or code
# evaluated): then no input is known
_MEANING_CHANGED = re.compile(r"alias|shopt|source|eval|enable|hash|(?:^|[;&|(\s])\.\s")
_PRINTF_ESCAPES = {"n": "\n", "t": "\t", "\\": "\\", '"': '"', "'": "'"}


class StdinSources:
    """The standard input of each command of ``line`` (by its words), read on first use."""

    def __init__(self, line: str) -> None:
        self.line = line
        self._found: dict[tuple[str, ...], list[Source]] | None = None

    def of(self, words: tuple[Word, ...]) -> list[str | Word] | None:
        """What the command with these words reads on standard input, each input of every such
        command of the line; None when one of them is not known (or the command is not found)."""
        if self._found is None:
            try:
                self._found = _sources(self.line)
            except Exception:  # (never seen) fail closed: what every shell reads is not known
                self._found = {}
        found = self._found.get(tuple(w.text for w in words))
        if not found or any(source is None for source in found):
            return None
        return found  # type: ignore[return-value]


def _sources(line: str) -> dict[tuple[str, ...], list[Source]]:
    from .bash_parse import _parser, _Walker  # (bash_parse imports the analysis' helpers)

    if _MEANING_CHANGED.search(line):  # alias echo='printf "%s x\n" rm', shopt -s expand_aliases in x.sh
        return {}
    data = line.encode("utf-8", "surrogateescape")
    if b"\\\n" in data or MAY_LOOP.search(data):
        return {}  # the parser reads a rewritten line (joined, loops unrolled): its commands are not these
    root = _parser().parse(data).root_node
    if root.has_error or skipped_text(root, data) is not None:
        return {}  # (`sh - <<'EOF'`: tree-sitter drops the `-`, which the parser puts back)
    walker = _Walker(ParsedCommand(), WordReader(line))
    found: dict[tuple[str, ...], list[Source]] = {}
    stack = [root]
    while stack:
        node = stack.pop()
        if node.type == "command":
            words = _words(walker, node)
            if words is not None:
                found.setdefault(tuple(w.text for w in words), []).append(_stdin(walker, node, 0))
        stack.extend(node.named_children)
    return found


def _words(walker: _Walker, node: Node) -> tuple[Word, ...] | None:
    out = walker.out
    before = len(out.commands)
    walker._command(node, False)
    if len(out.commands) == before:
        return None
    return out.commands[-1].words


def _stdin(walker: _Walker, command: Node, depth: int) -> Source:
    """What ``command`` reads on standard input: its own last input redirection, else what the
    command before it in a pipe writes; None when that is not known."""
    if depth > 3:
        return None
    redirects = [c for c in command.children if c.type in ("file_redirect", "herestring_redirect", "heredoc_redirect")]
    parent = command.parent
    holder = None  # the redirected statement whose redirections are the command's
    if parent is not None and parent.type == "redirected_statement" and _is_body(parent, command):
        holder = parent
    elif (parent is not None and parent.type == "pipeline" and parent.named_children[-1].id == command.id
          and parent.parent is not None and parent.parent.type == "redirected_statement"
          and _is_body(parent.parent, parent)):
        holder = parent.parent  # `echo a | sh < f`: the last command's redirection
    if holder is not None:
        for child in holder.named_children:
            if child.type in ("file_redirect", "herestring_redirect", "heredoc_redirect") and not _is_body(holder,
                                                                                                           child):
                redirects.append(child)
                redirects.extend(c for c in child.named_children if c.type == "file_redirect")
    source: Source | bool = False  # False: no input redirection
    for redirect in redirects:  # the last one wins, as bash applies them in order
        got = _redirect_input(walker, redirect)
        if got is not False:
            source = got
    if source is not False:
        return source  # type: ignore[return-value]
    before = _pipe_before(command)
    if before is None:
        return None  # the shell's own input (a compound's redirection, the tool's): not read here
    return _output(walker, before, depth)


def _is_body(statement: Node, child: Node) -> bool:
    body = statement.child_by_field_name("body")
    return body is not None and body.id == child.id


def _redirect_input(walker: _Walker, node: Node) -> Source | bool:
    """The input an input redirection gives (False: it is not one of standard input)."""
    fd = next((walker.text(c) for c in node.children if c.type == "file_descriptor"), "0")
    op = _operator(node)
    if fd != "0" or op not in _STDIN_OPS:
        return False
    if node.type == "herestring_redirect":
        values = [c for c in node.named_children if c.type != "file_descriptor"]
        value = walker.words.read(values[0]).literal if len(values) == 1 else None
        return None if value is None else value + "\n"
    if node.type == "heredoc_redirect":
        start = next((c for c in node.children if c.type == "heredoc_start"), None)
        body = next((c for c in node.children if c.type == "heredoc_body"), None)
        if start is None:
            return None
        text = walker.text(body) if body is not None else ""
        if not any(q in walker.text(start) for q in _QUOTES) and any(c in text for c in "$`\\"):
            return None  # expansions: the text the shell gets is only known at run time
        if op == "<<-":
            text = "\n".join(line.lstrip("\t") for line in text.split("\n"))
        return text
    targets = [c for c in node.named_children if c.type != "file_descriptor"]
    if op != "<" or len(targets) != 1:
        return None  # <&3, <>: not a file read here
    word = walker.words.read(targets[0])
    if word.literal == "/dev/null":
        return ""
    return word if word.static and not word.glob else None


def _pipe_before(command: Node) -> Node | None:
    """The statement whose output ``command`` reads through a pipe (``cat <<'EOF' | sh``: the
    heredoc's command), or None."""
    node = command
    parent = node.parent
    if parent is not None and parent.type == "redirected_statement" and _is_body(parent, node):
        node, parent = parent, parent.parent
    if parent is None or parent.type != "pipeline":
        return None
    items = [c for c in parent.named_children if c.type != "comment"]
    index = next((i for i, c in enumerate(items) if c.id == node.id), None)
    if index is None:
        return None
    if index > 0:
        return items[index - 1]
    heredoc = parent.parent  # `cat <<EOF | sh`: tree-sitter puts `| sh` in the heredoc
    if heredoc is not None and heredoc.type == "heredoc_redirect" and heredoc.parent is not None:
        statement = heredoc.parent
        body = statement.child_by_field_name("body")
        if statement.type == "redirected_statement" and body is not None and body.type == "command":
            return body
    return None


def _output(walker: _Walker, node: Node, depth: int) -> Source:
    """What ``echo``/``printf`` with fixed words, or ``cat`` of one file (or of its own input),
    writes; None for anything else."""
    command = node
    if node.type == "redirected_statement":
        body = node.child_by_field_name("body")
        if body is None or body.type != "command":
            return None
        for child in node.named_children:
            if child.type == "file_redirect" and _operator(child) not in _STDIN_OPS:
                return None  # echo x > f | sh: the output goes elsewhere
        command = body
    if command.type != "command":
        return None
    if any(c.type == "file_redirect" and _operator(c) not in _STDIN_OPS for c in command.children):
        return None
    words = _words(walker, command)
    if not words or any(w.literal is None for w in words):
        return None
    program, args = words[0].literal, [w.literal or "" for w in words[1:]]
    if program == "echo":
        while args and _ECHO_OPTION.fullmatch(args[0]):
            args = args[1:]
        if any("\\" in a for a in args):
            return None  # echo -e, or bash's xpg_echo: escapes
        return " ".join(args) + "\n"
    if program == "printf":
        return _printf(args)
    if program == "cat":
        if not args:
            return _stdin(walker, command, depth + 1)
        if len(args) == 1 and args[0] != "-" and not args[0].startswith("-"):
            return words[1]
    return None


def _operator(redirect: Node) -> str:
    """A redirection's operator (``<``, ``<<<``, ``>``, ``2>`` gives ``>``)."""
    return next((c.type for c in redirect.children if not c.is_named), "")


def _printf(args: list[str]) -> str | None:
    """``printf FORMAT [ARG …]`` with only ``%s``, ``%%`` and the escapes \\n \\t \\\\ \\" \\'
    (the format reused until the arguments run out, as printf does); None otherwise."""
    if not args or args[0].startswith("-"):
        return None  # printf -v NAME …, printf -- …
    pieces: list[str | None] = []  # text, or None for a %s
    text = args[0]
    i, plain = 0, []
    while i < len(text):
        c = text[i]
        nxt = text[i + 1] if i + 1 < len(text) else ""
        if c == "\\":
            if nxt not in _PRINTF_ESCAPES:
                return None
            plain.append(_PRINTF_ESCAPES[nxt])
            i += 2
        elif c == "%":
            if nxt == "%":
                plain.append("%")
            elif nxt == "s":
                pieces.extend(["".join(plain), None])
                plain = []
            else:
                return None
            i += 2
        else:
            plain.append(c)
            i += 1
    pieces.append("".join(plain))
    values = args[1:]
    slots = pieces.count(None)
    if not slots:
        return "".join(p for p in pieces if p is not None)
    out: list[str] = []
    while True:
        for piece in pieces:
            out.append(values.pop(0) if piece is None and values else piece or "")
        if not values:
            return "".join(out)
