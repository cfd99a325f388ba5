"""Heredocs: where bash ends them, and what an unquoted body runs.

tree-sitter-bash and bash can disagree on where a heredoc ends: for ``<<E'O'F`` bash's
delimiter is ``EOF`` (quote removal) while tree-sitter waits for the text ``E'O'F``, reading the
lines after bash's end as quiet body text.  So the delimiter is computed as bash does and the
body must not contain it.  In an unquoted body bash runs every ``$(...)``, backtick and
``$[...]``; tree-sitter parses ``$(...)`` there but not backticks, so any ``$(``, ``$[`` or
backtick left in the body's plain text (not escaped) is a problem.  Quoted heredocs
(``<<'EOF'``, ``<<"EOF"``, ``<<\\EOF``) run nothing.  Found with the execution oracle
(``tests/permissions/test_bash_exec_oracle.py``).
"""

from __future__ import annotations

from typing import Any

from .bash_secrets import secret_expansion
from .bash_words import Node, Word, WordReader, make_word

_QUOTES = "'\"\\"
_DQ_ESCAPES = '$`"\\'
_PLAIN_CHILDREN = frozenset({"heredoc_content"})
_BODY_MARKS = (b"$(", b"$[", b"`")
_STATEMENTS = frozenset({"pipeline", "list", "command", "redirected_statement", "subshell",
                         "compound_statement", "negated_command", "if_statement", "while_statement",
                         "for_statement", "case_statement", "test_command", "declaration_command",
                         "variable_assignment", "variable_assignments", "unset_command"})
_ARITHMETIC = "0123456789+-*/%<>=!&|^~() \t"


def read_heredoc(walker: Any, node: Node) -> None:
    """``bash_parse._Walker``'s reading of a ``heredoc_redirect``: its redirections, the words
    of an unquoted body, and a problem when bash may end it elsewhere or run unseen code."""
    start = body = end = None
    dashed = False
    statements: list[Node] = []
    for child in node.children:
        kind = child.type
        if kind == "heredoc_start":
            start = child
        elif kind == "heredoc_body":
            body = child
        elif kind == "heredoc_end":
            end = child
        elif kind in ("file_redirect", "herestring_redirect"):
            walker._redirect(child)
        elif kind == "<<-":
            dashed = True
        elif kind in _STATEMENTS:  # `cat <<EOF | sh`: tree-sitter puts `| sh` in the redirect
            statements.append(child)
        elif child.is_named and kind != "comment":
            walker.out.problems.append(f"unsupported heredoc part: {kind}")
    for statement in statements:
        walker.walk(statement)
        if _has_heredoc(statement):  # `a <<X && b <<Y`: tree-sitter swaps the two bodies
            walker.out.problems.append("two heredocs started on one line")
    if start is None or end is None:
        walker.out.problems.append("a heredoc without a delimiter")
        return
    text = walker.text(start)
    body_text = walker.text(body) if body is not None else ""
    problem = end_problem(text, body_text, walker.text(end), dashed) or _end_line_problem(end, dashed)
    if problem is None and body is not None and not any(q in text for q in _QUOTES):
        problem = body_problem(body)
        secret = secret_expansion(body_text)
        if problem is None and secret:  # the body goes to the program: cat prints it
            problem = f"a here-document expands ${secret}, which may hold a credential"
        for child in body.named_children:
            if child.type in _PLAIN_CHILDREN:
                continue
            child_text = walker.text(child)
            if child_text.startswith("$(("):  # arithmetic to bash, whatever tree-sitter made of it
                if _number_arithmetic(child_text):
                    continue
                problem = problem or f"arithmetic beyond plain numbers in a heredoc: {child_text[:40]}"
            walker.words.read(child)  # still read: a deny rule sees the commands tree-sitter found
    if problem is not None:
        walker.out.problems.append(problem)


def _has_heredoc(node: Node) -> bool:
    stack = [node]
    while stack:
        node = stack.pop()
        if node.type == "heredoc_redirect":
            return True
        stack.extend(node.children)
    return False


def _end_line_problem(end: Node, dashed: bool) -> str | None:
    """bash ends a heredoc only at a line that is exactly the delimiter (``<<-``: after tabs);
    tree-sitter also accepts `` EOF`` and ``EOF `` and reads the lines after it as code."""
    root = end
    while root.parent is not None:
        root = root.parent
    data = root.text  # from the root's first token on (a line may start with blanks): offsets are relative
    base = root.start_byte
    start, stop = end.start_byte - base, end.end_byte - base
    line_start = data.rfind(b"\n", 0, start) + 1
    before = data[line_start:start]
    after = data[stop : stop + 1]
    if (before.strip(b"\t") if dashed else before) or after not in (b"", b"\n"):
        return "the heredoc delimiter line has more than the delimiter (bash reads on)"
    return None


def _number_arithmetic(text: str) -> bool:
    """``$((1+2))``, which tree-sitter reads in a heredoc as ``$(`` + a subshell: numbers only."""
    return text.startswith("$((") and text.endswith("))") and not text[3:-2].strip(_ARITHMETIC)


