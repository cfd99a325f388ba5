"""Issue 3's "Must be tested" list, one row per case: settings, tool input, expected decision.

``{P}`` in inputs is replaced by the project folder, ``{O}`` by a folder outside it.
"""

from __future__ import annotations

import pytest

from jupyter_agent.core.permission_types import PermissionDeny
from jupyter_agent.permissions.decide import has_permission_to_use_tool
from tests.permissions.conftest import verdict_name
from tests.permissions.tools import BashLike, EditLike, GlobLike, ReadLike, make_ctx

TOOLS = {
    "Bash": lambda: BashLike(),
    "Read": lambda: ReadLike(),
    "Glob": lambda: GlobLike(),
    "Edit": lambda: EditLike("Edit"),
    "Write": lambda: EditLike("Write"),
    "NotebookEdit": lambda: EditLike("NotebookEdit"),
}
GIT = {"allow": ("Bash(git:*)",)}
RM_DENY = {"deny": ("Bash(rm:*)",)}
ECHO = {"allow": ("Bash(echo:*)",)}
ENV_DENY = {"deny": ("Read(./.env)",)}

ROWS = [
    # 1. every part of a compound command must be allowed
    ("1-semicolon", GIT, "Bash", "git status; rm -rf x", "ask"),
    ("1-and", GIT, "Bash", "git status && rm -rf x", "ask"),
    ("1-or", GIT, "Bash", "git status || rm x", "ask"),
    ("1-pipe-sh", GIT, "Bash", "git status | sh", "ask"),
    ("1-background", GIT, "Bash", "git status & rm x", "ask"),
    ("1-newline", GIT, "Bash", "git status\nrm x", "ask"),
    ("1-pipe-amp", GIT, "Bash", "git status |& rm x", "ask"),
    ("1-control-alone", GIT, "Bash", "git status", "allow"),
    ("1-control-both-git", GIT, "Bash", "git status && git push", "allow"),
    # 2. an ask rule on one part asks for the whole line
    ("2-cd-push", {"ask": ("Bash(git push:*)",)}, "Bash", "cd /p && git push", "ask"),
    ("2-cd-inside-push", {"ask": ("Bash(git push:*)",), **GIT}, "Bash", "cd sub && git push", "ask"),
    ("2-bypass-still-asks", {"ask": ("Bash(git push:*)",), "mode": "bypassPermissions"}, "Bash",
     "git push origin", "ask"),
    # 3. a deny rule is found wherever the command hides
    ("3-and", RM_DENY, "Bash", "git fetch && rm -rf x", "deny"),
    ("3-xargs", RM_DENY, "Bash", "find . | xargs rm", "deny"),
    ("3-timeout", RM_DENY, "Bash", "timeout 5 rm x", "deny"),
    ("3-env", RM_DENY, "Bash", "FOO=1 rm x", "deny"),
    ("3-subst", RM_DENY, "Bash", "echo $(rm x)", "deny"),
    ("3-backtick", RM_DENY, "Bash", "echo `rm x`", "deny"),
    ("3-procsub", RM_DENY, "Bash", "cat <(rm x)", "deny"),
    ("3-nested-subst", RM_DENY, "Bash", "echo $(echo $(rm x))", "deny"),
    ("3-heredoc", RM_DENY, "Bash", "cat <<EOF\n$(rm x)\nEOF", "deny"),
    # 4. what cannot be parsed asks, even when an allow rule's prefix matches
    ("4-trailing-op", ECHO, "Bash", "echo ok && ", "ask"),
    ("4-unterminated", ECHO, "Bash", "echo 'ok", "ask"),
    ("4-var-program", ECHO, "Bash", "a=rm; $a -rf x", "ask"),
    # 5. code runners always ask, and deny rules still look inside them
    ("5-bash-c", {}, "Bash", "bash -c 'rm x'", "ask"),
    ("5-sh-c", {}, "Bash", "sh -c 'rm x'", "ask"),
    ("5-eval", {}, "Bash", 'eval "rm x"', "ask"),
    ("5-sudo", {}, "Bash", "sudo rm x", "ask"),
    ("5-bash-c-denied", RM_DENY, "Bash", "bash -c 'rm x'", "deny"),
    ("5-sh-c-denied", RM_DENY, "Bash", "sh -c 'rm x'", "deny"),
    ("5-eval-denied", RM_DENY, "Bash", 'eval "rm x"', "deny"),
    ("5-sudo-denied", RM_DENY, "Bash", "sudo rm x", "deny"),
    ("5-sudo-allowed-rule-still-asks", {"allow": ("Bash(sudo:*)",)}, "Bash", "sudo ls", "ask"),
    ("5-bash-allowed-rule-still-asks", {"allow": ("Bash(bash:*)",)}, "Bash", "bash -c 'ls'", "ask"),
    # 6. output redirection is a write
    ("6-redirect-denied", {"deny": ("Edit(./**)",)}, "Bash", "ls > out.txt", "deny"),
    ("6-redirect-append-denied", {"deny": ("Edit(./**)",)}, "Bash", "ls >> out.txt", "deny"),
    ("6-etc-passwd", {}, "Bash", "echo x > /etc/passwd", "ask"),
    ("6-etc-passwd-echo-allowed", ECHO, "Bash", "echo x > /etc/passwd", "ask"),
    ("6-redirect-default-asks", {}, "Bash", "ls > out.txt", "ask"),
    ("6-redirect-acceptedits", {"mode": "acceptEdits"}, "Bash", "ls > out.txt", "allow"),
    ("6-dev-null", {}, "Bash", "ls > /dev/null 2>&1", "allow"),
    # 7. leaving the working directories asks
    ("7-cd-tmp", {}, "Bash", "cd /tmp && ls", "ask"),
    ("7-pushd-parent", {}, "Bash", "pushd ..", "ask"),
    ("7-cd-inside", {}, "Bash", "cd sub && ls", "allow"),
    # 8. Read(./.env) denied: every way of naming the file
    ("8-read-rel", ENV_DENY, "Read", ".env", "deny"),
    ("8-read-abs", ENV_DENY, "Read", "{P}/.env", "deny"),
    ("8-read-dotdot", ENV_DENY, "Read", "{P}/sub/../.env", "deny"),
    ("8-read-symlink", ENV_DENY, "Read", "{P}/env-link", "deny"),
    ("8-edit", ENV_DENY, "Edit", "{P}/.env", "deny"),
    ("8-write", ENV_DENY, "Write", "{P}/.env", "deny"),
    ("8-write-symlink", ENV_DENY, "Write", "{P}/env-link", "deny"),
    ("8-bash-cat", ENV_DENY, "Bash", "cat .env", "deny"),
    ("8-bash-redirect-in", ENV_DENY, "Bash", "wc -l < .env", "deny"),
    ("8-bash-glob", ENV_DENY, "Bash", "cat .e*", "deny"),
    ("8-control-other-file", ENV_DENY, "Read", "{P}/a.py", "allow"),
    # 9. a symlink in the project to a denied file outside
    ("9-ssh-link", {"deny": ("Read(~/.ssh/**)",)}, "Read", "{P}/key", "deny"),
    ("9-ssh-direct", {"deny": ("Read(~/.ssh/**)",)}, "Read", "~/.ssh/id_rsa", "deny"),
    # 10. deny beats a more specific allow
    ("10-aws", {"deny": ("Bash(aws:*)",), "allow": ("Bash(aws s3 ls)",)}, "Bash", "aws s3 ls", "deny"),
    # 11. bypassPermissions still asks for protected paths
    ("11-git-config", {"mode": "bypassPermissions"}, "Edit", "{P}/.git/config", "ask"),
    ("11-claude-settings-new", {"mode": "bypassPermissions"}, "Edit", "{P}/.claude/settings.json", "ask"),
    ("11-write-claude", {"mode": "bypassPermissions"}, "Write", "{P}/.claude/settings.local.json", "ask"),
    ("11-bashrc", {"mode": "bypassPermissions"}, "Write", "~/.bashrc", "ask"),
    # session 50: more files a shell, a session or a program runs at start-up (each was written unasked)
    *((f"11-startup-{name}", {"mode": "bypassPermissions"}, "Write", name, "ask")
      for name in ("~/.bash_aliases", "~/.xprofile", "~/.pam_environment", "~/.cshrc", "~/.vimrc", "~/.tmux.conf",
                   "/etc/profile.d/x.sh", "/etc/bash.bashrc", "/etc/environment")),
    ("11-startup-bash", {"mode": "bypassPermissions"}, "Bash", "echo 'alias ls=\"rm -rf .\"' >> ~/.bash_aliases", "ask"),
    ("11-control-etc", {"mode": "bypassPermissions"}, "Write", "/tmp/profile", "allow"),
    ("11-mcp-json", {"mode": "bypassPermissions"}, "Write", "{P}/.mcp.json", "ask"),
    ("11-bash-redirect-git", {"mode": "bypassPermissions"}, "Bash", "echo x > .git/config", "ask"),
    ("11-control-plain-file", {"mode": "bypassPermissions"}, "Edit", "{P}/a.py", "allow"),
    ("11-control-bash", {"mode": "bypassPermissions"}, "Bash", "rm -rf build", "allow"),
    # 12. plan mode: read-only only; dontAsk: no asking
    ("12-plan-read", {"mode": "plan"}, "Read", "{P}/a.py", "allow"),
    ("12-plan-glob", {"mode": "plan"}, "Glob", "*.py", "allow"),
    ("12-plan-edit", {"mode": "plan"}, "Edit", "{P}/a.py", "deny"),
    ("12-plan-write", {"mode": "plan"}, "Write", "{P}/new.py", "deny"),
    ("12-plan-rm", {"mode": "plan"}, "Bash", "rm x", "deny"),
    ("12-plan-rm-allowed", {"mode": "plan", "allow": ("Bash(rm:*)",)}, "Bash", "rm x", "deny"),
    ("12-plan-ls", {"mode": "plan"}, "Bash", "ls -la", "allow"),
    ("12-dontask-edit", {"mode": "dontAsk"}, "Edit", "{P}/a.py", "deny"),
    ("12-dontask-bash", {"mode": "dontAsk"}, "Bash", "pytest -q", "deny"),
    ("12-dontask-read-outside", {"mode": "dontAsk"}, "Read", "{O}/data.txt", "deny"),
    ("12-dontask-allowed", {"mode": "dontAsk", **GIT}, "Bash", "git push", "allow"),
    ("12-dontask-read-inside", {"mode": "dontAsk"}, "Read", "{P}/a.py", "allow"),
    # 13. acceptEdits: inside runs, outside asks
    ("13-inside", {"mode": "acceptEdits"}, "Edit", "{P}/a.py", "allow"),
    ("13-outside", {"mode": "acceptEdits"}, "Edit", "{O}/data.txt", "ask"),
    ("13-symlink-out", {"mode": "acceptEdits"}, "Write", "{P}/out-link", "ask"),
    ("13-default-asks", {}, "Edit", "{P}/a.py", "ask"),
]


