"""f-string style ``{expr}`` interpolation of a prompt from the user's namespace.

``{df.shape}``, ``{name!r}``, ``{x:.3f}`` work as in f-strings; ``{{`` and ``}}`` are literal
braces.  A missing name or a bad expression raises ``InterpolationError`` naming the field — or,
given a ``kept`` list (what ``%agent`` does), the field stays as written and the reason is added
to the list: code pasted into a prompt (``{k: v for k, v in d.items()}``) is not an error.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

_OPEN = "([{"
_CLOSE = ")]}"


class InterpolationError(ValueError):
    """A ``{field}`` of the prompt could not be evaluated."""


def _scan_field(text: str, start: int) -> int:
    """Index of the ``}`` closing the field that opens at ``start`` (the ``{``)."""
    depth = 0
    quote: str | None = None
    i = start + 1
    while i < len(text):
        ch = text[i]
        if quote is not None:
            if ch == "\\":
                i += 1
            elif ch == quote:
                quote = None
        elif ch in "'\"":
            quote = ch
        elif ch in _OPEN:
            depth += 1
        elif ch in _CLOSE:
            if depth == 0:
                if ch != "}":
                    break
                return i
            depth -= 1
        i += 1
    raise InterpolationError(f"Unclosed '{{' at position {start} in the prompt. Write {{{{ for a literal brace.")


def _split_field(body: str) -> tuple[str, str | None, str]:
    """``expr!r:spec`` → (expr, "r", "spec"), looking only at the top nesting level."""
    depth = 0
    quote: str | None = None
    for i, ch in enumerate(body):
        if quote is not None:
            if ch == quote:
                quote = None
            continue
        if ch in "'\"":
            quote = ch
        elif ch in _OPEN:
            depth += 1
        elif ch in _CLOSE:
            depth -= 1
        elif depth == 0 and ch == "!" and body[i + 1 : i + 2] in ("r", "s", "a"):
            rest = body[i + 2 :]
            if rest == "" or rest.startswith(":"):
                return body[:i], body[i + 1], rest[1:]
        elif depth == 0 and ch == ":":
            return body[:i], None, body[i + 1 :]
    return body, None, ""


def _short(body: str, limit: int = 60) -> str:
    one = " ".join(body.split())
    return one if len(one) <= limit else one[: limit - 1] + "…"


def _evaluate(body: str, namespace: Mapping[str, Any]) -> str:
    expr, conversion, spec = _split_field(body)
    if not expr.strip():
        raise InterpolationError("Empty {} in the prompt. Write {{ and }} for literal braces.")
    try:
        scope = namespace if isinstance(namespace, dict) else dict(namespace)
        value = eval(expr.strip(), scope)  # the user's own expression, in their own kernel
    except Exception as exc:
        raise InterpolationError(
            f"{{{_short(body)}}} is not a value here ({type(exc).__name__}: {exc}). "
            "Write {{ and }} for literal braces."
        ) from exc
    if conversion == "r":
        value = repr(value)
    elif conversion == "a":
        value = ascii(value)
    elif conversion == "s":
        value = str(value)
    try:
        return format(value, spec)
    except (TypeError, ValueError) as exc:
        raise InterpolationError(f"Bad format spec in {{{body}}}: {exc}") from exc


def interpolate(text: str, namespace: Mapping[str, Any], kept: list[str] | None = None) -> str:
    """Replace every ``{expr}`` in ``text`` with its value in ``namespace``.  With ``kept``, what
    cannot be replaced stays as written and why goes into ``kept`` instead of raising."""
    out: list[str] = []
    i = 0
    while i < len(text):
        ch = text[i]
        if ch == "{" and text[i + 1 : i + 2] == "{":
            out.append("{")
            i += 2
        elif ch == "}" and text[i + 1 : i + 2] == "}":
            out.append("}")
            i += 2
        elif ch == "{":
            try:
                end = _scan_field(text, i)
                out.append(_evaluate(text[i + 1 : end], namespace))
            except InterpolationError as exc:
                if kept is None:
                    raise
                end = _field_end(text, i)
                kept.append(str(exc))
                out.append(text[i : end + 1])
            i = end + 1
        elif ch == "}":
            if kept is None:
                raise InterpolationError(f"Single '}}' at position {i} in the prompt. Write }}}} for a literal brace.")
            out.append(ch)
            i += 1
        else:
            out.append(ch)
            i += 1
    return "".join(out)


def _field_end(text: str, start: int) -> int:
    """Where a field that could not be used ends: its closing brace, else the end of the text."""
    try:
        return _scan_field(text, start)
    except InterpolationError:
        return len(text) - 1
