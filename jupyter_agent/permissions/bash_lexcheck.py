"""Checks for places where tree-sitter-bash and bash may read a line differently.

Found with the differential test against real bash (``tests/permissions/test_bash_vs_bash.py``)
and by hand: control characters, backslash-newline where it is not between words (others are
removed first, as bash removes them), text the parser silently skipped
(``ls;\\ x`` loses the ``\\ ``) and a command glued over a newline.  Any of these makes the
whole line ask.
"""

from __future__ import annotations

from .bash_words import Node


def bad_characters(command: str) -> str | None:
    """Characters where bash and tree-sitter may disagree: NUL, CR, other controls."""
    if "\x00" in command:
        return "the command contains a NUL byte"
    if not command.replace("\n", " ").replace("\t", " ").isprintable() and any(
        ord(c) < 32 and c not in "\t\n" or c == "\x7f" for c in command
    ):
        return "the command contains control characters"
    return None


# Not "string": a ``"$(...)"`` holds code again, where tree-sitter skips ``\ `` as it does
# outside (``echo "$(ls;\ x)"``); its other parts are tokens that leave no gaps.
_ATOMIC = frozenset({"word", "raw_string", "ansi_c_string", "heredoc_body", "comment",
                     "string_content", "heredoc_content", "number", "variable_name", "test_operator",
                     "translated_string", "heredoc_start", "heredoc_end", "regex", "extglob_pattern"})
_BLANK = b" \t\n"


# what may come right before a backslash-newline bash removes without joining two words' texts
_BEFORE_CONTINUATION = frozenset(b" \t\n;&|(<>")
CONTINUATION_PROBLEM = ("a line continuation (backslash-newline) inside a word, an unquoted heredoc, a comment or "
                        "$'…' is not analyzed")


def join_continuations(root: Node, data: bytes) -> bytes | None:
    """``data`` with each backslash-newline removed where bash removes it before reading words
    (``pytest -x \\<newline>  tests/``): between words, after a blank or an operator.  Inside
    single quotes and in a heredoc whose delimiter is quoted (``<<'EOF'``) it is text for bash and
    tree-sitter alike, and stays; in double quotes bash removes it (unless the backslash is
    escaped).  None when one is anywhere else — glued to a word (``ec\\<newline>ho``, which
    tree-sitter reads as two words), in an unquoted heredoc (where bash joins the line before
    looking for the delimiter), a comment (where bash does not continue) or ``$'…'``: the line
    then asks."""
    spots = []
    at = data.find(b"\\\n")
    while at >= 0:
        spots.append(at)
        at = data.find(b"\\\n", at + 2)
    if not spots:
        return data
    holders: dict[int, Node] = {}  # spot → the token it lies in
    first, last = spots[0], spots[-1]
    stack = [root]
    while stack:
        node = stack.pop()
        if node.end_byte <= first or node.start_byte > last:
            continue
        if node.child_count == 0 or node.type in _ATOMIC:
            for spot in spots:
                if node.start_byte <= spot < node.end_byte:
                    holders[spot] = node
        else:
            stack.extend(node.children)
    out = bytearray()
    copied = 0
    for spot in spots:
        holder = holders.get(spot)
        if holder is not None and (holder.type == "raw_string" or _quoted_heredoc(holder)):
            continue
        if holder is not None and holder.type == "string_content" and holder.parent is not None and (
                holder.parent.type == "string"):  # "a \<newline>b": bash removes it in double quotes too
            before = len(data[holder.start_byte:spot]) - len(data[holder.start_byte:spot].rstrip(b"\\"))
            if before % 2:  # "a\\<newline>": an escaped backslash, then a newline
                continue
        elif holder is not None or (spot and data[spot - 1] not in _BEFORE_CONTINUATION):
            return None
        out += data[copied:spot]
        copied = spot + 2
    out += data[copied:]
    return bytes(out)


def _quoted_heredoc(node: Node) -> bool:
    """A heredoc body whose delimiter is quoted (``<<'EOF'``, ``<<"EOF"``, ``<<\\EOF``): bash
    reads its lines as they are."""
    parent = node.parent
    if node.type != "heredoc_body" or parent is None or parent.type != "heredoc_redirect":
        return False
    start = next((c for c in parent.children if c.type == "heredoc_start"), None)
    return start is not None and any(q in (start.text or b"") for q in (b"'", b'"', b"\\"))


def skipped_text(root: Node, data: bytes) -> str | None:
    """Text between tokens that is not blank: tree-sitter dropped it (``\\ x`` after a newline)."""
    gaps: list[bytes] = []
    covered = 0
    stack = [root]
    while stack:
        node = stack.pop()
        if node.child_count == 0 or node.type in _ATOMIC:
            start = node.start_byte
            if start > covered:
                gaps.append(data[covered:start])
            covered = max(covered, node.end_byte)
            if node.child_count and node.type == "heredoc_body" and _body_gap(node, data):
                return "(inside a heredoc substitution)"
        else:
            stack.extend(reversed(node.children))
    if covered < len(data):
        gaps.append(data[covered:])
    for gap in gaps if b"".join(gaps).translate(None, _BLANK) else ():
        if gap.translate(None, _BLANK):
            return gap.decode("utf-8", "replace")[:40]
    return None


def covered_through(node: Node, source: str, covered: int) -> int:
    """``skipped_text`` for one subtree of an ASCII line, from offset ``covered`` on: the end
    of the subtree's last token, or -1 when non-blank text lies between its tokens."""
    stack = [node]
    while stack:
        node = stack.pop()
        if node.child_count == 0 or node.type in _ATOMIC:
            start = node.start_byte
            if start > covered and source[covered:start].strip(" \t\n"):
                return -1
            covered = max(covered, node.end_byte)
            if node.child_count and node.type == "heredoc_body" and _body_gap(node, source):
                return -1
        else:
            stack.extend(reversed(node.children))
    return covered


def _body_gap(body: Node, data: bytes | str) -> bool:
    """Skipped text inside the substitutions of a heredoc body (its plain text is no gap)."""
    return any(c.type != "heredoc_content" and _subtree_gap(c, data) for c in body.named_children)


def _subtree_gap(node: Node, data: bytes | str) -> bool:
    blank = _BLANK if isinstance(data, bytes) else " \t\n"
    covered = node.start_byte
    stack = [node]
    while stack:
        node = stack.pop()
        if node.child_count == 0 or node.type in _ATOMIC:
            start = node.start_byte
            if start > covered and data[covered:start].strip(blank):  # type: ignore[arg-type]
                return True
            covered = max(covered, node.end_byte)
            if node.child_count and node.type == "heredoc_body" and _body_gap(node, data):
                return True
        else:
            stack.extend(reversed(node.children))
    return False


def glued_over_newline(node: Node) -> bool:
    """A newline between two parts of one command or redirected statement: bash ends the
    command there, tree-sitter sometimes glues the next line on (``ls | ls | ls`` newline
    ``rm x`` gave ``ls`` with the arguments ``rm x``)."""
    children = node.children
    if len(children) < 2:
        return False
    data, base = node.text, node.start_byte
    end = children[0].end_byte
    for child in children[1:]:
        start = child.start_byte
        if start > end and b"\n" in data[end - base : start - base]:
            return True
        end = max(end, child.end_byte)
    return False
