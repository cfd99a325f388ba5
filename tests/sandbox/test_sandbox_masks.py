"""The sandbox holds the path rules a command's text cannot show, for real with bwrap.

A command the sandbox runs unasked computes paths at run time (``python -c "open('.env')"``):
the Read rules must hide those files inside, the Edit rules keep theirs read-only, and where
the sandbox cannot hold a rule the command asks as it would without the sandbox.
"""

from __future__ import annotations

import os
from dataclasses import replace

import pytest

from jupyter_agent.core.permission_types import ToolPermissionContext
from jupyter_agent.permissions.path_patterns import compile_pattern
from jupyter_agent.sandbox.masks import compute_masks
from tests.tasks.shell_support import bash

from .conftest import sandboxed_context

# the name is only put together at run time, where the Bash analysis cannot see it
READ_ENV = "python3 -c \"import sys; print(open(''.join(sys.argv[1:])).read())\" .e "


PEEK = """import sys
for name in open(sys.argv[1]).read().split():
    try:
        print(name, open(name).read())
    except OSError as exc:
        print(name, exc)
"""


def peek(work, *names) -> str:
    """A command printing each of ``names`` (only known at run time, from a file it reads)."""
    (work / "peek.py").write_text(PEEK)
    (work / "names.txt").write_text("\n".join(names))
    return "python3 peek.py names.txt"


def ruled(tmp_path, deny=(), ask=(), **settings):
    """A sandboxed session in ``tmp_path/work`` (the project) with these project rules."""
    ctx = sandboxed_context(tmp_path, **settings)
    pc = ToolPermissionContext(deny_rules={"projectSettings": tuple(deny)}, ask_rules={"projectSettings": tuple(ask)},
                               project_dir=tmp_path / "work")
    ctx.set_app_state(lambda s: replace(s, tool_permission_context=pc))
    return ctx


@pytest.fixture
def work(tmp_path):
    path = tmp_path / "work"
    path.mkdir()
    (path / ".env").write_text("API_KEY=s3cret\n")
    return path


async def test_a_read_denied_file_is_hidden_from_a_computed_path(tmp_path, work, approve, bwrap_ok):
    ctx = ruled(tmp_path, deny=["Read(./.env)"])
    out = await bash(ctx, approve, READ_ENV + "nv")
    assert approve.asks == []  # python needs approval, so it ran unasked only because it is sandboxed
    assert "s3cret" not in out.text
    assert "Permission denied: '.env'" in out.text  # the stand-in is unreadable, even for root
    assert "hidden by the permission rules" in out.text  # and the model is told why
    wrote = await bash(ctx, approve, "python3 -c \"open('.env', 'w').write('x')\"; rm -f .env; mv .env e2")
    assert (work / ".env").read_text() == "API_KEY=s3cret\n" and not (work / "e2").exists(), wrote.text
    listed = await bash(ctx, approve, "ls -a")
    assert "hidden by the permission rules" in listed.text and ".env" in listed.text  # the model is told why


async def test_folders_symlinks_and_hard_links_of_denied_files_are_hidden(tmp_path, work, approve, bwrap_ok, outside):
    (work / "secrets").mkdir()
    (work / "secrets" / "key.pem").write_text("PRIVATE-KEY")
    os.link(work / "secrets" / "key.pem", work / "notes.txt")  # a second name no rule matches
    (work / "alias").symlink_to(work / "secrets" / "key.pem")
    (outside / ".env").write_text("OUTSIDE=s3cret")
    (work / "linked").symlink_to(outside)  # linked/.env is the outside file
    ctx = ruled(tmp_path, deny=["Read(./secrets/**)", "Read(**/.env)"])
    out = await bash(ctx, approve, peek(work, "secrets/key.pem", "notes.txt", "alias", "linked/.env"))
    assert approve.asks == [], approve.asks
    assert "PRIVATE-KEY" not in out.text and "s3cret" not in out.text, out.text
    listing = await bash(ctx, approve, "python3 -c \"import os; print(sorted(os.listdir('.')))\"")
    assert "notes.txt" in listing.text  # hidden means unreadable, not removed


async def test_a_hard_link_outside_what_is_walked_asks(tmp_path, work, approve, bwrap_ok):
    (tmp_path / "elsewhere").mkdir()
    os.link(work / ".env", tmp_path / "elsewhere" / "copy")  # not in a working folder: cannot be found
    ctx = ruled(tmp_path, deny=["Read(./.env)"])
    await bash(ctx, approve, READ_ENV + "nv")
    assert len(approve.asks) == 1 and "hard link" in approve.asks[0][1].message


