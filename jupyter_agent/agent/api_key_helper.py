"""``apiKeyHelper`` (Claude Code's setting): a shell command whose output is the API key.

For keys that rotate or live in a vault: the command runs in ``/bin/sh`` in the project folder
with the session's environment, its output (stripped) is sent as ``X-Api-Key`` and as
``Authorization: Bearer`` on every request of the session's client (the main loop, subagents,
auto mode's reviewer, prompt hooks alike), and it runs again after
``CLAUDE_CODE_API_KEY_HELPER_TTL_MS`` (default 5 minutes) or when the API answers 401.  It is
used only when no key is given otherwise (``api_key=``, ``%config AgentMagics.api_key``,
``ANTHROPIC_API_KEY`` in the environment or in the settings' ``env``), as in Claude Code.

The headers are set by an httpx request hook, so one client serves the whole session and a new
key needs no new client.  A failing helper raises ``ApiKeyHelperError``; the SDK wraps it as a
connection error, which ``retry.classify`` recognises and reports as it is, without retrying.
"""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ..errors import AgentError

DEFAULT_TTL_S = 300.0
TIMEOUT_S = 30.0
PLACEHOLDER_KEY = "from-apiKeyHelper"  # the SDK wants a key; the hook replaces the header


class ApiKeyHelperError(AgentError):
    """The helper failed: it could not start, timed out, exited non-zero or printed nothing."""


def ttl_from_environment(environ: Mapping[str, str]) -> float:
    raw = environ.get("CLAUDE_CODE_API_KEY_HELPER_TTL_MS", "").strip()
    try:
        value = float(raw) / 1000 if raw else DEFAULT_TTL_S
    except ValueError:
        return DEFAULT_TTL_S
    return value if value >= 0 else DEFAULT_TTL_S


class ApiKeyHelper:
    """Runs the command when its key is missing or expired; one run at a time."""

    def __init__(self, command: str, cwd: Path, source: Path | None = None,
                 environment: Mapping[str, str] | None = None, ttl_s: float | None = None) -> None:
        self.command = command
        self.cwd = cwd
        self.source = source  # the settings file it came from (for messages)
        self.environment = dict(environment) if environment is not None else None
        env = self.environment if self.environment is not None else os.environ
        self.ttl_s = ttl_s if ttl_s is not None else ttl_from_environment(env)
        self.runs = 0
        self._key: str | None = None
        self._fetched = 0.0
        self._lock: asyncio.Lock | None = None

    async def key(self) -> str:
        if self._fresh():
            assert self._key is not None
            return self._key
        self._lock = self._lock or asyncio.Lock()
        async with self._lock:
            if not self._fresh():  # another request may have fetched it meanwhile
                self._key = await self._run()
                self._fetched = time.monotonic()
            assert self._key is not None
            return self._key

    def invalidate(self) -> None:
        """The API refused the key: the next request runs the helper again."""
        self._key = None

    def _fresh(self) -> bool:
        return self._key is not None and time.monotonic() - self._fetched < self.ttl_s

    async def _run(self) -> str:
        from ..core.child_process import run_child

        self.runs += 1
        where = f" (apiKeyHelper in {self.source})" if self.source else " (apiKeyHelper)"
        try:
            done = await asyncio.wait_for(
                run_child(["/bin/sh", "-c", self.command], cwd=str(self.cwd), env=self.environment, limit=64 << 10),
                TIMEOUT_S,
            )
        except asyncio.TimeoutError:
            raise ApiKeyHelperError(f"The API key helper did not finish within {TIMEOUT_S:g} s{where}.") from None
        except OSError as exc:
            raise ApiKeyHelperError(f"The API key helper could not start: {exc}{where}.") from None
        if done.returncode != 0:
            said = done.stderr.decode(errors="replace").strip().splitlines()
            detail = f": {said[-1]}" if said else ""
            raise ApiKeyHelperError(f"The API key helper exited with status {done.returncode}{detail}{where}.")
        key = done.stdout.decode(errors="replace").strip()
        if not key or "\n" in key:
            what = "printed nothing" if not key else "printed more than one line"
            raise ApiKeyHelperError(f"The API key helper {what}; it must print the key alone{where}.")
        return key

    # -- the client ----------------------------------------------------------------------------

    def http_client(self) -> Any:
        """An httpx client for the SDK whose requests carry the helper's key."""
        import anthropic

        async def authorize(request: Any) -> None:
            key = await self.key()
            request.headers["x-api-key"] = key
            request.headers["authorization"] = f"Bearer {key}"

        async def refused(response: Any) -> None:
            if response.status_code == 401:
                self.invalidate()

        return anthropic.DefaultAsyncHttpxClient(event_hooks={"request": [authorize], "response": [refused]})


def key_given(api_key: str | None, env: Mapping[str, str]) -> bool:
    """A key given without a helper: ``api_key``, or ``ANTHROPIC_API_KEY`` / ``ANTHROPIC_AUTH_TOKEN``
    in ``env`` (the settings' ``env``) or in the kernel's environment."""
    return bool(api_key) or any(env.get(name) or os.environ.get(name)
                                for name in ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN"))


def api_key_helper(config: Any, settings: Any, env: Mapping[str, str]) -> ApiKeyHelper | None:
    """The session's helper, or None: no ``apiKeyHelper`` in the settings, or a key (or a
    client) given another way, which wins as in Claude Code.  ``env``: the settings' ``env``."""
    found = getattr(settings, "api_key_helper", None)
    if found is None or config.client is not None or key_given(config.api_key, env):
        return None
    command, source = found
    return ApiKeyHelper(command, config.resolved_project_dir(), source, {**os.environ, **env})


def helper_cause(exc: BaseException) -> ApiKeyHelperError | None:
    """The helper's own error inside whatever the SDK wrapped it in."""
    seen = 0
    while exc is not None and seen < 5:
        if isinstance(exc, ApiKeyHelperError):
            return exc
        exc = exc.__cause__ or exc.__context__  # type: ignore[assignment]
        seen += 1
    return None
