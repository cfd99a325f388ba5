from __future__ import annotations

import asyncio
from dataclasses import replace

import httpx2
import pytest

from jupyter_agent.core.batches import partition_tool_calls, run_tools
from jupyter_agent.core.events import ToolCallProgress
from jupyter_agent.core.orchestration import ToolUseRequest, run_tool_use
from jupyter_agent.core.permission_types import PermissionAllow
from jupyter_agent.subagents.runner import SubagentEvent
from jupyter_agent.subagents.runtime import RUNTIME_KEY
from jupyter_agent.testing import ScriptedServer, fault_status, first_user_text, reply, text, tool_use
from jupyter_agent.tools.agent_tool import AgentTool
from jupyter_agent.tools.bash import BashTool
from jupyter_agent.tools.read import ReadTool
from jupyter_agent.tools.task_output import TaskOutputTool
from jupyter_agent.tools.write import WriteTool
from tests.support.sessions import scripted_runtime
from tests.support.tools import make_context


class Approver:
    """The parent's can_use_tool: allows, and records which agent asked for what."""

    def __init__(self) -> None:
        self.asks: list[tuple[str | None, str]] = []

    async def __call__(self, tool, input, context, ask, tool_use_id):
        self.asks.append((context.agent_id, tool.name))
        return PermissionAllow()


class GateTransport(httpx2.AsyncBaseTransport):
    """Real HTTP, but the first ``parties`` requests wait for each other: passes only in parallel."""

    def __init__(self, parties: int) -> None:
        self.inner = httpx2.AsyncHTTPTransport()
        self.barrier = asyncio.Barrier(parties)
        self.parties = parties
        self.seen = 0

    async def handle_async_request(self, request):
        self.seen += 1
        if self.seen <= self.parties:
            await asyncio.wait_for(self.barrier.wait(), 20)
        return await self.inner.handle_async_request(request)


@pytest.fixture
def server():
    with ScriptedServer() as srv:
        yield srv


def _ctx(server, tmp_path, tools, http_client=None):
    ctx = make_context([AgentTool(), *tools], tmp_path)
    ctx.extra[RUNTIME_KEY] = scripted_runtime(server, tmp_path, http_client=http_client)
    return ctx


def _prompt_is(prompt):
    return lambda body: first_user_text(body) == prompt


async def test_general_purpose_agent_asks_through_the_parent_and_reports(server, tmp_path):
    (tmp_path / "notes.txt").write_text("the answer is 42\n")
    target = tmp_path / "out.txt"
    server.push(
        reply(tool_use("Read", {"file_path": str(tmp_path / "notes.txt")})),
        reply(tool_use("Write", {"file_path": str(target), "content": "42\n"})),
        reply(text("I read notes.txt and wrote 42 to out.txt.")),
    )
    ctx = _ctx(server, tmp_path, [ReadTool(), WriteTool()])
    approver = Approver()
    events = []
    inp = {"description": "copy the answer", "prompt": "Copy the answer from notes.txt to out.txt"}
    out = await run_tool_use(ToolUseRequest("toolu_parent", "Agent", inp), ctx, approver, on_event=events.append)
    assert not out.is_error, out.text
    assert out.text == "I read notes.txt and wrote 42 to out.txt."
    assert target.read_text() == "42\n"
    (agent_id, tool_name), = approver.asks
    assert tool_name == "Write" and agent_id.startswith("agent_")
    bodies = [r.body for r in server.message_requests]
    assert len(bodies) == 3
    assert "agent working for a coding assistant" in bodies[0]["system"][0]["text"]
    assert [t["name"] for t in bodies[0]["tools"]] == ["Read", "Write"]  # no Agent inside agents
    assert "the answer is 42" in str(bodies[1]["messages"][-1])  # the Read result went back
    progress = [e.progress for e in events if isinstance(e, ToolCallProgress)]
    assert progress and all(p.tool_use_id == "toolu_parent" and isinstance(p.data, SubagentEvent) for p in progress)
    assert ctx.read_file_state.get(str(tmp_path / "notes.txt")) is None  # the child had its own cache


async def test_explore_agent_is_refused_a_write(server, tmp_path):
    target = tmp_path / "evil.txt"
    server.push(
        reply(tool_use("Write", {"file_path": str(target), "content": "x"})),
        reply(tool_use("Bash", {"command": f"touch {target}"})),
        reply(tool_use("Bash", {"command": "ls"})),
        reply(text("I could not write; the file should contain x.")),
    )
    (tmp_path / "visible.txt").write_text("v")
    ctx = _ctx(server, tmp_path, [ReadTool(), WriteTool(), BashTool()])
    approver = Approver()
    inp = {"description": "explore", "prompt": "Write evil.txt", "subagent_type": "Explore"}
    out = await run_tool_use(ToolUseRequest("t", "Agent", inp), ctx, approver)
    assert out.text == "I could not write; the file should contain x."
    assert not target.exists() and approver.asks == []
    results = [r.body["messages"][-1]["content"][0] for r in server.message_requests[1:]]
    assert results[0]["is_error"] and "No such tool available: Write" in str(results[0]["content"])
    assert results[1]["is_error"] and "The Explore agent is read-only" in str(results[1]["content"])
    assert "visible.txt" in str(results[2]["content"])  # read-only Bash still runs


