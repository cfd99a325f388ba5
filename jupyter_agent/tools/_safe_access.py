"""Resolve a KernelInspect expression in the user's namespace without running any user code.

The expression is parsed with ``ast`` and may only be a name followed by attribute reads and
subscripts with literal keys (``df``, ``df.columns``, ``model.coef_``, ``data["train"]``,
``xs[-1]``).  Each step reads data without calling anything the user defined:

- a name is looked up in the namespace dict (never in builtins);
- ``obj.attr`` reads a module's ``__dict__``, an instance's ``__dict__`` / ``__slots__`` (through
  the interpreter's own descriptors), a plain class-level value, or one of a fixed set of
  attributes of numpy arrays/dtypes and pandas frames/series/indexes.  Properties, methods,
  ``__getattr__`` and names starting with ``__`` are refused: reading them could run code;
- ``obj[key]`` works on dicts (scanning the items, no ``__hash__``/``__eq__`` of user keys),
  lists, tuples, strings, numpy arrays and pandas DataFrames/Series (exact library types only).
"""

from __future__ import annotations

import ast
import sys
import types
from collections.abc import Mapping
from typing import Any

from ..errors import ToolError

_TYPE_DICT = type.__dict__["__dict__"]
_TYPE_MRO = type.__dict__["__mro__"]
_TYPE_MODULE = type.__dict__["__module__"]
_TYPE_QUALNAME = type.__dict__["__qualname__"]
_PLAIN_KEYS = (str, int, bytes, bool, type(None))

# Attribute reads that are plain data on these library types (no user code behind them).
SAFE_ATTRS: dict[str, frozenset[str]] = {
    "ndarray": frozenset({"shape", "dtype", "ndim", "size", "itemsize", "nbytes", "T", "real", "imag"}),
    "dtype": frozenset({"name", "kind", "itemsize", "names", "str", "char", "descr"}),
    "dataframe": frozenset({"columns", "index", "dtypes", "shape", "ndim", "size", "empty"}),
    "series": frozenset({"name", "dtype", "shape", "ndim", "size", "index", "empty"}),
    "index": frozenset({"name", "names", "dtype", "shape", "ndim", "size", "empty", "nlevels"}),
}


class Refused(ToolError):
    """An expression KernelInspect will not evaluate (it could run code, or is not a lookup)."""


def is_a(obj: Any, classes: type | tuple[type, ...]) -> bool:
    """``isinstance`` by the object's real type: never reads ``obj.__class__`` (a property could)."""
    return issubclass(type(obj), classes)


def parse_expression(text: str) -> list[tuple[str, Any]]:
    """``[("name", n), ("attr", a), ("item", key), ...]`` for an allowed expression; else Refused."""
    try:
        tree = ast.parse(text.strip(), mode="eval").body
    except SyntaxError as exc:
        raise Refused(f"Cannot parse expression {text!r}: {exc.msg}.") from None
    steps: list[tuple[str, Any]] = []
    node = tree
    while True:
        if isinstance(node, ast.Name):
            _check_name(node.id)
            steps.append(("name", node.id))
            return steps[::-1]
        if isinstance(node, ast.Attribute):
            _check_name(node.attr)
            steps.append(("attr", node.attr))
        elif isinstance(node, ast.Subscript):
            steps.append(("item", _literal_key(node.slice, text)))
        else:
            raise Refused(
                f"KernelInspect only evaluates names, attribute reads and subscripts with literal keys "
                f"(like df, df.columns, data['train'], xs[0]); {text!r} contains "
                f"{type(node).__name__}, which could run code. Use NotebookExecute or Bash to run code."
            )
        node = node.value


def _check_name(name: str) -> None:
    if name.startswith("__"):
        raise Refused(f"Dunder names like {name!r} are not inspected.")


def _literal_key(node: ast.expr, text: str) -> Any:
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub) and isinstance(node.operand, ast.Constant):
        value = node.operand.value
        if type(value) is int:
            return -value
    if isinstance(node, ast.Constant) and type(node.value) in (str, int, bytes):
        return node.value
    raise Refused(f"Subscripts must be literal strings or integers in {text!r}.")


def resolve(text: str, namespace: Mapping[str, Any]) -> Any:
    """The object ``text`` names in ``namespace``, read without running user code."""
    steps = parse_expression(text)
    _, name = steps[0]
    if name not in namespace:
        raise ToolError(f"Name {name!r} is not defined in the kernel's namespace.")
    obj = namespace[name]
    shown = name
    for kind, arg in steps[1:]:
        obj = read_attr(obj, arg, shown) if kind == "attr" else read_item(obj, arg, shown)
        shown = f"{shown}.{arg}" if kind == "attr" else f"{shown}[{arg!r}]"
    return obj


