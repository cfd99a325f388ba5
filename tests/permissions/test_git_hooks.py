"""git runs its hooks, and pre-commit the hooks of its config: their commands meet the rules
(session 32's probe).

With ``Bash(git:*)`` allowed and ``Bash(rm:*)`` denied, ``git commit`` ran a
``.githooks/pre-commit`` (``core.hooksPath``) saying ``rm -rf build``, and ``pre-commit run`` (or the
hook ``pre-commit install`` writes) ran a local hook ``entry: rm -rf build``.  Now the hooks a git
command may run (``permissions/git_hooks.py``) and the hooks pre-commit runs
(``permissions/precommit_hooks.py``) are checked as scripts the line runs.
"""

from __future__ import annotations

import os
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from jupyter_agent.permissions.bash_analysis import analyze
from jupyter_agent.permissions.git_hooks import CLIENT_HOOKS, config_entries, hooks_run
from tests.permissions.conftest import verdict_name
from tests.permissions.tools import decide_bash, make_ctx

HAS_GIT = shutil.which("git") is not None
DENY = ("Bash(rm:*)",)


@pytest.fixture(autouse=True)
def _quiet_environment(monkeypatch, tmp_path):
    """The machine's git and pre-commit settings stay out of these tests."""
    for name in ("XDG_CONFIG_HOME", "XDG_CACHE_HOME", "GIT_CONFIG_GLOBAL", "GIT_DIR", "GIT_CONFIG_PARAMETERS",
                 "GIT_CONFIG_COUNT"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    monkeypatch.setenv("PRE_COMMIT_HOME", str(tmp_path / "pre-commit-store"))


def _hooks(world, config: str = "[core]\n\thooksPath = .githooks\n", **hooks: str) -> Path:
    (world.project / ".git" / "config").write_text(config)
    folder = world.project / ".githooks"
    folder.mkdir(exist_ok=True)
    for name, text in hooks.items():
        path = folder / name.replace("_", "-")
        path.write_text(text)
        path.chmod(0o755)
    return folder


def _ctx(world, allow=("Bash(git:*)",), deny=DENY, mode="default"):
    return make_ctx(world.project, allow=allow, deny=deny, mode=mode)


SH = "#!/bin/sh\n"
ROWS = [
    # (hooks, command, expected)
    ({"pre_commit": SH + "rm -rf build\n"}, "git commit -m x", "deny"),
    ({"pre_commit": SH + "rm -rf build\n"}, "git commit --amend --no-edit", "deny"),
    ({"pre_commit": SH + "rm -rf build\n"}, "git add -A && git commit -m x", "deny"),
    ({"pre_commit": SH + "rm -rf build\n"}, "timeout 60 git commit -m x", "deny"),
    ({"pre_commit": SH + "rm -rf build\n"}, "git -C sub commit -m x", "deny"),  # the same repository
    ({"pre_commit": SH + "rm -rf build\n"}, "git status", "allow"),  # runs post-index-change only
    ({"pre_commit": SH + "rm -rf build\n"}, "git log --oneline", "allow"),
    ({"pre_commit": SH + "rm -rf build\n"}, "git push origin main", "allow"),  # pushing runs pre-push
    ({"pre_commit": SH + "rm -rf build\n"}, "git merge topic", "deny"),  # any other command: any hook
    ({"pre_commit": "rm -rf build\n"}, "git commit -m x", "deny"),  # no #!: git runs it with sh
    ({"pre_commit": "#!/usr/bin/env bash\nset -e\nrm -rf build\n"}, "git commit -m x", "deny"),
    ({"pre_commit": SH + "ruff check src\n"}, "git commit -m x", "allow"),
    ({"pre_commit.sample": SH + "rm -rf build\n"}, "git commit -m x", "allow"),  # git runs no .sample
    ({"pre_push": SH + "rm -rf build\n"}, "git push origin main", "deny"),
    ({"pre_push": SH + "rm -rf build\n"}, "git commit -m x", "allow"),
    # --no-verify skips pre-commit and commit-msg (pre-push for push); commit's -n is it
    ({"pre_commit": SH + "rm -rf build\n"}, "git commit --no-verify -m x", "allow"),
    ({"pre_commit": SH + "rm -rf build\n"}, "git commit -nm x", "allow"),
    ({"commit_msg": SH + "rm -rf build\n"}, "git commit -anm x", "allow"),
    ({"pre_commit": SH + "rm -rf build\n"}, "git commit --no-veri -m x", "allow"),  # an abbreviation git takes
    ({"pre_commit": SH + "rm -rf build\n"}, "git commit --no-ver -m x", "deny"),  # (or --no-verbose)
    ({"pre_commit": SH + "rm -rf build\n"}, "git commit -mn x", "deny"),  # -m's value is "n"
    ({"pre_commit": SH + "rm -rf build\n"}, "git commit -m x -- --no-verify", "deny"),  # a path
    ({"prepare_commit_msg": SH + "rm -rf build\n"}, "git commit --no-verify -m x", "deny"),  # still runs
    ({"post_commit": SH + "rm -rf build\n"}, "git commit -n -m x", "deny"),
    ({"pre_push": SH + "rm -rf build\n"}, "git push --no-verify origin main", "allow"),
    ({"pre_push": SH + "rm -rf build\n"}, "git push -n origin main", "deny"),  # push's -n is --dry-run
    ({"post_index_change": SH + "rm -rf build\n"}, "git status", "deny"),  # status writes the index
    ({"post_index_change": SH + "rm -rf build\n"}, "git add a.py", "deny"),
    ({"reference_transaction": SH + "rm -rf build\n"}, "git branch topic", "deny"),
    ({"post_checkout": SH + "rm -rf build\n"}, "git switch main", "deny"),
    # a hook the line may change before git runs it: its commands are not known
    ({"pre_commit": SH + "true\n"}, "echo 'rm -rf x' >> .githooks/pre-commit; git commit -m x", "ask"),
    ({"pre_commit": SH + "true\n"}, "git pull && git commit -m x", "ask"),  # pull changes files
    ({"pre_commit": SH + "true\n"}, "git commit -m x", "allow"),
    ({"pre_commit": SH + "$HOOK_CMD\n"}, "git commit -m x", "ask"),  # code only known at run time
    ({}, 'git "$SUB"', "ask"),
    ({"pre_commit": "#!/usr/bin/env python3\nimport shutil; shutil.rmtree('b')\n"}, "git commit -m x", "allow"),
]


@pytest.mark.parametrize(("hooks", "command", "expected"), ROWS)
async def test_hooks_meet_the_rules(world, hooks, command, expected):
    _hooks(world, **hooks)
    verdict = await decide_bash(_ctx(world), command)
    assert verdict_name(verdict) == expected, (command, verdict)


@pytest.mark.parametrize("mode", ["bypassPermissions", "acceptEdits", "default"])
async def test_every_mode(world, mode):
    _hooks(world, pre_commit=SH + "rm -rf build\n")
    ctx = _ctx(world, allow=(), mode=mode)
    assert verdict_name(await decide_bash(ctx, "git commit -m x")) == "deny"


async def test_read_deny_rules_hold_too(world):
    _hooks(world, pre_commit=SH + "cat .env\n")
    ctx = _ctx(world, deny=("Read(./.env)",))
    assert verdict_name(await decide_bash(ctx, "git commit -m x")) == "deny"


async def test_the_message_names_the_hook(world):
    _hooks(world, pre_commit=SH + "rm -rf build\n")
    verdict = await decide_bash(_ctx(world), "git commit -m x")
    assert "the git hook ./.githooks/pre-commit" in verdict.message and "Bash(rm:*)" in verdict.message


async def test_a_program_hook_meets_rules_naming_it(world):
    _hooks(world, pre_push="#!/usr/bin/env python3\nprint(1)\n")
    ctx = _ctx(world, deny=("Bash(./.githooks/pre-push)",))
    assert verdict_name(await decide_bash(ctx, "git push")) == "deny"
    assert verdict_name(await decide_bash(ctx, "git status")) == "allow"


async def test_the_default_hooks_folder(world):
    hooks = world.project / ".git" / "hooks"
    hooks.mkdir()
    (hooks / "pre-commit").write_text(SH + "rm -rf build\n")
    (hooks / "commit-msg.sample").write_text(SH + "rm -rf build\n")
    ctx = _ctx(world)
    assert verdict_name(await decide_bash(ctx, "git commit -m x")) == "deny"
    (hooks / "pre-commit").unlink()
    verdict = await decide_bash(ctx, "git commit -m x")
    assert verdict_name(verdict) == "allow", verdict


@pytest.mark.parametrize("config", [
    "[core]\n\thooksPath = .githooks\n",
    '[core]\n\thooksPath = ".githooks" # where\n',
    "[CORE]\nHOOKSPATH=.githooks\n",
    "[core]\n\thooksPath = .git\\\nhooks\n",  # a continued line
    "[include]\n\tpath = ../extra.cfg\n",  # (relative to the including file: the project's)
    '[includeIf "gitdir:/nowhere/"]\n\tpath = ../extra.cfg\n',  # whatever the condition says
])
async def test_where_the_hooks_folder_is_set(world, config):
    (world.project / "extra.cfg").write_text("[core]\n  hooksPath = .githooks\n")
    _hooks(world, config, pre_commit=SH + "rm -rf build\n")
    assert verdict_name(await decide_bash(_ctx(world), "git commit -m x")) == "deny", config


async def test_global_and_environment_settings(world, monkeypatch):
    _hooks(world, "[core]\n", pre_commit=SH + "rm -rf build\n")
    ctx = _ctx(world)
    assert verdict_name(await decide_bash(ctx, "git commit -m x")) == "allow"  # .githooks is not used
    (world.home / ".gitconfig").write_text(f"[core]\n\thooksPath = {world.project / '.githooks'}\n")
    assert verdict_name(await decide_bash(ctx, "git commit -m x")) == "deny"
    (world.home / ".gitconfig").unlink()
    monkeypatch.setenv("GIT_CONFIG_COUNT", "1")
    monkeypatch.setenv("GIT_CONFIG_KEY_0", "core.hooksPath")
    monkeypatch.setenv("GIT_CONFIG_VALUE_0", ".githooks")
    assert verdict_name(await decide_bash(ctx, "git commit -m x")) == "deny"
    for name in ("GIT_CONFIG_COUNT", "GIT_CONFIG_KEY_0", "GIT_CONFIG_VALUE_0"):
        monkeypatch.delenv(name)
    monkeypatch.setenv("GIT_CONFIG_PARAMETERS", "'core.hooksPath'='.githooks'")
    assert verdict_name(await decide_bash(ctx, "git commit -m x")) == "ask"


async def test_an_include_loop_asks(world):
    (world.project / "loop.cfg").write_text("[include]\n\tpath = loop.cfg\n")
    _hooks(world, "[include]\n\tpath = ../loop.cfg\n", pre_commit=SH + "true\n")
    verdict = await decide_bash(_ctx(world), "git commit -m x")
    assert verdict_name(verdict) == "ask" and "too deeply" in verdict.message


async def test_a_linked_work_tree_uses_the_common_hooks(world):
    common = world.project / ".git"
    (common / "hooks").mkdir()
    (common / "hooks" / "pre-commit").write_text(SH + "rm -rf build\n")
    linked = common / "worktrees" / "wt"
    linked.mkdir(parents=True)
    (linked / "commondir").write_text("../..\n")
    tree = world.project / "sub"
    (tree / ".git").write_text(f"gitdir: {linked}\n")
    assert verdict_name(await decide_bash(_ctx(world), "cd sub && git commit -m x")) == "deny"


def test_config_entries():
    text = ('# c\n[core]\n\tHooksPath = "a b" ; note\n\teditor = vi\\\n m\n[remote "origin"]\n\turl = x\n'
            '[section.sub]\nflag\n[core]\n\tx = "q\\"t\\\\"  \n\tpad = v  # c\n')
    assert config_entries(text) == [("core", "hookspath", "a b"), ("core", "editor", "vi m"),
                                    ("remote", "url", "x"), ("section", "flag", "true"),
                                    ("core", "x", 'q"t\\'), ("core", "pad", "v")]


@pytest.mark.skipif(not HAS_GIT, reason="git is not installed")
def test_real_git_runs_no_hook_it_was_not_expected_to(tmp_path, monkeypatch):
    """Every hook in place, each logging its name: what real git runs for each command is among
    the hooks ``hooks_run`` names for it."""
    repo = tmp_path / "r"
    hooks = tmp_path / "hooks"
    hooks.mkdir()
    log = tmp_path / "log"
    for name in CLIENT_HOOKS:
        (hooks / name).write_text(f'#!/bin/sh\necho {name} >> "{log}"\n')
        (hooks / name).chmod(0o755)
    env = {**os.environ, "GIT_CONFIG_NOSYSTEM": "1", "HOME": str(tmp_path), "GIT_AUTHOR_NAME": "a",
           "GIT_AUTHOR_EMAIL": "a@b", "GIT_COMMITTER_NAME": "a", "GIT_COMMITTER_EMAIL": "a@b"}
    env.pop("GIT_DIR", None)
    monkeypatch.setenv("HOME", str(tmp_path))

    def git(*args: str) -> None:
        subprocess.run(["git", *args], cwd=repo, env=env, capture_output=True, timeout=60)

    subprocess.run(["git", "init", "-q", "-b", "main", str(repo)], env=env, check=True)
    git("config", "core.hooksPath", str(hooks))
    (repo / "f").write_text("1\n")
    git("add", "f")
    git("commit", "-qm", "one")
    commands = ["status", "diff", "log", "add f", "commit -qm two --allow-empty", "branch topic", "tag v1",
                "switch topic", "switch main", "merge --no-ff -m m topic", "reset -q HEAD~1", "stash list",
                "describe --always --dirty", "rev-parse HEAD", "show --stat", "restore f", "rm -q --cached f",
                "push . main:refs/heads/pushed", "fetch -q . main:refs/heads/fetched",
                "commit -q --no-verify -m three --allow-empty", "commit -qnm four --allow-empty"]
    seen = {}
    for command in commands:
        (repo / "f").write_text(command + "\n")  # something to refresh, stage or stash
        log.unlink(missing_ok=True)
        git(*command.split())
        ran = set(log.read_text().split()) if log.exists() else set()
        words = analyze("git " + command).commands[0].innermost
        expected = {os.path.basename(s.path or "") for s in hooks_run(words, str(repo), False)}
        assert ran <= expected, (command, ran - expected)
        seen[command] = ran
    # the facts the module relies on, seen here: add runs post-index-change, commit its hooks (status
    # runs it too when it refreshes the index, which depends on the clock: not asserted)
    assert "post-index-change" in seen["add f"] and "pre-commit" in seen["commit -qm two --allow-empty"]
    assert "reference-transaction" in seen["branch topic"] and "post-checkout" in seen["switch topic"]
    assert seen["log"] == set() and seen["rev-parse HEAD"] == set()
    for command in ("commit -q --no-verify -m three --allow-empty", "commit -qnm four --allow-empty"):
        assert "pre-commit" not in seen[command] and "prepare-commit-msg" in seen[command], seen[command]


# --- pre-commit ---

PRE_COMMIT_CONFIG = """\
default_stages: [pre-commit]
repos:
  - repo: local
    hooks:
      - id: clean
        name: clean
        entry: rm -rf build
        language: system
      - id: lint
        name: lint
        entry: ruff check
        language: system
      - id: peek
        name: peek
        entry: cat .env
        language: system
        stages: [push]
      - id: nocommit
        name: no commit
        entry: "rm -rf /"
        language: pygrep
      - id: failing
        name: failing
        entry: "rm -rf / is not allowed"
        language: fail
      - id: tool
        name: tool
        entry: tools/check.sh
        language: script
  - repo: meta
    hooks:
      - id: check-useless-excludes
"""
PC_ROWS = [
    ("pre-commit run", "deny"), ("pre-commit", "deny"), ("pre-commit run --all-files", "deny"),
    ("pre-commit run clean", "deny"), ("pre-commit run lint", "allow"), ("pre-commit run lint --all-files", "allow"),
    ("pre-commit run nocommit", "allow"), ("pre-commit run failing", "allow"),  # they run nothing
    ("pre-commit run peek", "allow"),  # a push-stage hook: not run at pre-commit
    ("pre-commit run --hook-stage push peek", "deny"), ("pre-commit run --hook-stage=pre-push peek", "deny"),
    ("pre-commit run tool", "deny"),  # language: script runs tools/check.sh (rm inside)
    ("uv run pre-commit run clean", "deny"), ("cd sub && pre-commit run clean", "deny"),
    ("pre-commit run -c other.yaml", "allow"), ("pre-commit run -c missing.yaml", "allow"),
    ('pre-commit run "$H"', "ask"), ("pre-commit try-repo ../x", "ask"),
    ("echo '  - repo: local' >> .pre-commit-config.yaml && pre-commit run lint", "ask"),
    ("pre-commit install", "ask"), ("pre-commit --version", "allow"), ("prek run clean", "deny"),
    ("python -m pre_commit run clean", "deny"),
]


def _pre_commit_project(world) -> None:
    (world.project / ".pre-commit-config.yaml").write_text(PRE_COMMIT_CONFIG)
    (world.project / "other.yaml").write_text("repos:\n- repo: local\n  hooks:\n  - {id: x, name: x, entry: ls, "
                                              "language: system}\n")
    (world.project / "tools").mkdir()
    (world.project / "tools" / "check.sh").write_text("#!/bin/sh\nrm -rf dist\n")


@pytest.mark.parametrize(("command", "expected"), PC_ROWS)
async def test_pre_commit_hooks_meet_the_rules(world, command, expected):
    _pre_commit_project(world)
    ctx = _ctx(world, allow=("Bash(pre-commit:*)", "Bash(prek:*)", "Bash(uv run:*)"), deny=(*DENY, "Read(./.env)"))
    verdict = await decide_bash(ctx, command)
    assert verdict_name(verdict) == expected, (command, verdict)


async def test_the_hook_pre_commit_installs(world):
    """``git commit`` runs the hook ``pre-commit install`` writes, which runs the config's hooks
    of its ``--hook-type``."""
    _pre_commit_project(world)
    hooks = world.project / ".git" / "hooks"
    hooks.mkdir()
    template = ("#!/usr/bin/env bash\n# File generated by pre-commit: https://pre-commit.com\n# ID: 1\n"
                "INSTALL_PYTHON=/usr/bin/python3\nARGS=(hook-impl --config=.pre-commit-config.yaml "
                "--hook-type={})\n" 'exec "$INSTALL_PYTHON" -mpre_commit "${{ARGS[@]}}"\n')
    (hooks / "pre-commit").write_text(template.format("pre-commit"))
    ctx = _ctx(world, deny=(*DENY, "Read(./.env)"))
    verdict = await decide_bash(ctx, "git commit -m x")
    assert verdict_name(verdict) == "deny" and "pre-commit's hook clean" in verdict.message
    (world.project / ".pre-commit-config.yaml").write_text(PRE_COMMIT_CONFIG.replace("rm -rf build", "ls"))
    (world.project / "tools" / "check.sh").write_text("#!/bin/sh\nls\n")
    verdict = await decide_bash(ctx, "git commit -m x")
    assert verdict_name(verdict) == "allow", verdict
    (hooks / "pre-push").write_text(template.format("pre-push"))  # runs peek: cat .env
    assert verdict_name(await decide_bash(ctx, "git push")) == "deny"


def _store(tmp_path: Path, url: str, rev: str, manifest: str | None) -> None:
    store = tmp_path / "pre-commit-store"
    clone = store / "repoabc"
    clone.mkdir(parents=True)
    if manifest is not None:
        (clone / ".pre-commit-hooks.yaml").write_text(manifest)
    with sqlite3.connect(store / "db.db") as db:
        db.execute("CREATE TABLE repos (repo TEXT NOT NULL, ref TEXT NOT NULL, path TEXT NOT NULL, "
                   "PRIMARY KEY (repo, ref))")
        db.execute("INSERT INTO repos VALUES (?, ?, ?)", (url, rev, str(clone)))
    db.close()


REMOTE = "repos:\n  - repo: https://example.com/hooks\n    rev: v1\n    hooks:\n      - id: {}\n"


@pytest.mark.parametrize(("manifest", "hook", "expected"), [
    ("- {id: fmt, name: f, entry: ruff format, language: python}\n", "fmt", "allow"),
    ("- {id: wipe, name: w, entry: rm -rf build, language: system}\n", "wipe", "deny"),
    ("- {id: s, name: s, entry: run.sh, language: script}\n", "s", "deny"),  # the clone's run.sh: rm
    ("- {id: fmt, name: f, entry: ruff format, language: python}\n", "other", "ask"),  # not in it
    (None, "fmt", "ask"),  # a clone without a manifest
])
async def test_remote_hooks_from_the_cache(world, tmp_path, manifest, hook, expected):
    _store(tmp_path, "https://example.com/hooks", "v1", manifest)
    if manifest is not None:
        (tmp_path / "pre-commit-store" / "repoabc" / "run.sh").write_text("#!/bin/sh\nrm -rf x\n")
    (world.project / ".pre-commit-config.yaml").write_text(REMOTE.format(hook))
    ctx = _ctx(world, allow=("Bash(pre-commit:*)",))
    assert verdict_name(await decide_bash(ctx, "pre-commit run")) == expected


async def test_remote_hooks_not_fetched_are_unknown(world, tmp_path):
    (world.project / ".pre-commit-config.yaml").write_text(REMOTE.format("fmt"))
    ctx = _ctx(world, allow=("Bash(pre-commit:*)",))
    verdict = await decide_bash(ctx, "pre-commit run")
    assert verdict_name(verdict) == "ask" and "has not fetched" in verdict.message
    # an entry the config gives itself is known without the clone
    (world.project / ".pre-commit-config.yaml").write_text(REMOTE.format("fmt") + "        entry: rm -rf x\n        language: system\n")
    verdict = await decide_bash(ctx, "pre-commit run")
    assert verdict_name(verdict) == "deny", verdict
    # without deny or ask rules, code only known at run time is what the allow rule allows
    assert verdict_name(await decide_bash(_ctx(world, allow=("Bash(pre-commit:*)",), deny=()), "pre-commit run")) \
        == "allow"


@pytest.mark.parametrize("text", ["repos: [", "repos: 3\n", "- a\n", "repos:\n  - 3\n"])
async def test_a_config_pre_commit_cannot_read_asks(world, text):
    (world.project / ".pre-commit-config.yaml").write_text(text)
    ctx = _ctx(world, allow=("Bash(pre-commit:*)",))
    assert verdict_name(await decide_bash(ctx, "pre-commit run")) == "ask"


@pytest.mark.skipif(not HAS_GIT or shutil.which("pre-commit", path=os.path.dirname(sys.executable)) is None,
                    reason="git or pre-commit is not installed")
async def test_real_pre_commit_runs_the_configs_hooks_from_git_commit(world, tmp_path):
    """The facts relied on, with the real programs: the hook ``pre-commit install`` writes has the
    mark and ``--config=`` this reads, and ``git commit`` runs a local hook of the config."""
    repo = world.project
    shutil.rmtree(repo / ".git")
    env = {**os.environ, "HOME": str(world.home), "PRE_COMMIT_HOME": str(tmp_path / "store"),
           "GIT_CONFIG_NOSYSTEM": "1", "GIT_AUTHOR_NAME": "a", "GIT_AUTHOR_EMAIL": "a@b", "GIT_COMMITTER_NAME": "a",
           "GIT_COMMITTER_EMAIL": "a@b", "PATH": os.path.dirname(sys.executable) + os.pathsep + os.environ["PATH"]}
    (repo / ".pre-commit-config.yaml").write_text(
        "repos:\n- repo: local\n  hooks:\n  - {id: mark, name: mark, entry: touch ran-by-hook, language: system, "
        "pass_filenames: false, always_run: true}\n")
    for args in (["git", "init", "-q"], ["pre-commit", "install"], ["git", "add", "a.py", ".pre-commit-config.yaml"],
                 ["git", "commit", "-qm", "x"]):
        subprocess.run(args, cwd=repo, env=env, check=True, capture_output=True, timeout=120)
    assert (repo / "ran-by-hook").exists()  # git commit ran the config's hook
    ctx = _ctx(world, deny=("Bash(touch:*)",))
    verdict = await decide_bash(ctx, "git commit -m y")
    assert verdict_name(verdict) == "deny" and "pre-commit's hook mark" in verdict.message


GIT_CONFIG_SAMPLE = ('# c\n[core]\n\tHooksPath = "a b" ; note\n\teditor = vi\\\n m\n[remote "origin"]\n\turl = x\n'
                     '[section.sub]\nflag\n[core]\n\tx = "q\\"t\\\\"  \n\tpad = v  # c\n'
                     '\tsp =   lead  "  in "  tail   \n[include]\n\tpath = ~/other ; x\n')


@pytest.mark.skipif(not HAS_GIT, reason="git is not installed")
def test_config_entries_read_as_git_reads_them(tmp_path):
    path = tmp_path / "config"
    path.write_text(GIT_CONFIG_SAMPLE)
    listed = subprocess.run(["git", "config", "--file", str(path), "--list"], capture_output=True, text=True,
                            check=True, timeout=30).stdout.splitlines()
    from_git = []
    for line in listed:
        name, eq, value = line.partition("=")
        from_git.append((name.split(".")[0], name.rsplit(".", 1)[1], value if eq else "true"))
    assert config_entries(GIT_CONFIG_SAMPLE) == from_git


# --- configuration files git includes that are not protected ---

@pytest.mark.parametrize(("settings", "command", "mode", "expected"), [
    ("[core]\n\tfsmonitor = rm -rf x\n", "git status", "bypassPermissions", "deny"),
    ("[core]\n\tfsmonitor = rm -rf x\n", "git log", "bypassPermissions", "deny"),
    ("[alias]\n\tst = !rm -rf y\n", "git st", "bypassPermissions", "deny"),
    ("[alias]\n\tst = !ls\n", "git st", "bypassPermissions", "ask"),  # names a program: asks in every mode
    ("[core]\n\tpager = less -R\n", "git log", "acceptEdits", "ask"),
    ('[diff "nb"]\n\ttextconv = cat .env\n', "git diff", "bypassPermissions", "deny"),  # Read(./.env)
    ("[user]\n\tname = x\n", "git status", "bypassPermissions", "allow"),
    ("[user]\n\tname = x\n", "echo '[alias] x = !ls' >> project.gitconfig && git status", "bypassPermissions", "ask"),
    ("[include]\n\tpath = deeper.gitconfig\n", "git status", "bypassPermissions", "ask"),  # include: names a file
    ("[core]\n\thooksPath = /tmp\n", "git status", "bypassPermissions", "ask"),  # where hooks come from
    ("[core]\n\tautocrlf = input\n", "git status", "bypassPermissions", "allow"),
])
async def test_included_configuration(world, settings, command, mode, expected):
    (world.project / ".git" / "config").write_text("[core]\n\tbare = false\n[include]\n\tpath = ../project.gitconfig\n")
    (world.project / "project.gitconfig").write_text(settings)
    (world.project / "deeper.gitconfig").write_text("[core]\n\teditor = vi\n")
    ctx = make_ctx(world.project, allow=("Bash(git:*)",), deny=("Bash(rm:*)", "Read(./.env)"), mode=mode)
    verdict = await decide_bash(ctx, command)
    assert verdict_name(verdict) == expected, (command, verdict)


async def test_included_files_outside_or_protected(world):
    """One outside the working directories is the user's (writing it asks, and dotfiles often
    include one), as is one in a protected folder: they are not read as commands of the line."""
    (world.home / "extra.gitconfig").write_text("[core]\n\tpager = less -R\n")
    (world.project / ".git" / "extra").write_text("[core]\n\tfsmonitor = rm -rf x\n")
    (world.project / ".git" / "config").write_text(f"[include]\n\tpath = {world.home}/extra.gitconfig\n"
                                                   "\tpath = extra\n")
    ctx = make_ctx(world.project, allow=("Bash(git:*)",), deny=("Bash(rm:*)",), mode="bypassPermissions")
    assert verdict_name(await decide_bash(ctx, "git log")) == "allow"
    ctx = make_ctx(world.project, allow=("Bash(git:*)",), deny=("Bash(less:*)",), mode="bypassPermissions")
    assert verdict_name(await decide_bash(ctx, "git log")) == "allow"
    (world.project / ".git" / "config").write_text("[include]\n\tpath = ../extra.gitconfig\n")
    (world.project / "extra.gitconfig").write_text("[core]\n\tpager = less -R\n")  # the same, inside
    assert verdict_name(await decide_bash(ctx, "git log")) == "deny"


@pytest.mark.skipif(not HAS_GIT, reason="git is not installed")
def test_real_git_runs_what_an_included_file_names(tmp_path):
    """The fact relied on: git status runs core.fsmonitor from a file .git/config includes, and an
    alias's !code, with the value read as config_entries reads it (the ; starts a comment)."""
    env = {**os.environ, "GIT_CONFIG_NOSYSTEM": "1", "HOME": str(tmp_path)}
    subprocess.run(["git", "init", "-q", str(tmp_path / "r")], env=env, check=True)
    repo = tmp_path / "r"
    subprocess.run(["git", "config", "include.path", "../project.gitconfig"], cwd=repo, env=env, check=True)
    (repo / "project.gitconfig").write_text("[core]\n\tfsmonitor = touch by-fsmonitor; false\n"
                                            "[alias]\n\tst = !touch by-alias\n")
    for args in (["git", "status"], ["git", "st"]):
        subprocess.run(args, cwd=repo, env=env, capture_output=True, timeout=60)
    assert (repo / "by-fsmonitor").exists() and (repo / "by-alias").exists()
    assert ("core", "fsmonitor", "touch by-fsmonitor") in config_entries((repo / "project.gitconfig").read_text())


# --- husky: core.hooksPath = .husky/_, whose hooks run .husky/NAME (husky 9.1's index.js writes them) ---

HUSKY_WRAPPER = '#!/usr/bin/env sh\n. "$(dirname "$0")/h"'


@pytest.mark.parametrize(("user_hook", "expected"), [
    ("npm test\nrm -rf dist\n", "deny"),
    ("ruff check src\n", "allow"),
    ('#!/usr/bin/env sh\n. "$(dirname -- "$0")/_/husky.sh"\n\nrm -rf dist\n', "deny"),  # husky 4-8's first line
    ('#!/usr/bin/env sh\n. "$(dirname -- "$0")/_/husky.sh"\n\nruff check src\n', "allow"),
    (None, "allow"),  # no .husky/pre-commit: h exits at once
])
async def test_husky_hooks(world, user_hook, expected):
    husky = world.project / ".husky"
    (husky / "_").mkdir(parents=True)
    (world.project / ".git" / "config").write_text("[core]\n\thooksPath = .husky/_\n")
    (husky / "_" / "pre-commit").write_text(HUSKY_WRAPPER)
    (husky / "_" / "h").write_text('#!/usr/bin/env sh\nsh -e "$(dirname "$(dirname "$0")")/$(basename "$0")" "$@"\n')
    if user_hook is not None:
        (husky / "pre-commit").write_text(user_hook)
    verdict = await decide_bash(_ctx(world), "git commit -m x")
    assert verdict_name(verdict) == expected, verdict
    if expected == "deny":
        assert "./.husky/pre-commit" in verdict.message


@pytest.mark.parametrize(("command", "expected"), [
    # a hook, a config or a task file the line makes before the runner reads it: its code is not known
    ("printf '#!/bin/sh\\nrm -rf x\\n' > .githooks/pre-commit && git commit -m x", "ask"),
    ("printf 'repos: []' > .pre-commit-config.yaml; pre-commit run", "ask"),

    ("git commit -m x", "allow"),
    ("uv sync && git commit -m x", "ask"),  # uv may write .githooks/pre-commit (no such file yet)
    ("uv sync && git -c core.hooksPath=.git/hooks commit -m x", "ask"),  # (-c asks anyway)
])
async def test_what_the_line_makes_first(world, command, expected):
    _hooks(world, "[core]\n\thooksPath = .githooks\n")
    (world.project / ".git" / "hooks").mkdir()
    (world.project / ".git" / "hooks" / "pre-commit").write_text(SH + "ruff check src\n")
    ctx = _ctx(world, allow=("Bash(git:*)", "Bash(printf:*)", "Bash(pre-commit:*)", "Bash(uv:*)"), mode="bypassPermissions")
    verdict = await decide_bash(ctx, command)
    assert verdict_name(verdict) == expected, (command, verdict)


async def test_a_protected_hooks_folder_is_changed_only_by_naming_it(world):
    """.git/hooks is protected: a program that does not name it is not taken to write its hooks
    (writing there by name asks in every mode)."""
    (world.project / ".git" / "hooks").mkdir()
    (world.project / ".git" / "hooks" / "pre-commit").write_text(SH + "ruff check src\n")
    ctx = _ctx(world, allow=("Bash(git:*)", "Bash(uv:*)", "Bash(echo:*)"), mode="bypassPermissions")
    assert verdict_name(await decide_bash(ctx, "uv sync && git commit -m x")) == "allow"
    assert verdict_name(await decide_bash(ctx, "echo 'rm -rf x' >> .git/hooks/pre-commit; git commit -m x")) == "ask"


async def test_a_hooks_folder_the_line_makes(world):
    """core.hooksPath names a folder not made yet: the line that makes it and a hook in it runs
    code only known when it runs."""
    (world.project / ".git" / "config").write_text("[core]\n\thooksPath = .hooks2\n")
    ctx = _ctx(world, allow=("Bash(git:*)", "Bash(printf:*)", "Bash(mkdir:*)"), mode="bypassPermissions")
    command = "mkdir -p .hooks2 && printf 'rm -rf x' > .hooks2/pre-commit && git commit -m x"
    assert verdict_name(await decide_bash(ctx, command)) == "ask"
    assert verdict_name(await decide_bash(ctx, "git commit -m x")) == "allow"


@pytest.mark.parametrize("mark", ["# File generated by pre-commit: https://pre-commit.com", '# call_lefthook run "pre-commit"'])
async def test_a_mark_outside_git_hooks_is_not_taken_for_a_generated_hook(world, mark):
    """pre-commit's and lefthook's marks make a hook in .git/hooks (protected) stand for their
    configuration's commands; in a core.hooksPath folder any edit may add the mark to its own
    commands, which are read as they are (the mark hid them: allowed before)."""
    _hooks(world, pre_commit=f"#!/bin/sh\n{mark}\nrm -rf build\n")
    ctx = _ctx(world, mode="bypassPermissions")
    assert verdict_name(await decide_bash(ctx, "git commit -m x")) == "deny"
