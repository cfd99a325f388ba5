"""Which hosts a sandboxed command may reach: allowed, refused, or asked about once.

The kernel's proxy (``proxy.py``) calls ``NetworkGate.check(host, port)`` for every connection a
sandboxed program opens.  In Claude Code's order:

1. ``sandbox.network.deniedDomains``, or a ``WebFetch(domain:…)`` deny rule: refused, never asked;
2. ``sandbox.network.allowedDomains``, a ``WebFetch(domain:…)`` allow rule, or a host the user
   allowed earlier in the session: connected;
3. anything else is asked about on the Bash call's card ("Network request outside the
   sandbox").  Approve remembers the host for the rest of the session; *Always allow* saves
   ``WebFetch(domain:host)`` to ``.claude/settings.local.json``; Deny refuses it for the rest of
   this command.  ``dontAsk``, ``plan`` and ``permissions.denyInsteadOfPrompting`` refuse
   instead of asking, ``bypassPermissions`` connects (a ``WebFetch`` ask rule still asks).

A *local* target (``localhost``, a loopback or private address) is this machine or its network,
where a program listening runs outside the sandbox: its question says so, offers no *Always
allow*, and an approval covers that port only.  A name is looked up only once it is allowed (a
refused name sends no DNS query), and one that leads to a local address is refused unless the
settings or an allow rule name it (``named``): an approved ``evil.example`` pointing at
127.0.0.1 does not reach the Jupyter server.

An entry is a host (``pypi.org``), its subdomains (``*.pythonhosted.org``), or either with a
port (``localhost:8888``: that port only).  The same host asked about by several connections at
once is asked once; past ``MAX_OPEN_QUESTIONS`` open questions, other new hosts are refused.
"""

from __future__ import annotations

import asyncio
import ipaddress
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel

from ..core.permission_types import (
    PermissionAllow,
    PermissionAsk,
    PermissionUpdate,
    ToolPermissionContext,
    UserDecision,
)
from ..core.tool import CURRENT_TOOL_USE_ID, CanUseTool, Tool
from ..permissions.rules import ascii_host, content_rule_for, domain_matches, host_rule_matches

if TYPE_CHECKING:
    from ..core.context import ToolUseContext
    from .settings import SandboxSettings

MAX_OPEN_QUESTIONS = 5  # per command: a program trying many hosts does not flood the notebook
MAX_WAIT_CREDIT = 600.0  # seconds of waiting for the user a command's timeout may leave out
GRANTS_KEY = "sandbox_hosts"  # app_state.extra: hosts ("host:port" when local) allowed this session
Ask = Callable[[PermissionAsk], Awaitable[UserDecision]]


class _Ask:
    """The rules leave a host to the user."""


ASK = _Ask()
_NO_ASK_MODES = {"dontAsk": "dontAsk mode refuses what it would ask", "plan": "plan mode runs nothing that needs asking"}


def _no_ask(pc: ToolPermissionContext) -> str | None:
    """Why nobody is asked about a host in this context (None: the user may be asked)."""
    if pc.mode in _NO_ASK_MODES:
        return _NO_ASK_MODES[pc.mode]
    if pc.prompts_off_by is not None:
        return f"{pc.prompts_off_by} sets permissions.denyInsteadOfPrompting (nobody is asked)"
    return None


def parse_host_entry(text: str) -> tuple[str, int | None]:
    """``host`` or ``*.host``, with an optional ``:port``; ValueError says what is wrong."""
    host, port = text.strip(), None
    if host.count(":") == 1:
        host, _, digits = host.partition(":")
        if not (digits.isdigit() and 0 < int(digits) < 65536):
            raise ValueError(f"{text!r} has no valid port after ':'")
        port = int(digits)
    if not host or any(c in host for c in "/: \t\x00@[]") or "*" in host.removeprefix("*."):
        raise ValueError(f"{text!r} is not a host name (pypi.org, *.example.com, localhost:8888)")
    return host.lower(), port


