"""Write oracle: in acceptEdits mode, what the analyzer allows must only write where edits may go.

A root holds the project (with ``.git/``, ``.claude/``, a file an ``Edit`` rule denies, links to
an outside folder and to a file there), the outside folder and a home folder.  Lines that write
through redirections to the many ways of naming a file are decided in ``acceptEdits`` mode
(``Edit(./secret.txt)`` denied); each one that is **allowed** really runs in bash (inside
``bwrap`` when it works), and afterwards nothing may have changed outside the project, in a
protected folder, or in the denied file.  Raise ``WRITE_ORACLE_EXAMPLES`` to hunt.
"""

from __future__ import annotations

import asyncio
import functools
import hashlib
import os
import shlex
import shutil
import stat
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from jupyter_agent.core.permission_types import PermissionAllow
from jupyter_agent.permissions.bash import check_bash_permission
from tests.permissions.test_read_deny_oracle import BASH, _bwrap_works, _run
from tests.permissions.tools import decide_bash, make_ctx

EXAMPLES = int(os.environ.get("WRITE_ORACLE_EXAMPLES", "200"))

pytestmark = pytest.mark.skipif(not os.path.exists(BASH), reason="needs /bin/bash")

WRITERS = ["echo x >", "echo x >>", "echo x &>", "ls >", "echo x >|", "echo x 2>", "cat a.txt >", "echo x 1>",
           "printf y >", "echo x >&2 2>", "cd", "pushd", "cd -P", "cd .. && cd"]
TARGETS = [
    "out.txt", "./out.txt", "sub/../out.txt", "sub/new.txt", "../outside/x", "../outside/data.txt",
    "/tmp/../{root}/outside/x", "link-out", "linkdir/x", "linkdir/../x", "sub/../../outside/y",
    ".git/config", ".git/hooks/pre-commit", ".claude/settings.json", ".claude/new.json", "secret.txt",
    "./secret.txt", "sub/../secret.txt", "sec*", "{a,secret.txt}", "~+/../outside/z", "~/x", "~+/out.txt",
    "$'../outside/w'", "$(echo ../outside/v)", "\"../outside/u\"", "'../outside/t'", "../proj-evil/x",
    "/{root}/outside/s", ".bashrc", "../home/.bashrc", ".mcp.json", ".vscode/settings.json", "sub",
    "linkdir", "/dev/null", "/dev/stderr", "out.txt sub/../../outside/r",
]
JOINS = [" && ", "; ", " | ", "\n"]


def _tree(root: Path, project: Path) -> dict[str, str]:
    """Every file and link below ``root`` with a digest of what it is and its mode."""
    seen: dict[str, str] = {}
    for dirpath, dirnames, filenames in os.walk(root):
        for name in dirnames + filenames:
            path = Path(dirpath) / name
            if path.is_symlink():
                seen[str(path)] = "link:" + os.readlink(path)
            elif path.is_file():
                seen[str(path)] = hashlib.sha256(path.read_bytes()).hexdigest() + oct(path.stat().st_mode)
            else:
                seen[str(path)] = "dir" + oct(path.stat().st_mode)
    return seen


def _may_change(path: str, project: Path) -> bool:
    rel = os.path.relpath(path, project)
    if rel.startswith(".."):
        return False
    first = rel.split(os.sep, 1)[0]
    return first not in (".git", ".claude", ".vscode", ".mcp.json", ".bashrc", "secret.txt")


def _world(root: Path) -> Path:
    project = root / "proj"
    for folder in (project / "sub", project / ".git" / "hooks", project / ".claude", root / "outside",
                   root / "home", root / "proj-evil"):
        folder.mkdir(parents=True, exist_ok=True)
    (project / "a.txt").write_text("alpha\n")
    (project / "secret.txt").write_text("keep\n")
    (project / ".git" / "config").write_text("[core]\n")
    (root / "outside" / "data.txt").write_text("outside\n")
    os.symlink(root / "outside" / "data.txt", project / "link-out")
    os.symlink(root / "outside", project / "linkdir")
    return project


@pytest.fixture
def world(tmp_path):
    project = _world(tmp_path)
    ctx = make_ctx(project, deny=("Edit(./secret.txt)",), mode="acceptEdits")
    return tmp_path, project, ctx


