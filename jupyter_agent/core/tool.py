"""The Tool base class: the seed's required and optional members, in snake_case.

A tool is a pydantic input model plus a small subclass::

    class ReadTool(Tool[ReadInput, ReadOutput]):
        name = "Read"
        input_schema = ReadInput
        async def call(self, input, context, can_use_tool, parent_message, on_progress=None): ...

Execution order (see ``orchestration.run_tool_use``): schema → ``validate_input`` →
permissions (``check_permissions`` inside the pipeline) → ``call``.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Coroutine
from contextvars import ContextVar
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar, Generic, Literal, TypeVar

from anthropic.types import ToolParam
from pydantic import BaseModel

from .permission_types import PermissionAsk, PermissionPassthrough, PermissionResult, UserDecision
from .result import ContentBlock, ToolResult, data_to_content

if TYPE_CHECKING:
    from .context import ToolUseContext, ToolUseOptions

InputT = TypeVar("InputT", bound=BaseModel)
OutputT = TypeVar("OutputT")

InterruptBehavior = Literal["cancel", "block"]


@dataclass(frozen=True)
class ChangePreview:
    """What a call would change, for the person asked to approve it: the text before and after,
    and ``where`` — its target as people name it (``cell 3 of 12 [5]: df = pd.read_csv(…``)
    where the input names it by an id."""

    before: str
    after: str
    where: str | None = None


@dataclass(frozen=True)
class ValidationOk:
    ok: Literal[True] = True


@dataclass(frozen=True)
class ValidationError:
    message: str
    ok: Literal[False] = False


ValidationResult = ValidationOk | ValidationError
VALID = ValidationOk()


@dataclass(frozen=True)
class ToolProgress:
    """One progress report from a running tool (a line of Bash output, a subagent's step...)."""

    tool_use_id: str
    data: Any


ProgressCallback = Callable[[ToolProgress], None]

# The id of the tool use whose ``call`` is running (set by ``orchestration`` for the call's task):
# a tool that asks the user something mid-call (the sandbox's network) routes the ask to its card.
CURRENT_TOOL_USE_ID: ContextVar[str | None] = ContextVar("current_tool_use_id", default=None)


def start_call(tool_use_id: str, call: Coroutine[Any, Any, Any]) -> asyncio.Task[Any]:
    """``call`` as a task that sees ``CURRENT_TOOL_USE_ID`` (a task copies the context it starts in)."""
    token = CURRENT_TOOL_USE_ID.set(tool_use_id)
    try:
        return asyncio.ensure_future(call)
    finally:
        CURRENT_TOOL_USE_ID.reset(token)


# can_use_tool(tool, input, context, ask, tool_use_id) -> allow (maybe with updated input) | deny
CanUseTool = Callable[
    ["Tool[Any, Any]", BaseModel, "ToolUseContext", PermissionAsk, str], Awaitable[UserDecision]
]
# A permission matcher for hook/rule patterns: matcher(pattern) -> bool
PermissionMatcher = Callable[[str], bool]


class Tool(Generic[InputT, OutputT]):
    """Base class of every tool.  Subclasses set ``name`` and ``input_schema`` and implement ``call``."""

    name: ClassVar[str]
    input_schema: ClassVar[type[BaseModel]]
    aliases: ClassVar[tuple[str, ...]] = ()
    max_result_size_chars: ClassVar[int] = 100_000
    should_defer: ClassVar[bool] = False
    search_hint: ClassVar[str] = ""
    # one line for people (``%agent --tools``); empty: the first sentence of ``prompt``
    summary: ClassVar[str] = ""

    # -- required members -------------------------------------------------------------------

    async def validate_input(self, input: InputT, context: ToolUseContext) -> ValidationResult:
        """Check the input beyond its schema; runs before permissions."""
        return VALID

    async def check_permissions(self, input: InputT, context: ToolUseContext) -> PermissionResult:
        """The tool's own view: allow, deny, ask, or passthrough (let mode and rules decide)."""
        return PermissionPassthrough()

    async def call(
        self,
        input: InputT,
        context: ToolUseContext,
        can_use_tool: CanUseTool,
        parent_message: Any,
        on_progress: ProgressCallback | None = None,
    ) -> ToolResult[OutputT]:
        raise NotImplementedError(f"{type(self).__name__}.call")

    async def description(self, input: InputT | None, options: ToolUseOptions) -> str:
        """A short description of what this call does (for the UI and permission prompts)."""
        return self.name

    async def prompt(self, options: ToolUseOptions) -> str:
        """The usage instructions the model reads (the ``description`` field of the API tool)."""
        doc = (type(self).__doc__ or "").strip()
        return doc or self.name

    def is_read_only(self, input: InputT) -> bool:
        return False

    def is_concurrency_safe(self, input: InputT) -> bool:
        return False

    def is_read_only_in(self, input: InputT, context: ToolUseContext) -> bool:
        """``is_read_only`` with the call's context (working directories, cwd), for permissions.

        Tools whose answer depends on where they run (Bash: ``cd sub && ls``) override this.
        """
        return self.is_read_only(input)

    def is_enabled(self) -> bool:
        return True

    # -- optional members -------------------------------------------------------------------

    def is_destructive(self, input: InputT) -> bool:
        return False

    def interrupt_behavior(self) -> InterruptBehavior:
        return "block"

    def prepare_permission_matcher(self, input: InputT) -> PermissionMatcher:
        """A matcher for rule-style hook patterns (``Bash(git *)``); default: exact tool name."""
        return lambda pattern: pattern in ("*", self.name, *self.aliases)

    def get_path(self, input: InputT) -> str | None:
        return None

    def user_facing_name(self, input: InputT | None = None) -> str:
        return self.name

    def render_tool_use_message(self, input: InputT) -> str:
        """One line for the UI card: e.g. ``Edit src/app.py`` or ``Bash: pytest -q``."""
        path = self.get_path(input)
        return f"{self.user_facing_name(input)} {path}" if path else self.user_facing_name(input)

    def render_tool_result_message(self, output: OutputT) -> str:
        """A plain-text summary of the result for the UI card: the text the model is given
        (never a Python repr of the output object)."""
        text: str
        if isinstance(output, str):
            text = output
        else:
            try:
                blocks = self.map_result_to_content(output, "")
            except Exception:
                blocks = []
            text = "\n".join(str(b.get("text", "")) for b in blocks if isinstance(b, dict) and b.get("type") == "text")
        text = text.strip()
        return text if len(text) <= 200 else text[:200] + "…"

    async def change_preview(self, input: InputT, context: ToolUseContext) -> ChangePreview | None:
        """What this call would change, for the person asked to approve it, when the input alone
        does not show it (a cell replaced by id); None: the input shows it."""
        return None

    def backfill_observable_input(self, input: dict[str, Any]) -> dict[str, Any]:
        """Derived fields for observers (hooks, UI, transcript); ``call`` never sees them."""
        return input

    def map_result_to_content(self, data: OutputT, tool_use_id: str) -> list[ContentBlock]:
        """Turn ``data`` into tool_result content blocks (text, image, document)."""
        return data_to_content(data)

    # -- helpers ---------------------------------------------------------------------------

    def input_json_schema(self) -> dict[str, Any]:
        """The JSON schema the model sees (wire names, no pydantic titles)."""
        schema = self.input_schema.model_json_schema(by_alias=True)
        return _strip_titles(schema)

    async def to_api_tool(self, options: ToolUseOptions) -> ToolParam:
        return {
            "name": self.name,
            "description": await self.prompt(options),
            "input_schema": self.input_json_schema(),  # type: ignore[typeddict-item]
        }

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name}>"


def _strip_titles(node: Any) -> Any:
    if isinstance(node, dict):
        return {
            k: _strip_titles(v)
            for k, v in node.items()
            if not (k == "title" and isinstance(v, str))
        }
    if isinstance(node, list):
        return [_strip_titles(v) for v in node]
    return node
