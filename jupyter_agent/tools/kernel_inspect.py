"""The KernelInspect tool: summaries of variables in the user's IPython namespace, read-only.

``{expression}`` names one object (``df``, ``df.columns``, ``model.coef_``, ``data["train"]``),
``{names}`` several variables; with neither it lists the user's variables.  Read-only by
construction: expressions are parsed with ``ast`` and resolved by ``_safe_access`` (no calls,
no properties, no ``__getattr__``), and ``_summarize`` renders values without calling methods
the user defined — so it needs no permission and may run concurrently.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, Field

from ..core.context import ToolUseContext, ToolUseOptions
from ..core.result import ContentBlock, ToolResult, text_block
from ..core.tool import VALID, ValidationError, ValidationResult
from ..errors import ToolError
from ._read_only import ReadOnlyTool
from ._safe_access import Refused, parse_expression, resolve
from ._summarize import VariableSummary, short, summarize

MAX_NAMES = 30
MAX_LISTED = 200
_IPYTHON_NAMES = frozenset({"In", "Out", "exit", "quit", "get_ipython"})

NO_IPYTHON_MESSAGE = (
    "KernelInspect needs an IPython kernel: there is no IPython shell in this process, "
    "so there is no user namespace to inspect."
)


class KernelInspectInput(BaseModel):
    expression: str | None = Field(
        None,
        description="A variable, attribute or literal subscript to summarize, e.g. df, df.columns, "
        "model.coef_, data['train'], xs[0]. No calls or operators.",
    )
    names: list[str] | None = Field(
        None, max_length=MAX_NAMES, description="Names of variables to summarize (instead of expression)"
    )


@dataclass(frozen=True)
class KernelInspectOutput:
    summaries: tuple[VariableSummary, ...]
    missing: tuple[str, ...] = ()
    listing: tuple[str, ...] = ()  # one line per variable when neither expression nor names was given

    def to_text(self) -> str:
        parts = [s.render() for s in self.summaries]
        parts += [f"{name}: not defined in the kernel's namespace" for name in self.missing]
        if self.listing or not parts:
            header = f"{len(self.listing)} user variable(s) in the kernel:" if self.listing else "No user variables."
            parts.append("\n".join([header, *self.listing]))
        return "\n\n".join(parts)


_PROMPT = """Summarizes variables in the user's Jupyter kernel (the IPython namespace the notebook runs in) without running any code: type, shape, dtype, columns with their dtypes, the first rows of pandas DataFrames/Series, numpy arrays, lengths and first items of lists/dicts, and the stored attributes of other objects.

- expression: one variable, attribute or subscript with a literal key: df, df.columns, df["price"], model.coef_, data["train"], xs[0]. Calls, operators, slices and dunder names are refused.
- names: several variable names at once. With neither, lists the user's variables with a one-line summary each.
- Read-only: properties and methods are never called (only attributes stored on the object are read); to compute something, run code with NotebookExecute instead."""


class KernelInspectTool(ReadOnlyTool[KernelInspectInput, KernelInspectOutput]):
    """Read-only summaries of variables in the user's IPython namespace."""

    name = "KernelInspect"
    input_schema = KernelInspectInput

    async def prompt(self, options: ToolUseOptions) -> str:
        return _PROMPT

    async def validate_input(self, input: KernelInspectInput, context: ToolUseContext) -> ValidationResult:
        if input.expression is not None and input.names:
            return ValidationError("Give either expression or names, not both.")
        try:
            for text in [input.expression] if input.expression is not None else input.names or []:
                parse_expression(text)
        except Refused as exc:
            return ValidationError(str(exc))
        for name in input.names or []:
            if not name.isidentifier():
                return ValidationError(f"{name!r} is not a variable name; use expression for attributes and subscripts.")
        return VALID

    async def call(self, input, context, can_use_tool, parent_message, on_progress=None):
        namespace = user_namespace()
        if input.expression is not None:
            return ToolResult(KernelInspectOutput((summarize(input.expression.strip(), resolve(input.expression, namespace)),)))
        if input.names:
            found = tuple(summarize(n, namespace[n]) for n in input.names if n in namespace)
            missing = tuple(n for n in input.names if n not in namespace)
            return ToolResult(KernelInspectOutput(found, missing))
        return ToolResult(KernelInspectOutput((), listing=_listing(namespace)))

    def map_result_to_content(self, data: KernelInspectOutput, tool_use_id: str) -> list[ContentBlock]:
        return [text_block(data.to_text())]

    def render_tool_use_message(self, input: KernelInspectInput) -> str:
        if input.expression is not None:
            return f"KernelInspect {input.expression}"
        return f"KernelInspect {', '.join(input.names or []) or 'all variables'}"

    def render_tool_result_message(self, output: KernelInspectOutput) -> str:
        if output.listing:
            return f"{len(output.listing)} variable{'' if len(output.listing) == 1 else 's'}"
        return ", ".join(f"{s.expression}: {s.type_name}" for s in output.summaries) or "nothing found"


def user_namespace() -> dict[str, Any]:
    """The IPython shell's ``user_ns``; ToolError outside IPython."""
    try:
        from IPython import get_ipython
    except ImportError:
        raise ToolError(NO_IPYTHON_MESSAGE) from None
    shell = get_ipython()
    namespace = getattr(shell, "user_ns", None) if shell is not None else None
    if not isinstance(namespace, dict):
        raise ToolError(NO_IPYTHON_MESSAGE)
    return namespace


def _listing(namespace: dict[str, Any]) -> tuple[str, ...]:
    hidden = _hidden_names()
    names = sorted(
        n for n in namespace
        if isinstance(n, str) and not n.startswith("_") and n not in _IPYTHON_NAMES and n not in hidden
    )
    lines = [f"{n}: {short(namespace[n])}" for n in names[:MAX_LISTED]]
    if len(names) > MAX_LISTED:
        lines.append(f"… {len(names) - MAX_LISTED} more")
    return tuple(lines)


def _hidden_names() -> frozenset[str]:
    from IPython import get_ipython

    hidden = getattr(get_ipython(), "user_ns_hidden", None)
    return frozenset(k for k in hidden if isinstance(k, str)) if isinstance(hidden, dict) else frozenset()
