"""The decision layer's fast paths give the same answers as the plain definitions.

``resolve_below`` against ``os.path.normpath``/``os.path.realpath`` on a tree full of symlinks;
the ``PathPattern`` prefix pre-test against the bare gitignore match; the combined Bash-rule
regex against the patterns one by one; the pipeline's memoised rule lookups and its lazy
read-only question against the behaviour they replace.  Symlinks made between two decisions
are seen by the next one.
"""

from __future__ import annotations

import dataclasses
import itertools
import os
import random
from pathlib import Path

import pytest
from pydantic import BaseModel

from jupyter_agent.core.context import AppState
from jupyter_agent.core.permission_types import (
    PermissionAllow,
    PermissionAsk,
    PermissionDeny,
    PermissionPassthrough,
    ToolPermissionContext,
)
from jupyter_agent.core.tool import Tool
from jupyter_agent.permissions.bash import check_bash_permission, is_read_only_command
from jupyter_agent.permissions.bash_rules import compile_bash_pattern
from jupyter_agent.permissions.compiled import combined_regex, compiled_rules
from jupyter_agent.permissions.decide import has_permission_to_use_tool
from jupyter_agent.permissions.path_patterns import compile_pattern
from jupyter_agent.permissions.paths import BadPath, resolve_below, resolve_path
from tests.permissions.tools import BashInput, BashLike, make_ctx


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    """A real folder with links of every kind: relative, absolute, to folders, dangling, looping."""
    base = tmp_path / "base"
    for d in ("src/pkg", "data", ".git", "deep/a/b"):
        (base / d).mkdir(parents=True)
    (base / "src/pkg/mod.py").write_text("x")
    (base / "data/file.txt").write_text("x")
    (tmp_path / "outside").mkdir()
    (tmp_path / "outside/.bashrc").write_text("x")
    links = {
        "to-src": "src",  # relative, to a folder
        "to-outside": str(tmp_path / "outside"),  # absolute, to a folder
        "to-bashrc": str(tmp_path / "outside/.bashrc"),  # absolute, to a protected file
        "dangling": "no/such/target",
        "loop1": "loop2",
        "loop2": "loop1",
        "up": "..",
        "src/pkg/back": "../../data",
        "deep/a/b/top": "../../../.git",
    }
    for name, target in links.items():
        os.symlink(target, base / name)
    return base


PATHS = [
    "", ".", "..", "src", "src/", "src/pkg/mod.py", "src//pkg", "./src/./pkg", "src/pkg/../pkg/mod.py",
    "to-src/pkg/mod.py", "to-src/../data", "to-outside", "to-outside/.bashrc", "to-outside/new/file",
    "to-bashrc", "dangling", "dangling/x", "loop1", "loop1/x", "up", "up/base/src", "src/pkg/back/file.txt",
    "src/pkg/back/../src", "deep/a/b/top/config", "missing", "missing/child", "missing/../to-src",
    "missing/../to-outside/.bashrc", "missing/./x", "a b/c", "~", "~/x", "/etc/../etc/hosts", "//tmp",
    "data/file.txt/", "data/file.txt/below", "src/pkg/mod.py/..", ".git/config", "...", ".hidden", "a:b/c",
    "to-src/pkg", "src/pkg/back", "to-src/pkg/back/file.txt", "up/base/to-src/pkg/mod.py", "file.txt",
]


@pytest.mark.parametrize("path", PATHS)
def test_resolve_below_is_normpath_and_realpath(tree: Path, path: str, monkeypatch) -> None:
    monkeypatch.setenv("HOME", str(tree / "src"))
    base = os.path.realpath(tree)
    joined = os.path.join(base, os.path.expanduser(path))
    expected = (os.path.normpath(joined), os.path.realpath(joined))
    assert resolve_below(path, base) == expected
    resolved = resolve_path(path, base, cwd_is_real=True)
    assert (resolved.lexical, resolved.real) == expected
    assert resolve_path(path, base) == resolved  # the general form agrees


def test_resolve_below_from_the_root_folder_and_random_paths(tree: Path) -> None:
    assert resolve_below("etc/hosts", "/") == ("/etc/hosts", os.path.realpath("/etc/hosts"))
    rnd = random.Random(3)
    parts = ["src", "pkg", "..", ".", "", "to-src", "up", "back", "mod.py", "missing", "loop1", "to-outside"]
    base = os.path.realpath(tree)
    for _ in range(400):
        path = "/".join(rnd.choice(parts) for _ in range(rnd.randint(1, 5)))
        joined = os.path.join(base, path)
        assert resolve_below(path, base) == (os.path.normpath(joined), os.path.realpath(joined)), path


