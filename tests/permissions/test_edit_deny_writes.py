"""An ``Edit`` deny rule holds against Bash's writing programs, not only redirections: with
``Edit(./locked/**)`` denied, ``rm locked/f.txt``, ``cp a.txt locked/`` or ``sed -i … locked/f.txt``
are denied even when a rule allows the program or the mode is bypassPermissions; a folder they
write or remove everything below (``rm -rf locked``, ``tar x -C locked``) asks.  Each row that
can run is run by real bash in a fresh project: a refused row must really change ``locked/``,
an allowed one must leave it as it was."""

from __future__ import annotations

import hashlib
import shutil
import subprocess
import tarfile
from pathlib import Path

import pytest

from tests.permissions.conftest import verdict_name
from tests.permissions.tools import decide_bash, make_ctx

DENY = ("Edit(./locked/**)",)

ROWS = [
    # (allow rule, command, expected)
    ("Bash(rm:*)", "rm locked/f.txt", "deny"),
    ("Bash(rm:*)", "rm locked/{f,g}.txt", "deny"),
    ("Bash(rm:*)", "rm lock*/f.txt", "deny"),
    ("Bash(rm:*)", "rm -rf locked", "ask"),
    ("Bash(rm:*)", "rm -rf build", "allow"),
    ("Bash(cp:*)", "cp a.txt locked/f.txt", "deny"),
    ("Bash(cp:*)", "cp a.txt locked/", "deny"),
    ("Bash(cp:*)", "cp -t locked a.txt", "deny"),
    ("Bash(cp:*)", "cp --target-directory=locked a.txt", "deny"),
    ("Bash(cp:*)", "cp -rt locked a.txt", "deny"),  # the option inside a cluster
    ("Bash(cp:*)", "cp --target locked a.txt", "deny"),  # abbreviated, value in the next word
    ("Bash(cp:*)", "cp a.txt b.txt", "allow"),
    ("Bash(mv:*)", "mv locked/f.txt build/", "deny"),
    ("Bash(mv:*)", "mv locked build/", "ask"),
    ("Bash(mv:*)", "mv a.txt b.txt", "allow"),
    ("Bash(install:*)", "install a.txt locked/", "deny"),
    ("Bash(ln:*)", "ln -sf /etc/hostname locked/f.txt", "deny"),
    ("Bash(sed:*)", "sed -i s/keep/gone/ locked/f.txt", "deny"),
    ("Bash(sed:*)", "sed -n p locked/f.txt", "allow"),
    ("Bash(sed:*)", "sed -i s/a/b/ a.txt", "allow"),
    ("Bash(perl:*)", "perl -pi -e s/keep/gone/ locked/f.txt", "deny"),
    ("Bash(touch:*)", "touch locked/new", "deny"),
    ("Bash(truncate:*)", "truncate -s 0 locked/f.txt", "deny"),
    ("Bash(tee:*)", "echo x | tee locked/f.txt", "deny"),
    ("Bash(chmod:*)", "chmod 600 locked/f.txt", "deny"),
    ("Bash(chmod:*)", "chmod -R 600 locked", "ask"),
    ("Bash(dd:*)", "dd if=a.txt of=locked/f.txt status=none", "deny"),
    ("Bash(sort:*)", "sort -o locked/f.txt a.txt", "deny"),
    ("Bash(sort:*)", "sort -uo locked/f.txt a.txt", "deny"),
    ("Bash(tar:*)", "tar xf ../x.tar -C locked", "deny"),  # the archive's members are read: f.txt lands there
    ("Bash(tar:*)", "tar xf ../x.tar", "deny"),  # into the project: it names locked/f.txt
    ("Bash(tar:*)", "tar xf ../x.tar -C build", "allow"),
    ("Bash(find:*)", "find locked -name f.txt -delete", "ask"),
    ("Bash(find:*)", "find build -delete", "allow"),
]


def _project(root: Path) -> Path:
    project = root / "proj"
    for name, text in {"locked/f.txt": "keep\n", "locked/g.txt": "keep\n", "a.txt": "a\n", "build/o.txt": "o\n"}.items():
        path = project / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    with tarfile.open(root / "x.tar", "w") as archive:  # holds locked/f.txt and f.txt
        archive.add(project / "a.txt", arcname="locked/f.txt")
        archive.add(project / "a.txt", arcname="f.txt")
    return project


def _state(folder: Path) -> dict[str, str]:
    return {str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest() + oct(p.stat().st_mode)
            for p in sorted(folder.rglob("*")) if p.is_file() or p.is_symlink()} | {"": str(folder.exists())}


