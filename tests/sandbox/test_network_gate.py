"""Which hosts a sandboxed command may reach (``sandbox.network``): settings, WebFetch rules,
modes, the session's approvals, and the user asked once per host.  The gate alone; the same
decisions through a real sandbox are in ``test_sandbox_network.py``."""

from __future__ import annotations

import asyncio
import json
from dataclasses import replace

import pytest

from jupyter_agent.core.permission_types import PermissionAllow, PermissionDeny
from jupyter_agent.errors import AgentConfigError
from jupyter_agent.sandbox.network import (
    GRANTS_KEY,
    MAX_WAIT_CREDIT,
    NetworkGate,
    entry_matches,
    parse_host_entry,
)
from jupyter_agent.sandbox.settings import SandboxSettings, load_sandbox_settings
from tests.permissions.tools import make_ctx


class Asker:
    """The user: answers each question with ``decision`` (after ``gate`` opens, if given)."""

    def __init__(self, decision=None, gate: asyncio.Event | None = None) -> None:
        self.decision = decision or PermissionAllow()
        self.questions = []
        self.gate = gate

    async def __call__(self, question):
        self.questions.append(question)
        if self.gate is not None:
            await self.gate.wait()
        if isinstance(self.decision, Exception):
            raise self.decision
        return self.decision


def gate_for(tmp_path, asker=None, mode="default", allow=(), deny=(), ask=(), **settings):
    ctx = make_ctx(tmp_path, allow=allow, deny=deny, ask=ask, mode=mode)
    return NetworkGate(ctx, SandboxSettings(enabled=True, **settings), asker), ctx


@pytest.mark.parametrize(("entry", "host", "port", "expected"), [
    ("pypi.org", "pypi.org", 443, True),
    ("pypi.org", "PyPI.org.", 80, True),  # case and the trailing dot do not matter
    ("pypi.org", "evil-pypi.org", 443, False),
    ("pypi.org", "files.pypi.org", 443, False),
    ("*.pythonhosted.org", "files.pythonhosted.org", 443, True),
    ("*.pythonhosted.org", "pythonhosted.org", 443, False),  # subdomains only
    ("*.pythonhosted.org", "xpythonhosted.org", 443, False),
    ("localhost:8888", "localhost", 8888, True),
    ("localhost:8888", "localhost", 8889, False),  # that port only
    ("127.0.0.1", "127.0.0.1", 1234, True),
    ("bücher.de", "xn--bcher-kva.de", 443, True),  # a name written either way
])
def test_entries(entry, host, port, expected):
    assert entry_matches(entry, host, port) is expected


@pytest.mark.parametrize("bad", ["", "https://pypi.org", "pypi.org:0", "pypi.org:99999", "pypi.org:http",
                                 "a b", "*", "foo.*.com", "user@host", "::1", "[::1]:80"])
def test_bad_entries_are_refused_with_a_reason(bad):
    with pytest.raises(ValueError, match="host name|port"):
        parse_host_entry(bad)


async def test_allowed_and_denied_domains_decide_without_asking(tmp_path):
    asker = Asker()
    gate, _ = gate_for(tmp_path, asker, allowed_domains=("*.example.com", "pypi.org:443"),
                       denied_domains=("bad.example.com",))
    assert await gate.check("api.example.com", 443) is None
    assert await gate.check("pypi.org", 443) is None
    assert "deniedDomains (bad.example.com)" in await gate.check("bad.example.com", 443)  # deny wins
    assert asker.questions == []
    assert await gate.check("pypi.org", 80) is None  # another port: asked, and approved
    assert len(asker.questions) == 1 and "pypi.org (port 80)" in asker.questions[0].message


async def test_web_fetch_rules_count_for_the_sandbox_network(tmp_path):
    asker = Asker()
    gate, _ = gate_for(tmp_path, asker, allow=("WebFetch(domain:docs.python.org)",),
                       deny=("WebFetch(domain:*.evil.example)",), ask=("WebFetch(domain:ask.example)",),
                       allowed_domains=("x.evil.example",))
    assert await gate.check("docs.python.org", 443) is None
    assert "denied by the rule WebFetch(domain:*.evil.example)" in await gate.check("x.evil.example", 443)
    assert asker.questions == []
    assert await gate.check("ask.example", 443) is None and len(asker.questions) == 1


@pytest.mark.parametrize("mode", ["dontAsk", "plan"])
async def test_modes_that_never_ask_refuse(tmp_path, mode):
    asker = Asker()
    gate, _ = gate_for(tmp_path, asker, mode=mode, ask=("WebFetch(domain:ask.example)",))
    assert f"{mode} mode" in await gate.check("new.example", 443)
    assert f"{mode} mode" in await gate.check("ask.example", 443)
    assert asker.questions == [] and not gate.reaches_anything()