def test_resolve_below_refuses_nul_and_urls(tree: Path) -> None:
    with pytest.raises(BadPath):
        resolve_below("a\x00b", str(tree))
    with pytest.raises(BadPath):
        resolve_below("https://example.com/x", str(tree))
    assert resolve_below("file:///etc/hosts", str(tree))[0] == "/etc/hosts"


PATTERNS = [
    "./.env", ".env", "/.env", "*.key", "secrets/**", "/secrets/**", "./src/**/*.py", "//etc/**", "~/.ssh/**",
    "src/pkg", "/a/b/", "/sp ace ", "!neg", "#comment", "/\\*lit", "**/x", "/src/*.py", "deep/a/**/top",
]


def test_path_pattern_prefix_is_only_a_shortcut(tree: Path, monkeypatch) -> None:
    monkeypatch.setenv("HOME", str(tree / "home"))
    project = os.path.realpath(tree)
    home = str(tree / "home")
    candidates = [
        f"{root}/{rel}" for root in (project, home, "/etc")
        for rel in (".env", ".envrc", "a.key", "secrets/x", "x/secrets/y", "src/pkg/mod.py", "src/a.py",
                    ".ssh/id_rsa", "src/pkg", "a/b/c", "sp ace", "sp ace /x", "neg", "*lit", "q/x", "x",
                    "deep/a/b/top", "deep/a/z/top", "hosts")
    ] + [project, "/", "/etc"]
    checked = 0
    for text in PATTERNS:
        for pattern in compile_pattern(text, project, project):
            bare = dataclasses.replace(pattern, prefix="")
            assert pattern.prefix.startswith(pattern.root.rstrip("/"))
            for path in candidates:
                assert pattern.matches(path) == bare.matches(path), (text, path)
                checked += pattern.matches(path)
    assert checked > 10  # the corpus does exercise matches


SPECIFIERS = ["git diff:*", "git log:*", "rm -rf /:*", "curl:*", "npm run test:*", "ls *", "git * --force",
              "echo hi", "*", "make", "a.b:*", "x(y):*", "python *.py", "rm *"]
TEXTS = ["git diff", "git diff HEAD", "git diffx", "git log --oneline", "rm -rf /", "rm -rf /tmp", "curl",
         "curl -s x", "curlx", "npm run test -- --w", "ls", "ls -la", "lsx", "git push --force", "echo hi",
         "echo hi there", "make", "make test", "a.b c", "aXb c", "x(y) z", "python a.py", "python a.py -x",
         "rm x\ny", "git diff\nrm -rf /", "", " ", "git  diff"]


def test_combined_bash_regex_is_the_patterns_one_by_one() -> None:
    for size in (1, 2, 3, len(SPECIFIERS)):
        for combo in itertools.combinations(SPECIFIERS, size):
            patterns = [compile_bash_pattern(s) for s in combo]
            regex = combined_regex(patterns)
            assert regex is not None
            for text in TEXTS:
                assert bool(regex.fullmatch(text)) == any(p.matches(text) for p in patterns), (combo, text)
            if size > 2:
                break
    assert combined_regex([]) is None


def test_a_symlink_made_between_two_decisions_is_seen(tmp_path: Path) -> None:
    project = tmp_path / "proj"
    (project / ".git").mkdir(parents=True)
    (tmp_path / "secret.txt").write_text("x")
    ctx = make_ctx(project, deny=(f"Read(/{tmp_path}/secret.txt)",))
    assert isinstance(check_bash_permission("cat notes.txt", ctx), PermissionAllow)
    os.symlink(tmp_path / "secret.txt", project / "notes.txt")
    assert isinstance(check_bash_permission("cat notes.txt", ctx), PermissionDeny)
    first = check_bash_permission("touch out/x", ctx)
    assert isinstance(first, PermissionAsk) and "touches" not in first.message
    os.symlink(project / ".git", project / "out")  # the argument now lands in .git/
    second = check_bash_permission("touch out/x", ctx)
    assert isinstance(second, PermissionAsk) and ".git" in second.message and second.reason
    os.symlink(tmp_path, project / "sub")  # sub now leads outside the project
    verdict = check_bash_permission("cd sub && ls", ctx)
    assert isinstance(verdict, PermissionAsk) and "outside the working directories" in verdict.message
    assert not is_read_only_command("cd sub && ls", ctx)
    os.unlink(project / "sub")
    (project / "sub").mkdir()
    assert isinstance(check_bash_permission("cd sub && ls", ctx), PermissionAllow)
    assert is_read_only_command("cd sub && ls", ctx)