@pytest.mark.parametrize(("settings", "tool", "value", "expected"), [r[1:] for r in ROWS], ids=[r[0] for r in ROWS])
async def test_issue_rows(world, settings, tool, value, expected):
    ctx = make_ctx(
        world.project,
        allow=settings.get("allow", ()),
        deny=settings.get("deny", ()),
        ask=settings.get("ask", ()),
        mode=settings.get("mode", "default"),
    )
    value = value.replace("{P}", str(world.project)).replace("{O}", str(world.outside))
    t = TOOLS[tool]()
    inp = t.input_schema(command=value) if tool == "Bash" else (
        t.input_schema(pattern=value) if tool == "Glob" else t.input_schema(file_path=value)
    )
    verdict = await has_permission_to_use_tool(t, inp, ctx)
    assert verdict_name(verdict) == expected, verdict


async def test_plan_mode_denial_says_plan_mode(world):
    ctx = make_ctx(world.project, mode="plan")
    for tool, inp in ((EditLike(), {"file_path": "a.py"}), (BashLike(), {"command": "rm x"})):
        verdict = await has_permission_to_use_tool(tool, tool.input_schema(**inp), ctx)
        assert isinstance(verdict, PermissionDeny) and "Plan mode is on" in verdict.message


async def test_deny_message_names_the_rule(world):
    ctx = make_ctx(world.project, deny=("Bash(rm:*)",))
    verdict = await has_permission_to_use_tool(BashLike(), BashLike.input_schema(command="ls; rm -rf /"), ctx)
    assert isinstance(verdict, PermissionDeny) and "Bash(rm:*)" in verdict.message