def is_local(host: str) -> bool:
    """``localhost`` (and ``*.localhost``), or a loopback, private, link-local or unspecified address."""
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        address = ipaddress.ip_address(host.strip("[]").split("%", 1)[0])
    except ValueError:
        return False
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        address = address.ipv4_mapped
    return address.is_loopback or address.is_private or address.is_link_local or address.is_unspecified


def entry_matches(entry: str, host: str, port: int) -> bool:
    """Does a domains-list entry cover ``host:port``?"""
    pattern, only = parse_host_entry(entry)
    return (only is None or only == port) and domain_matches(pattern, host)


@dataclass
class NetworkGate:
    """One sandboxed command's network decisions (``check``) and what it reports (``notes``)."""

    context: ToolUseContext
    settings: SandboxSettings
    ask: Ask | None = None  # None: nobody can be asked (refused instead)
    refused: dict[str, str] = field(default_factory=dict)  # "host:port" -> why (reported once)
    _pending: dict[str, asyncio.Future[str | None]] = field(default_factory=dict)
    _open: int = 0  # questions waiting for the user now
    _waited: float = 0.0  # seconds with a question open, before the current stretch
    _since: float = 0.0  # when the current stretch began

    def reaches_anything(self) -> bool:
        """Could any connection succeed?  (If not, the command needs no proxy at all.)"""
        pc = self._allowing()
        if self.settings.managed_domains_only:
            return bool(self.settings.allowed_domains) or any(
                rule.startswith("WebFetch(domain:") for _source, rule in pc.rules("allow"))
        if self.settings.allowed_domains or self._grants() or pc.mode == "bypassPermissions":
            return True
        if self.ask is not None and _no_ask(pc) is None:
            return True
        return any(rule.startswith("WebFetch(domain:") for _source, rule in pc.rules("allow"))

    async def check(self, host: str, port: int) -> str | None:
        """None: connect.  Otherwise why not (the refused program is told, with a 403)."""
        host = ascii_host(host)
        local = is_local(host)
        key = f"{host}:{port}"
        if key in self.refused:
            return self.refused[key]
        why = self._rules(host, port, local)
        if why is not ASK:
            return None if why is None else self._refuse(key, str(why))
        if key not in self._pending:
            if sum(not p.done() for p in self._pending.values()) >= MAX_OPEN_QUESTIONS:
                return self._refuse(key, f"{host} was not asked about: {MAX_OPEN_QUESTIONS} questions are already open")
            self._pending[key] = asyncio.ensure_future(self._ask(host, port, local))
        return await asyncio.shield(self._pending[key])

    def named(self, host: str, port: int) -> bool:
        """Do the settings or an allow rule name this host (not merely an approval or the mode)?
        Only such a name may lead to a local address (``proxy.py`` checks what it resolves to)."""
        host = ascii_host(host)
        if any(entry_matches(e, host, port) for e in self.settings.allowed_domains):
            return True
        return content_rule_for(self._allowing(), "allow", "WebFetch", lambda c: host_rule_matches(c, host)) is not None

    def _allowing(self) -> ToolPermissionContext:
        """The permission context whose allow rules may open a host: under the managed settings'
        allowManagedDomainsOnly only the administrator's (``policySettings``)."""
        pc = self.context.permission_context
        if not self.settings.managed_domains_only:
            return pc
        return replace(pc, allow_rules={"policySettings": pc.allow_rules.get("policySettings", ())})

    def waiting(self) -> float:
        """Seconds spent with a question open so far, up to ``MAX_WAIT_CREDIT`` (the command's
        timeout does not count them; the cap keeps a command that leaves a question open from
        running on past its timeout for ever)."""
        total = self._waited
        if self._open:
            total += asyncio.get_running_loop().time() - self._since
        return min(total, MAX_WAIT_CREDIT)

    def close(self) -> None:
        """The command has ended: questions still open are withdrawn (their panels close)."""
        for pending in self._pending.values():
            pending.cancel()

    def notes(self) -> str | None:
        """For the model: the connections refused while the command ran."""
        if not self.refused:
            return None
        lines = [f"{key}: {why}" for key, why in self.refused.items()]
        return (
            "Network requests the sandbox refused (the program got HTTP 403):\n" + "\n".join(lines)
            + "\nThese were refused by the user or the settings: do not retry them another way "
            "(such as dangerouslyDisableSandbox); ask the user if the task needs them."
        )

    def _rules(self, host: str, port: int, local: bool) -> str | None | _Ask:
        """None: allowed; a text: refused; ``ASK``: the user decides."""
        pc = self.context.permission_context
        for entry in self.settings.denied_domains:
            if entry_matches(entry, host, port):
                return f"{host} is in sandbox.network.deniedDomains ({entry})"
        if rule := content_rule_for(pc, "deny", "WebFetch", lambda c: host_rule_matches(c, host)):
            return f"{host} is denied by the rule {rule}"
        if self.settings.managed_domains_only and not self.named(host, port):
            return (f"{host} is not among the hosts the administrator allows (the managed settings' "
                    "sandbox.network.allowManagedDomainsOnly)")
        if rule := content_rule_for(pc, "ask", "WebFetch", lambda c: host_rule_matches(c, host)):
            why = _no_ask(pc)
            return ASK if why is None else f"{host} needs approval (rule {rule}); {why}"
        granted = self._grants()
        if self.named(host, port) or (f"{host}:{port}" in granted if local else host in granted):
            return None
        if pc.mode == "bypassPermissions":
            return None
        why = _no_ask(pc)
        return ASK if why is None else f"{host} is not in sandbox.network.allowedDomains, and {why}"

    async def _ask(self, host: str, port: int, local: bool) -> str | None:
        key = f"{host}:{port}"
        if self.ask is None:
            return self._refuse(key, f"{host} is not in sandbox.network.allowedDomains (nobody can be asked)")
        text = f"Network request outside the sandbox: {host} (port {port}). Allow this connection?"
        if local:
            text += (f" {host} is this machine or its local network: whatever listens on port {port} "
                     "runs outside the sandbox (a Jupyter server, a database).")
        rule = PermissionUpdate(rules=(f"WebFetch(domain:{host})",), destination="localSettings")
        question = PermissionAsk(text, suggestions=() if local else (rule,), reason="sandbox network")
        loop = asyncio.get_running_loop()
        if not self._open:
            self._since = loop.time()
        self._open += 1
        try:
            answer = await self.ask(question)
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # a broken approver refuses (fail closed)
            return self._refuse(key, f"the request to approve {host} failed: {exc}")
        finally:
            self._open -= 1
            if not self._open:
                self._waited += loop.time() - self._since
        if isinstance(answer, PermissionAllow):
            self._grant(key if local else host)
            return None
        return self._refuse(key, f"the connection to {host} was not approved: {answer.message}")

    def _refuse(self, key: str, why: str) -> str:
        self.refused.setdefault(key, why)
        return why

    def _grants(self) -> frozenset[str]:
        return self.context.get_app_state().extra.get(GRANTS_KEY, frozenset())

    def _grant(self, host: str) -> None:
        self.context.set_app_state(
            lambda s: replace(s, extra={**s.extra, GRANTS_KEY: s.extra.get(GRANTS_KEY, frozenset()) | {host}})
        )


def asker(tool: Tool[Any, Any], input: BaseModel, context: ToolUseContext, can_use_tool: CanUseTool | None) -> Ask | None:
    """How a running tool call asks about a host: through ``can_use_tool``, on the call's own card
    (None without one: such hosts are refused)."""
    if can_use_tool is None:
        return None
    tool_use_id = CURRENT_TOOL_USE_ID.get() or ""

    async def ask(question: PermissionAsk) -> UserDecision:
        return await can_use_tool(tool, input, context, question, tool_use_id)

    return ask


class StaticGate:
    """Allows ``domains`` and refuses the rest without asking (tests, tools)."""

    def __init__(self, domains: Sequence[str]) -> None:
        self.domains = tuple(domains)

    async def check(self, host: str, port: int) -> str | None:
        return None if self.named(host, port) else f"{ascii_host(host)} is not in sandbox.network.allowedDomains"

    def named(self, host: str, port: int) -> bool:
        return any(entry_matches(e, ascii_host(host), port) for e in self.domains)