def test_redirect_targets_keep_their_exact_meaning(tmp_path: Path) -> None:
    project = tmp_path / "proj"
    project.mkdir()
    ctx = make_ctx(project, mode="acceptEdits")
    assert isinstance(check_bash_permission("echo x > out.log", ctx), PermissionAllow)
    quoted = check_bash_permission("echo x > '~/.bashrc'", ctx)  # a file named ~ below the project
    assert isinstance(quoted, PermissionAsk) and ".bashrc" in quoted.message  # still a protected name
    url = check_bash_permission("echo x > 'a://b'", ctx)
    assert isinstance(url, PermissionDeny) and "not a local file path" in url.message
    outside = check_bash_permission(f"echo x > {tmp_path}/elsewhere.txt", ctx)
    assert isinstance(outside, PermissionAsk) and "outside the working directories" in outside.message


class _Input(BaseModel):
    value: str = ""


class _Probe(Tool[_Input, str]):
    """Counts the read-only questions; its own check is configurable."""

    name = "Probe"
    input_schema = _Input
    aliases = ("Sonde",)

    def __init__(self, own: object, read_only: bool | None) -> None:
        self.own, self.read_only, self.asked = own, read_only, 0

    async def check_permissions(self, input, context):
        return self.own

    def is_read_only(self, input) -> bool:
        self.asked += 1
        if self.read_only is None:
            raise RuntimeError("cannot tell")
        return self.read_only

    def prepare_permission_matcher(self, input):
        return lambda rule: rule == f"Probe({input.value})"  # gets the rule's text

    async def call(self, input, context, can_use_tool, parent_message, on_progress=None):
        raise AssertionError("not called")


@pytest.mark.parametrize(
    ("mode", "own", "read_only", "expected", "asked"),
    [
        ("default", PermissionAllow(), True, PermissionAllow, 0),  # the answer is not needed
        ("default", PermissionAsk("?"), False, PermissionAsk, 0),
        ("default", PermissionPassthrough(), True, PermissionAllow, 1),
        ("default", PermissionPassthrough(), False, PermissionAsk, 1),
        ("default", PermissionPassthrough(), None, PermissionAsk, 1),  # cannot tell: writes
        ("plan", PermissionAllow(), False, PermissionDeny, 1),
        ("plan", PermissionAllow(), None, PermissionDeny, 1),
        ("plan", PermissionPassthrough(), True, PermissionAllow, 1),  # asked once, used twice
        ("dontAsk", PermissionPassthrough(), False, PermissionDeny, 1),
    ],
)
async def test_read_only_is_asked_only_when_it_decides(tmp_path, mode, own, read_only, expected, asked) -> None:
    tool = _Probe(own, read_only)
    verdict = await has_permission_to_use_tool(tool, _Input(), make_ctx(tmp_path, mode=mode))
    assert isinstance(verdict, expected) and tool.asked == asked


async def test_rule_lookups_follow_the_current_context(tmp_path: Path) -> None:
    tool = _Probe(PermissionPassthrough(), False)
    ctx = make_ctx(tmp_path)
    assert isinstance(await has_permission_to_use_tool(tool, _Input(value="v"), ctx), PermissionAsk)
    for rules, value, expected in [
        ({"allow_rules": {"session": ("Sonde",)}}, "v", PermissionAllow),  # alias, whole tool
        ({"deny_rules": {"session": ("Probe(v)",)}}, "v", PermissionDeny),  # content rule
        ({"deny_rules": {"session": ("Probe(v)",)}}, "w", PermissionAsk),
        ({"ask_rules": {"session": ("Probe(w)",)}, "mode": "bypassPermissions"}, "w", PermissionAsk),
        ({"allow_rules": {"session": ("Probe(w)", "Other")}}, "w", PermissionAllow),
        ({"allow_rules": {"session": ("Other(w)",)}}, "w", PermissionAsk),
    ]:
        pc = ToolPermissionContext(project_dir=tmp_path, **rules)
        ctx.set_app_state(lambda s, pc=pc: AppState(tool_permission_context=pc))
        verdict = await has_permission_to_use_tool(tool, _Input(value=value), ctx)
        assert isinstance(verdict, expected), (rules, value, verdict)
    compiled = compiled_rules(ctx.permission_context)
    assert compiled.for_tool("Probe", ("Sonde",)) is compiled.for_tool("Probe", ("Sonde",))


class _Switcher(BashLike):
    """A tool whose own check replaces the permission context (as a mode change would)."""

    def __init__(self, new: ToolPermissionContext) -> None:
        super().__init__()
        self.new = new

    async def check_permissions(self, input, context):
        context.set_app_state(lambda s: AppState(tool_permission_context=self.new))
        return PermissionPassthrough()


