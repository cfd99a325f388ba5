"""Strings Python code builds from its own literals: ``'.e' + 'nv'`` is ``.env``.

The string checks of cells, ``python -c`` and the ``.py`` files a line runs look at the literals
of the code (``inline_code.code_literals``).  ``open('.e' + 'nv')``, ``open(f"{'.'}env")``,
``''.join(['.', 'env'])``, ``'vne.'[::-1]``, ``chr(46) + 'env'``, ``p = '.e'; p += 'nv'`` and
``base64.b64decode('LmVudg==').decode()`` name ``.env`` with no literal saying so; they printed it
under ``Read(./.env)`` in bypassPermissions.  Here the code is read with ``ast`` and every
expression made only of literals, names bound to such expressions, and a few pure operations
(``+``, ``%``, ``*``, f-strings, slices, ``join``, ``format``, ``upper``/``lower``/``strip``/
``replace``…, ``chr``, ``str``, ``os.path.join``, ``bytes.fromhex``, base64, rot13) is computed;
the results are checked as literals are.  Code computing a name some other way (from input, a
loop, a file) is not followed: such a name is only known at run time.
"""

from __future__ import annotations

import ast
import base64
import binascii
import codecs
import posixpath
import re
from functools import lru_cache

from .python_folders import python_tree

_MAX_TEXT = 4096  # longer results are not file names
_MAX_FOUND = 512
_METHODS = frozenset({"upper", "lower", "strip", "lstrip", "rstrip", "replace", "casefold", "title", "capitalize",
                      "removeprefix", "removesuffix", "format", "join", "swapcase", "decode", "encode"})
_WIDE = re.compile(r"%[-#0 +]*(?:\d|\*)|%\.\d{3}")  # '%0999999d' % 1: a width, not a name
_WIDE_FIELD = re.compile(r"\{[^{}]*:[^{}]*\d")
_HINTS = re.compile(r"\+|\bjoin\b|\bf['\"]|\[[-\d\s]*:|['\"]\s*['\"]|\bchr\b|b64decode|fromhex|\bformat\b|%|\breplace\b|\*|"
                    r"\bupper\b|\blower\b|\bstrip\b|rot|\bdecode\b|\bstr\(")


class _NotKnown(Exception):
    pass


@lru_cache(maxsize=256)
def folded_strings(code: str) -> tuple[str, ...]:
    """The strings ``code`` computes from literals alone, and its string constants (an implicit
    concatenation, ``'.' 'env'``, is one constant)."""
    if _HINTS.search(code) is None:
        return ()
    tree = python_tree(code)  # (an IPython cell's %magic and !cmd lines left out)
    if tree is None:
        return ()
    folder = _Folder(tree)
    found = [v for v in folder.values if isinstance(v, str) and v]  # what names were bound to, in turn
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant):  # 'a' 'b' is one constant, two literals to a regex
            if isinstance(node.value, str) and node.value and node.value not in found and "\n" not in node.value:
                found.append(node.value)
        elif isinstance(node, ast.expr) and not isinstance(node, ast.Name):
            try:
                value = folder.fold(node)
            except (_NotKnown, RecursionError, OverflowError, MemoryError):
                continue
            if isinstance(value, str) and value and value not in found:
                found.append(value)
                if len(found) >= _MAX_FOUND:
                    break
    return tuple(found)


