"""``sandbox.filesystem.denyRead`` over a whole folder (``["~/"]``), carved around the working
directories and ``sandbox.filesystem.allowRead``; the permission rules are never carved."""

from __future__ import annotations

import json
import os

import pytest

from jupyter_agent.errors import AgentConfigError
from jupyter_agent.permissions.path_patterns import compile_pattern
from jupyter_agent.sandbox.masks import compute_masks
from jupyter_agent.sandbox.match import last_component
from jupyter_agent.sandbox.settings import load_sandbox_settings
from jupyter_agent.sandbox.walk import find_matches
from tests.tasks.shell_support import bash

from .test_sandbox_masks import PEEK, ruled


def _rules(*texts, project):
    return tuple((t, compile_pattern(t, project, project, fold=True)) for t in texts)


def _tree(root, *names):
    for name in names:
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"content of {name}")


def _hidden(masks, root):
    return {os.path.relpath(p, root) for p, _is_dir in masks.hidden}


@pytest.fixture
def home(tmp_path, monkeypatch):
    path = tmp_path / "home"
    _tree(path, "secret.txt", ".aws/credentials", ".cache/pip/wheel.whl", ".cache/other/x",
          "code/proj/app.py", "code/proj/.env", "code/other/notes.txt")
    monkeypatch.setenv("HOME", str(path))
    return path


@pytest.mark.parametrize("text", ["~/", "~", "~/**"])
def test_a_folder_named_by_its_anchor_alone_covers_everything_in_it(home, text):
    """``denyRead: ["~/"]`` hid nothing: the walk's quick name test took ``~`` for a file name."""
    p = compile_pattern(text, str(home), str(home), fold=True)[0]
    quick = last_component(p)
    assert quick is None or quick("secret.txt")
    found, gaps = find_matches(((text, (p,)),))
    assert {os.path.relpath(f, home) for f in found} == {"secret.txt", ".aws", ".cache", "code"} and gaps == ()


def test_deny_read_is_carved_around_the_project_and_allow_read(home):
    project = str(home / "code" / "proj")
    masks = compute_masks(
        _rules("./.env", project=project), [], [project],
        open_rules=_rules("~/", project=project), reopened=[str(home / ".cache" / "pip")],
    )
    assert _hidden(masks, home) == {"secret.txt", ".aws", ".cache/other", "code/other", "code/proj/.env"}
    assert masks.gaps == ()


def test_allow_read_does_not_reopen_what_a_permission_rule_hides(home):
    project = str(home / "code" / "proj")
    masks = compute_masks(
        _rules("~/.aws/**", project=project), [], [project],
        open_rules=_rules("~/", project=project), reopened=[str(home / ".aws")],
    )
    hidden = _hidden(masks, home)
    assert ".aws" in hidden or ".aws/credentials" in hidden


def test_a_hard_link_between_shown_places_is_no_gap(home):
    os.link(home / "code" / "proj" / "app.py", home / ".cache" / "pip" / "app-link.py")
    project = str(home / "code" / "proj")
    masks = compute_masks((), [], [project], open_rules=_rules("~/", project=project),
                          reopened=[str(home / ".cache" / "pip")])
    assert masks.gaps == () and "code/proj/app.py" not in _hidden(masks, home)


def test_allow_read_is_held_back_in_an_untrusted_folder_and_takes_paths_only(tmp_path):
    project = tmp_path / "proj"
    (project / ".claude").mkdir(parents=True)
    settings = project / ".claude" / "settings.json"
    settings.write_text(json.dumps({"sandbox": {"filesystem": {"denyRead": ["~/"], "allowRead": ["~/.cache/**"]}}}))
    assert load_sandbox_settings(project, tmp_path / "h", trusted=True).allow_read == (("projectSettings", "~/.cache"),)
    untrusted = load_sandbox_settings(project, tmp_path / "h", trusted=False)
    assert untrusted.allow_read == () and untrusted.deny_read == (("projectSettings", "~/"),)
    settings.write_text(json.dumps({"sandbox": {"filesystem": {"allowRead": ["~/*.txt"]}}}))
    with pytest.raises(AgentConfigError, match="allowRead names paths, not patterns"):
        load_sandbox_settings(project, tmp_path / "h", trusted=True)


async def test_the_kernels_python_stays_readable(tmp_path, monkeypatch):
    from jupyter_agent.sandbox import policy
    from jupyter_agent.sandbox.settings import SandboxSettings

    runtime = tmp_path / "opt" / "python"
    _tree(tmp_path, "opt/python/bin/python3", "opt/secret", "work/app.py")
    monkeypatch.setattr(policy, "kernel_python_folders", lambda: (str(runtime),))
    settings = SandboxSettings(enabled=True, deny_read=(("userSettings", f"/{tmp_path}/opt/"),))
    ctx = ruled(tmp_path)
    masks, _found = await policy.sandbox_masks(ctx, settings, [str(tmp_path / "work")])
    assert _hidden(masks, tmp_path) == {"opt/secret"}


async def test_in_the_sandbox(outside, approve, bwrap_ok):
    """The project under a denied folder still works; a sibling is unreadable, an allowRead
    path readable, and a file a Read deny rule covers stays hidden inside the project.
    (Outside /tmp: the sandbox has its own.)"""
    _tree(outside, "work/app.py", "work/.env", "private.txt", "shared/readme.txt")
    ctx = ruled(outside, deny=["Read(./.env)"], deny_read=(("userSettings", f"/{outside}/"),),
                allow_read=(("userSettings", f"/{outside}/shared"),))
    (outside / "work" / "peek.py").write_text(PEEK)
    names = ["app.py", ".env", f"{outside}/private.txt", f"{outside}/shared/readme.txt"]
    (outside / "work" / "names.txt").write_text("\n".join(names))
    out = await bash(ctx, approve, "python3 peek.py names.txt")
    assert approve.asks == [], approve.asks
    assert "app.py content of work/app.py" in out.text and "content of shared/readme.txt" in out.text, out.text
    assert "content of private.txt" not in out.text and "content of work/.env" not in out.text, out.text


def test_a_write_rule_named_by_its_anchor_alone_keeps_that_folder_read_only(home):
    project = str(home / "code" / "proj")
    masks = compute_masks((), _rules("~/", project=project), [project])
    assert masks.read_only == (project,) and masks.gaps == ()  # not "may match a file a command creates"