async def test_rules_after_the_tools_own_check_come_from_the_new_context(tmp_path: Path) -> None:
    new = ToolPermissionContext(allow_rules={"session": ("Bash",)}, project_dir=tmp_path)
    ctx = make_ctx(tmp_path)
    verdict = await has_permission_to_use_tool(_Switcher(new), BashInput(command="rm x"), ctx)
    assert isinstance(verdict, PermissionAllow) and verdict.reason == "rule Bash"
    plan = ToolPermissionContext(mode="plan", project_dir=tmp_path)
    verdict = await has_permission_to_use_tool(_Switcher(plan), BashInput(command="rm x"), make_ctx(tmp_path))
    assert isinstance(verdict, PermissionDeny)


def test_fast_results_are_the_ordinary_frozen_objects() -> None:
    import copy
    import pickle

    from jupyter_agent.core.permission_types import PermissionUpdate
    from jupyter_agent.permissions.verdicts import _FAST, new_ask, new_update, sticky_ask

    assert _FAST  # the shortcut is in use (the classes still have the expected shape)
    update = new_update(("Bash(git push:*)",), "localSettings")
    plain_update = PermissionUpdate(rules=("Bash(git push:*)",), destination="localSettings")
    ask = new_ask("Run it?", (update,), "rule: x")
    plain = PermissionAsk("Run it?", suggestions=(plain_update,), reason="rule: x")
    assert ask == plain and hash(ask) == hash(plain) and repr(ask) == repr(plain)
    assert dataclasses.asdict(ask) == dataclasses.asdict(plain)
    assert pickle.loads(pickle.dumps(ask)) == plain and copy.deepcopy(ask) == plain
    assert new_ask("m") == PermissionAsk("m") and sticky_ask("m", "safety", "d").reason == "safety: d"
    with pytest.raises(dataclasses.FrozenInstanceError):
        ask.message = "other"  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        update.rules = ()  # type: ignore[misc]


def test_one_permission_context_seen_from_two_folders(tmp_path: Path) -> None:
    project, other = tmp_path / "proj", tmp_path / "other"
    (project / "sub").mkdir(parents=True)
    other.mkdir()
    (other / "x.txt").write_text("x")
    ctx = make_ctx(project, additional=(project,))
    moved = ctx.with_changes(cwd=project / "sub")  # same permission context, another cwd
    rules = compiled_rules(ctx.permission_context)
    for _ in range(2):  # alternate: each decision sees its own cwd
        assert rules.scope_of(ctx.cwd).real_cwd == os.path.realpath(project)
        assert rules.scope_of(moved.cwd).real_cwd == os.path.realpath(project / "sub")
        assert isinstance(check_bash_permission("cat ../other/x.txt", ctx), PermissionAsk)  # outside
        assert isinstance(check_bash_permission("cat ../x.txt", moved), PermissionAllow)
        assert rules.scope_of(str(project)) is rules.scope(str(project))


def test_answers_repeated_within_one_line_are_the_same_as_alone(tmp_path: Path) -> None:
    project = tmp_path / "proj"
    (project / ".git").mkdir(parents=True)
    (project / "src").mkdir()
    (project / ".env").write_text("S")
    os.symlink(project / ".git", project / "out")
    ctx = make_ctx(project, deny=("Read(./.env)",))
    alone = check_bash_permission("touch out/x", ctx)
    assert isinstance(alone, PermissionAsk) and alone.reason and ".git" in alone.message
    line = check_bash_permission(" && ".join(["touch a"] * 5 + ["touch out/x"] * 5 + ["cd src", "touch ../out/x"]), ctx)
    assert isinstance(line, PermissionAsk) and line.reason and line.message.count("touches") == 3  # first three shown
    searched = check_bash_permission(" && ".join(["grep -r KEY ."] * 4 + ["cd src", "grep -r KEY .."]), ctx)
    assert isinstance(searched, PermissionAsk) and "denies reading" in searched.message
    assert isinstance(check_bash_permission(" && ".join(["grep -r KEY src"] * 4), ctx), PermissionAllow)


def test_combined_regex_falls_back_for_a_pattern_it_cannot_translate() -> None:
    from jupyter_agent.permissions.bash_rules import BashPattern

    class Lenient(BashPattern):  # matches more than its fields say
        def matches(self, text: str) -> bool:
            return text.startswith(self.head)

    regex = combined_regex([compile_bash_pattern("curl:*"), Lenient("git")])
    assert regex is not None and regex.fullmatch("gitx") and regex.fullmatch("anything at all")
    strict = combined_regex([compile_bash_pattern("curl:*")])
    assert strict is not None and not strict.fullmatch("gitx") and strict.fullmatch("curl -s x")
