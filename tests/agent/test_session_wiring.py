"""What AgentSession wires in at start and releases at close: skills, services, background tasks."""

from __future__ import annotations

import asyncio
import json

import psutil

from jupyter_agent.core.permission_types import PermissionAllow
from jupyter_agent.testing import reply, text, tool_use
from jupyter_agent.tools.bash import BashTool
from jupyter_agent.tools.ctx_inspect import SOURCE_KEY
from jupyter_agent.triggers.store import DELIVERY_KEY


async def _allow(*_args):
    return PermissionAllow()


async def test_project_skills_are_listed_in_the_system_prompt(make_session, server, tmp_path):
    skill = tmp_path / ".claude" / "skills" / "tidy-data"
    skill.mkdir(parents=True)
    (skill / "SKILL.md").write_text("---\nname: tidy-data\ndescription: Reshape a DataFrame to tidy form\n---\nMelt wide columns.\n")
    session, _ = make_session()
    assert any(getattr(c, "name", "") == "tidy-data" for c in session.context.options.commands)
    server.push(reply(text("ok")))
    await session.submit("hello")
    system = json.dumps(server.message_requests[-1].body["system"])
    assert "tidy-data" in system and "Reshape a DataFrame to tidy form" in system


async def test_services_are_attached(make_session):
    session, _ = make_session()
    assert SOURCE_KEY in session.context.extra  # CtxInspect sees this session
    assert session.context.extra[DELIVERY_KEY] == session.submit  # fired triggers start turns
    assert session.hands is not None and session.hands.checkpoints is not None


async def test_close_stops_background_commands(make_session, server, tmp_path):
    marker = tmp_path / "bg-started"
    session, _ = make_session(tools=[BashTool()], can_use_tool=_allow)
    server.push(
        reply(tool_use("Bash", {"command": f"touch {marker}; sleep 300", "run_in_background": True})),
        reply(text("started")),
    )
    await session.submit("start a long job")
    for _ in range(6000):  # a loaded machine may take a while to start the shell
        if marker.exists():
            break
        await asyncio.sleep(0.01)
    assert marker.exists(), "the background command should have started"
    # This command's own processes only: its shell names the marker, and the sleep is its child.
    # Other tests' leftovers must not count here.
    shells = [p for p in psutil.process_iter(["cmdline"]) if str(marker) in " ".join(p.info["cmdline"] or [])]
    ours = shells + [child for shell in shells for child in shell.children(recursive=True)]
    assert any("sleep" in " ".join(p.cmdline()) for p in ours), "the background command should be running"
    await session.aclose()
    gone, alive = psutil.wait_procs(ours, timeout=10)
    assert not [p for p in alive if p.status() != psutil.STATUS_ZOMBIE]
