"""MCP elicitation: a real server asks for input mid-call; the schema, the answer checks, the
hooks, and what reaches the server (the server echoes it back as the tool's result)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from jupyter_agent.core.context import ToolUseOptions
from jupyter_agent.core.orchestration import ToolUseRequest, run_tool_use
from jupyter_agent.core.permission_types import PermissionAllow, PermissionDeny
from jupyter_agent.mcp.elicitation import (
    ElicitAnswer,
    Elicitation,
    ElicitationAsk,
    FormSchemaError,
    check_content,
    form_fields,
)
from jupyter_agent.permissions.hook_response import HookOutcome, response_from_json
from jupyter_agent.permissions.hooks import HOOKS_KEY, HookRunner
from jupyter_agent.permissions.hooks_config import parse_hooks
from tests.support.tools import make_context

from .servers.elicit_server import BOOKING

# -- the schema and the answer checks -----------------------------------------------------------


def test_every_kind_of_field_mcp_allows_is_read():
    fields = {f.name: f for f in form_fields(BOOKING)}
    assert {n: f.kind for n, f in fields.items()} == {
        "name": "string", "email": "string", "guests": "integer", "budget": "number", "vegetarian": "boolean",
        "table": "choice", "extras": "choices"}
    assert fields["name"].title == "Your name" and fields["name"].required and not fields["email"].required
    assert (fields["guests"].minimum, fields["guests"].maximum, fields["guests"].default) == (1, 8, 2)
    assert fields["table"].options == (("in", "Inside"), ("out", "Terrace"))
    assert fields["extras"].options == (("cake", "cake"), ("wine", "wine"), ("flowers", "flowers"))
    legacy = form_fields({"type": "object", "properties": {"c": {"type": "string", "enum": ["r", "g"],
                                                                 "enumNames": ["Red", "Green"]}}})
    assert legacy[0].options == (("r", "Red"), ("g", "Green"))


@pytest.mark.parametrize("schema, problem", [
    ({"type": "object", "properties": {"a": {"type": "object"}}}, "type 'object'"),
    ({"type": "object", "properties": {"a": {"type": "array", "items": {"type": "integer"}}}}, "choices as strings"),
    ({"type": "object", "properties": {"a": {"type": "string", "format": "ipv4"}}}, "unknown string format"),
    ({"type": "object", "properties": {}, "required": ["a"]}, "not among the properties"),
    ({"type": "object", "properties": {"a": {"type": "string", "enum": ["x", "x"]}}}, "distinct choices"),
    ({"type": "object", "properties": {"a": {"$ref": "#/defs/x"}}}, "type None"),
    ({"type": "array"}, "must be an object schema"),
    ({"type": "object", "properties": {"a": {"type": "integer", "minimum": "1"}}}, "invalid minimum"),
])
def test_a_form_mcp_does_not_allow_is_refused(schema, problem):
    with pytest.raises(FormSchemaError, match=problem):
        form_fields(schema)


@pytest.mark.parametrize("content, problems", [
    ({"name": "Ada", "guests": 3}, {}),
    ({"guests": 3}, {"name": "is required"}),
    ({"name": "A", "guests": 3}, {"name": "needs at least 2 character(s)"}),
    ({"name": "Ada", "guests": 9}, {"guests": "must be at most 8"}),
    ({"name": "Ada", "guests": 2.5}, {"guests": "must be a whole number"}),
    ({"name": "Ada", "guests": True}, {"guests": "must be a number"}),
    ({"name": "Ada", "guests": "3"}, {"guests": "must be a number"}),
    ({"name": "Ada", "guests": 2, "email": "ada@"}, {"email": "is not a valid email (name@example.com)"}),
    ({"name": "Ada", "guests": 2, "budget": -1}, {"budget": "must be at least 0"}),
    ({"name": "Ada", "guests": 2, "vegetarian": "yes"}, {"vegetarian": "must be true or false"}),
    ({"name": "Ada", "guests": 2, "table": "roof"}, {"table": "is not one of the choices"}),
    ({"name": "Ada", "guests": 2, "extras": ["cake", "wine", "flowers"]}, {"extras": "allows at most 2 choice(s)"}),
    ({"name": "Ada", "guests": 2, "extras": ["cake", "cake"]}, {"extras": "lists a choice twice"}),
    ({"name": "Ada", "guests": 2, "password": "x"}, {"password": "the form has no such field"}),
])
def test_answers_are_checked_against_the_servers_schema(content, problems):
    clean, found = check_content(form_fields(BOOKING), content)
    assert found == problems
    if not problems:
        assert clean == content


def test_a_whole_float_becomes_an_integer_and_empty_optional_fields_are_left_out():
    clean, problems = check_content(form_fields(BOOKING), {"name": "Ada", "guests": 4.0, "email": "", "extras": []})
    assert problems == {} and clean == {"name": "Ada", "guests": 4} and type(clean["guests"]) is int


def test_date_and_uri_formats():
    fields = form_fields({"type": "object", "properties": {
        "d": {"type": "string", "format": "date"}, "t": {"type": "string", "format": "date-time"},
        "u": {"type": "string", "format": "uri"}}})
    assert check_content(fields, {"d": "2026-12-02", "t": "2026-12-02T10:00:00Z", "u": "https://x.org/a"})[1] == {}
    assert set(check_content(fields, {"d": "02/12/2026", "t": "noon", "u": "not a uri"})[1]) == {"d", "t", "u"}


def test_hook_answers_are_read_and_the_most_refusing_wins():
    accept = response_from_json({"hookSpecificOutput": {"hookEventName": "Elicitation", "action": "accept",
                                                        "content": {"name": "Ada"}}}, "h")
    assert (accept.elicitation_action, accept.elicitation_content) == ("accept", {"name": "Ada"})
    decline = response_from_json({"hookSpecificOutput": {"action": "decline"}}, "h2")
    merged = HookOutcome.merge([accept, decline])
    assert merged.elicitation_action == "decline"
    odd = response_from_json({"hookSpecificOutput": {"action": "maybe", "content": []}}, "h3")
    assert odd.elicitation_action is None and odd.elicitation_content is None and "h3" in odd.error


# -- through a real server -------------------------------------------------------------------


class FormFiller:
    """The user at the form: answers an ElicitationAsk with ``answer`` (what the widget returns)."""

    def __init__(self, answer):
        self.answer = answer
        self.asks = []

    async def __call__(self, tool, input, context, ask, tool_use_id):
        self.asks.append((tool.name, ask, tool_use_id))
        return self.answer


def _context(tmp_path, manager, hooks=None):
    tools = manager.tools()
    ctx = make_context(tools, tmp_path)
    ctx.options = ToolUseOptions(tools=tuple(tools), mcp_clients=tuple(manager.connections.values()))
    if hooks is not None:
        ctx.extra[HOOKS_KEY] = HookRunner(parse_hooks(hooks, tmp_path / "settings.json", "userSettings"),
                                          cwd=tmp_path)
    return ctx


def _allowed(ctx):
    """The server's tools allowed by a rule: the only ask left is the server's own."""
    from jupyter_agent.core.permission_types import ToolPermissionContext

    ctx.set_app_state(lambda s: type(s)(tool_permission_context=ToolPermissionContext(
        allow_rules={"session": ("mcp__asker",)})))
    return ctx


async def _call(ctx, tool, approver, **args):
    out = await run_tool_use(ToolUseRequest("call-1", f"mcp__asker__{tool}", args), _allowed(ctx), approver)
    assert not out.is_error, out.text
    return json.loads(out.text)


def _filled(action, content=None):
    return PermissionAllow(updated_input={"action": action, "content": content})


async def test_the_user_fills_the_form_on_the_calls_card_and_the_server_gets_the_values(tmp_path, asker):
    user = FormFiller(_filled("accept", {"name": "Ada", "guests": 3, "table": "out", "extras": ["cake"]}))
    got = await _call(_context(tmp_path, asker), "book", user)
    assert got == {"action": "accept", "content": {"name": "Ada", "guests": 3, "table": "out", "extras": ["cake"]}}
    [(tool, ask, tool_use_id)] = user.asks
    assert (tool, tool_use_id) == ("mcp__asker__book", "call-1")  # the call's own card
    assert isinstance(ask, ElicitationAsk) and ask.reason == "mcp elicitation"
    assert ask.elicitation.server == "asker" and ask.elicitation.message == "Details for your booking"
    assert [f.name for f in ask.elicitation.fields] == list(BOOKING["properties"])


@pytest.mark.parametrize("action", ["decline", "cancel"])
async def test_declined_or_cancelled_sends_no_content(tmp_path, asker, action):
    got = await _call(_context(tmp_path, asker), "book", FormFiller(_filled(action, {"name": "Ada", "guests": 3})))
    assert got == {"action": action, "content": None}


@pytest.mark.parametrize("decision", [
    PermissionAllow(),  # an approver that allows anything has filled in nothing
    PermissionDeny("Interrupted by user"),  # stopped, timed out, no one to ask
    _filled("accept", {"name": "Ada", "guests": 80}),  # not what the server's schema allows
    _filled("accept", {"name": "Ada", "guests": 2, "ssn": "123"}),  # a field the server did not ask for
    _filled("sure"),
])
async def test_anything_but_a_valid_answer_is_cancel_and_sends_nothing(tmp_path, asker, decision):
    got = await _call(_context(tmp_path, asker), "book", FormFiller(decision))
    assert got == {"action": "cancel", "content": None}


async def _refused(ctx, tool, approver, **args) -> str:
    """The error a request we cannot show ends in: the server gets it mid-call (2025-11-25) and
    returns it, or the call fails with it (2026-07-28: the client cannot fulfil the input)."""
    out = await run_tool_use(ToolUseRequest("call-1", f"mcp__asker__{tool}", args), ctx, approver)
    return out.text if out.is_error else json.loads(out.text)["error"]


async def test_a_form_mcp_does_not_allow_is_an_error_for_the_server_and_the_user_is_not_asked(tmp_path, asker):
    user = FormFiller(_filled("accept", {}))
    error = await _refused(_allowed(_context(tmp_path, asker)), "nested", user)
    assert "Cannot show this form: field 'address' has type 'object'" in error
    assert user.asks == []


async def test_a_link_is_consented_to_and_only_http_links_are_shown(tmp_path, asker):
    user = FormFiller(_filled("accept"))
    got = await _call(_context(tmp_path, asker), "login", user)
    assert got == {"action": "accept", "content": None}
    [(_, ask, _)] = user.asks
    assert (ask.elicitation.mode, ask.elicitation.url) == ("url", "https://auth.example.com/authorize?x=1")
    # the id correlates a link with its completion notice on 2025-11-25; 2026-07-28 dropped it
    assert ask.elicitation.elicitation_id == ("elicit-1" if asker.protocol == "2025-11-25" else None)
    user.asks.clear()
    error = await _refused(_allowed(_context(tmp_path, asker)), "login", user, url="javascript:alert(document.cookie)")
    assert "not an http(s) address" in error and user.asks == []


# -- hooks ---------------------------------------------------------------------------------------


def _hook(script: str, matcher: str = "asker") -> list[dict]:
    return [{"matcher": matcher, "hooks": [{"type": "command", "command": script}]}]


def _answering(answer: dict, log: Path) -> str:
    return (f"python3 -c \"import sys, json; open({str(log)!r}, 'a').write(sys.stdin.read() + chr(10)); "
            f"print(json.dumps({answer!r}))\"")


async def test_an_elicitation_hook_answers_in_the_users_place(tmp_path, asker):
    log = tmp_path / "elicitation.log"
    answer = {"hookSpecificOutput": {"hookEventName": "Elicitation", "action": "accept",
                                     "content": {"name": "Grace", "guests": 2}}}
    user = FormFiller(_filled("accept", {"name": "Ada", "guests": 5}))
    got = await _call(_context(tmp_path, asker, {"Elicitation": _hook(_answering(answer, log))}), "book", user)
    assert got == {"action": "accept", "content": {"name": "Grace", "guests": 2}}
    assert user.asks == []
    seen = json.loads(log.read_text())
    assert (seen["hook_event_name"], seen["mcp_server_name"], seen["mode"]) == ("Elicitation", "asker", "form")
    assert seen["message"] == "Details for your booking" and seen["requested_schema"] == BOOKING


async def test_an_elicitation_hook_exiting_2_declines_and_one_for_another_server_does_not_run(tmp_path, asker):
    user = FormFiller(_filled("accept", {"name": "Ada", "guests": 5}))
    hooks = {"Elicitation": _hook("echo no >&2; exit 2")}
    got = await _call(_context(tmp_path, asker, hooks), "book", user)
    assert got == {"action": "decline", "content": None} and user.asks == []
    other = {"Elicitation": _hook("exit 2", matcher="github")}
    got = await _call(_context(tmp_path, asker, other), "book", user)
    assert got == {"action": "accept", "content": {"name": "Ada", "guests": 5}} and len(user.asks) == 1


async def test_a_hook_answer_that_does_not_fit_the_form_is_not_sent_the_user_is_asked(tmp_path, asker):
    log = tmp_path / "h.log"
    answer = {"hookSpecificOutput": {"action": "accept", "content": {"name": "G", "guests": 99}}}
    user = FormFiller(_filled("accept", {"name": "Ada", "guests": 5}))
    ctx = _context(tmp_path, asker, {"Elicitation": _hook(_answering(answer, log))})
    notices = []
    ctx.extra[HOOKS_KEY].on_notice = notices.append
    got = await _call(ctx, "book", user)
    assert got == {"action": "accept", "content": {"name": "Ada", "guests": 5}} and len(user.asks) == 1
    assert any("was not used" in n and "guests must be at most 8" in n for n in notices)


async def test_an_elicitation_result_hook_sees_the_answer_and_may_change_or_refuse_it(tmp_path, asker):
    log = tmp_path / "result.log"
    change = {"hookSpecificOutput": {"hookEventName": "ElicitationResult", "action": "accept",
                                     "content": {"name": "Ada L.", "guests": 5}}}
    user = FormFiller(_filled("accept", {"name": "Ada", "guests": 5}))
    got = await _call(_context(tmp_path, asker, {"ElicitationResult": _hook(_answering(change, log))}), "book", user)
    assert got == {"action": "accept", "content": {"name": "Ada L.", "guests": 5}}
    seen = json.loads(log.read_text())
    assert (seen["hook_event_name"], seen["mcp_server_name"], seen["action"]) == ("ElicitationResult", "asker", "accept")
    assert seen["content"] == {"name": "Ada", "guests": 5} and "requested_schema" not in seen
    refused = await _call(_context(tmp_path, asker, {"ElicitationResult": _hook("exit 2")}), "book", user)
    assert refused == {"action": "decline", "content": None}
    unsendable = {"hookSpecificOutput": {"action": "accept", "content": {"name": "Ada", "guests": 5, "pin": "1234"}}}
    got = await _call(_context(tmp_path, asker, {"ElicitationResult": _hook(_answering(unsendable, log))}), "book", user)
    assert got == {"action": "decline", "content": None}


# -- who may answer ------------------------------------------------------------------------------


async def test_only_the_user_answers_a_servers_form(tmp_path):
    """A permission prompt tool and auto mode's reviewer answer asks in the user's place; a
    server's form they must leave to the user.  Under denyInsteadOfPrompting nobody is asked:
    the answer is cancel."""
    from dataclasses import replace

    from jupyter_agent.agent.approval import session_approver
    from jupyter_agent.agent.auto_mode import AutoModeReviewer
    from jupyter_agent.core.permission_types import PermissionAsk
    from jupyter_agent.mcp.elicitation import answer_from_decision, user_asker
    from tests.permissions.tools import BashLike, make_ctx

    elicitation = Elicitation("asker", "form", "Name?", schema={}, fields=form_fields(
        {"type": "object", "properties": {"name": {"type": "string"}}}))
    shown = []

    async def ui(tool, input, context, ask, tool_use_id):
        shown.append(ask)
        return _filled("accept", {"name": "Ada"})

    approve = session_approver(lambda: ui, lambda: None, get_prompt_tool=lambda: "mcp__approver__approve")
    ctx, tool = make_ctx(tmp_path), BashLike()
    ask_user = user_asker(tool, tool.input_schema(command="x"), ctx, approve, "t1")
    assert await ask_user(elicitation) == ElicitAnswer("accept", {"name": "Ada"})
    assert len(shown) == 1 and isinstance(shown[0], ElicitationAsk)
    reviewer = AutoModeReviewer(session=None)  # type: ignore[arg-type]
    auto = replace(ctx.permission_context, mode="auto")
    ctx.set_app_state(lambda s: replace(s, tool_permission_context=auto))
    assert not reviewer.applies(ctx, shown[0]) and reviewer.applies(ctx, PermissionAsk("Run x?"))
    quiet = replace(auto, prompts_off_by="managed-settings.json")
    ctx.set_app_state(lambda s: replace(s, tool_permission_context=quiet))
    assert await ask_user(elicitation) == ElicitAnswer("cancel") and len(shown) == 1
    assert answer_from_decision(_filled("accept", {"name": 3}), elicitation) == ElicitAnswer("cancel")


async def test_notification_hooks_hear_of_a_form_waiting(tmp_path, asker):
    import asyncio

    from jupyter_agent.agent.approval import session_approver

    log = tmp_path / "notify.log"
    record = f"python3 -c \"import sys; open({str(log)!r}, 'a').write(sys.stdin.read() + chr(10))\""
    hooks = {"Notification": [{"matcher": "elicitation_dialog", "hooks": [{"type": "command", "command": record}]}]}
    user = FormFiller(_filled("decline"))
    got = await _call(_context(tmp_path, asker, hooks), "book", session_approver(lambda: user, lambda: None))
    assert got == {"action": "decline", "content": None}
    for _ in range(200):  # the notification runs beside the form, not before it
        if log.exists() and log.read_text().strip():
            break
        await asyncio.sleep(0.05)
    note = json.loads(log.read_text())
    assert note["notification_type"] == "elicitation_dialog" and "mcp__asker__book" in note["message"]


async def test_two_calls_at_once_each_ask_their_own_user(tmp_path):
    """On 2026-07-28 a call's question comes back inside that call: with two calls running on
    one server, each form goes to the card of the call it belongs to."""
    import asyncio
    import sys

    from jupyter_agent.mcp import McpManager
    from jupyter_agent.mcp.config import McpServerEntry, StdioServerConfig

    from .conftest import ELICIT_SERVER

    manager = McpManager([McpServerEntry("asker", StdioServerConfig(command=sys.executable,
                                                                      args=(str(ELICIT_SERVER),)))])
    await manager.ensure_started()
    conn = manager.connections["asker"]
    gate = asyncio.Event()
    asked = []

    def user(name):
        async def ask(elicitation):
            asked.append(name)
            if len(asked) == 2:
                gate.set()
            await gate.wait()  # both questions are open at once
            return ElicitAnswer("accept", {"name": name, "guests": 1})
        return ask

    try:
        first, second = await asyncio.wait_for(asyncio.gather(
            conn.call_tool("book", {}, on_elicit=user("first")),
            conn.call_tool("book", {}, on_elicit=user("second"))), 30)
    finally:
        await manager.aclose()
    assert json.loads(first.content[0].text)["content"]["name"] == "first"
    assert json.loads(second.content[0].text)["content"]["name"] == "second"
    assert sorted(asked) == ["first", "second"]
