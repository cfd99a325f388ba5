"""LSP results as text the model can act on: ``path:line:col`` plus the line itself.

A line of a file that a ``Read`` deny rule covers is not shown (``LineCache(denied=...)``): a
definition, reference or workspace symbol in ``secrets.py`` would otherwise print
``API_KEY = "sk-…"`` past ``Read(./secrets.py)``.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from .client import uri_to_path

SYMBOL_KINDS = {
    1: "file", 2: "module", 3: "namespace", 4: "package", 5: "class", 6: "method", 7: "property",
    8: "field", 9: "constructor", 10: "enum", 11: "interface", 12: "function", 13: "variable",
    14: "constant", 15: "string", 16: "number", 17: "boolean", 18: "array", 19: "object", 20: "key",
    21: "null", 22: "enum member", 23: "struct", 24: "event", 25: "operator", 26: "type parameter",
}
SEVERITY = {1: "error", 2: "warning", 3: "info", 4: "hint"}
MAX_ITEMS = 200


HIDDEN = "(not shown: a Read deny rule covers this file)"


class LineCache:
    """Source lines by path, read once per result; none of a file ``denied(path)`` is true for."""

    def __init__(self, cwd: Path, denied: Callable[[Path], bool] | None = None) -> None:
        self.cwd = cwd
        self._lines: dict[Path, list[str]] = {}
        self._denied = denied
        self._verdicts: dict[Path, bool] = {}

    def denied(self, path: Path) -> bool:
        if self._denied is None:
            return False
        found = self._verdicts.get(path)
        if found is None:
            found = self._verdicts[path] = self._denied(path)
        return found

    def line(self, path: Path, index: int) -> str:
        if self.denied(path):
            return HIDDEN
        if path not in self._lines:
            try:
                self._lines[path] = path.read_text(encoding="utf-8", errors="replace").splitlines()
            except OSError:
                self._lines[path] = []
        lines = self._lines[path]
        return lines[index].strip() if 0 <= index < len(lines) else ""

    def show(self, path: Path) -> str:
        try:
            return str(path.relative_to(self.cwd))
        except ValueError:
            return str(path)

    def location(self, uri: str, rng: dict[str, Any]) -> str:
        path = uri_to_path(uri)
        start = rng.get("start", {})
        line, col = int(start.get("line", 0)), int(start.get("character", 0))
        return f"{self.show(path)}:{line + 1}:{col + 1}: {self.line(path, line)}"


def _as_list(result: Any) -> list[dict[str, Any]]:
    if result is None:
        return []
    return [r for r in (result if isinstance(result, list) else [result]) if isinstance(r, dict)]


def format_locations(result: Any, lines: LineCache, what: str) -> str:
    items = _as_list(result)
    if not items:
        return f"No {what} found."
    out = []
    for loc in items[:MAX_ITEMS]:
        uri = loc.get("uri") or loc.get("targetUri", "")
        rng = loc.get("range") or loc.get("targetSelectionRange") or loc.get("targetRange") or {}
        out.append(lines.location(uri, rng))
    more = f"\n... and {len(items) - MAX_ITEMS} more" if len(items) > MAX_ITEMS else ""
    return f"Found {len(items)} {what}:\n" + "\n".join(out) + more


def format_hover(result: Any) -> str:
    contents = (result or {}).get("contents") if isinstance(result, dict) else None
    parts: list[str] = []
    for item in contents if isinstance(contents, list) else [contents]:
        if isinstance(item, str):
            parts.append(item)
        elif isinstance(item, dict):
            parts.append(str(item.get("value", "")))
    text = "\n\n".join(p for p in parts if p.strip())
    return text or "No hover information at this position."


def _symbol_lines(symbols: list[dict[str, Any]], depth: int, lines: LineCache, path: Path) -> list[str]:
    out = []
    for s in symbols:
        kind = SYMBOL_KINDS.get(s.get("kind", 0), "symbol")
        rng = s.get("selectionRange") or s.get("range") or (s.get("location") or {}).get("range") or {}
        line = int(rng.get("start", {}).get("line", 0))
        out.append(f"{'  ' * depth}{kind} {s.get('name')} — {lines.show(path)}:{line + 1}")
        out += _symbol_lines(s.get("children") or [], depth + 1, lines, path)
    return out


def format_document_symbols(result: Any, lines: LineCache, path: Path) -> str:
    items = _as_list(result)
    if not items:
        return f"No symbols in {lines.show(path)}."
    return "\n".join(_symbol_lines(items, 0, lines, path)[:MAX_ITEMS])


def format_workspace_symbols(result: Any, lines: LineCache, query: str) -> str:
    items = _as_list(result)
    if not items:
        return f"No workspace symbols match {query!r}."
    out = []
    for s in items[:MAX_ITEMS]:
        loc = s.get("location") or {}
        kind = SYMBOL_KINDS.get(s.get("kind", 0), "symbol")
        out.append(f"{kind} {s.get('name')} — {lines.location(loc.get('uri', ''), loc.get('range') or {})}")
    return f"Found {len(items)} symbols:\n" + "\n".join(out)


def format_diagnostics(diags: list[dict[str, Any]] | None, lines: LineCache, path: Path) -> str:
    if diags is None:
        return f"The language server published no diagnostics for {lines.show(path)} (yet)."
    if not diags:
        return f"No diagnostics: {lines.show(path)} is clean."
    out = []
    for d in diags[:MAX_ITEMS]:
        start = (d.get("range") or {}).get("start", {})
        line, col = int(start.get("line", 0)), int(start.get("character", 0))
        sev = SEVERITY.get(d.get("severity", 1), "error")
        src = f" [{d['source']}]" if d.get("source") else ""
        out.append(f"{lines.show(path)}:{line + 1}:{col + 1}: {sev}{src}: {d.get('message', '').strip()}")
    return f"{len(diags)} diagnostic(s):\n" + "\n".join(out)
