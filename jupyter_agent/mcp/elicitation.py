"""MCP elicitation: a server asks the user for input in the middle of a call.

A server sends ``elicitation/create`` while one of its tools (or resource reads) runs:

* **form** mode: a message and a flat JSON schema (strings with length and format, numbers
  and integers with bounds, booleans, single and multi-select enums).  The user fills a form
  on the call's card and submits it (``accept`` with the values), declines, or cancels.
* **url** mode: a message and a link to open in the browser (OAuth, payment, a secret that
  must not pass through the agent).  ``accept`` is the user's consent; nothing is sent back.

Before the user sees anything the ``Elicitation`` hooks run (matcher: the server's name): one
may answer in the user's place (``hookSpecificOutput.action`` / ``content``) or refuse (exit 2
→ ``decline``).  After the user (or a hook) answered, the ``ElicitationResult`` hooks may change
the answer or refuse it (exit 2 → ``decline``).  The answer the server gets is checked against
its own schema first, whoever gave it; what does not fit is never sent.

The user is reached through the call's ``can_use_tool`` with an ``ElicitationAsk``, so the
session's timeout, Stop, headless and ``denyInsteadOfPrompting`` handling apply as to any ask;
an ask nobody answers with a form is ``cancel``.
"""

from __future__ import annotations

import datetime as _dt
import math
import re
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal
from urllib.parse import urlsplit

from ..core.permission_types import ELICITATION_REASON, PermissionAllow, PermissionAsk, UserDecision

if TYPE_CHECKING:
    from ..core.context import ToolUseContext
    from ..permissions.hooks import HookRunner

Action = Literal["accept", "decline", "cancel"]
ACTIONS: tuple[Action, ...] = ("accept", "decline", "cancel")
FieldKind = Literal["string", "number", "integer", "boolean", "choice", "choices"]
FORMATS = {"email": "name@example.com", "uri": "https://…", "date": "YYYY-MM-DD", "date-time": "YYYY-MM-DDThh:mm:ss"}
_EMAIL = re.compile(r"^[^@\s]+@[^@\s]+\.[^@\s]+$")


class FormSchemaError(ValueError):
    """The server's ``requestedSchema`` is not the flat form MCP allows."""


@dataclass(frozen=True)
class FormField:
    """One top-level property of a form: what the user fills in."""

    name: str
    kind: FieldKind
    title: str
    description: str = ""
    required: bool = False
    default: Any = None
    options: tuple[tuple[str, str], ...] = ()  # (value, label) for choice / choices
    minimum: float | None = None
    maximum: float | None = None
    min_length: int | None = None
    max_length: int | None = None
    format: str | None = None
    min_items: int | None = None
    max_items: int | None = None


class LinkDone:
    """The end of a link's out-of-band step (a sign-in in the browser): the server's
    ``notifications/elicitation/complete`` for its id, or the user's word that they finished.
    Listeners run once, on the loop, with how it ended (``"server"`` or ``"user"``)."""

    def __init__(self) -> None:
        self.how: str | None = None
        self._listeners: list[Callable[[str], None]] = []

    def finish(self, how: str) -> None:
        if self.how is not None:
            return
        self.how = how
        listeners, self._listeners = self._listeners, []
        for listener in listeners:
            listener(how)

    def listen(self, listener: Callable[[str], None]) -> None:
        if self.how is not None:
            listener(self.how)
        else:
            self._listeners.append(listener)

    async def wait(self, timeout: float) -> str | None:
        """How it ended, or None when it did not within ``timeout`` seconds."""
        import asyncio

        ended: asyncio.Future[str] = asyncio.get_running_loop().create_future()
        self.listen(lambda how: None if ended.done() else ended.set_result(how))
        try:
            return await asyncio.wait_for(ended, timeout)
        except asyncio.TimeoutError:
            return None


@dataclass(frozen=True)
class Elicitation:
    """What a server asked for.  A link (``url`` mode) carries ``done``, which its server's
    completion notice finishes; ``retry`` marks a link the server's error asked for
    (``URL_ELICITATION_REQUIRED``): the call is tried again once it is done."""

    server: str
    mode: Literal["form", "url"]
    message: str
    schema: dict[str, Any] = field(default_factory=dict)
    fields: tuple[FormField, ...] = ()
    url: str | None = None
    elicitation_id: str | None = None
    done: LinkDone | None = field(default=None, compare=False, repr=False)
    retry: bool = False

    def hook_payload(self) -> dict[str, Any]:
        payload: dict[str, Any] = {"mcp_server_name": self.server, "message": self.message, "mode": self.mode}
        if self.mode == "form":
            payload["requested_schema"] = self.schema
        else:
            payload["url"] = self.url
        if self.elicitation_id is not None:
            payload["elicitation_id"] = self.elicitation_id
        return payload