def _check(root: Path, project: Path, ctx, line: str, sandbox: bool) -> None:
    line = line.replace("{root}", str(root).lstrip("/"))
    if isinstance(check_bash_permission(line, ctx), PermissionAllow):
        _judge(root, project, line, sandbox, "", _world)


# the devices a line may write into (`curl -o /dev/null`): none may be removed, replaced or
# changed (`rm -f /dev/null` once ran under `Bash(rm:*)`), as `stat -c` shows them after the
# line, where it ran, next to what they were before any line ran
DEVICES = ("/dev/null", "/dev/tty", "/dev/stdout", "/dev/stderr")
_LOOK = "stat -c '%n %F %a %u %t %T' " + " ".join(DEVICES)


def _devices(output: str) -> dict[str, str]:
    seen = dict.fromkeys(DEVICES, "missing")
    for row in output.splitlines():
        name, _, rest = row.partition(" ")
        if name in seen:
            seen[name] = rest
    return seen


@functools.cache
def _devices_before(sandbox: bool) -> dict[str, str]:
    with tempfile.TemporaryDirectory() as folder:
        (Path(folder) / "p").mkdir()
        return _devices(_run(_LOOK, Path(folder) / "p", sandbox))


_HOST_DEVICES = {name: (os.lstat(name), os.readlink(name) if os.path.islink(name) else None)
                 for name in DEVICES if os.path.lexists(name)}


def _repair_devices() -> list[str]:
    """Put back a device an allowed line broke (the judge then fails)."""
    now = _devices(_run(_LOOK, Path("/tmp"), False))
    broken = [name for name in DEVICES if now[name] != _devices_before(False)[name]]
    for name in broken:
        if os.path.lexists(name):
            os.remove(name)
        if name not in _HOST_DEVICES:
            continue
        was, target = _HOST_DEVICES[name]
        if target is not None:
            os.symlink(target, name)
        else:
            os.mknod(name, was.st_mode, was.st_rdev)
            os.chmod(name, stat.S_IMODE(was.st_mode))
            os.chown(name, was.st_uid, was.st_gid)
    return broken


def _judge(root: Path, project: Path, line: str, sandbox: bool, how: str, remake) -> None:
    """Run the allowed ``line``; nothing outside the project or guarded may have changed, nor
    a device (looked at after the line, in its sandbox).  Then a fresh world (``remake``)."""
    before = _tree(root, project)
    # (timeout: a line that hangs, cp into a fifo, still lets the look run)
    looked = _run(f"timeout -k 1 7 {BASH} --norc --noprofile -c {shlex.quote(line)} >/dev/null 2>&1 </dev/null; "
                  f"{_LOOK}", project, sandbox)
    after = _tree(root, project)
    changed = {p for p in before.keys() | after.keys() if before.get(p) != after.get(p)}
    wrong = sorted(p for p in changed if not _may_change(p, project))
    if "/dev/null" in looked:  # (else the look did not run: the line outlasted even that)
        wrong += sorted(name for name, seen in _devices(looked).items() if seen != _devices_before(sandbox)[name])
    wrong += _repair_devices()  # (bwrap's /dev holds the host's device nodes: a chmod there is one here)
    assert not wrong, f"allowed {line!r}{how}, and it changed {wrong}"
    shutil.rmtree(root)
    root.mkdir()
    remake(root)


SANDBOX = _bwrap_works()


def test_the_oracle_can_see_a_write_outside(world):
    root, project, ctx = world
    _run("echo x > ../outside/data.txt", project, SANDBOX)
    assert (root / "outside" / "data.txt").read_text() == "x\n"
    assert not isinstance(check_bash_permission("echo x > ../outside/data.txt", ctx), PermissionAllow)


@pytest.mark.parametrize("line", [f"{w} {t}" for w in ("echo x >", "echo x >>") for t in TARGETS])
def test_fixed_lines(world, line):
    root, project, ctx = world
    _check(root, project, ctx, line, SANDBOX)


