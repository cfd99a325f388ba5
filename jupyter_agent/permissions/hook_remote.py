"""The two hook types that do not start a program: ``http`` and ``prompt`` (Claude Code's format).

- ``http``: the event JSON is POSTed to ``url`` (``headers`` sent, ``$VAR`` in them filled only
  from ``allowedEnvVars``).  A 2xx answer's body is read like a command hook's stdout (JSON
  fields, or plain text as extra context); any other status, a connection failure or the
  timeout is a non-blocking error reported to the user, like a command exiting 1.
- ``prompt``: one request to a model (the hook's ``model``, else the small fast model) with the
  hook's text, ``$ARGUMENTS`` replaced by the event JSON (appended when absent).  The model
  answers ``{"ok": true}`` (go ahead) or ``{"ok": false, "reason": "..."}``, which blocks like
  exit 2: the reason goes to the model (a tool call is refused; a Stop hook makes the agent go
  on).  The older ``{"decision": "approve" | "block", "reason": ...}`` form is read too.  An
  answer that is neither is a non-blocking error, as for a command hook printing nonsense.

The settings' ``allowedHttpHookUrls`` (URL patterns, ``url_patterns.py``: ``*`` for any
characters within a part, scheme, host, port and path matched as httpx will read the URL) and
``httpHookAllowedEnvVars`` (variable names) bound every ``http`` hook when any file sets them
(``HttpHookPolicy``): a URL no pattern matches is not called (a non-blocking error), and a
hook's ``allowedEnvVars`` are cut to the listed names.

The session gives its runner a ``PromptModel`` (``AgentSession``: the session's own client); a
runner without one reports every prompt hook as an error.
"""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any

import httpx

from .hook_commands import MAX_OUTPUT, interpret_stdout
from .hook_response import HookResponse, response_from_json
from .hooks_config import HttpHook, PromptHook
from .url_patterns import url_matches

_VAR = re.compile(r"\$(?:\{([A-Za-z_][A-Za-z0-9_]*)\}|([A-Za-z_][A-Za-z0-9_]*))")
# (prompt text, model or None, timeout in seconds) -> the model's answer as text
PromptModel = Callable[[str, "str | None", float], Awaitable[str]]
PROMPT_SYSTEM = (
    "You are a hook of a coding agent: you judge one event of its work against the condition you "
    "are given. Answer with a single JSON object and nothing else: {\"ok\": true} when the "
    "condition is met and the agent may go ahead, or {\"ok\": false, \"reason\": \"...\"} when it "
    "may not, with a reason addressed to the agent that says what to do instead."
)


@dataclass(frozen=True)
class HttpHookPolicy:
    """``allowedHttpHookUrls`` / ``httpHookAllowedEnvVars`` merged over the settings files (None:
    no file sets it, no limit; an empty list: no URL at all / no variable at all)."""

    urls: tuple[str, ...] | None = None
    env_vars: tuple[str, ...] | None = None

    def refusal(self, url: str) -> str | None:
        """Why ``url`` may not be called, or None."""
        if self.urls is None or any(url_matches(p, url) for p in self.urls):
            return None
        listed = ", ".join(self.urls) or "no URL at all"
        return f"the settings' allowedHttpHookUrls do not include {url} (allowed: {listed})"

    def variables(self, hook: HttpHook) -> tuple[str, ...]:
        """The hook's ``allowedEnvVars`` that the settings let it fill in."""
        if self.env_vars is None:
            return hook.allowed_env_vars
        return tuple(name for name in hook.allowed_env_vars if name in self.env_vars)


def fill_headers(hook: HttpHook, env: Mapping[str, str], policy: HttpHookPolicy | None = None) -> dict[str, str]:
    allowed = set((policy or HttpHookPolicy()).variables(hook))

    def value(match: re.Match[str]) -> str:
        name = match.group(1) or match.group(2)
        return env.get(name, "") if name in allowed else ""

    return {key: _VAR.sub(value, text) for key, text in hook.headers}