def library_kind(obj: Any) -> str | None:
    """``ndarray`` / ``dtype`` / ``dataframe`` / ``series`` / ``index`` for numpy/pandas' own types."""
    cls = type(obj)
    module = type_module(cls)
    np = sys.modules.get("numpy")
    if np is not None and module.startswith("numpy"):
        if cls is np.ndarray:
            return "ndarray"
        if is_a(obj, np.dtype):
            return "dtype"
    pd = sys.modules.get("pandas")
    if pd is not None and module.startswith("pandas"):
        if cls is pd.DataFrame:
            return "dataframe"
        if cls is pd.Series:
            return "series"
        if is_a(obj, pd.Index):
            return "index"
    return None


def type_module(cls: type) -> str:
    module = _TYPE_MODULE.__get__(cls)
    return module if type(module) is str else ""


def type_name(cls: type) -> str:
    """``module.QualName`` of a class, read through ``type``'s descriptors (no metaclass code)."""
    name = _TYPE_QUALNAME.__get__(cls)
    module = type_module(cls)
    return name if module in ("", "builtins") else f"{module}.{name}"


def read_attr(obj: Any, attr: str, shown: str) -> Any:
    kind = library_kind(obj)
    if kind is not None:
        if attr in SAFE_ATTRS[kind]:
            return getattr(obj, attr)
        raise Refused(f"{shown}.{attr}: only {', '.join(sorted(SAFE_ATTRS[kind]))} are read on a {kind}.")
    if is_a(obj, types.ModuleType):
        module_dict = object.__getattribute__(obj, "__dict__")
        if attr in module_dict:
            return module_dict[attr]
        raise ToolError(f"Module {shown} has no attribute {attr!r}.")
    found, value = instance_attr(obj, attr)
    if found:
        return value
    found, value = class_value(type(obj) if not is_a(obj, type) else obj, attr)
    if found:
        return value
    raise Refused(
        f"{shown}.{attr} is not a plain stored attribute (it may be a property, a method or computed by "
        "__getattr__, which could run code). Only attributes in the object's __dict__ are read."
    )


def instance_attr(obj: Any, attr: str) -> tuple[bool, Any]:
    """(True, value) when ``attr`` is stored on the instance and no class descriptor overrides it."""
    descriptor = class_lookup(type(obj), attr)
    slot = is_a(descriptor, types.MemberDescriptorType)
    if descriptor is not None and not slot and _is_data_descriptor(descriptor):
        return False, None  # a property (or similar) would win over the instance dict
    if slot:  # __slots__: read by the interpreter
        try:
            return True, descriptor.__get__(obj, type(obj))
        except AttributeError:
            return False, None
    stored = instance_dict(obj)
    if stored is not None and attr in stored:
        return True, stored[attr]
    return False, None


def instance_dict(obj: Any) -> dict[str, Any] | None:
    """The instance's ``__dict__`` via the interpreter's own descriptor (never a user property)."""
    if is_a(obj, type):
        return None
    descriptor = class_lookup(type(obj), "__dict__")
    if not is_a(descriptor, types.GetSetDescriptorType):
        return None
    value = descriptor.__get__(obj, type(obj))
    return value if type(value) is dict else None


def class_value(cls: type, attr: str) -> tuple[bool, Any]:
    """(True, value) for a plain value stored on a class (not a function, property, descriptor)."""
    value = class_lookup(cls, attr)
    if value is None or class_lookup(type(value), "__get__") is not None:
        return False, None
    return True, value


def class_lookup(cls: type, attr: str) -> Any:
    """``attr`` from the class dicts along the MRO (read through ``type``'s own descriptors)."""
    for base in _TYPE_MRO.__get__(cls):
        mapping = _TYPE_DICT.__get__(base)
        if attr in mapping:
            return mapping[attr]
    return None


def _is_data_descriptor(value: Any) -> bool:
    cls = type(value)
    return class_lookup(cls, "__set__") is not None or class_lookup(cls, "__delete__") is not None


def read_item(obj: Any, key: Any, shown: str) -> Any:
    if is_a(obj, dict):
        for k, v in dict.items(obj):
            if type(k) in _PLAIN_KEYS and type(k) is type(key) and k == key:
                return v
        raise ToolError(f"{shown} has no key {key!r}.")
    if is_a(obj, (list, tuple, str, bytes)):
        if type(key) is not int:
            raise Refused(f"{shown} is a {type(obj).__name__}: index it with an integer.")
        base = next(t for t in (list, tuple, str, bytes) if is_a(obj, t))
        try:
            return base.__getitem__(obj, key)
        except IndexError:
            raise ToolError(f"{shown}[{key}]: index out of range (length {base.__len__(obj)}).") from None
    kind = library_kind(obj)
    if kind in ("ndarray", "dataframe", "series"):
        try:
            return obj[key]
        except (KeyError, IndexError, ValueError, TypeError) as exc:
            raise ToolError(f"{shown}[{key!r}]: {type(exc).__name__}: {exc}") from None
    raise Refused(
        f"{shown}[{key!r}]: subscripting a {type(obj).__name__} could run code; only dicts, lists, tuples, "
        "strings, numpy arrays and pandas DataFrames/Series are subscripted."
    )
