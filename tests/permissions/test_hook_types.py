"""The ``http`` and ``prompt`` hook types: settings, a real local HTTP endpoint, the model's
verdict (prompt hooks in a whole session: ``tests/agent/test_prompt_hooks.py``)."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from jupyter_agent.core.orchestration import ToolUseRequest, run_tool_use
from jupyter_agent.errors import AgentConfigError
from jupyter_agent.permissions.hook_remote import read_verdict
from jupyter_agent.permissions.hooks import HOOKS_KEY
from jupyter_agent.permissions.hooks_config import HttpHook, PromptHook
from jupyter_agent.permissions.settings import load_settings
from tests.permissions.test_hooks import _setup


class Endpoint:
    """A local HTTP server that records each POST and answers with ``status`` / ``body``."""

    def __init__(self) -> None:
        self.requests: list[tuple[str, dict, dict]] = []
        self.status, self.body, self.delay = 200, "", 0.0
        endpoint = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                length = int(self.headers["Content-Length"])
                endpoint.requests.append((self.path, dict(self.headers), json.loads(self.rfile.read(length))))
                if endpoint.delay:
                    threading.Event().wait(endpoint.delay)
                data = endpoint.body.encode()
                self.send_response(endpoint.status)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def endpoint():
    server = Endpoint()
    yield server
    server.close()


def _http(url, **extra):
    return {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "http", "url": url, **extra}]}]}


async def test_an_http_hook_gets_the_event_and_its_answer_decides(world, endpoint, approve):
    endpoint.body = json.dumps({"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny",
                                                       "permissionDecisionReason": "no network tools today"}})
    hooks = _http(endpoint.url + "/pre", headers={"Authorization": "Bearer $TOKEN", "X-Other": "${SECRET}-x"},
                  allowedEnvVars=["TOKEN"])
    tool, ctx = _setup(world, hooks, env={"TOKEN": "t0k", "SECRET": "do-not-send"})
    outcome = await run_tool_use(ToolUseRequest("t1", "Bash", {"command": "curl x"}), ctx, approve)
    assert outcome.is_error and "no network tools today" in outcome.text and tool.calls == []
    [(path, headers, payload)] = endpoint.requests
    assert path == "/pre" and headers["Authorization"] == "Bearer t0k" and headers["X-Other"] == "-x"
    assert payload["hook_event_name"] == "PreToolUse" and payload["tool_input"] == {"command": "curl x"}
    assert payload["session_id"] == "s1" and payload["cwd"] == str(world.project)


@pytest.mark.parametrize(("status", "body", "delay", "error"), [
    (500, "boom", 0.0, "answered HTTP 500: boom"),
    (200, "", 3.0, "timed out after 1s"),
    (200, "{not json", 0.0, "printed invalid JSON"),
])
async def test_a_failing_http_hook_is_reported_and_does_not_block(world, endpoint, status, body, delay, error):
    endpoint.status, endpoint.body, endpoint.delay = status, body, delay
    _tool, ctx = _setup(world, _http(endpoint.url, timeout=1))
    outcome = await ctx.extra[HOOKS_KEY].run("PreToolUse", {"tool_name": "Bash", "tool_input": {}})
    assert not outcome.blocked and any(error in e for e in outcome.errors)


async def test_an_http_hooks_long_answer_is_read_whole_and_an_oversized_one_is_refused(world, endpoint):
    long = "y" * 40_000
    endpoint.body = json.dumps({"hookSpecificOutput": {"hookEventName": "PreToolUse", "updatedInput": {"command": long}}})
    _tool, ctx = _setup(world, _http(endpoint.url))
    outcome = await ctx.extra[HOOKS_KEY].run("PreToolUse", {"tool_name": "Bash", "tool_input": {}})
    assert not outcome.errors and outcome.updated_input == {"command": long}
    endpoint.body = "{" + " " * (9 << 20)
    outcome = await ctx.extra[HOOKS_KEY].run("PreToolUse", {"tool_name": "Bash", "tool_input": {}})
    assert outcome.updated_input is None and any("more than 8 MiB" in e for e in outcome.errors)


async def test_an_http_hook_that_cannot_connect_is_reported(world, endpoint):
    url = endpoint.url
    endpoint.close()
    _tool, ctx = _setup(world, _http(url))
    outcome = await ctx.extra[HOOKS_KEY].run("PreToolUse", {"tool_name": "Bash", "tool_input": {}})
    assert not outcome.blocked and any("failed: ConnectError" in e for e in outcome.errors)


@pytest.mark.parametrize(("hook", "message"), [
    ({"type": "http"}, "url must be a non-empty string"),
    ({"type": "http", "url": "file:///etc/passwd"}, "http:// or https://"),
    ({"type": "http", "url": "http://h", "headers": {"A": 1}}, "headers must be an object of strings"),
    ({"type": "http", "url": "http://h", "allowedEnvVars": ["NOT A NAME"]}, "allowedEnvVars"),
    ({"type": "prompt"}, "prompt must be a non-empty string"),
    ({"type": "prompt", "prompt": "p", "model": ""}, "model must be a model name"),
    ({"type": "agent", "prompt": "p"}, "hook type 'agent' is not supported"),
])
def test_malformed_hooks_of_the_new_types_name_the_file(world, hook, message):
    (world.project / ".claude").mkdir(exist_ok=True)
    (world.project / ".claude" / "settings.json").write_text(json.dumps({"hooks": {"Stop": [{"hooks": [hook]}]}}))
    with pytest.raises(AgentConfigError, match=message) as info:
        load_settings(world.project, home=world.home, trusted=True)
    assert "settings.json" in str(info.value)


def test_the_hooks_are_parsed_with_their_defaults(world):
    (world.project / ".claude").mkdir(exist_ok=True)
    (world.project / ".claude" / "settings.json").write_text(json.dumps({"hooks": {"Stop": [{"hooks": [
        {"type": "prompt", "prompt": "Are all tasks done? $ARGUMENTS", "model": "haiku"},
        {"type": "http", "url": "https://audit.example/hook", "timeout": 5}]}]}}))
    [matcher] = load_settings(world.project, home=world.home, trusted=True).hooks
    assert matcher.hooks == (PromptHook("Are all tasks done? $ARGUMENTS", "haiku", 30.0),
                             HttpHook("https://audit.example/hook", (), (), 5.0))
    assert matcher.hooks[1].describe == "POST https://audit.example/hook"


@pytest.mark.parametrize(("answer", "blocked", "reason", "error"), [
    ('{"ok": true}', False, None, None),
    ('```json\n{"ok": false, "reason": "Run the tests first."}\n```', True, "Run the tests first.", None),
    ('{"ok": false}', True, "Blocked by the hook (h).", None),
    ('{"decision": "block", "reason": "legacy"}', True, "legacy", None),
    ("I think it is fine.", False, None, "did not answer"),
    ('{"ok": "yes"}', False, None, "did not answer"),
])
def test_reading_the_models_verdict(answer, blocked, reason, error):
    response = read_verdict(answer, "h")
    assert (response.blocked, response.reason) == (blocked, reason)
    assert (response.error is None) if error is None else error in response.error


async def test_allowed_http_hook_urls_and_variables_from_the_settings_bound_every_http_hook(world, endpoint):
    """allowedHttpHookUrls (``*`` patterns) and httpHookAllowedEnvVars, joined over the files:
    a URL outside them is not called; a hook fills in only the variables both lists allow."""
    hooks = {"PreToolUse": [{"matcher": "Bash", "hooks": [
        {"type": "http", "url": endpoint.url + "/allowed/a", "headers": {"A": "$TOKEN", "B": "$SECRET"},
         "allowedEnvVars": ["TOKEN", "SECRET"]},
        {"type": "http", "url": endpoint.url + "/elsewhere"},
    ]}]}
    (world.home / ".claude").mkdir()
    (world.home / ".claude" / "settings.json").write_text(json.dumps(
        {"allowedHttpHookUrls": [endpoint.url + "/allowed/*"], "httpHookAllowedEnvVars": ["TOKEN"]}))
    _tool, ctx = _setup(world, hooks, env={"TOKEN": "t0k", "SECRET": "s3cret"})
    outcome = await ctx.extra[HOOKS_KEY].run("PreToolUse", {"tool_name": "Bash", "tool_input": {}})
    [(path, headers, _payload)] = endpoint.requests
    assert path == "/allowed/a" and headers["A"] == "t0k" and headers["B"] == ""
    [error] = outcome.errors
    assert f"POST {endpoint.url}/elsewhere was not called" in error and "allowedHttpHookUrls" in error


async def test_an_empty_url_list_calls_no_http_hook_and_an_unset_one_limits_nothing(world, endpoint):
    (world.home / ".claude").mkdir()
    (world.home / ".claude" / "settings.json").write_text(json.dumps({"allowedHttpHookUrls": []}))
    _tool, ctx = _setup(world, _http(endpoint.url))
    outcome = await ctx.extra[HOOKS_KEY].run("PreToolUse", {"tool_name": "Bash", "tool_input": {}})
    assert endpoint.requests == [] and "(allowed: no URL at all)" in outcome.errors[0]
    (world.home / ".claude" / "settings.json").write_text("{}")
    _tool, ctx = _setup(world, _http(endpoint.url))
    outcome = await ctx.extra[HOOKS_KEY].run("PreToolUse", {"tool_name": "Bash", "tool_input": {}})
    assert len(endpoint.requests) == 1 and outcome.errors == ()


def test_the_url_lists_join_and_an_untrusted_folder_cannot_widen_them(world):
    (world.home / ".claude").mkdir()
    (world.home / ".claude" / "settings.json").write_text(json.dumps({"allowedHttpHookUrls": ["https://a/*"]}))
    (world.project / ".claude").mkdir()
    (world.project / ".claude" / "settings.local.json").write_text(json.dumps(
        {"allowedHttpHookUrls": ["https://evil/*"], "httpHookAllowedEnvVars": ["AWS_SECRET_ACCESS_KEY"]}))
    trusted = load_settings(world.project, home=world.home, trusted=True).http_hook_policy
    assert trusted.urls == ("https://a/*", "https://evil/*") and trusted.env_vars == ("AWS_SECRET_ACCESS_KEY",)
    untrusted = load_settings(world.project, home=world.home, trusted=False)
    assert untrusted.http_hook_policy.urls == ("https://a/*",) and untrusted.http_hook_policy.env_vars is None
    assert untrusted.held_back == (".claude/settings.local.json: allowedHttpHookUrls https://evil/*; "
                                   "httpHookAllowedEnvVars AWS_SECRET_ACCESS_KEY",)
    (world.home / ".claude" / "settings.json").write_text(json.dumps({"allowedHttpHookUrls": "https://a/*"}))
    with pytest.raises(AgentConfigError, match="allowedHttpHookUrls must be a list of non-empty strings"):
        load_settings(world.project, home=world.home)


@pytest.mark.parametrize(("url", "called"), [
    ("https://hooks.example.com/h", True),
    ("https://a.hooks.example.com/h", True),
    ("https://evil.net/x?.example.com/", False),  # a plain glob over the whole text let this in
    ("https://evil.net/.example.com/h", False),
    ("https://hooks.example.com@evil.net/h", False),
    ("https://evil.net\\@hooks.example.com/h", False),
    ("https://hooks.example.com:8443/h", False),
])
def test_http_hook_url_patterns_are_matched_part_by_part(url, called):
    from jupyter_agent.permissions.hook_remote import HttpHookPolicy

    policy = HttpHookPolicy(urls=("https://*.example.com/*",))
    assert (policy.refusal(url) is None) is called
