"""Bash permission decision time vs. merely parsing the command with tree-sitter.

1,000 realistic agent commands (deterministic mix), each decided cold (analysis caches cleared
before every decision) through the whole pipeline ``has_permission_to_use_tool`` with a real
settings-like rule set, next to the bare ``tree-sitter`` parse of the same text.  Then the worst
case: one line of 5,000 simple commands.  Medians; run ``python benchmarks/permissions.py``.
"""

from __future__ import annotations

import random
import re
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from pydantic import BaseModel  # noqa: E402

from jupyter_agent.core.context import AppState, ToolUseContext  # noqa: E402
from jupyter_agent.core.permission_types import ToolPermissionContext  # noqa: E402
from jupyter_agent.core.tool import Tool  # noqa: E402
from jupyter_agent.permissions import bash_analysis, bash_parse  # noqa: E402
from jupyter_agent.permissions.bash import check_bash_permission, is_read_only_command  # noqa: E402
from jupyter_agent.permissions.bash_rules import compile_bash_pattern  # noqa: E402
from jupyter_agent.permissions.compiled import combined_regex  # noqa: E402
from jupyter_agent.permissions.decide import has_permission_to_use_tool  # noqa: E402
from jupyter_agent.permissions.rules import parse_rule_or_none  # noqa: E402

GOAL = 2.0
FILES = ["src/app.py", "tests/test_app.py", "README.md", "setup.cfg", "notebooks/a.ipynb", "data/x.csv"]
TEMPLATES = [
    "git status", "git diff", "git diff HEAD~1 -- {f}", "git log --oneline -n 20", "git add {f}",
    "git commit -m 'fix: handle empty input'", "git push origin main", "ls -la", "ls {d}",
    "cat {f}", "head -n 50 {f}", "tail -n 20 {f} | grep -n error", "wc -l {f} {g}",
    "grep -rn 'TODO' src/ | head -20", "rg -n 'def main' src", "find . -name '*.py' | xargs wc -l",
    "pytest -q {t}", "python -m pytest -x -q", "python {f}", "pip install -e '.[test]'",
    "npm run test -- --watch=false", "npm install", "make build && make test", "cd {d} && ls",
    "cd {d} && pytest -q", "echo \"$(date +%s)\"", "mkdir -p build && cp {f} build/",
    "rm -rf build", "sed -n '1,40p' {f}", "jq '.cells | length' {f}", "for f in *.py; do wc -l \"$f\"; done",
    "python - <<'EOF'\nimport sys\nprint(sys.version)\nEOF", "ruff check src tests", "ls | sort | uniq -c",
    "docker build -t app .", "curl -s https://example.com | head", "export PYTHONWARNINGS=ignore && pytest",
    "timeout 60 pytest -q {t} 2>&1 | tail -30", "env FOO=1 python {f} > out.log 2>&1",
    "diff -u {f} {g}", "du -sh {d}", "git stash list", "git branch -a && git remote -v",
]
RULES = ("Bash(git diff:*)", "Bash(git log:*)", "Bash(pytest:*)", "Bash(npm run test:*)", "Bash(make:*)")
DENY = ("Bash(rm -rf /:*)", "Bash(curl:*)", "Read(./.env)", "Edit(./.git/**)")


class _BashInput(BaseModel):
    command: str


class _Bash(Tool[_BashInput, str]):
    name = "Bash"
    input_schema = _BashInput

    def __init__(self) -> None:
        self.ctx: ToolUseContext | None = None

    async def check_permissions(self, input, context):
        self.ctx = context
        return check_bash_permission(input.command, context)

    def is_read_only(self, input) -> bool:
        return is_read_only_command(input.command, self.ctx)


def commands(n: int, seed: int = 7) -> list[str]:
    rnd = random.Random(seed)
    out = []
    for i in range(n):
        template = rnd.choice(TEMPLATES)
        out.append(template.format(f=rnd.choice(FILES), g=rnd.choice(FILES), d=rnd.choice(["src", "tests", "docs"]),
                                   t=f"tests/test_{i % 37}.py"))
    return out


def _clear() -> None:
    bash_parse._parse_cached.cache_clear()
    bash_analysis._analyze_cached.cache_clear()


def _decide(tool: _Bash, command: _BashInput, ctx: ToolUseContext) -> object:
    coro = has_permission_to_use_tool(tool, command, ctx)
    try:
        coro.send(None)
    except StopIteration as done:  # nothing in the pipeline suspends: drive it directly
        return done.value
    raise RuntimeError("the permission pipeline suspended unexpectedly")


