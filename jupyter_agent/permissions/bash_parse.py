"""Split a Bash command line into simple commands with tree-sitter-bash (no regexes).

Every simple command anywhere in the line is found: across ``&&``, ``||``, ``;``, ``|``,
``|&``, ``&`` and newlines, inside ``$(...)``, backticks, ``<(...)``, ``>(...)``, unquoted
heredocs, parameter expansions, subshells, groups, loops and conditionals.  A parse error or a
node the walker does not know becomes a *problem*: the caller must then ask, never allow.
The walk is iterative so that 5,000 chained commands do not hit Python's recursion limit.
An ASCII line of plain commands is read by ``bash_fastparse.fast_parse`` in one loop (equal
results; ``tests/permissions/test_parse_speedups.py``); the rest by ``_Walker`` below.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable
from functools import lru_cache

from tree_sitter import Parser

from .bash_commands import (  # noqa: F401 (SimpleCommand: re-exported)
    DEV_SINKS,
    READ_OPS,
    WRITE_OPS,
    ParsedCommand,
    Redirect,
    SimpleCommand,
    new_simple,
)
from .bash_fastparse import LANGUAGE, fast_parse
from .bash_heredoc import dash_problem, dash_repair, read_heredoc
from .bash_lexcheck import (
    CONTINUATION_PROBLEM,
    bad_characters,
    glued_over_newline,
    join_continuations,
    skipped_text,
)
from .bash_loops import MAY_LOOP, unroll_loops
from .bash_secrets import secret_expansion
from .bash_words import Node, Word, WordReader, make_word

# tree-sitter-bash (0.23–0.25, with tree-sitter 0.25 and 0.26) sometimes crashes the process on a
# code point from U+20000 on in certain places (`{9` + U+99B03 + `9$`), reading memory it should
# not; random lines with every character below that parse without a crash
# (tests/permissions/test_parser_crash.py).  Such a line is not parsed at all: it asks.
UNSAFE_FROM = "\U00020000"

# A tree-sitter Parser is not thread-safe (sharing one across threads crashed the process once):
# each thread gets its own.
_LOCAL = threading.local()


def _parser() -> Parser:
    try:
        return _LOCAL.parser
    except AttributeError:
        parser = _LOCAL.parser = Parser(LANGUAGE)
        return parser


# Containers whose named children are statements (plus clauses that hold statements).
_CONTAINERS = frozenset(
    {"program", "list", "pipeline", "subshell", "compound_statement", "do_group",
     "negated_command", "if_statement", "elif_clause", "else_clause", "while_statement"}
)
_REDIRECTS = frozenset({"file_redirect", "heredoc_redirect", "herestring_redirect"})
_GLUED = "a command continues past a newline (bash would split it there)"
_ARITHMETIC_TESTS = frozenset({"-eq", "-ne", "-lt", "-le", "-gt", "-ge"})
_NUMBER_SIDE = re.compile(r'-?[0-9]+|"?\$[?#$!]"?')
NUMBERS_COMPARED = "(numbers compared)"  # a test operator: a comparison of fixed numbers


def parse_command(command: str) -> ParsedCommand:
    """Parse ``command``; never raises (unparseable input is reported as a problem)."""
    return _parse_cached(command)


@lru_cache(maxsize=2048)
def _parse_cached(command: str) -> ParsedCommand:
    return parse_uncached(command)


def parse_uncached(command: str) -> ParsedCommand:
    printable = command.isprintable()  # no NUL, no control character, no newline
    if not printable:
        problem = bad_characters(command)
        if problem is not None:
            return ParsedCommand(problems=[problem])
    if not command.isascii() and max(command) >= UNSAFE_FROM:
        return ParsedCommand(problems=[
            f"the command holds U+{ord(max(command)):04X}, a character past U+1FFFF that crashes "
            f"tree-sitter-bash in some places (it is not parsed)"
        ])
    try:
        data = command.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:  # a lone surrogate that is not an escaped byte
        return ParsedCommand(problems=["the command is not valid text (lone surrogate)"])
    root = _parser().parse(data).root_node
    if root.has_error:
        if b"<>" in data:  # exec 3<>file: bash's read-write redirection, which tree-sitter-bash lacks
            return ParsedCommand(problems=["the command does not parse (tree-sitter-bash cannot read the <> "
                                           "redirection, or a syntax error or unterminated quote)"])
        return ParsedCommand(
            problems=["the command does not parse (syntax error or unterminated quote)"]
        )
    if not printable and b"\\\n" in data:  # `pytest -x \<newline> tests/`: read as bash reads it
        joined = join_continuations(root, data)
        if joined is None:
            return ParsedCommand(problems=[CONTINUATION_PROBLEM])
        if joined != data:
            return parse_uncached(joined.decode("utf-8", "surrogateescape"))
    if MAY_LOOP.search(data):  # for f in *.py; do wc -l "$f"; done: each value's body (bash_loops.py)
        unrolled = unroll_loops(root, data)
        if unrolled is not None:
            return parse_uncached(unrolled.decode("utf-8", "surrogateescape"))
    if command.isascii():  # first the common shape, in one loop that also checks for gaps
        parsed = fast_parse(root, command, printable, _Walker)
        if parsed is not None:
            return parsed
    skipped = skipped_text(root, data)
    reader = None
    if skipped is not None:  # `python - <<'EOF'`: tree-sitter drops the `-`
        repaired = dash_repair(root, data, _parser())
        if repaired is None or skipped_text(repaired[0], data) is not None:
            return ParsedCommand(problems=[f"the parser skipped part of the command: {skipped!r}"])
        root, reader = repaired
    out = ParsedCommand()
    _Walker(out, reader or WordReader(command)).run(root)
    problem = dash_problem(reader) if reader is not None else None
    if problem is not None:
        out.problems.append(problem)
    if not out.commands and not out.problems and command.strip():
        out.problems.append("no command found")
    return out


_LOOP_VALUE = Word("<each value of the loop>", static=False)


class _Walker:
    def __init__(self, out: ParsedCommand, words: WordReader) -> None:
        self.out = out
        self.words = words
        self.text = words.text

    def run(self, root: Node) -> None:
        self.walk(root)
        self.finish()

    def finish(self) -> None:
        """The word problems go after the walker's own (as they always have)."""
        self.out.problems.extend(self.words.problems)
        self.words.problems.clear()

    def walk(self, root: Node) -> None:
        """Every command of ``root``'s subtree (all of it before anything after it)."""
        stack: list[tuple[Node, bool]] = [(root, False)]
        substitutions = self.words.substitutions
        visit = self._visit
        while stack:
            node, nested = stack.pop()
            visit(node, nested, stack)
            if substitutions:
                for sub in reversed(substitutions):
                    stack.extend([(c, True) for c in reversed(sub.named_children)])
                substitutions.clear()

    def _visit(self, node: Node, nested: bool, stack: list[tuple[Node, bool]]) -> None:
        kind = node.type
        if kind == "command":
            self._command(node, nested)
        elif kind in _CONTAINERS:
            stack.extend([(c, nested) for c in reversed(node.named_children)])
        elif kind == "redirected_statement":
            if glued_over_newline(node):
                self.out.problems.append(_GLUED)
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
        elif kind in _REDIRECTS:
            self._redirect(node)
        elif kind == "function_definition":
            self._function(node, stack)
        elif kind == "c_style_for_statement":
            self._c_for(node, nested, stack)
        else:
            self.out.problems.append(f"unsupported shell syntax: {kind}")

    def _function(self, node: Node, stack: list[tuple[Node, bool]]) -> None:
        """``f() { body; }``: the body's commands are read where they are defined, as commands
        that may run (each call runs them, the arguments ``$1``, ``$@`` … only known at run time),
        nested; the definition's own redirections hold for every call."""
        body = node.child_by_field_name("body")
        for child in node.named_children:
            if child.type in _REDIRECTS:
                self._redirect(child)
        if body is None:
            self.out.problems.append("a function without a body")
            return
        stack.append((body, True))

    def _command(self, node: Node, nested: bool) -> None:
        if glued_over_newline(node):
            self.out.problems.append(_GLUED)
        words: list[Word] = []
        assignments: list[tuple[str, Word]] = []
        read = self.words.read
        word_end = -1
        for child in node.children:
            kind = child.type
            if not child.is_named and kind not in _WORD_TOKENS:  # `qa $ x`, `qa == x`: words
                continue
            if kind in _REDIRECTS:
                self._redirect(child)
                continue
            if kind != "variable_assignment" and kind != "comment":
                if child.start_byte == word_end:  # tree-sitter split what bash reads as one word
                    self.out.problems.append(f"a word tree-sitter splits in two: {self.text(node)[:40]}")
                word_end = child.end_byte
            if kind == "word":
                words.append(read(child))
            elif kind == "number" and _descriptor(child, self.text(child)):
                continue  # `sh 0< f`: tree-sitter reads the 0 of `0<` as a word
            elif kind == "command_name":
                words.extend([read(c) for c in child.named_children])
            elif kind == "variable_assignment":
                assignments.append(self._assignment(child))
            elif kind != "comment":
                words.append(read(child))
        if len(words) == 1 and words[0].text == "!":  # `! !`: bash runs nothing, we'd see `!`
            self.out.problems.append("a '!' with no command after it")
        if len(words) > 1 and words[0].literal in _REPEAT_SENSITIVE:
            words = _as_repeated(words, node)
        self.out.commands.append(new_simple(tuple(words), tuple(assignments), nested))

    def _assignment(self, node: Node) -> tuple[str, Word]:
        name_node = node.child_by_field_name("name")
        value_node = node.child_by_field_name("value")
        if name_node is None or name_node.type != "variable_name":
            self.out.problems.append(f"unsupported assignment target: {self.text(node)[:40]}")
            name = self.text(name_node) if name_node is not None else "?"
            if name_node is not None:
                self.words.read(name_node)
        else:
            name = self.text(name_node)
        value = self.words.read(value_node) if value_node is not None else make_word("")
        for extra in node.named_children:  # a=(x y) arrays and the like
            if extra.type not in ("variable_name", "subscript") and (
                value_node is None or extra.id != value_node.id
            ):
                self.words.read(extra)
        return name, value

    def _assignment_statement(self, node: Node, nested: bool) -> None:
        items = node.named_children if node.type == "variable_assignments" else [node]
        pairs = tuple(self._assignment(n) for n in items)
        self.out.commands.append(new_simple((), pairs, nested, "assignment"))

    def _declaration(self, node: Node, nested: bool) -> None:
        keyword = node.children[0]
        words = [make_word(self.text(keyword))]
        assignments: list[tuple[str, Word]] = []
        for child in node.named_children:
            if child.type == "variable_assignment":
                name, value = self._assignment(child)
                assignments.append((name, value))
                words.append(make_word(f"{name}={value.text}", value.static))
            else:
                words.append(self.words.read(child))
        self.out.commands.append(new_simple(tuple(words), tuple(assignments), nested))

    def _test(self, node: Node, nested: bool) -> None:
        operators: list[str] = []
        stack = list(node.named_children)
        while stack:
            child = stack.pop()
            kind = child.type
            if kind == "test_operator":
                operators.append(self.text(child))
            elif kind == "binary_expression" and self._numbers_compared(child):
                operators.append(NUMBERS_COMPARED)  # [[ $# -eq 1 ]]: no variable is evaluated
            elif kind in ("binary_expression", "unary_expression", "parenthesized_expression",
                          "negated_expression"):
                stack.extend(child.named_children)
                operators.extend(self.text(c) for c in child.children if not c.is_named)
            elif kind in ("regex", "extglob_pattern"):
                pattern = self.text(child)  # [[ x =~ `cmd` ]]: tree-sitter keeps it as text
                if "`" in pattern or "$(" in pattern or "$[" in pattern or "${" in pattern:
                    self.out.problems.append(f"a pattern with a substitution: {pattern[:40]}")
            else:
                self.words.read(child)
        words = (make_word(self.text(node.children[0])),)
        self.out.commands.append(new_simple(words, (), nested, "test", tuple(operators)))

    def _numbers_compared(self, node: Node) -> bool:
        """``[[ A -eq B ]]`` (and -ne, -lt …) with each side a number or ``$?``/``$#``/``$$``/
        ``$!``: bash evaluates both sides as arithmetic, where a variable's value (``x='a[$(rm
        y)]'; [[ $x -eq 1 ]]``) or a quoted subscript runs code; numbers cannot."""
        operator = node.child_by_field_name("operator")
        if operator is None or self.text(operator) not in _ARITHMETIC_TESTS:
            return False
        sides = [node.child_by_field_name("left"), node.child_by_field_name("right")]
        return all(side is not None and _NUMBER_SIDE.fullmatch(self.text(side)) for side in sides)

    def _for(self, node: Node, nested: bool, stack: list[tuple[Node, bool]]) -> None:
        for child in node.named_children:
            kind = child.type
            if kind == "variable_name":  # for/select NAME in …: an assignment (`for PATH in /tmp`)
                self.out.commands.append(new_simple((), ((self.text(child), _LOOP_VALUE),), nested, "assignment"))
                continue
            if kind == "do_group":
                stack.append((child, nested))
            else:
                self.words.read(child)

    def _c_for(self, node: Node, nested: bool, stack: list[tuple[Node, bool]]) -> None:
        """``for ((i=0; i<3; i++))``: read when each variable of the header is first given a plain
        number there and the rest is numbers, those variables and operators (arithmetic on any
        other variable evaluates its value, which may run code: ``x='a[$(cmd)]'; ((x < 3))``); the
        body as a loop's, the variables as assignments (``for ((PATH=0;;))`` sets PATH)."""
        names: list[str] = []
        later: list[Node] = []
        body = node.child_by_field_name("body")
        for i, child in enumerate(node.children):
            field_name = node.field_name_for_child(i)
            if not child.is_named or (body is not None and child.id == body.id) or child.type == "comment":
                continue
            if field_name == "initializer" and child.type == "variable_assignment":
                name, value = child.child_by_field_name("name"), child.child_by_field_name("value")
                if (name is not None and name.type == "variable_name" and value is not None
                        and value.type == "number" and self.text(value).isdigit()):
                    names.append(self.text(name))
                    continue
            later.append(child)
        if body is None or not all(_plain_arithmetic(part, self.text, names) for part in later):
            self.out.problems.append("arithmetic on variables in a for ((…)) header (it can run code)")
            return
        for name in dict.fromkeys(names):
            self.out.commands.append(new_simple((), ((name, _LOOP_VALUE),), nested, "assignment"))
        stack.append((body, nested))

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
            secret = secret_expansion(self.text(node))
            if secret:
                self.out.problems.append(f"a here-string expands ${secret}, which may hold a credential")
            return
        if kind != "file_redirect":
            self.out.problems.append(f"unsupported redirection: {kind}")
            return
        op = next((c.type for c in node.children if not c.is_named), "")
        targets = [self.words.read(c) for c in node.named_children if c.type != "file_descriptor"]
        if len(targets) != 1:  # tree-sitter sometimes glues following words onto a redirect
            self.out.problems.append(f"redirection with {len(targets)} targets: {self.text(node)[:40]}")
            return
        target = targets[0]
        if op in (">&", "<&") and (target.text.isdigit() or target.text == "-"):
            return  # fd duplication (2>&1), not a file
        if op in WRITE_OPS:
            if target.literal not in DEV_SINKS:
                self.out.redirects.append(Redirect(target, write=True))
        elif op in READ_OPS:
            self.out.redirects.append(Redirect(target, write=False))
        elif op != "<&":
            self.out.problems.append(f"unsupported redirection operator {op!r}")

    def _heredoc(self, node: Node) -> None:
        read_heredoc(self, node)