def delimiter(start: str) -> tuple[str, bool] | None:
    """Bash's delimiter for the word after ``<<`` and whether it is quoted; ``None`` when the word
    has ``$``, a backtick, a blank or an unclosed quote (not analyzed)."""
    if "$" in start or "`" in start or not start or any(c in " \t\n" for c in start):
        return None
    out: list[str] = []
    i, n = 0, len(start)
    while i < n:
        ch = start[i]
        if ch == "\\":
            if i + 1 >= n:
                return None
            out.append(start[i + 1])
            i += 2
        elif ch == "'":
            end = start.find("'", i + 1)
            if end < 0:
                return None
            out.append(start[i + 1 : end])
            i = end + 1
        elif ch == '"':
            i += 1
            while i < n and start[i] != '"':
                if start[i] == "\\" and i + 1 < n and start[i + 1] in _DQ_ESCAPES:
                    i += 1
                out.append(start[i])
                i += 1
            if i >= n:
                return None
            i += 1
        else:
            out.append(ch)
            i += 1
    return "".join(out), any(q in start for q in _QUOTES)


def end_problem(start: str, body: str, end: str, dashed: bool) -> str | None:
    """Why bash may end this heredoc elsewhere than tree-sitter does (``None``: same place)."""
    parsed = delimiter(start)
    if parsed is None:
        return f"a heredoc delimiter that is not analyzed: {start[:40]!r}"
    word = parsed[0]
    lines = body.split("\n")
    if dashed:
        lines = [line.lstrip("\t") for line in lines]
        end = end.lstrip("\t")
    if end != word or word in lines[:-1]:
        return f"the heredoc delimiter {start[:40]!r} may end elsewhere in bash"
    return None


def body_problem(body: Node) -> str | None:
    """Code in an unquoted body that tree-sitter left as plain text (``None``: none found).

    The parts of the body outside its expansion children are plain text, where an unescaped
    ``$(``, ``$[`` or backtick means bash runs something we did not see.  A backtick inside an
    expansion child is not analyzed either (tree-sitter reads the heredoc's backticks as text).
    Works on the body's bytes (node offsets are byte offsets).
    """
    data = body.text
    base = body.start_byte
    plain_from = 0
    for child in body.named_children:
        if child.type in _PLAIN_CHILDREN:
            continue
        start, end = child.start_byte - base, child.end_byte - base
        if _live_mark(data, plain_from, start):
            return "a substitution inside a heredoc was not understood"
        if b"`" in data[start:end]:
            return "backticks inside a heredoc are not analyzed"
        plain_from = max(plain_from, end)
    if _live_mark(data, plain_from, len(data)):
        return "a substitution inside a heredoc was not understood"
    return None


def _live_mark(data: bytes, start: int, end: int) -> bool:
    """An unescaped ``$(``, ``$[`` or backtick in ``data[start:end]``."""
    segment = data[start:end]
    if b"$" not in segment and b"`" not in segment:
        return False
    for mark in _BODY_MARKS:
        at = segment.find(mark)
        while at >= 0:
            if not _escaped(data, start + at):
                return True
            at = segment.find(mark, at + 1)
    return False


def _escaped(data: bytes, at: int) -> bool:
    """An odd number of backslashes right before ``data[at]``."""
    count = 0
    while at - count - 1 >= 0 and data[at - count - 1] == 92:  # b"\\"
        count += 1
    return count % 2 == 1


class _DashReader(WordReader):
    """Reads the stand-in word ``x`` at each recorded offset as ``-`` (see ``dash_repair``)."""

    def __init__(self, source: str, dashes: set[int]) -> None:
        super().__init__(source)
        self.dashes = dashes

    def read(self, node: Node) -> Word:
        if node.start_byte in self.dashes and node.end_byte == node.start_byte + 1:
            self.dashes.discard(node.start_byte)
            return make_word("-")
        return super().read(node)


def dash_repair(root: Node, data: bytes, parser: Any) -> tuple[Node, WordReader] | None:
    """tree-sitter drops the word ``-`` right before ``<<`` (``python - <<'EOF'``).  When every
    skipped gap is such a ``-``, the line is parsed again with ``x`` in its place (same offsets)
    and a reader that reads it back as ``-``; ``None`` otherwise (or when the new parse has
    an error).  The caller checks the new tree for skipped text again."""
    dashes: set[int] = set()
    covered = 0
    stack = [root]
    while stack:
        node = stack.pop()
        if node.child_count and node.type != "heredoc_body":
            stack.extend(reversed(node.children))
            continue
        gap = data[covered : node.start_byte]
        if gap.strip(b" \t\n"):
            after = data[node.start_byte : node.start_byte + 3]
            if gap.strip(b" \t") != b"-" or after[:2] != b"<<" or after == b"<<<":
                return None
            dashes.add(covered + gap.index(b"-"))
        covered = max(covered, node.end_byte)
    if not dashes:
        return None
    patched = bytearray(data)
    for at in dashes:
        patched[at : at + 1] = b"x"
    new_root = parser.parse(bytes(patched)).root_node
    if new_root.has_error:
        return None
    return new_root, _DashReader(bytes(patched).decode("utf-8", "surrogateescape"), dashes)


def dash_problem(reader: WordReader) -> str | None:
    """After the walk: a stand-in ``x`` that was not read back as ``-`` (not understood)."""
    if isinstance(reader, _DashReader) and reader.dashes:
        return "a '-' before a heredoc was not understood"
    return None


def heredoc_bodies(line: str) -> list[str]:
    """The text of each heredoc of ``line`` as written (``python3 - <<'EOF'``'s code), in order."""
    from .bash_parse import _parser  # (bash_parse imports this module)

    data = line.encode("utf-8", "surrogateescape")
    bodies: list[str] = []
    stack = [_parser().parse(data).root_node]
    while stack:
        node = stack.pop()
        if node.type == "heredoc_body":
            bodies.append(data[node.start_byte:node.end_byte].decode("utf-8", "replace"))
        else:
            stack.extend(reversed(node.children))
    return bodies
