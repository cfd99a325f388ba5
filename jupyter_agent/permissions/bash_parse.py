"""Split a Bash command line into simple commands with tree-sitter-bash (no regexes).

Every simple command anywhere in the line is found: across ``&&``, ``||``, ``;``, ``|``,
``|&``, ``&`` and newlines, inside ``$(...)``, backticks, ``<(...)``, ``>(...)``, unquoted
heredocs, parameter expansions, subshells, groups, loops and conditionals.  A parse error or a
node the walker does not know becomes a *problem*: the caller must then ask, never allow.
The walk is iterative so that 5,000 chained commands do not hit Python's recursion limit.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from functools import lru_cache

import tree_sitter_bash
from tree_sitter import Language, Parser

from .bash_lexcheck import bad_characters, skipped_text
from .bash_words import Node, Word, WordReader, _text

_LANGUAGE = Language(tree_sitter_bash.language())
# A tree-sitter Parser is not thread-safe (sharing one across threads crashed the process once):
# each thread gets its own.
_LOCAL = threading.local()


def _parser() -> Parser:
    parser = getattr(_LOCAL, "parser", None)
    if parser is None:
        parser = _LOCAL.parser = Parser(_LANGUAGE)
    return parser

# Containers whose named children are statements (plus clauses that hold statements).
_CONTAINERS = frozenset(
    {"program", "list", "pipeline", "subshell", "compound_statement", "do_group",
     "negated_command", "if_statement", "elif_clause", "else_clause", "while_statement"}
)
_DEV_SINKS = frozenset({"/dev/null", "/dev/stdout", "/dev/stderr", "/dev/tty"})
_WRITE_OPS = frozenset({">", ">>", ">|", "&>", "&>>", ">&"})
_READ_OPS = frozenset({"<"})


@dataclass(frozen=True)
class Redirect:
    """A file redirection: ``write`` for ``>``-like operators, else a read (``<``)."""

    target: Word
    write: bool


@dataclass(frozen=True)
class SimpleCommand:
    """One command: its words (program first), env assignments and where it was found."""

    words: tuple[Word, ...]
    assignments: tuple[tuple[str, Word], ...] = ()
    nested: bool = False  # inside a substitution, -c string or eval
    kind: str = "command"  # "command" | "test" | "assignment"
    test_operators: tuple[str, ...] = ()


@dataclass
class ParsedCommand:
    """All simple commands of a line, its file redirections and why it cannot be trusted."""

    commands: list[SimpleCommand] = field(default_factory=list)
    redirects: list[Redirect] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)


def parse_command(command: str) -> ParsedCommand:
    """Parse ``command``; never raises (unparseable input is reported as a problem)."""
    return _parse_cached(command)


@lru_cache(maxsize=2048)
def _parse_cached(command: str) -> ParsedCommand:
    return parse_uncached(command)


def parse_uncached(command: str) -> ParsedCommand:
    out = ParsedCommand()
    problem = bad_characters(command)
    if problem is not None:
        out.problems.append(problem)
        return out
    data = command.encode("utf-8", "surrogateescape")
    tree = _parser().parse(data)
    if tree.root_node.has_error:
        out.problems.append("the command does not parse (syntax error or unterminated quote)")
        return out
    skipped = skipped_text(tree.root_node, data)
    if skipped is not None:
        out.problems.append(f"the parser skipped part of the command: {skipped!r}")
        return out
    _Walker(out).run(tree.root_node)
    if not out.commands and not out.problems and command.strip():
        out.problems.append("no command found")
    return out


class _Walker:
    def __init__(self, out: ParsedCommand) -> None:
        self.out = out
        self.words = WordReader()

    def run(self, root: Node) -> None:
        stack: list[tuple[Node, bool]] = [(root, False)]
        while stack:
            node, nested = stack.pop()
            self._visit(node, nested, stack)
            for sub in reversed(self.words.substitutions):
                stack.extend((c, True) for c in reversed(sub.named_children))
            self.words.substitutions.clear()
        self.out.problems.extend(self.words.problems)

    def _visit(self, node: Node, nested: bool, stack: list[tuple[Node, bool]]) -> None:
        kind = node.type
        if kind in _CONTAINERS:
            stack.extend((c, nested) for c in reversed(node.named_children))
        elif kind == "command":
            self._command(node, nested)
        elif kind == "redirected_statement":
            body = node.child_by_field_name("body")
            for child in node.named_children:
                if child is not None and body is not None and child.id == body.id:
                    stack.append((child, nested))
                else:
                    self._redirect(child)
        elif kind in ("variable_assignment", "variable_assignments"):
            self._assignment_statement(node, nested)
        elif kind in ("declaration_command", "unset_command"):
            self._declaration(node, nested)
        elif kind == "test_command":
            self._test(node, nested)
        elif kind == "for_statement":
            self._for(node, nested, stack)
        elif kind == "case_statement":
            self._case(node, nested, stack)
        elif kind == "comment":
            return
        elif kind in ("file_redirect", "heredoc_redirect", "herestring_redirect"):
            self._redirect(node)
        else:
            self.out.problems.append(f"unsupported shell syntax: {kind}")

    def _command(self, node: Node, nested: bool) -> None:
        words: list[Word] = []
        assignments: list[tuple[str, Word]] = []
        for child in node.named_children:
            kind = child.type
            if kind == "variable_assignment":
                assignments.append(self._assignment(child))
            elif kind in ("file_redirect", "heredoc_redirect", "herestring_redirect"):
                self._redirect(child)
            elif kind == "command_name":
                words.extend(self.words.read(c) for c in child.named_children)
            elif kind == "comment":
                continue
            else:
                words.append(self.words.read(child))
        self.out.commands.append(SimpleCommand(tuple(words), tuple(assignments), nested))

    def _assignment(self, node: Node) -> tuple[str, Word]:
        name_node = node.child_by_field_name("name")
        value_node = node.child_by_field_name("value")
        if name_node is None or name_node.type != "variable_name":
            self.out.problems.append(f"unsupported assignment target: {_text(node)[:40]}")
            name = _text(name_node) if name_node is not None else "?"
            if name_node is not None:
                self.words.read(name_node)
        else:
            name = _text(name_node)
        value = self.words.read(value_node) if value_node is not None else Word("")
        for extra in node.named_children:  # a=(x y) arrays and the like
            if extra.type not in ("variable_name", "subscript") and (
                value_node is None or extra.id != value_node.id
            ):
                self.words.read(extra)
        return name, value

    def _assignment_statement(self, node: Node, nested: bool) -> None:
        items = node.named_children if node.type == "variable_assignments" else [node]
        pairs = tuple(self._assignment(n) for n in items)
        self.out.commands.append(SimpleCommand((), pairs, nested, kind="assignment"))

    def _declaration(self, node: Node, nested: bool) -> None:
        keyword = node.children[0]
        words = [Word(_text(keyword))]
        assignments: list[tuple[str, Word]] = []
        for child in node.named_children:
            if child.type == "variable_assignment":
                name, value = self._assignment(child)
                assignments.append((name, value))
                words.append(Word(f"{name}={value.text}", static=value.static))
            else:
                words.append(self.words.read(child))
        self.out.commands.append(SimpleCommand(tuple(words), tuple(assignments), nested))

    def _test(self, node: Node, nested: bool) -> None:
        operators: list[str] = []
        stack = list(node.named_children)
        while stack:
            child = stack.pop()
            kind = child.type
            if kind == "test_operator":
                operators.append(_text(child))
            elif kind in ("binary_expression", "unary_expression", "parenthesized_expression",
                          "negated_expression"):
                stack.extend(child.named_children)
                operators.extend(_text(c) for c in child.children if not c.is_named)
            elif kind in ("regex", "extglob_pattern"):
                continue
            else:
                self.words.read(child)
        words = (Word(_text(node.children[0])),)
        self.out.commands.append(SimpleCommand(words, (), nested, "test", tuple(operators)))

    def _for(self, node: Node, nested: bool, stack: list[tuple[Node, bool]]) -> None:
        for child in node.named_children:
            kind = child.type
            if kind == "variable_name":
                continue
            if kind == "do_group":
                stack.append((child, nested))
            else:
                self.words.read(child)

    def _case(self, node: Node, nested: bool, stack: list[tuple[Node, bool]]) -> None:
        value = node.child_by_field_name("value")
        if value is not None:
            self.words.read(value)
        for item in node.named_children:
            if item.type != "case_item":
                continue
            for child in item.named_children:
                field_name = _field_of(item, child)
                if field_name == "value":
                    self.words.read(child)
                else:
                    stack.append((child, nested))

    def _redirect(self, node: Node) -> None:
        kind = node.type
        if kind == "heredoc_redirect":
            self._heredoc(node)
            return
        if kind == "herestring_redirect":
            for child in node.named_children:
                self.words.read(child)
            return
        if kind != "file_redirect":
            self.out.problems.append(f"unsupported redirection: {kind}")
            return
        op = next((c.type for c in node.children if not c.is_named), "")
        targets = [self.words.read(c) for c in node.named_children if c.type != "file_descriptor"]
        if len(targets) != 1:  # tree-sitter sometimes glues following words onto a redirect
            self.out.problems.append(f"redirection with {len(targets)} targets: {_text(node)[:40]}")
            return
        target = targets[0]
        if op in (">&", "<&") and (target.text.isdigit() or target.text == "-"):
            return  # fd duplication (2>&1), not a file
        if op in _WRITE_OPS:
            if target.literal not in _DEV_SINKS:
                self.out.redirects.append(Redirect(target, write=True))
        elif op in _READ_OPS:
            self.out.redirects.append(Redirect(target, write=False))
        elif op != "<&":
            self.out.problems.append(f"unsupported redirection operator {op!r}")

    def _heredoc(self, node: Node) -> None:
        start = next((c for c in node.named_children if c.type == "heredoc_start"), None)
        quoted = start is not None and any(q in _text(start) for q in "'\"\\")
        for child in node.named_children:
            if child.type == "heredoc_body" and not quoted:
                self._heredoc_body(child)
            elif child.type in ("file_redirect", "herestring_redirect"):
                self._redirect(child)
            elif child.type not in ("heredoc_start", "heredoc_end", "heredoc_body"):
                self.out.problems.append(f"unsupported heredoc part: {child.type}")

    def _heredoc_body(self, body: Node) -> None:
        text = _text(body)
        if "`" in text:
            self.out.problems.append("backticks inside a heredoc are not analyzed")
        found = 0
        for child in body.named_children:
            if child.type == "heredoc_content":
                continue
            found += child.type in ("command_substitution", "arithmetic_expansion")
            self.words.read(child)
        if text.count("$(") > found:
            self.out.problems.append("a substitution inside a heredoc was not understood")


def _field_of(parent: Node, child: Node) -> str | None:
    for i, c in enumerate(parent.children):
        if c.id == child.id:
            return parent.field_name_for_child(i)
    return None
