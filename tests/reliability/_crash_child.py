"""Child process for the crash test: one agent session that edits files until it is killed.

    python _crash_child.py <project> <sessions_dir> <base_url>
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

from jupyter_agent.agent.config import SessionConfig
from jupyter_agent.agent.session import AgentSession


async def main(project: str, sessions: str, base_url: str) -> None:
    config = SessionConfig(
        model="claude-sonnet-5-5", max_tokens=1024, cwd=Path(project), sessions_dir=Path(sessions),
        home=Path(project).parent / "home", base_url=base_url, api_key="test-key",
        mode="bypassPermissions", max_turns=100_000,
    )
    session = AgentSession(config)
    print("ready", flush=True)
    await session.submit("Keep editing the files.")


if __name__ == "__main__":
    asyncio.run(main(*sys.argv[1:4]))