async def test_read_ask_rules_and_settings_deny_read_hide_too(tmp_path, work, approve, bwrap_ok, outside):
    (work / "data.csv").write_text("ssn,123")
    (outside / "token").write_text("tok-s3cret")
    ctx = ruled(tmp_path, ask=["Read(./data.csv)"], deny_read=(("projectSettings", f"/{outside}/token"),))
    out = await bash(ctx, approve, peek(work, "data.csv", f"{outside}/token"))
    assert approve.asks == [] and "123" not in out.text and "tok-s3cret" not in out.text, out.text


async def test_edit_rules_keep_their_paths_read_only(tmp_path, work, approve, bwrap_ok):
    (work / "locked").mkdir()
    (work / "locked" / "prod.yaml").write_text("replicas: 3\n")
    ctx = ruled(tmp_path, deny=["Edit(./locked/**)"])
    (work / "act.py").write_text(ACT)
    out = await bash(ctx, approve, "python3 act.py")
    assert approve.asks == []
    assert (work / "locked" / "prod.yaml").read_text() == "replicas: 3\n"
    assert not (work / "locked" / "new").exists() and not (work / "gone").exists(), out.text
    assert out.text.count("Read-only file system") == 2 and "Device or resource busy" in out.text, out.text
    assert (work / "free.txt").read_text() == "done", out.text  # the rest stays writable


ACT = """import os
for step in (lambda: open('locked/prod.yaml', 'w'), lambda: open('locked/new', 'w'),
             lambda: os.rename('locked', 'gone'), lambda: open('free.txt', 'w').write('done')):
    try:
        step()
    except OSError as exc:
        print(exc)
"""


async def test_an_edit_rule_the_sandbox_cannot_hold_asks(tmp_path, work, approve, bwrap_ok):
    ctx = ruled(tmp_path, deny=["Edit(*.lock)"])  # any new foo.lock anywhere would match
    await bash(ctx, approve, "python3 -c \"print(1)\"")
    assert len(approve.asks) == 1 and "Edit(*.lock) may match a file a command creates" in approve.asks[0][1].message
    missing = ruled(tmp_path, deny=["Edit(./deploy/**)"])  # deploy/ does not exist: a command could make it
    await bash(missing, approve, "python3 -c \"print(2)\"")
    assert len(approve.asks) == 2 and "does not exist yet" in approve.asks[1][1].message


async def test_a_protected_folder_cannot_be_swapped_for_a_fresh_copy(tmp_path, work, approve, bwrap_ok):
    (work / ".git" / "hooks").mkdir(parents=True)
    (work / ".git" / "config").write_text("[core]\n")
    (work / "sub" / ".claude").mkdir(parents=True)
    ctx = ruled(tmp_path, deny=["Edit(./sub/.claude/**)"])
    (work / "swap.py").write_text(SWAP)
    out = await bash(ctx, approve, "python3 swap.py")
    assert approve.asks == []
    assert not (work / "g").exists() and not (work / "s2").exists(), out.text
    assert not (work / ".git" / "hooks" / "pre-commit").exists()
    assert not (work / "sub" / ".claude" / "settings.json").exists()
    assert out.text.count("Device or resource busy") == 2, out.text


# move the folder holding a read-only path away, then build a writable one in its place
SWAP = """import os
for old, new, made in (('.git', 'g', '.git/hooks/pre-commit'), ('sub', 's2', 'sub/.claude/settings.json')):
    try:
        os.rename(old, new)
        os.makedirs(os.path.dirname(made))
        open(made, 'w').write('evil')
    except OSError as exc:
        print(exc)
"""


async def test_credential_variables_are_removed_or_masked(tmp_path, work, approve, bwrap_ok, monkeypatch):
    monkeypatch.setenv("JA_TEST_SECRET", "env-s3cret")
    monkeypatch.setenv("JA_TEST_MASKED", "masked-s3cret")
    ctx = ruled(tmp_path, env_deny=("JA_TEST_SECRET",), env_mask=("JA_TEST_MASKED", "JA_TEST_UNSET"))
    out = await bash(ctx, approve, "env; echo \"unset=${JA_TEST_UNSET-none}\"")
    assert "env-s3cret" not in out.text and "masked-s3cret" not in out.text
    assert "JA_TEST_MASKED=(hidden by sandbox.credentials)" in out.text and "JA_TEST_SECRET" not in out.text
    assert "unset=none" in out.text  # masking does not invent a variable


def _rules(*texts, project):
    return [(t, compile_pattern(t, project, project, fold=True)) for t in texts]