async def test_bypass_connects_but_an_ask_rule_still_asks_and_a_deny_rule_refuses(tmp_path):
    asker = Asker(PermissionDeny("no"))
    gate, _ = gate_for(tmp_path, asker, mode="bypassPermissions", ask=("WebFetch(domain:ask.example)",),
                       deny=("WebFetch(domain:deny.example)",))
    assert await gate.check("new.example", 443) is None
    assert "the connection to ask.example was not approved" in await gate.check("ask.example", 443)
    assert "denied by the rule" in await gate.check("deny.example", 443)
    assert len(asker.questions) == 1


async def test_an_approved_host_is_remembered_for_the_session(tmp_path):
    asker = Asker()
    gate, ctx = gate_for(tmp_path, asker)
    assert await gate.check("new.example", 443) is None
    assert ctx.get_app_state().extra[GRANTS_KEY] == frozenset({"new.example"})
    later = NetworkGate(ctx, gate.settings, asker)  # the next command of the same session
    assert await later.check("NEW.example", 8443) is None
    assert len(asker.questions) == 1
    other_session, _ = gate_for(tmp_path, asker)
    assert await other_session.check("new.example", 443) is None
    assert len(asker.questions) == 2


async def test_a_refusal_holds_for_the_rest_of_the_command_and_is_reported(tmp_path):
    asker = Asker(PermissionDeny("The user doesn't want to proceed."))
    gate, ctx = gate_for(tmp_path, asker)
    for _ in range(3):  # pip retries: asked once
        why = await gate.check("new.example", 443)
        assert why.startswith("the connection to new.example was not approved: ")
    assert len(asker.questions) == 1 and GRANTS_KEY not in ctx.get_app_state().extra
    note = gate.notes()
    assert "new.example:443: the connection to new.example was not approved" in note and "The user doesn't want to proceed." in note


async def test_connections_to_one_host_at_once_ask_once(tmp_path):
    opened = asyncio.Event()
    asker = Asker(gate=opened)
    gate, _ = gate_for(tmp_path, asker)
    waiting = [asyncio.ensure_future(gate.check("new.example", 443)) for _ in range(5)]
    await asyncio.sleep(0.05)
    assert len(asker.questions) == 1 and not any(w.done() for w in waiting)
    opened.set()
    assert await asyncio.gather(*waiting) == [None] * 5


async def test_a_withdrawn_connection_does_not_withdraw_the_question_for_the_others(tmp_path):
    opened = asyncio.Event()
    gate, _ = gate_for(tmp_path, Asker(gate=opened))
    first = asyncio.ensure_future(gate.check("new.example", 443))
    second = asyncio.ensure_future(gate.check("new.example", 443))
    await asyncio.sleep(0.05)
    first.cancel()  # that program closed its connection
    opened.set()
    assert await second is None


async def test_nobody_to_ask_or_a_broken_approver_refuses(tmp_path):
    alone, _ = gate_for(tmp_path, None)
    assert "nobody can be asked" in await alone.check("new.example", 443)
    assert not alone.reaches_anything()
    broken, _ = gate_for(tmp_path, Asker(RuntimeError("widget gone")))
    assert "the request to approve new.example failed: widget gone" in await broken.check("new.example", 443)


def test_a_network_reachable_only_by_rules_still_gets_the_proxy(tmp_path):
    gate, _ = gate_for(tmp_path, None, allow=("WebFetch(domain:pypi.org)",))
    assert gate.reaches_anything()
    assert gate_for(tmp_path, None, allowed_domains=("pypi.org",))[0].reaches_anything()
    assert gate_for(tmp_path, Asker())[0].reaches_anything()


def test_denied_domains_are_kept_in_an_untrusted_folder_and_ports_are_read(tmp_path):
    home, project = tmp_path / "home", tmp_path / "proj"
    (project / ".claude").mkdir(parents=True)
    (project / ".claude" / "settings.json").write_text(json.dumps({"sandbox": {"network": {
        "allowedDomains": ["localhost:8888"], "deniedDomains": ["*.Evil.example", "localhost:6379"]}}}))
    trusted = load_sandbox_settings(project, home, trusted=True)
    assert trusted.allowed_domains == ("localhost:8888",)
    assert trusted.denied_domains == ("*.evil.example", "localhost:6379")
    untrusted = load_sandbox_settings(project, home, trusted=False)
    assert untrusted.allowed_domains == () and untrusted.denied_domains == trusted.denied_domains


@pytest.mark.parametrize("value", [["https://pypi.org"], ["pypi.org:http"], [3], "pypi.org"])
def test_a_malformed_domains_list_names_the_file(tmp_path, value):
    project = tmp_path / "proj"
    (project / ".claude").mkdir(parents=True)
    (project / ".claude" / "settings.json").write_text(json.dumps({"sandbox": {"network": {"deniedDomains": value}}}))
    with pytest.raises(AgentConfigError, match=r"settings.json: sandbox.network.deniedDomains must"):
        load_sandbox_settings(project, tmp_path / "home", trusted=True)