async def test_explore_agents_run_in_parallel(server, tmp_path):
    for name in ("a", "b"):
        (tmp_path / f"{name}.txt").write_text(f"contents of {name}\n")
        server.route(_prompt_is(f"look at {name}"),
                     reply(tool_use("Read", {"file_path": str(tmp_path / f"{name}.txt")})),
                     reply(text(f"{name} is fine")))
    gate = GateTransport(2)
    ctx = _ctx(server, tmp_path, [ReadTool()], http_client=httpx2.AsyncClient(transport=gate))
    calls = [
        ToolUseRequest(f"t{n}", "Agent", {"description": n, "prompt": f"look at {n}", "subagent_type": "Explore"})
        for n in ("a", "b")
    ]
    assert len(partition_tool_calls(calls, lambda c: AgentTool().is_concurrency_safe(AgentTool.input_schema.model_validate(c.input)))) == 1
    run = await run_tools(calls, ctx, Approver())
    assert [o.text for o in run.outcomes] == ["a is fine", "b is fine"]
    assert gate.seen == 4


async def test_general_purpose_calls_are_not_concurrency_safe():
    tool = AgentTool()
    assert not tool.is_concurrency_safe(tool.input_schema(description="d", prompt="p"))
    assert tool.is_read_only(tool.input_schema(description="d", prompt="p", subagent_type="Plan"))


async def test_custom_agent_from_the_project_with_its_model(server, tmp_path):
    folder = tmp_path / ".claude" / "agents"
    folder.mkdir(parents=True)
    (tmp_path / "CLAUDE.md").write_text("Always use tabs.")
    (folder / "reviewer.md").write_text("---\nname: reviewer\ndescription: Reviews code\ntools: Read\nmodel: haiku\n---\nYou review code strictly.\n")
    server.push(reply(text("Looks good.")))
    ctx = _ctx(server, tmp_path, [ReadTool(), WriteTool()])
    out = await run_tool_use(
        ToolUseRequest("t", "Task", {"description": "review", "prompt": "review it", "subagent_type": "reviewer"}),
        ctx, Approver(),
    )
    assert out.text == "Looks good."
    body = server.message_requests[0].body
    assert body["model"] == "claude-haiku-5-5"
    assert body["system"][0]["text"] == "You review code strictly."
    assert "Always use tabs." in body["system"][-1]["text"]  # project memory reaches subagents
    assert [t["name"] for t in body["tools"]] == ["Read"]


async def test_unknown_type_denied_type_and_model_failure(server, tmp_path):
    ctx = _ctx(server, tmp_path, [ReadTool()])
    out = await run_tool_use(ToolUseRequest("t", "Agent", {"description": "d", "prompt": "p", "subagent_type": "Nope"}), ctx, Approver())
    assert out.is_error and "Agent type 'Nope' not found. Available agents: general-purpose, Explore, Plan" in out.text

    ctx.set_app_state(lambda s: replace(s, tool_permission_context=replace(
        s.tool_permission_context, deny_rules={"session": ("Agent(Plan)",)})))
    out = await run_tool_use(ToolUseRequest("t", "Agent", {"description": "d", "prompt": "p", "subagent_type": "Plan"}), ctx, Approver())
    assert out.is_error and "denied" in out.text and "Agent(Plan)" in out.text
    assert server.message_requests == []

    server.push(fault_status(400, message="prompt is too long"))
    out = await run_tool_use(ToolUseRequest("t", "Agent", {"description": "d", "prompt": "p"}), ctx, Approver())
    assert out.is_error and "The general-purpose agent failed" in out.text and "prompt is too long" in out.text


async def test_background_agent_report_through_task_output(server, tmp_path):
    (tmp_path / "a.txt").write_text("alpha\n")
    server.push(reply(tool_use("Read", {"file_path": str(tmp_path / "a.txt")})), reply(text("alpha found")))
    ctx = _ctx(server, tmp_path, [ReadTool(), TaskOutputTool()])
    inp = {"description": "bg", "prompt": "find alpha", "subagent_type": "Explore", "run_in_background": True}
    out = await run_tool_use(ToolUseRequest("t", "Agent", inp), ctx, Approver())
    assert "in the background with task id agent_" in out.text
    task_id = out.text.split("task id ")[1].split(".")[0]
    result = await run_tool_use(ToolUseRequest("o", "TaskOutput", {"task_id": task_id, "block": True, "timeout": 30000}), ctx, Approver())
    assert "alpha found" in result.text, result.text
    assert "completed" in result.text


