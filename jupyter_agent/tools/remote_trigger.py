"""RemoteTrigger: create, list and delete HTTP triggers that start a prompt in this session."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from ..core.context import ToolUseContext
from ..core.permission_types import PermissionAllow, PermissionAsk, PermissionResult
from ..core.result import ToolResult
from ..core.tool import VALID, Tool, ValidationError, ValidationResult
from ..errors import ToolError
from ..triggers.store import DELIVERY_KEY, ENABLE_ENV, get_trigger_store, triggers_enabled


class RemoteTriggerInput(BaseModel):
    action: Literal["create", "list", "delete"] = Field(description="create a trigger, list them, or delete one")
    name: str | None = Field(None, description="A short name for the trigger (create)")
    prompt: str | None = Field(None, description="The prompt to run in this session when it fires (create)")
    trigger_id: str | None = Field(None, description="The trigger to delete")


class RemoteTriggerTool(Tool[RemoteTriggerInput, str]):
    """Let something outside start work in this session: a trigger is an HTTP endpoint on
this machine (127.0.0.1) that, when POSTed to with its secret token, submits its `prompt` to
this session as a new turn — e.g. a local build or test watcher calling back when it is done.
The request body (JSON or text) is appended to the prompt as data.

- create (name, prompt): returns the URL and the token, and a curl example to give the user.
- list: the triggers, how often each fired.
- delete (trigger_id): stop it; the endpoint closes when no trigger is left.
Only create triggers the user asked for, and tell the user the URL and token."""

    name = "RemoteTrigger"
    input_schema = RemoteTriggerInput
    search_hint = "webhook http trigger remote callback endpoint"

    def is_enabled(self) -> bool:
        return triggers_enabled()

    def is_read_only(self, input: RemoteTriggerInput) -> bool:
        return input.action == "list"

    def is_concurrency_safe(self, input: RemoteTriggerInput) -> bool:
        return input.action == "list"

    async def validate_input(self, input: RemoteTriggerInput, context: ToolUseContext) -> ValidationResult:
        if input.action == "create" and not ((input.name or "").strip() and (input.prompt or "").strip()):
            return ValidationError("action=create needs a name and a prompt.")
        if input.action == "delete" and not input.trigger_id:
            return ValidationError("action=delete needs trigger_id.")
        return VALID

    async def check_permissions(self, input: RemoteTriggerInput, context: ToolUseContext) -> PermissionResult:
        if input.action == "create":
            return PermissionAsk(
                f"Open an HTTP trigger {input.name!r} on this machine that runs this prompt when called:\n{input.prompt}"
            )
        return PermissionAllow()

    async def call(self, input, context, can_use_tool, parent_message, on_progress=None):
        if not triggers_enabled():
            raise ToolError(f"Remote triggers are off. Set {ENABLE_ENV}=1 to allow them.")
        store = get_trigger_store(context)
        if input.action == "list":
            if not store.triggers:
                return ToolResult("No triggers.")
            return ToolResult("\n".join(
                f"- {t.id} {t.name!r}: {store.server.url_for(t.id)} — fired {t.fired} time(s); prompt: {t.prompt[:80]}"
                for t in store.triggers.values()
            ))
        if input.action == "delete":
            trigger = await store.delete(input.trigger_id.strip())
            if trigger is None:
                known = ", ".join(store.triggers) or "none"
                raise ToolError(f"No trigger {input.trigger_id!r}. Triggers: {known}.")
            closed = "" if store.triggers else " The endpoint is closed (no triggers left)."
            return ToolResult(f"Deleted trigger {trigger.id} ({trigger.name!r}).{closed}")
        if store.delivery is None and context.extra.get(DELIVERY_KEY) is None:
            raise ToolError("This session cannot receive prompts from outside (no delivery attached).")
        store.delivery = store.delivery or context.extra.get(DELIVERY_KEY)
        t = await store.create(input.name.strip(), input.prompt.strip())
        url = store.server.url_for(t.id)
        return ToolResult(
            f"Created trigger {t.id} ({t.name!r}).\nURL: {url}\nToken: {t.token}\n"
            f"Example: curl -X POST -H 'Authorization: Bearer {t.token}' -d '{{\"status\": \"done\"}}' {url}"
        )

    def render_tool_use_message(self, input: RemoteTriggerInput) -> str:
        target = input.name or input.trigger_id or ""
        return f"RemoteTrigger {input.action} {target}".rstrip()

    def render_tool_result_message(self, output: str) -> str:
        return output.splitlines()[0] if output else ""
