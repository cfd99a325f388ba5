"""The managed settings' ``sandbox`` block: above every other file, always trusted, and
``network.allowManagedDomainsOnly`` (only the administrator's hosts; the rest refused unasked)."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

from jupyter_agent.sandbox.network import GRANTS_KEY, NetworkGate
from jupyter_agent.sandbox.settings import SandboxSettings, load_sandbox_settings
from tests.permissions.tools import make_ctx
from tests.sandbox.test_network_gate import Asker


def _write(path, data):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data))


@pytest.fixture
def policy(managed_policy):
    return managed_policy


@pytest.mark.parametrize("trusted", [True, False])
def test_the_managed_block_wins_and_needs_no_trust(tmp_path, policy, trusted):
    project, home = tmp_path / "p", tmp_path / "h"
    _write(project / ".claude" / "settings.local.json", {"sandbox": {
        "enabled": False, "allowUnsandboxedCommands": True, "excludedCommands": ["docker"],
        "network": {"allowedDomains": ["files.example"]}}})
    _write(policy / "managed-settings.json", {"sandbox": {
        "enabled": True, "allowUnsandboxedCommands": False, "excludedCommands": ["git push"],
        "network": {"allowedDomains": ["pypi.org"], "deniedDomains": ["evil.example"],
                    "allowManagedDomainsOnly": True},
        "filesystem": {"allowWrite": ["//opt/shared-cache"]}}})
    s = load_sandbox_settings(project, home, trusted=trusted)
    assert s.enabled and not s.allow_unsandboxed  # the project cannot turn either back
    assert s.allowed_domains == ("pypi.org",)  # the project's host is dropped
    assert s.denied_domains == ("evil.example",) and s.managed_domains_only
    assert s.allow_write == (("policySettings", "//opt/shared-cache"),)  # loosening, yet applied untrusted
    assert s.excluded == (("docker", "git push") if trusted else ("git push",))


def test_without_allow_managed_domains_only_the_hosts_join(tmp_path, policy):
    project = tmp_path / "p"
    _write(project / ".claude" / "settings.local.json", {"sandbox": {"network": {"allowedDomains": ["a.example"]}}})
    _write(policy / "managed-settings.d" / "net.json", {"sandbox": {"network": {"allowedDomains": ["b.example"]}}})
    s = load_sandbox_settings(project, tmp_path / "h", trusted=True)
    assert s.allowed_domains == ("a.example", "b.example") and not s.managed_domains_only


def test_a_bad_switch_names_the_file(tmp_path, policy):
    _write(policy / "managed-settings.json", {"sandbox": {"network": {"allowManagedDomainsOnly": "yes"}}})
    with pytest.raises(Exception, match="allowManagedDomainsOnly must be true or false") as info:
        load_sandbox_settings(tmp_path, tmp_path / "h")
    assert "managed-settings.json" in str(info.value)


@pytest.mark.parametrize("mode", ["default", "bypassPermissions", "acceptEdits"])
async def test_only_the_administrators_hosts_are_reached(tmp_path, mode):
    asker = Asker()
    ctx = make_ctx(tmp_path, mode=mode, allow=("WebFetch(domain:mine.example)",), ask=("WebFetch(domain:ask.example)",))
    pc = ctx.permission_context
    pc = replace(pc, allow_rules={**pc.allow_rules, "policySettings": ("WebFetch(domain:docs.python.org)",)})
    ctx.set_app_state(lambda st: replace(st, tool_permission_context=pc, extra={GRANTS_KEY: frozenset({"old.example"})}))
    gate = NetworkGate(ctx, SandboxSettings(enabled=True, allowed_domains=("pypi.org",), managed_domains_only=True), asker)
    assert await gate.check("pypi.org", 443) is None
    assert await gate.check("docs.python.org", 443) is None  # the policy's WebFetch allow rule
    for host in ("mine.example", "ask.example", "old.example", "new.example"):  # a local rule, an ask rule, a grant
        assert "allowManagedDomainsOnly" in await gate.check(host, 443), host
    assert asker.questions == [] and gate.reaches_anything()
    closed = NetworkGate(ctx, SandboxSettings(enabled=True, managed_domains_only=True), asker)
    closed_pc = replace(pc, allow_rules={"localSettings": ("WebFetch(domain:mine.example)",)})
    ctx.set_app_state(lambda st: replace(st, tool_permission_context=closed_pc))
    assert not closed.reaches_anything()  # nothing the administrator allows: no proxy at all
