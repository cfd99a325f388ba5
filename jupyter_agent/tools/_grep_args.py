"""Pure translation of Grep's input into ripgrep arguments, and paging of its output."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from ._rg import SKIP_GLOBS

OutputMode = Literal["content", "files_with_matches", "count"]
MAX_COLUMNS = 500


def split_globs(glob: str) -> list[str]:
    """``"*.py *.pyi"`` or ``"*.py,*.md"`` → separate globs; commas inside ``{a,b}`` stay."""
    out: list[str] = []
    current: list[str] = []
    depth = 0
    for ch in glob:
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth = max(0, depth - 1)
        if depth == 0 and (ch.isspace() or ch == ","):
            if current:
                out.append("".join(current))
                current = []
            continue
        current.append(ch)
    if current:
        out.append("".join(current))
    return out


def build_rg_args(
    pattern: str,
    target: str,
    *,
    mode: OutputMode,
    glob: str | None = None,
    type: str | None = None,
    ignore_case: bool = False,
    only_matching: bool = False,
    line_numbers: bool = True,
    after: int | None = None,
    before: int | None = None,
    context: int | None = None,
    multiline: bool = False,
) -> list[str]:
    """The argument list for ``rg`` (pattern passed with ``-e`` so a leading ``-`` is safe)."""
    args = ["--no-config", "--hidden", *SKIP_GLOBS, "--color", "never",
            "--max-columns", str(MAX_COLUMNS), "--max-columns-preview"]
    if mode == "files_with_matches":
        args.append("--files-with-matches")
    elif mode == "count":
        args += ["--count-matches", "--with-filename"]
    else:
        args += ["--no-heading", "--with-filename"]
        args.append("--line-number" if line_numbers else "--no-line-number")
        if only_matching:
            args.append("--only-matching")
        if context is not None:
            args += ["--context", str(context)]
        else:
            if after is not None:
                args += ["--after-context", str(after)]
            if before is not None:
                args += ["--before-context", str(before)]
    if ignore_case:
        args.append("--ignore-case")
    if multiline:
        args += ["--multiline", "--multiline-dotall"]
    if type:
        args += ["--type", type]
    for g in split_globs(glob or ""):
        args += ["--glob", g]
    return [*args, "-e", pattern, "--", target]


def page(items: Sequence[str], offset: int, head_limit: int | None) -> tuple[list[str], bool]:
    """``items[offset : offset+head_limit]`` and whether anything was left out after it."""
    end = len(items) if head_limit is None else offset + head_limit
    return list(items[offset:end]), end < len(items)