# 14. hooks, as rows: the PreToolUse hook's behaviour, rules, command → what happened to the call
HOOK_SCRIPTS = {
    "exit2": "sys.stdin.read()\nprint('blocked: use the Makefile target', file=sys.stderr)\nsys.exit(2)\n",
    "deny": "json.load(sys.stdin)\nprint(json.dumps({'hookSpecificOutput': {'permissionDecision': 'deny', 'permissionDecisionReason': 'hook says no'}}))\n",
    "allow": "json.load(sys.stdin)\nprint(json.dumps({'hookSpecificOutput': {'permissionDecision': 'allow'}}))\n",
    "ask": "json.load(sys.stdin)\nprint(json.dumps({'hookSpecificOutput': {'permissionDecision': 'ask'}}))\n",
    "rewrite": "json.load(sys.stdin)\nprint(json.dumps({'hookSpecificOutput': {'updatedInput': {'command': 'echo rewritten'}}}))\n",
    "silent": "json.load(sys.stdin)\n",
}
HOOK_ROWS = [
    ("14-exit2-blocks", "exit2", {}, "ls", "deny", "blocked: use the Makefile target"),
    ("14-json-deny", "deny", {}, "ls", "deny", "hook says no"),
    ("14-allow-cannot-beat-deny-rule", "allow", RM_DENY, "rm x", "deny", "Bash(rm:*)"),
    ("14-allow-skips-prompt", "allow", {}, "pytest -q", "allow", "ran pytest -q"),
    ("14-allow-keeps-ask-rule", "allow", {"ask": ("Bash(git push:*)",)}, "git push", "ask", "ran git push"),
    ("14-allow-keeps-protected-path", "allow", {}, "echo x > .git/config", "ask", "ran echo"),
    ("14-ask-on-read-only", "ask", {}, "ls", "ask", "ran ls"),
    ("14-updated-input", "rewrite", {}, "ls", "allow", "ran echo rewritten"),
    ("14-silent-hook-changes-nothing", "silent", {}, "pytest -q", "ask", "ran pytest -q"),
]