_WORD_TOKENS = frozenset({"$", "==", "=~"})


def _descriptor(number: Node, text: str) -> bool:
    """A number right before a redirection (``sh 0< f``, ``cat 0<<< x``): its descriptor, which
    tree-sitter reads as a word of the command (bash: a word only when a blank follows it)."""
    if not (text.isascii() and text.isdigit()):
        return False  # `echo 0x1> f`, `echo -0< f`: a word (bash takes digits only)
    node: Node | None = number
    after = None
    while node is not None and after is None:  # `sh 0< f`, `a | sh 0< f`: the statement's redirection
        after = node.next_sibling
        node = node.parent
    return after is not None and after.start_byte == number.end_byte and after.type in _REDIRECTS


# a relative cd run again and again (in a loop that was not unrolled, a function's body) goes
# one step further each time: `while …; do cd ..; done; echo x > etc/passwd` wrote /etc/passwd
_REPEATED_CD = Word("<the folder a repeated cd leads to>", static=False)
_REPEATING = frozenset({"while_statement", "for_statement", "c_style_for_statement", "function_definition"})


_REPEAT_SENSITIVE = frozenset({"cd", "pushd", "eval", "builtin", "command"})


def _as_repeated(words: list[Word], node: Node) -> list[Word]:
    """A command that runs again and again (``_repeats``): a relative ``cd``/``pushd`` (also
    behind ``builtin``/``command``) goes to a folder only known at run time, and ``eval``'s
    code is read as a loop's body (its own cds go further each round)."""
    head = 0
    while head < len(words) - 1 and words[head].literal in ("builtin", "command", "-p", "--"):
        head += 1
    program = words[head].literal
    rest = words[head + 1:]
    if not rest or program not in ("cd", "pushd", "eval") or not _repeats(node):
        return words
    if program != "eval":
        return [*words[:head + 1], *(_REPEATED_CD if _relative(w) else w for w in rest)]
    dashes = rest[:1] if rest[0].literal == "--" else []
    code = rest[len(dashes):]
    if not code or any(w.literal is None for w in code):
        return words  # code only known at run time: asks as it is
    looped = make_word("while :; do\n" + " ".join(w.literal or "" for w in code) + "\ndone")
    return [*words[:head + 1], *dashes, looped]