@dataclass(frozen=True)
class ElicitAnswer:
    """What goes back to the server: ``content`` only with ``accept`` in form mode."""

    action: Action
    content: dict[str, Any] | None = None


@dataclass(frozen=True)
class ElicitationAsk(PermissionAsk):
    """The ask a running MCP call makes through ``can_use_tool``: the UI shows a form (or the
    link) and answers ``PermissionAllow(updated_input={"action": …, "content": {…}})``; any
    deny (stopped, timed out, nobody to ask) is ``cancel``."""

    elicitation: Elicitation | None = None


# -- the schema ------------------------------------------------------------------------------


def form_fields(schema: object) -> tuple[FormField, ...]:
    """The fields of a ``requestedSchema``; ``FormSchemaError`` for anything MCP's restricted
    subset does not allow (nested objects, arrays of anything but enum strings, refs…)."""
    if not isinstance(schema, Mapping) or schema.get("type", "object") != "object":
        raise FormSchemaError("the requested schema must be an object schema")
    properties = schema.get("properties") or {}
    required = schema.get("required") or []
    if not isinstance(properties, Mapping) or not isinstance(required, list):
        raise FormSchemaError("the requested schema's properties must be an object and required a list")
    missing = [name for name in required if name not in properties]
    if missing:
        raise FormSchemaError(f"required field {missing[0]!r} is not among the properties")
    return tuple(_field(str(name), prop, name in required) for name, prop in properties.items())


def _field(name: str, prop: object, required: bool) -> FormField:
    if not isinstance(prop, Mapping):
        raise FormSchemaError(f"field {name!r} has no schema object")
    kind = prop.get("type")
    common: dict[str, Any] = {
        "name": name, "title": _text(prop.get("title")) or name, "description": _text(prop.get("description")),
        "required": required, "default": prop.get("default"),
    }
    if kind == "string" and ("enum" in prop or "oneOf" in prop):
        return FormField(kind="choice", options=_options(name, prop), **common)
    if kind == "string":
        fmt = prop.get("format")
        if fmt is not None and fmt not in FORMATS:
            raise FormSchemaError(f"field {name!r} has an unknown string format {fmt!r}")
        return FormField(kind="string", min_length=_count(name, prop, "minLength"),
                         max_length=_count(name, prop, "maxLength"), format=fmt, **common)
    if kind in ("number", "integer"):
        return FormField(kind=kind, minimum=_bound(name, prop, "minimum"), maximum=_bound(name, prop, "maximum"),
                         **common)
    if kind == "boolean":
        return FormField(kind="boolean", **common)
    if kind == "array":
        items = prop.get("items")
        if not isinstance(items, Mapping):
            raise FormSchemaError(f"field {name!r} is an array without an items schema")
        return FormField(kind="choices", options=_options(name, items), min_items=_count(name, prop, "minItems"),
                         max_items=_count(name, prop, "maxItems"), **common)
    raise FormSchemaError(f"field {name!r} has type {kind!r}; a form field is a string, number, integer, "
                          "boolean or a list of choices")


def _options(name: str, prop: Mapping[str, Any]) -> tuple[tuple[str, str], ...]:
    """Enum values with their labels: ``enum`` (+ legacy ``enumNames``), ``oneOf`` / ``anyOf``
    of ``{const, title}``."""
    listed = prop.get("oneOf", prop.get("anyOf"))
    if isinstance(listed, list):
        pairs = []
        for item in listed:
            if not isinstance(item, Mapping) or not isinstance(item.get("const"), str):
                raise FormSchemaError(f"field {name!r} lists a choice without a string const")
            pairs.append((item["const"], _text(item.get("title")) or item["const"]))
    else:
        values = prop.get("enum")
        if not isinstance(values, list) or not all(isinstance(v, str) for v in values):
            raise FormSchemaError(f"field {name!r} must list its choices as strings")
        names = prop.get("enumNames")
        labels = names if isinstance(names, list) and len(names) == len(values) else values
        pairs = [(v, str(label)) for v, label in zip(values, labels, strict=True)]
    if not pairs or len({v for v, _ in pairs}) != len(pairs):
        raise FormSchemaError(f"field {name!r} needs distinct choices")
    return tuple(pairs)


def _count(name: str, prop: Mapping[str, Any], key: str) -> int | None:
    value = prop.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise FormSchemaError(f"field {name!r} has an invalid {key}")
    return value


def _bound(name: str, prop: Mapping[str, Any], key: str) -> float | None:
    value = prop.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise FormSchemaError(f"field {name!r} has an invalid {key}")
    return value