async def test_subagent_usage_is_reported_and_broken_agent_files_are_named(server, tmp_path):
    from jupyter_agent.agent.events import UsageUpdated
    from jupyter_agent.testing import UsageOverride

    folder = tmp_path / ".claude" / "agents"
    folder.mkdir(parents=True)
    (folder / "broken.md").write_text("no front matter")
    server.push(reply(text("ok"), usage=UsageOverride(input_tokens=1000, output_tokens=100)))
    ctx = _ctx(server, tmp_path, [ReadTool()])
    events = []
    out = await run_tool_use(ToolUseRequest("t", "Agent", {"description": "d", "prompt": "p", "subagent_type": "Explore"}),
                             ctx, Approver(), on_event=events.append)
    assert out.text == "ok"
    usage = [e.progress.data.event for e in events
             if isinstance(e, ToolCallProgress) and isinstance(e.progress.data.event, UsageUpdated)]
    assert usage and usage[-1].session.input_tokens == 1000 and usage[-1].session_cost_usd > 0
    bad = await run_tool_use(ToolUseRequest("t2", "Agent", {"description": "d", "prompt": "p", "subagent_type": "x"}),
                             ctx, Approver())
    assert bad.is_error and "broken.md: missing front matter" in bad.text


async def test_background_agent_can_be_stopped(server, tmp_path):
    from jupyter_agent.tasks.registry import get_task_registry
    from jupyter_agent.tools.task_stop import TaskStopTool

    # A very slow reply: the agent is still streaming when TaskStop arrives.
    server.push(reply(text("x" * 400), delay_s=0.05, chunk_chars=1))
    ctx = _ctx(server, tmp_path, [ReadTool(), TaskOutputTool(), TaskStopTool()])
    inp = {"description": "slow", "prompt": "take your time", "subagent_type": "Explore", "run_in_background": True}
    out = await run_tool_use(ToolUseRequest("t", "Agent", inp), ctx, Approver())
    task_id = out.text.split("task id ")[1].split(".")[0]
    task = get_task_registry(ctx).get(task_id)
    while not server.message_requests:  # the agent's request has reached the model
        await asyncio.sleep(0.01)
    stopped = await run_tool_use(ToolUseRequest("s", "TaskStop", {"task_id": task_id}), ctx, Approver())
    assert f"Stopped task {task_id}" in stopped.text and "killed" in stopped.text
    assert task.status == "killed"
    tail = await run_tool_use(ToolUseRequest("o", "TaskOutput", {"task_id": task_id}), ctx, Approver())
    assert "(agent stopped)" in tail.text


async def test_custom_read_only_agents_run_in_parallel_and_keep_their_promise(server, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # the tool's prompt reads the agents of the kernel's directory
    folder = tmp_path / ".claude" / "agents"
    folder.mkdir(parents=True)
    scanner = folder / "scanner.md"
    scanner.write_text("---\nname: scanner\ndescription: Scans\ntools: Read, Grep\n---\nYou scan.\n")
    for name in ("a", "b"):
        server.route(_prompt_is(f"scan {name}"), reply(text(f"{name} scanned")))
    gate = GateTransport(2)
    ctx = _ctx(server, tmp_path, [ReadTool(), WriteTool()], http_client=httpx2.AsyncClient(transport=gate))
    tool = AgentTool()
    probe = tool.input_schema(description="d", prompt="p", subagent_type="scanner")
    assert "- scanner: Scans (Tools: Read, Grep)" in await tool.prompt(ctx.options)  # teaches it read-only types
    assert tool.is_concurrency_safe(probe) and tool.is_read_only(probe)
    calls = [ToolUseRequest(f"t{n}", "Agent", {"description": n, "prompt": f"scan {n}", "subagent_type": "scanner"})
             for n in ("a", "b")]
    run = await run_tools(calls, ctx, Approver())
    assert [o.text for o in run.outcomes] == ["a scanned", "b scanned"]

    # The file now grants Write, but this call was scheduled as read-only: the write is refused.
    scanner.write_text("---\nname: scanner\ndescription: Scans\ntools: Read, Write\n---\nYou scan.\n")
    target = tmp_path / "w.txt"
    server.route(_prompt_is("scan and write"),
                 reply(tool_use("Write", {"file_path": str(target), "content": "x"})), reply(text("could not write")))
    promised = ToolUseRequest("t3", "Agent", {"description": "w", "prompt": "scan and write", "subagent_type": "scanner"})
    approver = Approver()
    out = await run_tool_use(promised, ctx, approver, decide=_allow_all)
    assert out.text == "could not write" and not target.exists() and approver.asks == []


async def _allow_all(tool, input, context):
    return PermissionAllow()