async def run_http_hook(
    hook: HttpHook, payload: Mapping[str, object], env: Mapping[str, str], policy: HttpHookPolicy | None = None
) -> HookResponse:
    name = hook.describe
    refusal = (policy or HttpHookPolicy()).refusal(hook.url)
    if refusal is not None:
        return HookResponse(error=f"hook {name} was not called: {refusal}")
    body = json.dumps(payload, default=str)
    headers = {"Content-Type": "application/json", **fill_headers(hook, env, policy)}
    try:
        async with httpx.AsyncClient(timeout=hook.timeout, follow_redirects=False) as client, \
                client.stream("POST", hook.url, content=body, headers=headers) as response:
            answer, cut = await _read_capped(response)
    except httpx.TimeoutException:
        return HookResponse(error=f"hook {name} timed out after {hook.timeout:g}s")
    except httpx.HTTPError as exc:
        return HookResponse(error=f"hook {name} failed: {type(exc).__name__}: {exc}")
    text = answer.decode(response.encoding or "utf-8", "replace").strip()
    if not 200 <= response.status_code < 300:
        return HookResponse(error=f"hook {name} answered HTTP {response.status_code}: {text[:500]}")
    return interpret_stdout(text, name, cut=cut)


async def _read_capped(response: httpx.Response) -> tuple[bytes, bool]:
    """The body, at most ``MAX_OUTPUT`` bytes of it (True: there was more, left unread)."""
    body = bytearray()
    async for chunk in response.aiter_bytes():
        body += chunk
        if len(body) > MAX_OUTPUT:
            return bytes(body[:MAX_OUTPUT]), True
    return bytes(body), False


def prompt_text(hook: PromptHook, payload: Mapping[str, object]) -> str:
    arguments = json.dumps(payload, default=str, indent=2)
    if "$ARGUMENTS" in hook.prompt:
        return hook.prompt.replace("$ARGUMENTS", arguments)
    return f"{hook.prompt}\n\nThe event:\n{arguments}"


async def run_prompt_hook(
    hook: PromptHook, payload: Mapping[str, object], ask: PromptModel | None
) -> HookResponse:
    name = hook.describe
    if ask is None:
        return HookResponse(error=f"hook {name}: prompt hooks need a session's model (none is attached)")
    try:
        answer = await ask(prompt_text(hook, payload), hook.model, hook.timeout)
    except (TimeoutError, asyncio.TimeoutError):
        return HookResponse(error=f"hook {name} timed out after {hook.timeout:g}s")
    except asyncio.CancelledError:
        raise
    except Exception as exc:  # the API failed: reported, like a command that could not start
        return HookResponse(error=f"hook {name} failed: {type(exc).__name__}: {exc}")
    return read_verdict(answer, name)


def read_verdict(answer: str, name: str) -> HookResponse:
    """The model's ``{"ok": ...}`` (or ``{"decision": ...}``) answer as a hook response."""
    data = _json_object(answer)
    if isinstance(data, dict) and isinstance(data.get("ok"), bool):
        if data["ok"]:
            return HookResponse()
        reason = data.get("reason")
        return HookResponse(blocked=True, reason=reason if isinstance(reason, str) and reason.strip()
                            else f"Blocked by the hook ({name}).")
    if isinstance(data, dict) and data.get("decision") in ("approve", "block"):
        return response_from_json(data, name)
    return HookResponse(error=f"hook {name}: the model did not answer with {{\"ok\": ...}}: {answer.strip()[:300]!r}")


def _json_object(text: str) -> Any:
    """The JSON object in ``text`` (also inside a Markdown code fence); None when there is none."""
    start = text.find("{")
    while start != -1:
        try:
            value, _end = json.JSONDecoder().raw_decode(text, start)
            return value
        except json.JSONDecodeError:
            start = text.find("{", start + 1)
    return None