async def test_when_the_command_ends_an_open_question_is_withdrawn(tmp_path):
    withdrawn = asyncio.Event()

    async def never_answers(question):
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            withdrawn.set()
            raise

    gate, _ = gate_for(tmp_path, never_answers)
    waiting = asyncio.ensure_future(gate.check("new.example", 443))
    await asyncio.sleep(0.05)
    gate.close()
    await asyncio.wait_for(withdrawn.wait(), 5)
    with pytest.raises(asyncio.CancelledError):
        await waiting


async def test_a_program_trying_many_hosts_does_not_flood_the_notebook(tmp_path):
    from jupyter_agent.sandbox.network import MAX_OPEN_QUESTIONS

    opened = asyncio.Event()
    asker = Asker(gate=opened)
    gate, _ = gate_for(tmp_path, asker)
    waiting = [asyncio.ensure_future(gate.check(f"h{i}.example", 443)) for i in range(MAX_OPEN_QUESTIONS + 3)]
    await asyncio.sleep(0.05)
    assert len(asker.questions) == MAX_OPEN_QUESTIONS
    opened.set()
    answers = await asyncio.gather(*waiting)
    assert answers[:MAX_OPEN_QUESTIONS] == [None] * MAX_OPEN_QUESTIONS
    assert all("questions are already open" in a for a in answers[MAX_OPEN_QUESTIONS:])
    assert await gate.check("later.example", 443) is None  # answered questions make room again


@pytest.mark.parametrize(("host", "local"), [
    ("localhost", True), ("app.localhost", True), ("127.0.0.1", True), ("127.8.9.1", True), ("::1", True),
    ("[::1]", True), ("::ffff:127.0.0.1", True), ("10.1.2.3", True), ("192.168.0.5", True), ("172.16.0.1", True),
    ("169.254.169.254", True), ("0.0.0.0", True), ("fe80::1%eth0", True), ("fd00::1", True),
    ("8.8.8.8", False), ("pypi.org", False), ("localhost.example.com", False), ("2606:4700::1111", False),
])
def test_what_counts_as_this_machine_or_its_network(host, local):
    from jupyter_agent.sandbox.network import is_local

    assert is_local(host) is local


async def test_a_local_target_is_asked_about_with_a_caution_and_approved_port_by_port(tmp_path):
    asker = Asker()
    gate, ctx = gate_for(tmp_path, asker)
    assert await gate.check("localhost", 8000) is None
    [question] = asker.questions
    assert "whatever listens on port 8000 runs outside the sandbox" in question.message
    assert question.suggestions == ()  # no Always allow for this machine
    assert ctx.get_app_state().extra[GRANTS_KEY] == frozenset({"localhost:8000"})
    assert await gate.check("localhost", 8000) is None and len(asker.questions) == 1
    assert await gate.check("localhost", 8888) is None and len(asker.questions) == 2  # another port: asked


def test_only_the_settings_or_an_allow_rule_name_a_host(tmp_path):
    gate, ctx = gate_for(tmp_path, Asker(), allow=("WebFetch(domain:docs.example)",), allowed_domains=("db.example:5432",))
    ctx.set_app_state(lambda s: replace(s, extra={**s.extra, GRANTS_KEY: frozenset({"approved.example"})}))
    assert gate.named("docs.example", 443) and gate.named("db.example", 5432)
    assert not gate.named("db.example", 5433) and not gate.named("approved.example", 443)


async def test_nobody_attached_or_a_timeout_is_reported_as_such(tmp_path):
    from jupyter_agent.agent.approval import NO_APPROVER_MESSAGE

    gate, _ = gate_for(tmp_path, Asker(PermissionDeny(NO_APPROVER_MESSAGE.format(tool="Bash"), reason="no approver")))
    why = await gate.check("new.example", 443)
    assert why.startswith("the connection to new.example was not approved: Bash needs the user's approval, but no one")


async def test_the_time_a_question_waits_for_the_user_is_counted(tmp_path):
    opened = asyncio.Event()
    gate, _ = gate_for(tmp_path, Asker(gate=opened))
    assert gate.waiting() == 0.0
    first = asyncio.ensure_future(gate.check("one.example", 443))
    second = asyncio.ensure_future(gate.check("two.example", 443))  # overlapping questions count once
    await asyncio.sleep(0.2)
    assert 0.15 <= gate.waiting() < 0.35
    opened.set()
    await asyncio.gather(first, second)
    settled = gate.waiting()
    await asyncio.sleep(0.1)
    assert gate.waiting() == settled  # no question open: the clock stands
    gate._waited = 10_000.0
    assert gate.waiting() == MAX_WAIT_CREDIT  # a question left open does not buy endless time