@settings(max_examples=EXAMPLES, deadline=None, derandomize=EXAMPLES <= 200,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(st.lists(st.tuples(st.sampled_from(WRITERS), st.sampled_from(TARGETS), st.sampled_from(JOINS)),
                min_size=1, max_size=3))
def test_generated_lines(world, parts):
    root, project, ctx = world
    line = "".join(f"{w} {t}{j}" for w, t, j in parts).rstrip(" |&;\n")
    _check(root, project, ctx, line, SANDBOX)


# acceptEdits lets mkdir / touch / cp / mv / rmdir / rm run unasked on files inside the working
# directories (bash_accept_edits.py): whatever it allows, nothing outside or protected changes
ACCEPT_WRITERS = [
    "cp a.txt", "cp -r sub", "cp -a sub", "cp -rT sub", "mv a.txt", "mv sub", "rm -f", "rm", "rmdir", "touch",
    "touch -r a.txt", "mkdir -p", "mkdir", "cp -t", "mv -t", "cp a.txt sub/../", "cd sub && cp ../a.txt",
]


@pytest.mark.parametrize("line", [f"{w} {t}" for w in ACCEPT_WRITERS for t in TARGETS])
def test_accept_edits_filesystem_lines(world, line):
    root, project, ctx = world
    _check(root, project, ctx, line, SANDBOX)


@settings(max_examples=EXAMPLES // 2, deadline=None, derandomize=EXAMPLES <= 200,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(st.lists(st.tuples(st.sampled_from(ACCEPT_WRITERS + WRITERS), st.sampled_from(TARGETS), st.sampled_from(JOINS)),
                min_size=2, max_size=3))
def test_accept_edits_generated_lines(world, parts):
    root, project, ctx = world
    line = "".join(f"{w} {t}{j}" for w, t, j in parts).rstrip(" |&;\n")
    _check(root, project, ctx, line, SANDBOX)


def test_the_oracle_sees_a_filesystem_command_write_outside(world):
    root, project, ctx = world
    for line in ("cp a.txt linkdir/", "touch ../outside/new", "mv a.txt link-out"):
        assert not isinstance(check_bash_permission(line, ctx), PermissionAllow), line
    _run("cp a.txt linkdir/ && touch ../outside/new", project, SANDBOX)
    assert (root / "outside" / "a.txt").exists() and (root / "outside" / "new").exists()
    assert isinstance(check_bash_permission("cp a.txt sub/ && touch sub/new && mkdir -p sub/x", ctx), PermissionAllow)


# bypassPermissions, writing programs instead of redirections: whatever runs, the file the Edit
# rule denies and the protected folders stay as they were
PROGRAM_WRITERS = [
    "cp a.txt", "cp -r sub", "mv a.txt", "mv sub", "rm -f", "rm -rf", "touch", "sed -i s/k/X/",
    "perl -pi -e s/k/X/", "tee", "truncate -s 0", "chmod 600", "ln -sf a.txt", "install -m 644 a.txt",
    "dd if=a.txt status=none of=", "sort a.txt -o", "cp -t", "chmod -R 700", "cp a.txt sub/../",
    "cd sub && cp ../a.txt", "cp -rT sub",
]
PROGRAM_TARGETS = [
    "secret.txt", "./secret.txt", "sec*", "{a,secret.txt}", "{secret,x}.txt", "sub/../secret.txt",
    "link-secret", "hl-secret", ".git/config", ".git", ".claude", ".", "sub", "out.txt", "sub/new.txt",
    "../proj", "linkdir", ".GIT/config", "SECRET.txt", "s?cret.txt",
]


def _program_world(root: Path) -> Path:
    project = _world(root)
    os.symlink("secret.txt", project / "link-secret")
    os.link(project / "secret.txt", project / "hl-secret")  # the same file under another name
    (project / "sub" / "b.txt").write_text("keep\n")
    return project


def _guarded(root: Path, project: Path) -> dict[str, str]:
    tree = _tree(root, project)
    return {p: d for p, d in tree.items() if not _may_change(p, project) and os.path.relpath(p, project)[:2] != ".."}


def _allowed_in_bypass_mode(project: Path, line: str) -> bool:
    """The whole pipeline's answer (the mode turns the tool's plain asks into allows)."""
    ctx = make_ctx(project, deny=("Edit(./secret.txt)",), mode="bypassPermissions")
    return isinstance(asyncio.run(decide_bash(ctx, line)), PermissionAllow)