def _repeats(node: Node) -> bool:
    parent = node.parent
    while parent is not None:
        if parent.type in _REPEATING:
            return True
        parent = parent.parent
    return False


def _relative(word: Word) -> bool:
    text = word.literal
    return text is not None and text[:1] not in ("/", "-", "+") and text != ""


_ARITHMETIC_NODES = frozenset({"binary_expression", "unary_expression", "postfix_expression",
                               "parenthesized_expression", "ternary_expression"})
_ARITHMETIC_TEXT = frozenset("0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_ \t+-*/%<>=!&|^~?:,()")


def _plain_arithmetic(node: Node, text: Callable[[Node], str], names: list[str]) -> bool:
    """Only numbers, the variables ``names`` and operators (no expansion, subscript or quote)."""
    if not _ARITHMETIC_TEXT.issuperset(text(node)):
        return False
    stack = [node]
    while stack:
        node = stack.pop()
        kind = node.type
        if kind == "number":
            if not text(node).isdigit():
                return False
        elif kind in ("word", "variable_name"):
            if text(node) not in names:
                return False
        elif kind in _ARITHMETIC_NODES:
            stack.extend(node.named_children)
        else:
            return False
    return True


def _field_of(parent: Node, child: Node) -> str | None:
    for i, c in enumerate(parent.children):
        if c.id == child.id:
            return parent.field_name_for_child(i)
    return None
