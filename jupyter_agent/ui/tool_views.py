"""What a tool card shows: the one-line summary, what will run, and the result body (pure HTML).

Tools' own hooks (``render_tool_use_message`` / ``render_tool_result_message``) give the text
lines; the bodies here know the shapes of Claude Code's tools (Bash, Edit, Write, NotebookEdit,
Read, Grep) and fall back to JSON for anything else.  Every accessor is defensive: a result
whose shape is unexpected renders as text instead of failing.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
from collections.abc import Mapping
from pathlib import PurePosixPath
from typing import Any

from . import render


def field(value: Any, *names: str, default: Any = None) -> Any:
    """The first of ``names`` found on ``value`` (dict key, attribute, or pydantic alias)."""
    if value is None:
        return default
    if hasattr(value, "model_dump") and not isinstance(value, Mapping):
        with contextlib.suppress(Exception):
            value = value.model_dump(by_alias=True)
    for name in names:
        if isinstance(value, Mapping) and name in value:
            return value[name]
        if not isinstance(value, Mapping) and hasattr(value, name):
            return getattr(value, name)
    return default


def as_dict(value: Any) -> dict[str, Any]:
    if isinstance(value, Mapping):
        return dict(value)
    if hasattr(value, "model_dump"):
        try:
            return dict(value.model_dump(by_alias=True, exclude_none=True, mode="json"))
        except Exception:
            return {}
    return {}


PATH_KEYS = ("file_path", "notebook_path", "path")


def display_path(path: str, root: str | os.PathLike[str] | None = None) -> str:
    """``path`` as a card shows it: relative to ``root`` when it lies inside it (compared by
    components), ``~/…`` under the home folder, else as given.  A path that is not already
    normal (``..``, ``.``, doubled or trailing slashes) is shown exactly as given, so the line
    never claims a place the tool would not reach."""
    if not path.startswith("/") or os.path.normpath(path) != path or path.startswith("//"):
        return path
    target = PurePosixPath(path)
    base = os.path.normpath(os.fspath(root)) if root is not None else "/"
    if base != "/":
        with contextlib.suppress(ValueError):
            return str(target.relative_to(PurePosixPath(base)))
    home = os.path.expanduser("~")
    if home not in ("", "/", "~"):
        with contextlib.suppress(ValueError):
            return "~/" + str(target.relative_to(PurePosixPath(home)))
    return path


def summary_line(tool: Any, tool_name: str, input: Any, root: str | os.PathLike[str] | None = None) -> str:
    """``Bash: pytest -q`` / ``Edit src/app.py``: the tool's own line, else a sensible default;
    file paths relative to ``root`` (the session's folder) when they lie inside it."""
    data = as_dict(input)
    return _shorten_paths(_summary(tool, tool_name, input, data), data, root)


def _summary(tool: Any, tool_name: str, input: Any, data: dict[str, Any]) -> str:
    if tool is not None and input is not None and not isinstance(input, Mapping):
        try:
            text = tool.render_tool_use_message(input)
            if text:
                return str(text)
        except Exception:
            pass
    if tool_name == "Bash" and "command" in data:
        return f"Bash: {_first_line(str(data['command']))}"
    label = tool_name
    if tool is not None:  # its name for people: an MCP tool's "github - Create issue (MCP)"
        with contextlib.suppress(Exception):
            label = str(tool.user_facing_name(None)) or tool_name
    for key in (*PATH_KEYS, "pattern", "url", "query"):
        if key in data:
            return f"{label} {data[key]}"
    return label


def _shorten_paths(line: str, data: dict[str, Any], root: str | os.PathLike[str] | None) -> str:
    for key in PATH_KEYS:
        value = data.get(key)
        if isinstance(value, str) and value in line:
            shown = display_path(value, root)
            if shown == "." and line.endswith(f" in {value}"):  # Grep/Glob in the folder itself
                line = line[: -len(f" in {value}")]
            else:
                line = line.replace(value, shown, 1)
    return line


def _first_line(text: str, limit: int = 120) -> str:
    line = text.strip().splitlines()[0] if text.strip() else ""
    return line if len(line) <= limit else line[: limit - 1] + "…"


def input_detail_html(tool_name: str, input: Any) -> str:
    """Exactly what will run: the full command, the full diff of an edit, the new cell source."""
    data = as_dict(input)
    if tool_name in ("AskUserQuestion", "ExitPlanMode"):
        return ""  # their own widgets show the questions / the plan
    if tool_name == "Bash" and "command" in data:
        desc = data.get("description")
        head = f"<div>{render.muted(str(desc))}</div>" if desc else ""
        return head + render.pre("$ " + str(data["command"]))
    if tool_name == "Edit" and "old_string" in data:
        lines = render.unified_diff_lines(
            str(data.get("old_string", "")), str(data.get("new_string", "")), str(data.get("file_path", ""))
        )
        note = render.muted(" (every occurrence)") if data.get("replace_all") else ""
        return render.diff_html(lines[2:] or ["(no change)"]) + note
    if tool_name == "Write" and "content" in data:
        content = str(data["content"])
        return _all_added(content)
    if tool_name == "NotebookEdit":
        head = f"<div>{render.muted(_cell_edit_line(data))}</div>"
        if (data.get("edit_mode") or "replace") == "delete":
            return head
        if data.get("edit_mode") == "insert":  # all of it is new: shown as added lines, as Write's
            return head + _all_added(str(data.get("new_source", "")))
        return head + render.pre(str(data.get("new_source", "")))
    if tool_name == "NotebookExecute" and "cell_ids" in data:  # the notebook and cells are in the title
        timeout = data.get("timeout")
        return f"<div>{render.muted(f'timeout {int(timeout) / 1000:g} s')}</div>" if timeout else ""
    if tool_name == "WebFetch" and "prompt" in data:  # the address is in the title: what it asks of the page
        return f'<div style="white-space:pre-wrap">{render.muted("Looks for: ")}{render.escape(str(data["prompt"]))}</div>'
    given = _given(input) if hasattr(input, "model_dump") else data
    if tool_name == "TodoWrite" and isinstance(data.get("todos"), list):
        return render.todos_html(data["todos"])  # the list as the transcript shows it, not its JSON
    if tool_name in SUBAGENT_TOOLS and isinstance(data.get("prompt"), str):  # what the subagent is told
        rest = {k: v for k, v in given.items() if k not in ("prompt", *TITLE_KEYS["Agent"])}
        return f"<div>{render.muted('Prompt')}</div>" + render.pre(data["prompt"]) + _options_html(rest)
    # the title shows the main fields of a built-in tool: the rest (as given); any other tool, all of it
    return _options_html({k: v for k, v in given.items() if k not in TITLE_KEYS.get(tool_name, ())})


# the built-in tools whose card title already shows these fields of their input
TITLE_KEYS: dict[str, tuple[str, ...]] = {
    "Read": ("file_path",), "Glob": ("pattern", "path"), "Grep": ("pattern", "path"),
    "WebSearch": ("query",), "TaskOutput": ("task_id", "block"), "TaskStop": ("task_id", "shell_id"),
    "Agent": ("description", "subagent_type"), "KernelInspect": ("expression", "names"),
}


def _given(model: Any) -> dict[str, Any]:
    """The fields the model set, not the schema's defaults (``-i false · offset 0`` is noise)."""
    try:
        return dict(model.model_dump(by_alias=True, exclude_none=True, exclude_defaults=True, mode="json"))
    except Exception:
        return {}


def _options_html(rest: dict[str, Any]) -> str:
    """Fields as people read them: short values in one line (``offset 10 · limit 50``), long or
    multi-line text and nested values each under its name (text as it is, the rest as JSON)."""
    short: list[str] = []
    blocks: list[str] = []
    for key, value in rest.items():
        flat = json.dumps(value, ensure_ascii=False, default=str)
        if isinstance(value, str) and ("\n" in value or len(value) > INLINE_LIMIT):
            blocks.append(f"<div>{render.muted(key)}</div>" + render.pre(value))
        elif isinstance(value, (dict, list)) and (len(flat) > INLINE_LIMIT or any(
                isinstance(v, (dict, list)) for v in (value.values() if isinstance(value, dict) else value))):
            blocks.append(f"<div>{render.muted(key)}</div>" + render.json_html(value))
        else:
            short.append(f"{key} {flat}")
    line = f"<div>{render.muted(' · '.join(short))}</div>" if short else ""
    return line + "".join(blocks)


INLINE_LIMIT = 80


def _all_added(text: str) -> str:
    """New content (a file written, a cell inserted) as a diff whose every line is added."""
    return render.diff_html(["+" + line for line in text.splitlines()] or ["+"])


def change_html(tool_name: str, input: Any, before: str, after: str, where: str | None = None) -> str:
    """The input's view with its change as a diff: for a cell, the line naming it (``where``:
    as people find it, ``cell 3 of 12 [5]: …``), then the lines that go and come (a deleted
    cell: all of them go; an inserted one: all of them come)."""
    data = as_dict(input)
    lines = render.unified_diff_lines(before, after)[2:] or ["(no change)"]
    head = f"<div>{render.muted(_cell_edit_line(data, where))}</div>" if tool_name == "NotebookEdit" else ""
    return head + render.diff_html(lines)


def _cell_edit_line(data: dict[str, Any], where: str | None = None) -> str:
    """``replace cell abc`` / ``insert a markdown cell after abc`` / ``… at the top``; with
    ``where``, the cell named as people find it (``replace cell 3 of 12 [5]: x = 1``)."""
    mode = data.get("edit_mode") or "replace"
    cell = data.get("cell_id")
    if isinstance(cell, str) and len(cell) > 12:  # JupyterLab's ids are UUIDs: the head says enough
        cell = cell[:8] + "…"
    kind = f" as {data['cell_type']}" if data.get("cell_type") and mode == "replace" else ""
    if mode == "insert":
        if not cell:
            return f"insert a {data.get('cell_type') or 'code'} cell at the top"
        return f"insert a {data.get('cell_type') or 'code'} cell after {where or cell}"
    if where:  # `replace cell 3 of 12 [5]: x = 1` (as markdown)
        return f"{mode} {where}" + (f" ({kind.strip()})" if kind else "")
    return f"{mode} cell {cell}{kind}"


def result_body_html(
    tool_name: str, data: Any, input: Any = None, root: str | os.PathLike[str] | None = None, text: str = "",
) -> str:
    """The result body under the summary line (may be empty): the tool's own view, else — when
    it says more than the summary's one line — the text the model got (a subagent's report, a
    fetched page's answer as Markdown), unless that text is written for the model only."""
    try:
        own = _result_body(tool_name, data, as_dict(input), root)
        return "" if own is None else own or text_body_html(tool_name, text)
    except Exception:  # a renderer must never break the transcript
        return ""


def _search_body(data: Any) -> str | None:
    """The links a web search found, as links (the text has them as JSON, for the model)."""
    items = []
    for result in field(data, "results", default=()) or ():
        for hit in field(result, "content", default=()) or ():
            url, title = str(field(hit, "url", default="")), str(field(hit, "title", default="") or "")
            if url.startswith(("https://", "http://")):
                items.append(f'<li><a href="{render.escape(url)}" target="_blank" rel="noopener noreferrer">'
                             f"{render.escape(title or url)}</a> {render.muted(url)}</li>")
    return f'<ul style="margin:2px 0;padding-left:20px">{"".join(items[:50])}</ul>' if items else None


# tools whose result text is for people as much as for the model (an MCP tool's too); the others'
# texts are instructions, file contents or what the card shows already: their cards keep to the
# summary line and their own views
SUBAGENT_TOOLS = frozenset({"Agent", "Task"})  # the Agent tool and its old name
PEOPLE_TEXT = SUBAGENT_TOOLS | frozenset({
    "WebFetch", "KernelInspect", "LSP", "CtxInspect", "TerminalCapture", "NotebookExecute",
    "TaskList", "TaskGet", "CronList", "Workflow", "PowerShell", "ReadMcpResourceTool", "ListMcpResourcesTool",
})
MARKDOWN_TEXT = SUBAGENT_TOOLS | {"WebFetch"}  # written by a model: shown as Markdown
BODY_LINES = 60


def text_body_html(tool_name: str, text: str) -> str:
    """The whole result text (capped), when it says more than one line and is for people too."""
    people = tool_name in PEOPLE_TEXT or tool_name.startswith("mcp__")
    if not people or not text or "\n" not in text.strip():
        return ""
    lines = text.strip("\n").splitlines()
    shown = "\n".join(lines[:BODY_LINES])[: BODY_LINES * 200]
    tail = _more_lines(lines)
    if tool_name in MARKDOWN_TEXT:
        return f'<div class="{render.RENDERED_HTML_CLASS}">{render.markdown_html(shown)}</div>{tail}'
    return render.pre(shown) + tail


def error_body_html(text: str) -> str:
    """What an error says after its first line (the summary): a validation error's issues, a
    traceback — they were cut off at the first line."""
    rest = text.strip("\n").splitlines()[1:]
    if not any(line.strip() for line in rest):
        return ""
    return render.error_html("\n".join(rest[:BODY_LINES])) + _more_lines(rest)


def _more_lines(lines: list[str]) -> str:
    """``… 40 more lines`` under a body cut at ``BODY_LINES``; "" when nothing was cut."""
    more = len(lines) - BODY_LINES
    return f"<div>{render.muted(f'… {more} more lines')}</div>" if more > 0 else ""


def _result_body(
    tool_name: str, data: Any, input: dict[str, Any], root: str | os.PathLike[str] | None = None,
) -> str | None:
    """The tool's own view of its result; "" when it has none, None when nothing at all is to be
    shown (not even the result text)."""
    patch = field(data, "structured_patch", "structuredPatch", "hunks")
    if patch:
        return render.diff_html(render.hunks_to_lines(patch))
    diff_text = field(data, "diff", "patch")
    if isinstance(diff_text, str) and diff_text:
        return render.diff_html(diff_text.splitlines())
    if tool_name == "NotebookEdit":
        return _notebook_body(data, input)
    if tool_name == "Grep":
        return _grep_body(data, root)
    if tool_name == "WebFetch" and field(data, "redirect_url"):
        return None  # the text tells the model to fetch again: the title says where it goes
    if tool_name == "WebSearch":
        return _search_body(data)
    if tool_name == "TaskOutput":  # the text wraps the output in tags for the model
        out = field(data, "output", default="") or ""
        return render.tail_html(str(out).splitlines(), limit=40) if str(out).strip() else None
    if tool_name == "Bash" and field(data, "background_task_id"):  # the text is the model's how-to
        path = field(data, "output_path")
        return f"<div>{render.muted('Its output goes to ' + display_path(str(path), root))}</div>" if path else ""
    if tool_name == "Bash":
        out = field(data, "output", "stdout", default="") or ""
        err = field(data, "stderr", default="") or ""
        text = (str(out) + ("\n" + str(err) if err else "")).strip("\n")
        if text:
            return render.tail_html(text.splitlines(), limit=20)
    return ""


def _notebook_body(data: Any, input: dict[str, Any]) -> str:
    before = field(data, "original_source", "old_source", "before")
    after = field(data, "new_source", "after", default=input.get("new_source"))
    if before is None and after is None:
        return ""
    if before is None:
        return _all_added(str(after))
    lines = render.unified_diff_lines(str(before), str(after or ""), "cell")
    return render.diff_html(lines[2:] or ["(no change)"])


def _grep_body(data: Any, root: str | os.PathLike[str] | None = None) -> str:
    """The matches (the first 50), paths inside the session's folder shown relative to it."""
    content = field(data, "content")
    if isinstance(content, str) and content:
        return render.tail_html([_inside(line, root) for line in content.splitlines()[:50]], limit=50)
    files = field(data, "lines", "filenames", "files")
    if isinstance(files, list | tuple) and files:
        return render.pre("\n".join(_inside(str(f), root) for f in files[:50]))
    return ""


def _root_prefix(root: str | os.PathLike[str] | None) -> str | None:
    """``/w/proj/``: the session folder as a prefix compared whole, up to its slash (so
    ``/w/proj-evil/…`` does not start with it); None for no folder or ``/``."""
    if root is None:
        return None
    prefix = os.path.normpath(os.fspath(root)).rstrip("/") + "/"
    return None if prefix == "/" else prefix


def _inside(line: str, root: str | os.PathLike[str] | None) -> str:
    """``line`` without the session folder's prefix (``/w/proj/src/a.py:3:x`` → ``src/a.py:3:x``)."""
    prefix = _root_prefix(root)
    return line[len(prefix):] if prefix is not None and line.startswith(prefix) else line


def relative_in(line: str, root: str | os.PathLike[str] | None) -> str:
    """Paths under ``root`` anywhere in ``line`` shown relative to it (``general-purpose: Read
    /w/proj/a.py`` → ``… Read a.py``); a path must start a word, and ``/w/proj-evil/…`` keeps
    its path."""
    prefix = _root_prefix(root)
    if prefix is None or prefix not in line:
        return line
    return re.sub(r"(?<![\w/.~-])" + re.escape(prefix), "", line)


def ran_and_failed(data: Any) -> bool:
    """A command that ran but failed (non-zero exit, timed out): the model gets it as a normal
    result, the card shows it as failed."""
    code = field(data, "exit_code", "exitCode")
    return (isinstance(code, int) and not isinstance(code, bool) and code != 0) or field(data, "timed_out") is True


def result_summary(tool: Any, tool_name: str, data: Any, text: str, is_error: bool) -> str:
    """The one-line result: the tool's own message, ``N lines`` for Read, or the text's head."""
    if is_error:
        return _first_line(text, 300) or "Error"
    if tool is not None and data is not None:
        try:
            own = tool.render_tool_result_message(data)
            if own:
                return _unmarked(tool_name, _first_line(str(own), 300))
        except Exception:
            pass
    if tool_name in MARKDOWN_TEXT:
        return _unmarked(tool_name, _first_line(text, 200))
    if tool_name == "Read":
        n = field(data, "num_lines", "numLines") or field(field(data, "file"), "numLines", "num_lines")
        if n is None and text:
            n = text.count("\n") + 1
        return f"Read {n} line{'' if n == 1 else 's'}"
    return _first_line(text, 200)


def _unmarked(tool_name: str, line: str) -> str:
    """A model's prose in a title: its first line without the Markdown marks (``**``, `` ` ``, ``#``)."""
    return re.sub(r"\*\*|__|`|^#+\s+", "", line) if tool_name in MARKDOWN_TEXT else line
