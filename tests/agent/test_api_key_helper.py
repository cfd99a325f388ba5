"""``apiKeyHelper`` from the settings files: its output is the key of every request (X-Api-Key and
Authorization: Bearer), it runs again after its time to live or on a 401 (the request is tried
once more), a failing helper is reported as it is, a key given otherwise wins, and a cloned
repository's helper waits for folder trust.  The real SDK against the scripted server."""

from __future__ import annotations

import json

import pytest

from jupyter_agent.agent.api_key_helper import ApiKeyHelper, ttl_from_environment
from jupyter_agent.errors import AgentConfigError
from jupyter_agent.permissions.settings import load_settings
from jupyter_agent.testing import fault_status, reply, tool_use
from jupyter_agent.tools.bash import BashTool

from .test_settings_env_session import approve_all, write_settings

# prints key-1, key-2, ... (one more each run), counting in a file beside the project
COUNTING = 'n=$(cat "{count}" 2>/dev/null || echo 0); n=$((n + 1)); echo $n > "{count}"; echo "key-$n"'


@pytest.fixture(autouse=True)
def _no_key_in_the_environment(monkeypatch):
    for name in ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "CLAUDE_CODE_API_KEY_HELPER_TTL_MS"):
        monkeypatch.delenv(name, raising=False)


def user_settings(tmp_path, data):
    write_settings(tmp_path / "home", data)


def keys(server):
    return [(r.headers.get("x-api-key"), r.headers.get("authorization")) for r in server.message_requests]


async def test_the_helpers_key_is_sent_and_kept_for_its_time_to_live(server, make_session, tmp_path):
    count = tmp_path / "runs"
    user_settings(tmp_path, {"apiKeyHelper": COUNTING.format(count=count)})
    server.push(reply(tool_use("Bash", {"command": "echo hi"}, id="b1")), reply("done"))
    session, _ = make_session([BashTool()], can_use_tool=approve_all, api_key=None)
    outcome = await session.submit("say hi")
    assert outcome.error is None
    assert keys(server) == [("key-1", "Bearer key-1")] * 2  # two requests, one run
    assert count.read_text().strip() == "1"
    from jupyter_agent.magics.reports import permissions_text

    settings_file = tmp_path / "home" / ".claude" / "settings.json"
    assert f"API key: from apiKeyHelper in {settings_file} (run 1x so far; again after 300 s or on a 401)" \
        in permissions_text(session)


async def test_a_401_runs_the_helper_again_and_tries_once_more(server, make_session, tmp_path):
    count = tmp_path / "runs"
    user_settings(tmp_path, {"apiKeyHelper": COUNTING.format(count=count)})
    server.push(fault_status(401), reply("hello"))
    session, events = make_session(api_key=None)
    outcome = await session.submit("hi")
    assert outcome.error is None and outcome.text == "hello"
    assert keys(server) == [("key-1", "Bearer key-1"), ("key-2", "Bearer key-2")]


async def test_a_second_401_is_reported(server, make_session, tmp_path):
    user_settings(tmp_path, {"apiKeyHelper": COUNTING.format(count=tmp_path / "runs")})
    server.push(fault_status(401), fault_status(401), reply("never"))
    session, _ = make_session(api_key=None)
    outcome = await session.submit("hi")
    assert outcome.error is not None and "401" in outcome.error
    assert len(server.message_requests) == 2  # one more try, not a loop


async def test_a_time_to_live_of_zero_runs_it_for_every_request(server, make_session, tmp_path, monkeypatch):
    monkeypatch.setenv("CLAUDE_CODE_API_KEY_HELPER_TTL_MS", "0")
    user_settings(tmp_path, {"apiKeyHelper": COUNTING.format(count=tmp_path / "runs")})
    server.push(reply(tool_use("Bash", {"command": "echo hi"}, id="b1")), reply("done"))
    session, _ = make_session([BashTool()], can_use_tool=approve_all, api_key=None)
    await session.submit("say hi")
    assert [k for k, _ in keys(server)] == ["key-1", "key-2"]


@pytest.mark.parametrize(
    ("command", "message"),
    [
        ("echo 'vault is locked' >&2; exit 3", "exited with status 3: vault is locked"),
        ("true", "printed nothing"),
        ("printf 'a\\nb\\n'", "printed more than one line"),
    ],
)
async def test_a_failing_helper_is_reported_as_it_is_and_not_retried(server, make_session, tmp_path, command,
                                                                       message):
    user_settings(tmp_path, {"apiKeyHelper": command})
    server.push(reply("never"))
    session, _ = make_session(api_key=None)
    outcome = await session.submit("hi")
    assert outcome.error is not None and message in outcome.error and "apiKeyHelper in" in outcome.error
    assert "Retrying" not in outcome.error and server.message_requests == []