def _check_program(root: Path, line: str, sandbox: bool) -> None:
    project = root / "proj"
    if not _allowed_in_bypass_mode(project, line):
        return
    before = _guarded(root, project)
    _run(line, project, sandbox)
    after = _guarded(root, project)
    wrong = sorted(p for p in before.keys() | after.keys() if before.get(p) != after.get(p))
    assert not wrong, f"allowed {line!r} in bypassPermissions mode, and it changed {wrong}"
    shutil.rmtree(root)
    root.mkdir()
    _program_world(root)


@pytest.mark.parametrize("line", [f"{w} {t}" for w in ("cp a.txt", "rm -f", "touch") for t in PROGRAM_TARGETS])
def test_program_fixed_lines(tmp_path, line):
    _program_world(tmp_path)
    _check_program(tmp_path, line, SANDBOX)


@settings(max_examples=EXAMPLES, deadline=None, derandomize=EXAMPLES <= 200,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(st.lists(st.tuples(st.sampled_from(PROGRAM_WRITERS), st.sampled_from(PROGRAM_TARGETS),
                          st.sampled_from(JOINS)), min_size=1, max_size=2))
def test_program_generated_lines(tmp_path_factory, parts):
    root = tmp_path_factory.mktemp("program-oracle")
    _program_world(root)
    line = "".join(f"{w}{'' if w.endswith('=') else ' '}{t}{j}" for w, t, j in parts).rstrip(" |&;\n")
    _check_program(root, line, SANDBOX)


# files named inside a script or built at run time, and programs outside the known writers
SCRIPT_WRITERS = [
    "sed -n 'w {}' a.txt", "sed -n 's/k/X/w {}' a.txt", "awk '{{ print > \"{}\" }}' a.txt",
    "history -s x; history -w {}", "cp a.txt $(echo {})", "F={}; cp a.txt $F", "cp a.txt ~+/{}",
    "split -b 1 a.txt {}", "gzip -f {}", "xz -f {}", "mkdir -p {}/x",
]


@pytest.mark.parametrize("line", [w.format(t) for w in SCRIPT_WRITERS for t in PROGRAM_TARGETS
                                  if not any(c in t for c in "*?{")])
def test_program_script_lines(tmp_path, line):
    _program_world(tmp_path)
    _check_program(tmp_path, line, SANDBOX)


def _fresh_program_world(tmp_path):
    """The program oracle's world again, in an emptied ``tmp_path`` (one per judged line)."""
    shutil.rmtree(tmp_path)
    tmp_path.mkdir()
    return _program_world(tmp_path)


def test_the_program_oracle_can_see_a_change(tmp_path):
    """The judge is real: these lines do change what is guarded (and are not allowed), while an
    ordinary write is allowed in this mode."""
    assert _allowed_in_bypass_mode(_program_world(tmp_path), "cp a.txt out.txt && rm -rf sub")
    for line in ("cp a.txt hl-secret", "cp a.txt link-secret", "rm -rf .git", "chmod -R 700 .", "sed -i s/k/X/ sec*"):
        project = _fresh_program_world(tmp_path)
        before = _guarded(tmp_path, project)
        _run(line, project, SANDBOX)
        assert _guarded(tmp_path, project) != before, line
        assert not _allowed_in_bypass_mode(project, line), line


# default mode, every writing program allowed by a rule of its own (`Bash(cp:*)`, `Bash(tar:*)` …):
# a rule allows the program, not the place, so whatever runs changes nothing outside the project
# (nor a protected path, nor the denied file); the writes outside ask instead
RULED_WRITERS = [
    "cp a.txt {t}", "cp -r sub {t}", "mv a.txt {t}", "rm -f {t}", "rm -rf {t}", "touch {t}", "tee {t} < a.txt",
    "truncate -s 0 {t}", "ln -sf a.txt {t}", "install -m 644 a.txt {t}", "dd if=a.txt status=none of={t}",
    "sort a.txt -o {t}", "cp -t {t} a.txt", "mkdir -p {t}/new", "tar cf {t} a.txt", "gzip -kf {t}",
    "split -l 1 a.txt {t}", "uniq a.txt {t}", "shuf -o {t} a.txt", "mkfifo {t}", "chmod 600 {t}",
    "cd sub && cp ../a.txt {t}", "echo {t} | xargs rm -f", "find {t} -name data.txt -delete",
    "sed -i s/o/X/ {t}", "sed -n 'w {t}' a.txt",
    "cp --parents a.txt {t}", "cp -b a.txt {t}", "mv -b a.txt {t}", "install -D a.txt {t}/deep",
    "sed -i.bak s/o/X/ {t}", "curl -s file:///etc/hostname -o {t}", "zip -q {t} a.txt", "xxd a.txt {t}",
    "csplit -s -f {t} a.txt 1", "cp -rT sub {t}", "ln a.txt {t}", "cp -r -b -S /../../outside/bk sub {t}",
    "gzip -S .x -kf {t}", "tee -a {t} < a.txt", "cp -a sub/. {t}",
    # what find -exec runs writes where it writes too; {} is below what find searches
    "find . -name a.txt -exec cp {} {t} \\;", "find sub -exec touch {t} \\;", "find {t} -name '*' -exec rm -rf {} +",
    "find . -name a.txt -exec mv {} {t} \\;",
]
RULED_TARGETS = [t for t in TARGETS if not t.startswith(("$", "\"", "'"))] + ["../outside", "~/new", "../home/x",
                                                                              "/dev/tty", "/dev/stdout"]
RULES = tuple(f"Bash({p}:*)" for p in (
    "cp", "mv", "rm", "touch", "tee", "truncate", "ln", "install", "dd", "sort", "mkdir", "tar", "gzip", "split",
    "uniq", "shuf", "mkfifo", "chmod", "cd", "xargs", "echo", "find", "sed", "curl", "zip", "xxd", "csplit"))


def _check_ruled(root: Path, line: str, sandbox: bool) -> None:
    project = root / "proj"
    line = line.replace("{root}", str(root).lstrip("/"))
    with pytest.MonkeyPatch.context() as patch:  # decide with the HOME the line runs with
        patch.setenv("HOME", str(root / "home"))
        ctx = make_ctx(project, allow=RULES, deny=("Edit(./secret.txt)",))
        allowed = isinstance(asyncio.run(decide_bash(ctx, line)), PermissionAllow)
    if allowed:
        _judge(root, project, line, sandbox, f" under {', '.join(RULES[:3])}…", _program_world)


@pytest.mark.parametrize("line", [w.replace("{t}", t) for w in RULED_WRITERS for t in (
    "../outside/data.txt", "linkdir/x", "link-out", "~/new", "../proj-evil/x", "/{root}/outside/s", "out.txt",
    "~+/../outside/z", "~-/w", "/dev/null", "/dev/tty")])  # dd of=~+/…: bash expands a tilde after the = of an assignment-like word
def test_rule_allowed_writers_fixed_lines(tmp_path, line):
    _program_world(tmp_path)
    _check_ruled(tmp_path, line, SANDBOX)


@settings(max_examples=EXAMPLES, deadline=None, derandomize=EXAMPLES <= 200,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(st.lists(st.tuples(st.sampled_from(RULED_WRITERS), st.sampled_from(RULED_TARGETS), st.sampled_from(JOINS)),
                min_size=1, max_size=2))
def test_rule_allowed_writers_generated_lines(tmp_path_factory, parts):
    root = tmp_path_factory.mktemp("ruled-oracle")
    _program_world(root)
    line = "".join(w.replace("{t}", t) + j for w, t, j in parts).rstrip(" |&;\n")
    _check_ruled(root, line, SANDBOX)


def test_the_ruled_oracle_can_see_a_write_outside(tmp_path):
    """The judge is real: these lines do write outside (they ran under the program's rule before)."""
    for line in ("cp a.txt ../outside/", "rm -rf ../outside", "tar cf ../outside/x.tar a.txt", "touch linkdir/n"):
        project = _fresh_program_world(tmp_path)
        before = _tree(tmp_path, project)
        _run(line, project, SANDBOX)
        assert _tree(tmp_path, project) != before, line
        ctx = make_ctx(project, allow=RULES, deny=("Edit(./secret.txt)",))
        assert not isinstance(asyncio.run(decide_bash(ctx, line)), PermissionAllow), line