def _text(value: object) -> str:
    return value if isinstance(value, str) else ""


# -- answers -----------------------------------------------------------------------------------


def check_content(fields: tuple[FormField, ...], content: object) -> tuple[dict[str, Any], dict[str, str]]:
    """``content`` checked against the form: (the values to send, problems by field name).
    Empty optional fields are left out; a name the form does not have is a problem."""
    if not isinstance(content, Mapping):
        return {}, {"": "the answer must be an object of field values"}
    known = {f.name: f for f in fields}
    problems = {str(name): "the form has no such field" for name in content if name not in known}
    clean: dict[str, Any] = {}
    for f in fields:
        value = content.get(f.name)
        if value is None or value == "" or value == []:
            if f.required:
                problems[f.name] = "is required"
            continue
        value, problem = _check(f, value)
        if problem:
            problems[f.name] = problem
        else:
            clean[f.name] = value
    return clean, problems


def _check(f: FormField, value: Any) -> tuple[Any, str | None]:
    if f.kind == "boolean":
        return (value, None) if isinstance(value, bool) else (value, "must be true or false")
    if f.kind in ("number", "integer"):
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
            return value, "must be a number"
        if f.kind == "integer":
            if not float(value).is_integer():
                return value, "must be a whole number"
            value = int(value)
        if f.minimum is not None and value < f.minimum:
            return value, f"must be at least {f.minimum:g}"
        if f.maximum is not None and value > f.maximum:
            return value, f"must be at most {f.maximum:g}"
        return value, None
    values = {v for v, _ in f.options}
    if f.kind == "choice":
        return (value, None) if isinstance(value, str) and value in values else (value, "is not one of the choices")
    if f.kind == "choices":
        if not isinstance(value, list) or not all(isinstance(v, str) and v in values for v in value):
            return value, "must be a list of the choices"
        if len(set(value)) != len(value):
            return value, "lists a choice twice"
        if f.min_items is not None and len(value) < f.min_items:
            return value, f"needs at least {f.min_items} choice(s)"
        if f.max_items is not None and len(value) > f.max_items:
            return value, f"allows at most {f.max_items} choice(s)"
        return value, None
    if not isinstance(value, str):
        return value, "must be text"
    if f.min_length is not None and len(value) < f.min_length:
        return value, f"needs at least {f.min_length} character(s)"
    if f.max_length is not None and len(value) > f.max_length:
        return value, f"allows at most {f.max_length} character(s)"
    if f.format and not _formatted(f.format, value):
        return value, f"is not a valid {f.format} ({FORMATS[f.format]})"
    return value, None


def _formatted(fmt: str, value: str) -> bool:
    if fmt == "email":
        return bool(_EMAIL.match(value))
    if fmt == "uri":
        parts = urlsplit(value)
        return bool(parts.scheme) and bool(parts.netloc or parts.path)
    try:
        if fmt == "date":
            _dt.date.fromisoformat(value)
        else:
            _dt.datetime.fromisoformat(value[:-1] + "+00:00" if value.endswith("Z") else value)
    except ValueError:
        return False
    return True


def parse_number(text: str) -> Any:
    """What the user typed in a number field: an int or float, ``None`` for an empty box, the
    text itself when it is no number (``check_content`` then says so)."""
    text = text.strip()
    if not text:
        return None
    try:
        return int(text)
    except ValueError:
        try:
            return float(text)
        except ValueError:
            return text


def openable(url: str | None) -> bool:
    """Only http(s) links are shown (a ``javascript:`` link in the notebook would run code)."""
    if not url:
        return False
    parts = urlsplit(url)
    return parts.scheme in ("http", "https") and bool(parts.netloc)


def hook_answer(specific_action: str | None, content: object, elicitation: Elicitation) -> tuple[ElicitAnswer | None, str | None]:
    """A hook's ``action`` / ``content`` as an answer (None: the hook did not answer), with a
    problem when what it gave cannot be sent."""
    if specific_action is None:
        return None, None
    if specific_action != "accept":
        return ElicitAnswer(specific_action), None  # type: ignore[arg-type]
    if elicitation.mode == "url":
        return ElicitAnswer("accept"), None
    clean, problems = check_content(elicitation.fields, content if content is not None else {})
    if problems:
        return None, "; ".join(f"{name or 'content'} {why}" for name, why in problems.items())
    return ElicitAnswer("accept", clean), None


# -- one elicitation, end to end ------------------------------------------------------------


AskUser = Callable[[Elicitation], Awaitable[ElicitAnswer]]