async def test_a_key_given_otherwise_wins(server, make_session, tmp_path, monkeypatch):
    count = tmp_path / "runs"
    user_settings(tmp_path, {"apiKeyHelper": COUNTING.format(count=count)})
    server.push(reply("a"), reply("b"))
    session, _ = make_session(api_key="from-config")
    await session.submit("hi")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "from-environment")
    other, _ = make_session(api_key=None)
    await other.submit("hi")
    assert [a for _, a in keys(server)] == ["Bearer from-config", "Bearer from-environment"]
    assert not count.exists()  # never run


async def test_a_cloned_repositorys_helper_waits_for_trust(server, make_session, tmp_path):
    count = tmp_path / "runs"
    write_settings(tmp_path, {"apiKeyHelper": COUNTING.format(count=count)})  # the project's file
    settings = load_settings(tmp_path, home=tmp_path / "home", trusted=False)
    assert settings.api_key_helper is None
    assert any("apiKeyHelper" in line for line in settings.held_back)
    server.push(reply("hello"))
    session, _ = make_session(api_key=None, trust_project=True)
    assert (await session.submit("hi")).error is None
    assert keys(server) == [("key-1", "Bearer key-1")]


def test_a_helper_that_is_not_a_command_is_a_settings_error(tmp_path):
    user_settings(tmp_path, {"apiKeyHelper": ["vault", "read"]})
    with pytest.raises(AgentConfigError, match="apiKeyHelper must be a shell command"):
        load_settings(tmp_path, home=tmp_path / "home")


def test_the_highest_file_that_sets_it_wins(tmp_path):
    user_settings(tmp_path, {"apiKeyHelper": "echo user"})
    write_settings(tmp_path, {"apiKeyHelper": "echo local"}, name="settings.local.json")
    found = load_settings(tmp_path, home=tmp_path / "home", trusted=True).api_key_helper
    assert found == ("echo local", tmp_path / ".claude" / "settings.local.json")


@pytest.mark.parametrize(("raw", "seconds"), [("", 300.0), ("60000", 60.0), ("0", 0.0), ("soon", 300.0),
                                              ("-5", 300.0)])
def test_time_to_live_from_the_environment(raw, seconds):
    assert ttl_from_environment({"CLAUDE_CODE_API_KEY_HELPER_TTL_MS": raw}) == seconds


async def test_parallel_requests_run_the_helper_once(tmp_path):
    import asyncio

    count = tmp_path / "runs"
    helper = ApiKeyHelper(COUNTING.format(count=count), tmp_path)
    assert await asyncio.gather(*(helper.key() for _ in range(8))) == ["key-1"] * 8
    assert helper.runs == 1 and json.loads(count.read_text()) == 1


async def test_a_401_inside_a_subagent_runs_the_helper_again_and_tries_once_more(server, make_session, tmp_path):
    """A subagent asks through the session's client: a key that went stale while it ran is
    renewed and its request tried once more, as the session's own would be."""
    from jupyter_agent.subagents.attach import attach_many_hands
    from jupyter_agent.tools.agent_tool import AgentTool

    count = tmp_path / "runs"
    user_settings(tmp_path, {"apiKeyHelper": COUNTING.format(count=count)})
    server.push(
        reply(tool_use("Agent", {"description": "count", "prompt": "Count to two", "subagent_type": "Explore"})),
        fault_status(401),  # the subagent's first request: the key went stale
        reply("one, two"),
        reply("It counted."),
    )
    session, _ = make_session([AgentTool()], can_use_tool=approve_all, api_key=None)
    attach_many_hands(session, checkpoints=False, scheduler=False)
    outcome = await session.submit("have a helper count")
    assert outcome.error is None and outcome.text == "It counted."
    assert keys(server) == [("key-1", "Bearer key-1"), ("key-1", "Bearer key-1"),
                            ("key-2", "Bearer key-2"), ("key-2", "Bearer key-2")]
    results = [b for m in server.message_requests[-1].body["messages"] if m["role"] == "user"
               and isinstance(m["content"], list) for b in m["content"] if b.get("type") == "tool_result"]
    assert "one, two" in json.dumps(results) and not results[-1].get("is_error")