@pytest.mark.parametrize(("kind", "settings", "command", "expected", "text"), [r[1:] for r in HOOK_ROWS],
                         ids=[r[0] for r in HOOK_ROWS])
async def test_hook_rows(world, approve, kind, settings, command, expected, text):
    import json
    import sys

    from jupyter_agent.core.orchestration import ToolUseRequest, run_tool_use
    from jupyter_agent.permissions.hooks import HOOKS_KEY, HookRunner
    from jupyter_agent.permissions.settings import load_settings

    script = world.root / f"{kind}.py"
    script.write_text(f"#!{sys.executable}\nimport json, sys\n" + HOOK_SCRIPTS[kind])
    script.chmod(0o755)
    (world.project / ".claude").mkdir()
    (world.project / ".claude" / "settings.json").write_text(json.dumps(
        {"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": str(script)}]}]}}))
    tool = BashLike()
    ctx = make_ctx(world.project, tools=(tool,), allow=settings.get("allow", ()), deny=settings.get("deny", ()),
                   ask=settings.get("ask", ()))
    ctx.extra[HOOKS_KEY] = HookRunner.from_settings(load_settings(world.project, home=world.home, trusted=True))
    outcome = await run_tool_use(ToolUseRequest("t1", "Bash", {"command": command}), ctx, approve)
    asked = bool(approve.asks)
    got = "deny" if outcome.is_error else ("ask" if asked else "allow")
    assert got == expected, outcome.text
    assert text in outcome.text
    assert bool(tool.calls) == (expected != "deny")