async def answer_elicitation(
    elicitation: Elicitation, ask_user: AskUser, hooks: HookRunner | None = None,
    permission_mode: str = "default",
) -> ElicitAnswer:
    """Elicitation hooks, then (unless one answered) the user, then ElicitationResult hooks."""
    answer: ElicitAnswer | None = None
    if hooks is not None and hooks.has_hooks("Elicitation"):
        outcome = await hooks.run("Elicitation", elicitation.hook_payload(), permission_mode=permission_mode)
        if outcome.blocked:
            answer = ElicitAnswer("decline")
        else:
            answer, problem = hook_answer(outcome.elicitation_action, outcome.elicitation_content, elicitation)
            if problem:
                hooks.notify("Elicitation", f"its answer for {elicitation.server} was not used ({problem}); "
                             "asking the user")
    if answer is None:
        answer = await ask_user(elicitation)
    if hooks is not None and hooks.has_hooks("ElicitationResult"):
        payload = {**elicitation.hook_payload(), "action": answer.action}
        payload.pop("requested_schema", None)
        if answer.content is not None:
            payload["content"] = answer.content
        outcome = await hooks.run("ElicitationResult", payload, permission_mode=permission_mode)
        if outcome.blocked:
            return ElicitAnswer("decline")
        changed, problem = hook_answer(outcome.elicitation_action, outcome.elicitation_content, elicitation)
        if problem:  # the user's answer was changed into something unsendable: refuse, send nothing
            hooks.notify("ElicitationResult", f"its answer for {elicitation.server} cannot be sent ({problem}); "
                         "declined")
            return ElicitAnswer("decline")
        if changed is not None:
            answer = changed
    return answer


def elicitation_from_params(server: str, params: Any, retry: bool = False) -> Elicitation:
    """The SDK's ``ElicitRequestFormParams`` / ``ElicitRequestURLParams`` as an ``Elicitation``
    (``FormSchemaError`` for a form we cannot show)."""
    mode = getattr(params, "mode", "form") or "form"
    message = str(getattr(params, "message", "") or "")
    if mode == "url":
        url = str(getattr(params, "url", "") or "")
        if not openable(url):
            raise FormSchemaError(f"the link {url[:200]!r} is not an http(s) address")
        return Elicitation(server, "url", message, url=url, elicitation_id=getattr(params, "elicitation_id", None),
                           done=LinkDone(), retry=retry)
    schema = getattr(params, "requested_schema", None)
    fields = form_fields(schema)
    return Elicitation(server, "form", message, schema=dict(schema or {}), fields=fields)


def asker_for_call(tool: Any, input: Any, context: ToolUseContext, can_use_tool: Any) -> AskUser:
    """What a running MCP call hands its connection: an elicitation during the call runs the
    session's hooks and asks the user on the call's card."""
    from ..core.tool import CURRENT_TOOL_USE_ID
    from ..permissions.hooks import get_hook_runner

    ask_user = user_asker(tool, input, context, can_use_tool, CURRENT_TOOL_USE_ID.get() or "")

    async def elicit(elicitation: Elicitation) -> ElicitAnswer:
        return await answer_elicitation(elicitation, ask_user, get_hook_runner(context),
                                        context.permission_context.mode)

    return elicit


def user_asker(
    tool: Any, input: Any, context: ToolUseContext, can_use_tool: Any, tool_use_id: str,
) -> AskUser:
    """How a running call asks its user: ``can_use_tool`` with an ``ElicitationAsk`` (the card
    of the call shows the form).  Anything but a form's answer is ``cancel``."""

    async def ask(elicitation: Elicitation) -> ElicitAnswer:
        if can_use_tool is None:
            return ElicitAnswer("cancel")
        what = "open a link" if elicitation.mode == "url" else "fill in a form"
        question = ElicitationAsk(f"MCP server {elicitation.server!r} asks you to {what}: {elicitation.message}",
                                  reason=ELICITATION_REASON, elicitation=elicitation)
        decision: UserDecision = await can_use_tool(tool, input, context, question, tool_use_id)
        return answer_from_decision(decision, elicitation)

    return ask


def answer_from_decision(decision: UserDecision, elicitation: Elicitation) -> ElicitAnswer:
    """A form's ``PermissionAllow`` back into an answer; an allow that is not a well-formed
    answer (an approver that allows everything) or any deny is ``cancel`` — nothing is sent."""
    if not isinstance(decision, PermissionAllow) or not isinstance(decision.updated_input, Mapping):
        return ElicitAnswer("cancel")
    action = decision.updated_input.get("action")
    if action not in ACTIONS:
        return ElicitAnswer("cancel")
    if action != "accept" or elicitation.mode == "url":
        return ElicitAnswer(action)
    clean, problems = check_content(elicitation.fields, decision.updated_input.get("content"))
    return ElicitAnswer("cancel") if problems else ElicitAnswer("accept", clean)