def _time(fn, *args) -> float:
    t0 = time.perf_counter()
    fn(*args)
    return time.perf_counter() - t0


def _parse(command: str) -> None:
    bash_parse._parser().parse(command.encode())


def _cold_decision(tool: _Bash, command: str, ctx: ToolUseContext) -> float:
    """One decision from scratch: the input model is built first (as run_tool_use does)."""
    inp = _BashInput(command=command)
    _clear()
    return _time(_decide, tool, inp, ctx)


def _python_walk(command: str) -> None:
    """Reference: parse, then merely visit every node from Python (no analysis)."""
    stack = [bash_parse._parser().parse(command.encode()).root_node]
    while stack:
        node = stack.pop()
        stack.extend(node.children)


_SKELETON_PROGRAMS = frozenset({"ls", "cat", "head", "tail", "grep", "wc", "rg", "sed", "jq", "du", "sort", "uniq"})


def _skeleton(command: str, allow: re.Pattern[str]) -> bool:
    """Reference, not a decision: parse, collect each command's word texts, one set lookup and
    one regex per command.  No quoting, expansions, paths, redirections, wrappers or pipeline:
    the least Python any tree-sitter-based decision has to run."""
    stack = [bash_parse._parser().parse(command.encode()).root_node]
    verdict = True
    while stack:
        node = stack.pop()
        if node.type == "command":
            words = [child.text.decode() for child in node.named_children]
            if words[0] not in _SKELETON_PROGRAMS and not allow.fullmatch(" ".join(words)):
                verdict = False
        else:
            stack.extend(node.named_children)
    return verdict


def main() -> None:
    project = Path(tempfile.mkdtemp(prefix="perm-bench-"))
    for d in ("src", "tests", "docs"):
        (project / d).mkdir()
    ctx = ToolUseContext(cwd=project, session_dir=project / ".session")
    pc = ToolPermissionContext(allow_rules={"localSettings": RULES}, deny_rules={"projectSettings": DENY},
                               project_dir=project)
    ctx.set_app_state(lambda s: AppState(tool_permission_context=pc))
    tool = _Bash()
    cmds = commands(1000)
    for c in cmds[:50]:  # warm up imports and code paths
        _parse(c)
        _cold_decision(tool, c, ctx)
    allow = combined_regex(compile_bash_pattern(parse_rule_or_none(r).content) for r in RULES)
    parse_times, walk_times, skeleton_times, decide_times, warm_times = [], [], [], [], []
    for c in cmds:  # side by side, interleaved
        parse_times.append(_time(_parse, c))
        walk_times.append(_time(_python_walk, c))
        skeleton_times.append(_time(_skeleton, c, allow))
        decide_times.append(_cold_decision(tool, c, ctx))
        warm_times.append(_time(_decide, tool, _BashInput(command=c), ctx))
    p_med, d_med = statistics.median(parse_times) * 1e6, statistics.median(decide_times) * 1e6
    w_med, warm_med = statistics.median(walk_times) * 1e6, statistics.median(warm_times) * 1e6
    ratio = d_med / p_med
    print(f"1,000 commands: tree-sitter parse median {p_med:.1f} µs; parse + bare Python node walk "
          f"{w_med:.1f} µs")
    s_med = statistics.median(skeleton_times) * 1e6
    print(f"  reference: a skeleton with no security semantics (words, a set lookup, one regex) "
          f"median {s_med:.1f} µs = {s_med / p_med:.2f}x")
    print(f"  decision, cold (nothing cached) median {d_med:.1f} µs = {ratio:.2f}x the parse")
    print(f"  decision, same command again (analysis cached) median {warm_med:.1f} µs = {warm_med / p_med:.2f}x")

    big = " && ".join(
        c for c in commands(6000, seed=11) if "\n" not in c and not c.startswith(("curl", "rm"))
    )
    big_parse = statistics.median(_time(_parse, big) for _ in range(5)) * 1e3
    big_decide = statistics.median(_cold_decision(tool, big, ctx) for _ in range(5)) * 1e3
    n = big.count(" && ") + 1
    verdict = _decide(tool, _BashInput(command=big), ctx)
    print(f"{n} subcommands in one line: parse {big_parse:.1f} ms, cold decision {big_decide:.1f} ms "
          f"({big_decide / big_parse:.2f}x), verdict {type(verdict).__name__}")
    status = "pass" if ratio < GOAL else "fall short"
    print(f"RESULT permissions decision_vs_parse={ratio:.2f}x goal=<{GOAL:g}x {status}")


if __name__ == "__main__":
    main()
