"""Pure HTML helpers for the transcript: Markdown, diffs, command boxes, status lines.

Everything here takes data and returns an HTML string; nothing imports ipywidgets.  Text that
comes from the model or a tool is always escaped (Markdown is rendered with raw HTML disabled),
so a transcript can never inject markup into the notebook.
"""

from __future__ import annotations

import difflib
import html
import json
from collections.abc import Iterable, Sequence
from functools import lru_cache
from typing import Any

ADDED_BG = "rgba(46,160,67,0.18)"
REMOVED_BG = "rgba(248,81,73,0.18)"
HUNK_FG = "#8250df"
ERROR_FG = "#d1242f"
# JupyterLab's (and Notebook 7's) own class for rendered Markdown: widgets showing Markdown carry
# it, so tables get rules, code blocks a background and headings the spacing of a Markdown cell.
RENDERED_HTML_CLASS = "jp-RenderedHTMLCommon"
MUTED_FG = "#6e7781"
MONO = "font-family:var(--jp-code-font-family,monospace);font-size:12px;line-height:1.4"  # not a button's 28 px
PRE_STYLE = f"margin:2px 0;padding:4px 6px;white-space:pre-wrap;word-break:break-word;{MONO}"
MAX_DETAIL_LINES = 400


def escape(text: object) -> str:
    return html.escape(str(text), quote=True)


@lru_cache(maxsize=1)
def _markdown() -> Any:
    from markdown_it import MarkdownIt

    return MarkdownIt("commonmark", {"html": False, "linkify": False}).enable("table").enable(
        "strikethrough"
    )


def markdown_html(text: str) -> str:
    """Model text as HTML (CommonMark + tables); raw HTML in the text is shown, not run."""
    return _markdown().render(text)


def pre(text: str, *, style: str = "") -> str:
    return f'<pre style="{PRE_STYLE};{style}">{escape(text)}</pre>'


def error_html(text: str) -> str:
    return f'<div style="color:{ERROR_FG};{MONO};white-space:pre-wrap">{escape(text)}</div>'


def muted(text: str) -> str:
    return f'<span style="color:{MUTED_FG}">{escape(text)}</span>'


def unified_diff_lines(old: str, new: str, path: str = "") -> list[str]:
    """A unified diff of two texts (no trailing newlines on the lines)."""
    return [
        line.rstrip("\n")
        for line in difflib.unified_diff(
            old.splitlines(keepends=True),
            new.splitlines(keepends=True),
            fromfile=f"a/{path}" if path else "before",
            tofile=f"b/{path}" if path else "after",
            n=3,
        )
    ]


def _diff_line(line: str) -> str:
    if line.startswith(("+++", "---")):
        return f'<div style="color:{MUTED_FG}">{escape(line)}</div>'
    if line.startswith("+"):
        return f'<div style="background:{ADDED_BG}">{escape(line)}</div>'
    if line.startswith("-"):
        return f'<div style="background:{REMOVED_BG}">{escape(line)}</div>'
    if line.startswith("@@"):
        return f'<div style="color:{HUNK_FG}">{escape(line)}</div>'
    return f"<div>{escape(line) or '&nbsp;'}</div>"


def diff_html(lines: Sequence[str], *, max_lines: int = MAX_DETAIL_LINES) -> str:
    """Coloured unified diff lines (added green, removed red, hunk headers purple)."""
    shown = list(lines[:max_lines])
    body = "".join(_diff_line(line) for line in shown)
    if len(lines) > max_lines:
        body += f"<div>{muted(f'… {len(lines) - max_lines} more lines')}</div>"
    return f'<div style="{PRE_STYLE};white-space:pre">{body}</div>'


def hunks_to_lines(hunks: Iterable[Any]) -> list[str]:
    """Lines of a structured patch (hunks with ``lines`` and optional old/new start+count)."""
    out: list[str] = []
    for hunk in hunks:
        get = hunk.get if isinstance(hunk, dict) else lambda k, d=None, h=hunk: getattr(h, k, d)
        old_start = get("old_start", get("oldStart"))
        new_start = get("new_start", get("newStart"))
        if old_start is not None and new_start is not None:
            old_lines = get("old_lines", get("oldLines", 0))
            new_lines = get("new_lines", get("newLines", 0))
            out.append(f"@@ -{old_start},{old_lines} +{new_start},{new_lines} @@")
        out.extend(str(line) for line in (get("lines") or ()))
    return out


def tail_html(lines: Sequence[str], *, limit: int = 12) -> str:
    """The last ``limit`` lines of running output, in a monospace box."""
    shown = lines[-limit:]
    skipped = len(lines) - len(shown)
    head = muted(f"… {skipped} earlier lines\n") if skipped else ""
    return f'<pre style="{PRE_STYLE};opacity:0.85">{head}{escape(chr(10).join(shown))}</pre>'


def json_html(value: Any) -> str:
    try:
        text = json.dumps(value, indent=2, ensure_ascii=False, default=str)
    except (TypeError, ValueError):
        text = repr(value)
    return pre(text)


def todos_html(todos: Sequence[Any]) -> str:
    """A checklist: ☑ completed (struck through), ▶ in progress (bold, active form), ☐ pending."""
    items = []
    for todo in todos:
        get = todo.get if isinstance(todo, dict) else lambda k, d=None, t=todo: getattr(t, k, d)
        status = str(get("status", "pending"))
        content = str(get("content", ""))
        if status == "completed":
            items.append(f"<div>☑ <s>{escape(content)}</s></div>")
        elif status == "in_progress":
            active = get("activeForm", None) or get("active_form", None) or content
            items.append(f"<div>▶ <b>{escape(active)}</b></div>")
        else:
            items.append(f"<div>☐ {escape(content)}</div>")
    return f'<div style="margin:4px 0">{"".join(items)}</div>' if items else ""


def format_tokens(n: int) -> str:
    return f"{n / 1000:.1f}k" if n >= 10_000 else str(n)


def footer_text(
    model: str, duration_s: float | None, usage: Any, cost_usd: float | None, status: str = "",
    context: tuple[int, int] = (0, 0),
) -> str:
    """``claude-x · 12.3s · in 1200 · out 340 · cache 800r/0w · $0.0123 · context 12%``; no
    duration while the turn runs (the footer is redrawn per request, so a time would be stale at
    once). ``context``: (tokens in the context after the last request, the model's window)."""
    parts = [model] + ([f"{duration_s:.1f}s"] if duration_s is not None else [])
    counts = [getattr(usage, k, 0) for k in ("input_tokens", "output_tokens", "cache_read_input_tokens",
                                             "cache_creation_input_tokens")]
    if not any(counts) and not cost_usd:  # no request was made (a hook blocked the prompt): no zeros
        usage = cost_usd = None
    if usage is not None:
        parts.append(f"in {format_tokens(getattr(usage, 'input_tokens', 0))}")
        parts.append(f"out {format_tokens(getattr(usage, 'output_tokens', 0))}")
        read = getattr(usage, "cache_read_input_tokens", 0)
        wrote = getattr(usage, "cache_creation_input_tokens", 0)
        parts.append(f"cache {format_tokens(read)}r/{format_tokens(wrote)}w")
    if cost_usd is not None:
        parts.append(f"${cost_usd:.4f}")
    tokens, window = context
    if tokens > 0 and window > 0:
        size = f"{window / 1e6:g}M" if window >= 1_000_000 else f"{window / 1000:g}k"
        parts.append(f"context {min(100, round(100 * tokens / window))}% of {size}")
    if status:
        parts.append(status)
    return " · ".join(parts)