def test_masks_find_names_at_any_depth_and_only_them(tmp_path):
    for name in ("a/.env", "a/b/.env", "a/.envrc", ".ENV", "keys/x.pem", "keys/sub/y.pem", "x.pem.txt"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("s")
    masks = compute_masks(_rules(".env", "**/*.pem", project=str(tmp_path)), [], [str(tmp_path)])
    hidden = {os.path.relpath(p, tmp_path) for p, _is_dir in masks.hidden}
    assert hidden == {"a/.env", "a/b/.env", ".ENV", "keys/x.pem", "keys/sub/y.pem"} and masks.gaps == ()


def test_a_walk_past_its_budget_is_a_gap(tmp_path):
    for i in range(30):
        (tmp_path / f"f{i}").write_text("")
    masks = compute_masks(_rules(".env", project=str(tmp_path)), [], [str(tmp_path)], budget=10)
    assert masks.gaps and "more than" in masks.gaps[0]


def test_write_rules_bind_the_named_path_or_report_a_gap(tmp_path):
    (tmp_path / "cfg").mkdir()
    root = str(tmp_path)
    masks = compute_masks([], _rules("./cfg/**", "./cfg", project=root), [root])
    assert masks.read_only == (str(tmp_path / "cfg"),) and masks.gaps == ()
    whole = compute_masks([], _rules(f"/{tmp_path.parent}/**", project=root), [root])
    assert whole.read_only == (root,)  # a rule over the whole project keeps all of it read-only
    outside = compute_masks([], _rules("//etc/nothing-here/**", project=root), [root])
    assert outside.gaps == () and outside.read_only == ()  # cannot be created: / is read-only


def test_unchanged_folders_are_not_read_again_and_changed_ones_are(tmp_path, monkeypatch):
    from jupyter_agent.sandbox import walk as walk_module

    for name in ("a/x.py", "a/b/y.py", "c/z.py"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("")
    (tmp_path / "c" / "tools").symlink_to(tmp_path / "a")  # a folder with a symlink is always read
    now = walk_module.time.time_ns()
    monkeypatch.setattr(walk_module.time, "time_ns", lambda: now + 10**10)  # every folder looks settled
    scanned: list[str] = []
    real_scan = walk_module._scan
    monkeypatch.setattr(walk_module, "_scan", lambda lexical, *a: scanned.append(lexical) or real_scan(lexical, *a))
    rules = _rules(".env", project=str(tmp_path))
    assert compute_masks(rules, [], [str(tmp_path)]).hidden == ()
    assert len(scanned) == 6  # root, a, a/b, c, and c/tools, c/tools/b through the symlink
    scanned.clear()
    assert compute_masks(rules, [], [str(tmp_path)]).hidden == ()
    assert sorted(os.path.relpath(p, tmp_path) for p in scanned) == ["c"]
    (tmp_path / "a" / "b" / ".env").write_text("new secret")  # a/b changes: read again, found
    scanned.clear()
    found = compute_masks(rules, [], [str(tmp_path)])
    assert {p for p, _d in found.hidden} == {str(tmp_path / "a" / "b" / ".env")}
    assert sorted(os.path.relpath(p, tmp_path) for p in scanned) == ["a/b", "c", "c/tools/b"]


async def test_submodule_and_worktree_git_settings_stay_read_only(tmp_path, work, approve, bwrap_ok):
    """A submodule's config runs programs too (``core.fsmonitor`` on the next ``git status``)."""
    git = work / ".git"
    for folder in ("modules/sub/hooks", "modules/sub/modules/inner/hooks", "modules/sub/objects", "worktrees/w"):
        (git / folder).mkdir(parents=True)
    for name in ("modules/sub/config", "modules/sub/modules/inner/config", "worktrees/w/config.worktree"):
        (git / name).write_text("[core]\n")
    (work / "poke.py").write_text(
        "for name in open('names.txt').read().split():\n"
        "    try:\n        open(name, 'a').write('[core]\\n\\tfsmonitor = touch pwned\\n'); print('wrote', name)\n"
        "    except OSError as exc:\n        print(exc)\n"
    )
    names = ["modules/sub/config", "modules/sub/hooks/post-checkout", "modules/sub/modules/inner/config",
             "worktrees/w/config.worktree", "modules/sub/objects/pack-1"]
    (work / "names.txt").write_text("\n".join(f".git/{n}" for n in names))
    out = await bash(ruled(tmp_path), approve, "python3 poke.py")
    assert approve.asks == []
    assert out.text.count("Read-only file system") == 4, out.text
    assert "wrote .git/modules/sub/objects/pack-1" in out.text  # a submodule can still commit
    assert (git / "modules" / "sub" / "config").read_text() == "[core]\n"


async def test_a_submodule_cannot_be_given_a_program_to_run_on_git_status(tmp_path, approve, bwrap_ok):
    """End to end with git: the attack is real outside the sandbox, and refused inside it."""
    import subprocess

    def git(*args, cwd):
        subprocess.run(["git", "-c", "protocol.file.allow=always", *args], cwd=cwd, check=True, capture_output=True)

    (tmp_path / "inner").mkdir()
    git("init", "-q", cwd=tmp_path / "inner")
    git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "--allow-empty", "-m", "i", cwd=tmp_path / "inner")
    work = tmp_path / "work"
    work.mkdir()
    git("init", "-q", cwd=work)
    git("submodule", "add", "-q", str(tmp_path / "inner"), "sub", cwd=work)
    (work / "sub" / "new.txt").write_text("a change, so git status looks inside")
    payload = "[core]\n\tfsmonitor = \"touch ../PWNED; false\"\n"
    (work / "poke.py").write_text(f"open('.git/' + 'modules/sub/config', 'a').write({payload!r})\n")
    out = await bash(ruled(tmp_path), approve, "python3 poke.py")
    assert approve.asks == [] and "Read-only file system" in out.text, out.text
    subprocess.run(["git", "status", "--short"], cwd=work, capture_output=True)
    assert not (work / "PWNED").exists()
    with open(work / ".git" / "modules" / "sub" / "config", "a") as config:  # what the command tried
        config.write(payload)
    subprocess.run(["git", "status", "--short"], cwd=work, capture_output=True)
    assert (work / "PWNED").exists()  # git would have run it


def test_the_quick_name_test_never_turns_away_a_match(tmp_path):
    from jupyter_agent.sandbox.match import last_component

    root = str(tmp_path)
    cases = {
        "**/site-packages/*.pth": ["site-packages/a.pth", "site-packages/A.PTH", "site-packages/.pth"],
        "./config/*.yaml": ["config/x.yaml", "config/X.YAML", "config/.yaml"],
        "**/share/jupyter": ["share/jupyter", "share/JUPYTER", "x/share/Jupyter"],
        "a/b?c": ["a/bxc"],
        "**/x[0-9].txt": ["q/x1.txt"],
        "./data/Ünï*.csv": ["data/Ünïcode.csv", "data/ünïCODE.csv"],
        "**/k*e*y": ["a/kEEy", "a/key"],
    }
    for text, paths in cases.items():
        p = compile_pattern(text, root, root, fold=True)[0]
        quick = last_component(p)
        for rel in paths:
            full = os.path.join(root, rel)
            assert p.matches(full), (text, rel)
            assert quick is None or quick(os.path.basename(full)), (text, rel)
        if quick is not None:
            assert not quick("unrelated.txt")


def test_the_combined_name_test_of_a_walk_never_turns_away_a_match(tmp_path):
    """A walk tests each name against all its path patterns' last components at once (one
    regular expression); every pattern must still find its matches through it, folded or not,
    and a pattern with no quick test switches the combined test off."""
    from jupyter_agent.sandbox.match import Matcher

    root = str(tmp_path)
    folded = {
        "**/site-packages/*.pth": ["site-packages/a.pth", "lib/site-packages/A.PTH"],
        "**/share/jupyter": ["share/jupyter", "x/share/JUPYTER"],
        "./config/*.yaml": ["config/X.YAML"],
    }
    exact = {"./Docs/*.MD": ["Docs/x.MD"]}
    group = [(t, compile_pattern(t, root, root, fold=True)[0]) for t in folded]
    group += [(t, compile_pattern(t, root, root)[0]) for t in exact]
    match = Matcher(group, {})
    assert match.any_last is not None
    for rel in [r for rels in (*folded.values(), *exact.values()) for r in rels]:
        assert match.hit(os.path.join(root, rel), False, match.paths), rel
    for rel in ("Docs/x.md", "config/x.yml", "site-packages/a.pthx", "share/jupyter-lab", "unrelated.txt"):
        assert not match.hit(os.path.join(root, rel), False, match.paths), rel
    opaque = compile_pattern("./logs/**", root, root, fold=True)[0]
    wide = Matcher([*group, ("./logs/**", opaque)], {})
    assert wide.any_last is None and wide.hit(os.path.join(root, "logs", "x.txt"), False, wide.paths)
    assert match.hit(os.path.join(root, "site-packages", "ünï.pth"), False, match.paths)  # non-ASCII: tested in full


async def test_allow_write_adds_a_writable_folder(tmp_path, work, approve, bwrap_ok, outside):
    (outside / "cache").mkdir()
    (work / "fill.py").write_text(f"open({str(outside / 'cache' / 'fonts.json')!r}, 'w').write('{{}}')\n")
    refused = await bash(ruled(tmp_path), approve, "python3 fill.py")
    assert "Read-only file system" in refused.text and not (outside / "cache" / "fonts.json").exists()
    allowed = ruled(tmp_path, allow_write=(("userSettings", f"/{outside}/cache"),))
    out = await bash(allowed, approve, "python3 fill.py")
    assert (outside / "cache" / "fonts.json").read_text() == "{}", out.text