class _Folder:
    def __init__(self, tree: ast.AST) -> None:
        self.names: dict[str, object] = {}
        self.values: list[object] = []  # every value a name was bound to (p = '.e'; p += 'nv')
        self.unknown: set[str] = set()
        assigned: list[tuple[int, int, str, ast.expr, bool]] = []
        for node in ast.walk(tree):
            if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
                assigned.append((node.lineno, node.col_offset, node.targets[0].id, node.value, False))
            elif _adds_to_name(node):
                assert isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name)
                assigned.append((node.lineno, node.col_offset, node.target.id, node.value, True))
            elif isinstance(node, (ast.For, ast.comprehension, ast.With, ast.Assign, ast.AnnAssign, ast.AugAssign,
                                   ast.NamedExpr, ast.FunctionDef, ast.AsyncFunctionDef, ast.Import, ast.ImportFrom)):
                self._forget(node)
        for _line, _col, name, value, add in sorted(assigned, key=lambda a: (a[0], a[1])):
            if name in self.unknown:
                continue
            try:
                folded = self.fold(value)
                if add:
                    folded = self._add(self.names[name], folded) if name in self.names else None
            except (_NotKnown, RecursionError, OverflowError, MemoryError):
                folded = None
            if folded is None:
                self.names.pop(name, None)
                self.unknown.add(name)
            else:
                self.names[name] = folded
                if folded not in self.values and len(self.values) < _MAX_FOUND:
                    self.values.append(folded)

    def _forget(self, node: ast.AST) -> None:
        """Names bound other ways than ``NAME = expr`` / ``NAME += expr`` are not known."""
        targets: list[ast.AST] = []
        if isinstance(node, (ast.For, ast.comprehension)):
            targets = [node.target]
        elif isinstance(node, ast.With):
            targets = [item.optional_vars for item in node.items if item.optional_vars is not None]
        elif isinstance(node, ast.Assign) and (len(node.targets) > 1 or not isinstance(node.targets[0], ast.Name)):
            targets = list(node.targets)
        elif isinstance(node, (ast.AnnAssign, ast.NamedExpr, ast.AugAssign)) and not _adds_to_name(node):
            targets = [node.target]
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            self.unknown.update(a.arg for a in (*node.args.args, *node.args.kwonlyargs, *node.args.posonlyargs))
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            self.unknown.update((alias.asname or alias.name).partition(".")[0] for alias in node.names)
        for target in targets:
            self.unknown.update(n.id for n in ast.walk(target) if isinstance(n, ast.Name))

    def fold(self, node: ast.expr) -> object:
        """The value of ``node`` (a str, bytes, int or a list of them); raises _NotKnown."""
        value = self._fold(node)
        if isinstance(value, (str, bytes)) and len(value) > _MAX_TEXT:
            raise _NotKnown
        return value

    def _fold(self, node: ast.expr) -> object:
        if isinstance(node, ast.Constant) and isinstance(node.value, (str, bytes, int)) and not isinstance(
                node.value, bool):
            return node.value
        if isinstance(node, ast.Name):
            if node.id in self.names:
                return self.names[node.id]
            raise _NotKnown
        if isinstance(node, ast.JoinedStr):
            return "".join(self._formatted(part) for part in node.values)
        if isinstance(node, ast.BinOp):
            left, right = self.fold(node.left), self.fold(node.right)
            if isinstance(node.op, ast.Add):
                return self._add(left, right)
            if isinstance(node.op, ast.Mult) and isinstance(left, (str, bytes)) and isinstance(right, int) and right < 64:
                return left * right
            if isinstance(node.op, ast.Mod) and isinstance(left, str) and not _WIDE.search(left):
                try:
                    return left % (tuple(right) if isinstance(right, list) else right)
                except (TypeError, ValueError, KeyError):
                    raise _NotKnown from None
            raise _NotKnown
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            value = self.fold(node.operand)
            if isinstance(value, int):
                return -value
            raise _NotKnown
        if isinstance(node, (ast.List, ast.Tuple)):
            return [self.fold(e) for e in node.elts]
        if isinstance(node, ast.Subscript):
            return self._subscript(node)
        if isinstance(node, ast.Call):
            return self._call(node)
        raise _NotKnown

    def _formatted(self, part: ast.expr) -> str:
        if isinstance(part, ast.Constant) and isinstance(part.value, str):
            return part.value
        if isinstance(part, ast.FormattedValue) and part.format_spec is None and part.conversion in (-1, 115):
            value = self.fold(part.value)
            if isinstance(value, (str, int)):
                return str(value)
        raise _NotKnown

    @staticmethod
    def _add(left: object, right: object) -> object:
        if isinstance(left, str) and isinstance(right, str) or isinstance(left, bytes) and isinstance(right, bytes):
            return left + right  # type: ignore[operator]
        raise _NotKnown

    def _subscript(self, node: ast.Subscript) -> object:
        value = self.fold(node.value)
        if not isinstance(value, (str, bytes, list)):
            raise _NotKnown
        index = node.slice
        if isinstance(index, ast.Slice):
            lower, upper, step = (self._bound(p) for p in (index.lower, index.upper, index.step))
            if step == 0:
                raise _NotKnown
            return value[lower:upper:step]
        position = self.fold(index)
        if isinstance(position, int) and -len(value) <= position < len(value):
            return value[position]
        raise _NotKnown

    def _bound(self, node: ast.expr | None) -> int | None:
        """A slice bound: None or a whole number."""
        if node is None:
            return None
        value = self.fold(node)
        if isinstance(value, int):
            return value
        raise _NotKnown

    def _call(self, node: ast.Call) -> object:
        if node.keywords and not all(k.arg in ("encoding", "errors") for k in node.keywords):
            raise _NotKnown
        func = node.func
        if isinstance(func, ast.Name):
            args = [self.fold(a) for a in node.args]
            if func.id == "chr" and len(args) == 1 and isinstance(args[0], int) and 0 <= args[0] < 0x110000:
                return chr(args[0])
            if func.id == "str" and len(args) == 1 and isinstance(args[0], (str, int)):
                return str(args[0])
            if func.id == "reversed" and len(args) == 1 and isinstance(args[0], (str, list)):
                return list(reversed(args[0]))
            raise _NotKnown
        if not isinstance(func, ast.Attribute):
            raise _NotKnown
        dotted = _dotted(func)
        if dotted in ("os.path.join", "posixpath.join", "path.join"):
            texts = [a for a in (self.fold(a) for a in node.args) if isinstance(a, str)]
            if texts and len(texts) == len(node.args):
                return posixpath.join(*texts)
            raise _NotKnown
        if dotted in ("base64.b64decode", "base64.standard_b64decode", "base64.urlsafe_b64decode", "b64decode",
                      "base64.b32decode", "base64.b16decode", "bytes.fromhex", "codecs.decode"):
            return self._decoded(dotted, [self.fold(a) for a in node.args])
        if func.attr not in _METHODS:
            raise _NotKnown
        receiver = self.fold(func.value)
        args = [self.fold(a) for a in node.args]
        return _method(receiver, func.attr, args)

    @staticmethod
    def _decoded(dotted: str, args: list[object]) -> object:
        try:
            if dotted == "bytes.fromhex" and len(args) == 1 and isinstance(args[0], str):
                return bytes.fromhex(args[0])
            if dotted == "codecs.decode" and len(args) == 2 and args[1] in ("rot13", "rot_13") and isinstance(args[0], str):
                return codecs.decode(args[0], "rot13")
            if len(args) == 1 and isinstance(args[0], (str, bytes)):
                name = dotted.rpartition(".")[2]
                decode = {"b64decode": base64.b64decode, "standard_b64decode": base64.standard_b64decode,
                          "urlsafe_b64decode": base64.urlsafe_b64decode, "b32decode": base64.b32decode,
                          "b16decode": base64.b16decode}.get(name)
                if decode is not None:
                    return decode(args[0])
        except (binascii.Error, ValueError, TypeError):
            pass
        raise _NotKnown


