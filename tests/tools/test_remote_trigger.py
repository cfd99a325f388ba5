"""RemoteTrigger: real HTTP calls to the endpoint on 127.0.0.1, with and without the token."""

from __future__ import annotations

import asyncio
import re

import httpx
import pytest

from jupyter_agent.core.orchestration import ToolUseRequest, run_tool_use
from jupyter_agent.core.registry import RegistryConfig, get_all_base_tools
from jupyter_agent.tools.remote_trigger import RemoteTriggerTool
from jupyter_agent.triggers import DELIVERY_KEY, ENABLE_ENV, get_trigger_store, shutdown_triggers
from tests.support.tools import make_context


@pytest.fixture
async def session(tmp_path, monkeypatch):
    monkeypatch.setenv(ENABLE_ENV, "1")
    delivered: list[str] = []
    ctx = make_context([RemoteTriggerTool()], tmp_path)
    ctx.extra[DELIVERY_KEY] = delivered.append
    yield ctx, delivered
    await shutdown_triggers(ctx)


async def trigger(ctx, approver, **payload):
    return await run_tool_use(ToolUseRequest("r", "RemoteTrigger", payload), ctx, approver)


async def test_fire_with_token_delivers_the_prompt_and_without_is_refused(session, approve):
    ctx, delivered = session
    out = await trigger(ctx, approve, action="create", name="build", prompt="The build finished; check the report.")
    assert not out.is_error and len(approve.asks) == 1  # opening an endpoint is always asked
    url = re.search(r"URL: (\S+)", out.text).group(1)
    token = re.search(r"Token: (\S+)", out.text).group(1)
    assert url.startswith("http://127.0.0.1:")
    async with httpx.AsyncClient() as http:
        r = await http.post(url, json={"status": "failed", "tests": 3})
        assert r.status_code == 401 and delivered == []
        r = await http.post(url, json={}, headers={"Authorization": "Bearer wrong" + token})
        assert r.status_code == 401 and delivered == []
        r = await http.post(url.rsplit("/", 1)[0] + "/trg_nope", headers={"Authorization": f"Bearer {token}"})
        assert r.status_code == 401  # another trigger's token opens nothing
        r = await http.get(url, headers={"Authorization": f"Bearer {token}"})
        assert r.status_code == 405
        r = await http.post(url, json={"status": "failed", "tests": 3}, headers={"Authorization": f"Bearer {token}"})
        assert r.status_code == 202 and r.json()["accepted"] is True
    assert len(delivered) == 1
    assert delivered[0].startswith("The build finished; check the report.\n\n<trigger-payload trigger='build'>")
    assert '"status": "failed"' in delivered[0] and "treat it as data" in delivered[0]
    listing = await trigger(ctx, approve, action="list")
    assert "fired 1 time(s)" in listing.text


async def test_delete_closes_the_endpoint(session, approve):
    ctx, _ = session
    out = await trigger(ctx, approve, action="create", name="a", prompt="p")
    trigger_id = re.search(r"Created trigger (trg_\w+)", out.text).group(1)
    port = get_trigger_store(ctx).server.port
    out = await trigger(ctx, approve, action="delete", trigger_id=trigger_id)
    assert "The endpoint is closed" in out.text
    with pytest.raises(OSError):
        await asyncio.open_connection("127.0.0.1", port)
    out = await trigger(ctx, approve, action="delete", trigger_id=trigger_id)
    assert out.is_error and "No trigger" in out.text


async def test_create_refused_by_the_user_opens_nothing(session, reject):
    ctx, _ = session
    out = await trigger(ctx, reject, action="create", name="a", prompt="p")
    assert out.is_error and not get_trigger_store(ctx).server.running


async def test_malformed_and_oversized_requests(session, approve):
    ctx, delivered = session
    out = await trigger(ctx, approve, action="create", name="a", prompt="p")
    port = get_trigger_store(ctx).server.port
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(b"garbage\r\n\r\n")
    await writer.drain()
    assert (await reader.read()).startswith(b"HTTP/1.1 400")
    url = re.search(r"URL: (\S+)", out.text).group(1)
    async with httpx.AsyncClient() as http:
        r = await http.post(url, content=b"x" * (65 * 1024), headers={"Authorization": "Bearer x"})
        assert r.status_code == 413
    assert delivered == []


def test_off_by_default(monkeypatch):
    monkeypatch.delenv(ENABLE_ENV, raising=False)
    names = [t.name for t in get_all_base_tools(RegistryConfig())]
    assert "RemoteTrigger" not in names
    monkeypatch.setenv(ENABLE_ENV, "1")
    assert "RemoteTrigger" in [t.name for t in get_all_base_tools(RegistryConfig())]


async def test_input_errors(session, approve):
    ctx, _ = session
    for payload, message in [({"action": "create", "name": "x"}, "needs a name and a prompt"),
                             ({"action": "delete"}, "needs trigger_id")]:
        out = await trigger(ctx, approve, **payload)
        assert out.is_error and message in out.text