@pytest.mark.parametrize(("rule", "command", "expected"), ROWS, ids=[r[1] for r in ROWS])
async def test_writing_programs_keep_edit_deny_rules(tmp_path, rule, command, expected):
    project = _project(tmp_path)
    for mode, allow in (("default", (rule,)), ("bypassPermissions", ())):
        verdict = await decide_bash(make_ctx(project, allow=allow, deny=DENY, mode=mode), command)
        assert verdict_name(verdict) == expected, (mode, command, verdict)
    if expected == "deny":
        assert "Edit(./locked/**)" in verdict.message
    if shutil.which(command.replace("echo x | ", "").split()[0]) is None:
        pytest.skip("program not installed")
    before = _state(project / "locked")
    subprocess.run(["bash", "-c", command], cwd=project, capture_output=True, timeout=30,
                   env={"PATH": "/usr/bin:/bin", "HOME": str(tmp_path)})
    changed = _state(project / "locked") != before
    assert changed is (expected != "allow"), command  # the row is real: it does (not) touch locked/


PROTECTED_ROWS = [
    # (command, expected, run it?) — rm and mv refuse `.` and `..` themselves, so those only decide
    ("rm -rf .", "ask", False),
    ("rm -rf ..", "ask", False),
    ("rm -rf ../proj", "ask", True),
    ("rm -rf build", "allow", True),
    ("chmod -R 700 .", "ask", True),
    ("mv ../proj ../moved", "ask", True),
    ("find . -delete", "ask", True),
    ("find build -delete", "allow", True),
    ("tar xf ../hooks.tar", "ask", True),  # the archive holds .git/hooks/post-commit
    ("tar xf ../hooks.tar -C build", "ask", False),  # the members are read: build/.git/hooks/… is protected too
    ("tar xf ../x.tar -C build", "allow", True),
    ("cp -r build/. .", "ask", True),  # build/ holds a .git/hooks/post-commit of its own
]


@pytest.mark.parametrize(("command", "expected", "run"), PROTECTED_ROWS, ids=[r[0] for r in PROTECTED_ROWS])
async def test_a_folder_holding_protected_paths_asks_in_bypass_mode(tmp_path, command, expected, run):
    """No rules at all, bypassPermissions: removing, moving or rewriting everything below a folder
    that holds ``.git`` still asks, as a write to ``.git`` itself does."""
    project = _project(tmp_path)
    (project / ".git" / "hooks").mkdir(parents=True)
    (project / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    (tmp_path / "payload").write_text("#!/bin/sh\necho pwned\n")
    with tarfile.open(tmp_path / "hooks.tar", "w") as archive:
        archive.add(tmp_path / "payload", arcname=".git/hooks/post-commit")
    if "build/." in command:
        (project / "build" / ".git" / "hooks").mkdir(parents=True)
        shutil.copy(tmp_path / "payload", project / "build" / ".git" / "hooks" / "post-commit")
    verdict = await decide_bash(make_ctx(project, mode="bypassPermissions"), command)
    assert verdict_name(verdict) == expected, verdict
    if not run:
        return
    before = _state(project / ".git")
    subprocess.run(["bash", "-c", command], cwd=project, capture_output=True, timeout=30,
                   env={"PATH": "/usr/bin:/bin", "HOME": str(tmp_path)})
    assert (_state(project / ".git") != before) is (expected == "ask"), command


@pytest.mark.parametrize(
    "command",
    ["cp a.txt hard-link", "echo x > hard-link", "echo x >> hard-link", "dd if=a.txt of={b,hard-link} status=none",
     "truncate -s 0 hard-link", "tee hard-link < a.txt"],
)
async def test_a_hard_link_to_a_denied_file_is_the_file(tmp_path, command):
    """A shell write lands in the file itself: through a hard link it changes ``locked/f.txt``.
    (The file tools write by renaming a new file into place, which leaves the linked file be.)"""
    project = _project(tmp_path)
    (project / "hard-link").hardlink_to(project / "locked" / "f.txt")
    verdict = await decide_bash(make_ctx(project, deny=DENY, mode="bypassPermissions"), command)
    assert verdict_name(verdict) == "deny" and "Edit(./locked/**)" in verdict.message
    subprocess.run(["bash", "-c", command], cwd=project, capture_output=True, timeout=30,
                   env={"PATH": "/usr/bin:/bin", "HOME": str(tmp_path)})
    assert (project / "locked" / "f.txt").read_text() != "keep\n", command  # the row is real


@pytest.mark.parametrize(("command", "expected"), [("cp a.txt locked/f.txt", "ask"), ("rm locked/g.txt", "ask"),
                                                   ("cp a.txt b.txt", "allow")])
async def test_an_edit_ask_rule_asks_before_a_writing_program(tmp_path, command, expected):
    project = _project(tmp_path)
    for mode, allow in (("default", ("Bash(cp:*)", "Bash(rm:*)")), ("bypassPermissions", ())):
        ctx = make_ctx(project, allow=allow, ask=DENY, mode=mode)
        verdict = await decide_bash(ctx, command)
        assert verdict_name(verdict) == expected, (mode, verdict)