def _adds_to_name(node: ast.AST) -> bool:
    """``NAME += expr``: followed as an addition to NAME's value."""
    return isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name) and isinstance(node.op, ast.Add)


def _method(receiver: object, name: str, args: list[object]) -> object:
    try:
        if name == "join" and isinstance(receiver, str) and len(args) == 1 and isinstance(args[0], list):
            if all(isinstance(a, str) for a in args[0]):
                return receiver.join(args[0])  # type: ignore[arg-type]
            raise _NotKnown
        if name == "decode" and isinstance(receiver, bytes):
            return receiver.decode(*(a for a in args if isinstance(a, str)))
        if name == "encode" and isinstance(receiver, str):
            return receiver.encode(*(a for a in args if isinstance(a, str)))
        if isinstance(receiver, str) and all(isinstance(a, (str, int)) for a in args):
            if name == "format":
                if _WIDE_FIELD.search(receiver):
                    raise _NotKnown  # '{:099999999}': a width, not a name
                return receiver.format(*args)
            if name == "replace" and len(args) >= 2 and len(receiver) * max(1, len(str(args[1]))) > 16 * _MAX_TEXT:
                raise _NotKnown
            return getattr(receiver, name)(*args)
    except (TypeError, ValueError, IndexError, KeyError, UnicodeError, AttributeError):
        pass
    raise _NotKnown


def _dotted(node: ast.expr) -> str:
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
    return ".".join(reversed(parts))


__all__ = ["folded_strings"]
