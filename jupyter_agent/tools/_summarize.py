"""Safe summaries of kernel variables for KernelInspect: type, shape, dtype, columns, head.

Nothing here calls a method the user defined: builtins are rendered through the builtin types'
own methods (``int.__repr__(x)``, ``len`` via ``list.__len__``), numpy arrays and pandas objects
(the libraries' exact types) through the libraries, with object-dtype values rendered by this
module; any other object shows its type, its default repr when the class keeps
``object.__repr__``, and the attributes stored in its ``__dict__``.
"""

from __future__ import annotations

import sys
import types
from dataclasses import dataclass
from typing import Any

from ._safe_access import class_lookup, instance_dict, is_a, library_kind, type_module, type_name

HEAD_ROWS = 5
MAX_ITEMS = 10
MAX_ATTRS = 30
MAX_STR = 2_000
SHORT_STR = 80
MAX_COLUMNS_LISTED = 60


@dataclass(frozen=True)
class VariableSummary:
    expression: str
    type_name: str
    lines: tuple[str, ...]

    def render(self) -> str:
        body = "\n".join(f"  {line}" if "\n" not in line else _indent(line) for line in self.lines)
        return f"{self.expression}: {self.type_name}" + (f"\n{body}" if body else "")


def _indent(text: str) -> str:
    first, *rest = text.splitlines()
    return "\n".join([f"  {first}", *(f"    {line}" for line in rest)])


def summarize(expression: str, obj: Any) -> VariableSummary:
    kind = library_kind(obj)
    cls = type(obj)
    if kind == "ndarray":
        lines = _ndarray(obj)
    elif kind == "dataframe":
        lines = _dataframe(obj)
    elif kind == "series":
        lines = _series(obj)
    elif kind in ("index", "dtype"):
        lines = (f"value: {short(obj)}",) if kind == "dtype" else _index(obj)
    elif is_a(obj, (str, bytes)):
        lines = (f"length: {len(obj)}", f"value: {_text(obj, MAX_STR)}")
    elif is_a(obj, (list, tuple, set, frozenset, dict)):
        lines = _container(obj)
    elif _scalar_text(obj) is not None:
        lines = (f"value: {_scalar_text(obj)}",)
    else:
        lines = _generic(obj)
    return VariableSummary(expression, type_name(cls), lines)


def short(obj: Any, depth: int = 0) -> str:
    """A one-line description of ``obj`` that runs no user code."""
    scalar = _scalar_text(obj)
    if scalar is not None:
        return scalar
    if is_a(obj, (str, bytes)):
        return _text(obj, SHORT_STR)
    kind = library_kind(obj)
    if kind == "ndarray":
        return f"ndarray(shape={obj.shape}, dtype={obj.dtype})"
    if kind == "dataframe":
        return f"DataFrame(shape={obj.shape})"
    if kind in ("series", "index"):
        return f"{type(obj).__name__}(length={len(obj)}, dtype={obj.dtype})"
    if kind == "dtype":
        return f"dtype('{obj.name}')"
    if is_a(obj, (list, tuple, set, frozenset, dict)):
        if depth >= 1:
            return f"{type_name(type(obj))} of {_len(obj)}"
        return _inline(obj, depth)
    return _opaque(obj)


def _scalar_text(obj: Any) -> str | None:
    if obj is None or type(obj) is bool:
        return repr(obj)
    if is_a(obj, int):
        try:
            return int.__repr__(obj)
        except ValueError:  # more digits than sys.get_int_max_str_digits()
            return f"<int of {int.bit_length(obj)} bits>"
    if is_a(obj, float):
        return float.__repr__(obj)
    if is_a(obj, complex):
        return complex.__repr__(obj)
    np = sys.modules.get("numpy")
    numpy_scalar = np is not None and is_a(obj, np.generic) and type_module(type(obj)) == "numpy"
    if numpy_scalar and not is_a(obj, np.object_):
        return repr(obj)
    return None


def _text(value: str | bytes, limit: int) -> str:
    base = str if is_a(value, str) else bytes
    cut = base.__getitem__(value, slice(0, limit))
    more = base.__len__(value) - limit
    return base.__repr__(cut) + (f" … [{more:,} more]" if more > 0 else "")


def _len(obj: Any) -> int:
    for base in (dict, list, tuple, set, frozenset):
        if is_a(obj, base):
            return base.__len__(obj)
    return 0


def _items(obj: Any) -> list[Any]:
    """The first MAX_ITEMS elements (pairs for dicts), through the builtin types' own iterators."""
    out: list[Any] = []
    base = next(b for b in (dict, list, tuple, set, frozenset) if is_a(obj, b))
    iterator = iter(dict.items(obj)) if base is dict else base.__iter__(obj)
    for item in iterator:
        if len(out) >= MAX_ITEMS:
            break
        out.append(item)
    return out


def _inline(obj: Any, depth: int) -> str:
    if is_a(obj, dict):
        parts = [f"{short(k, depth + 1)}: {short(v, depth + 1)}" for k, v in _items(obj)]
    else:
        parts = [short(v, depth + 1) for v in _items(obj)]
    more = ", …" if _len(obj) > MAX_ITEMS else ""
    return f"{type_name(type(obj))} of {_len(obj)} [{', '.join(parts)}{more}]"


def _container(obj: Any) -> tuple[str, ...]:
    lines = [f"length: {_len(obj)}"]
    if is_a(obj, dict):
        lines += [f"[{short(k, 1)}] {short(v, 1)}" for k, v in _items(obj)]
    else:
        lines += [f"[{i}] {short(v, 1)}" for i, v in enumerate(_items(obj))]
    if _len(obj) > MAX_ITEMS:
        lines.append(f"… {_len(obj) - MAX_ITEMS:,} more")
    return tuple(lines)


def _opaque(obj: Any) -> str:
    if is_a(obj, type):
        return f"<class {type_name(obj)}>"
    if is_a(obj, types.ModuleType):
        name = object.__getattribute__(obj, "__dict__").get("__name__")
        return f"<module {name if type(name) is str else '?'}>"
    if type(obj) in (types.FunctionType, types.BuiltinFunctionType):
        return f"<function {obj.__qualname__}>"
    return f"<{type_name(type(obj))} object>"


def _ndarray(arr: Any) -> tuple[str, ...]:
    np = sys.modules["numpy"]
    lines = [f"shape: {arr.shape}", f"dtype: {arr.dtype}", f"size: {arr.size:,} ({arr.nbytes:,} bytes)"]
    if arr.dtype.hasobject:  # elements may be user objects: render them ourselves
        lines.append("first items: " + ", ".join(short(v, 1) for v in arr.ravel()[:MAX_ITEMS].tolist()))
    else:
        lines.append("values:\n" + np.array2string(arr, threshold=60, edgeitems=3, max_line_width=100))
    return tuple(lines)


def _dataframe(df: Any) -> tuple[str, ...]:
    rows, cols = df.shape
    names = df.columns[:MAX_COLUMNS_LISTED].tolist()
    dtypes = df.dtypes.iloc[:MAX_COLUMNS_LISTED].tolist()
    listed = [f"{_label(c)}: {t}" for c, t in zip(names, dtypes, strict=True)]
    more = f", … {cols - MAX_COLUMNS_LISTED} more" if cols > MAX_COLUMNS_LISTED else ""
    return (
        f"shape: ({rows:,}, {cols:,})",
        f"columns ({cols}): " + ", ".join(listed) + more,
        f"index: {_index_line(df.index)}",
        f"head({HEAD_ROWS}):\n" + _safe_frame(df.head(HEAD_ROWS)).to_string(max_cols=20, max_colwidth=40),
    )


def _series(s: Any) -> tuple[str, ...]:
    return (
        f"name: {_label(s.name)}",
        f"length: {len(s):,}",
        f"dtype: {s.dtype}",
        f"index: {_index_line(s.index)}",
        f"head({HEAD_ROWS}):\n" + _safe_frame(s.head(HEAD_ROWS).to_frame()).to_string(max_colwidth=40),
    )


def _index(index: Any) -> tuple[str, ...]:
    return (f"length: {len(index):,}", f"dtype: {index.dtype}", f"values: {_index_line(index)}")


def _index_line(index: Any) -> str:
    values = ", ".join(_label(v) for v in index[:MAX_ITEMS].tolist())
    more = ", …" if len(index) > MAX_ITEMS else ""
    return f"{type(index).__name__} of {len(index):,} [{values}{more}]"


def _label(value: Any) -> str:
    if type(value) is str:
        return value if len(value) <= SHORT_STR else value[:SHORT_STR] + "…"
    if type(value) is tuple:
        return "(" + ", ".join(_label(v) for v in value) + ")"
    return short(value, 1)


def _safe_frame(frame: Any) -> Any:
    """A copy of ``frame`` whose non-numeric cells and labels are rendered by ``_label``."""
    pd = sys.modules["pandas"]
    data = {}
    for i in range(frame.shape[1]):
        column = frame.iloc[:, i]
        if column.dtype.kind in "biufcmM":
            data[i] = column.to_numpy()
        else:
            data[i] = [_label(v) for v in column.tolist()]
    safe = pd.DataFrame(data, index=[_label(v) for v in frame.index.tolist()])
    safe.columns = [_label(c) for c in frame.columns.tolist()]
    return safe


def _generic(obj: Any) -> tuple[str, ...]:
    cls = type(obj)
    lines = [f"value: {_opaque(obj)}"]
    if class_lookup(cls, "__repr__") is object.__repr__ and not is_a(obj, type):
        lines = [f"repr: {object.__repr__(obj)}"]
    if is_a(obj, types.FunctionType):
        code = obj.__code__
        lines.append("arguments: " + ", ".join(code.co_varnames[: code.co_argcount + code.co_kwonlyargcount]))
    stored = instance_dict(obj) if not is_a(obj, (type, types.ModuleType, types.FunctionType)) else None
    if stored:
        names = [k for k in stored if is_a(k, str)][:MAX_ATTRS]
        lines.append(f"attributes ({len(stored)}):")
        lines += [f"  .{name} = {short(stored[name], 1)}" for name in names]
    hidden = _properties(cls)
    if hidden:
        lines.append("properties (not read: they run code): " + ", ".join(hidden[:MAX_ATTRS]))
    return tuple(lines)


def _properties(cls: type) -> list[str]:
    if cls in (type, types.ModuleType, types.FunctionType):
        return []
    names: list[str] = []
    for base in type.__dict__["__mro__"].__get__(cls):
        if base is object:
            continue
        for name, value in type.__dict__["__dict__"].__get__(base).items():
            if is_a(value, property) and not name.startswith("_") and name not in names:
                names.append(name)
    return names
