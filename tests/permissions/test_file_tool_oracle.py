"""File-tool oracle: the real Read, Grep, Glob, Write, Edit and NotebookEdit, run end to end
through ``run_tool_use`` on a real project tree, must never show or change a denied file.

The tree holds secrets (``.env``, ``nested/.env``, ``secrets/key.pem``, a notebook in
``secrets/``, ``~/.ssh/id_rsa`` in a temporary home) whose content is a unique token, decoys,
and every way to reach them: absolute, relative and chained symlinks, links to folders, a link
into home, a loop, a dangling link, a hard link, names with spaces and unicode.  Deny rules:
``Read(./.env)``, ``Read(**/.env)``, ``Read(./secrets/**)``, ``Read(~/.ssh/**)`` and
``Edit(./locked/**)``.  The approver approves every ask, so only the deny rules stand between
the model and the secrets.  Invariants, for every generated sequence of calls in each mode:

1. no tool result contains a token;
2. secrets and ``locked/`` keep their bytes and mode; a change outside the project only after an
   approved ask; every changed file holds exactly what a call wrote (no partial write);
3. a path that is a denied file (same inode) is refused, whatever its spelling.

A hard link is a second name for the same inode: it is treated as the denied file (the tools
compare the inode of a multiply-linked file with those of the denied files they can list).
Raise ``FILE_ORACLE_EXAMPLES`` to hunt; CI runs a fixed, derandomized set.
"""

from __future__ import annotations

import json
import os
import shutil
import stat
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from jupyter_agent.core.events import ToolCallStarted
from jupyter_agent.core.orchestration import ToolUseRequest, run_tool_use
from jupyter_agent.core.registry import TOOL_TARGETS, load_tool
from tests.conftest import RecordingApprover
from tests.permissions.tools import make_ctx

TOKEN, TOKEN2 = "TOKEN-c41e7b", "TOKEN2-9d02aa"
EXAMPLES = int(os.environ.get("FILE_ORACLE_EXAMPLES", "500"))
DENY = ("Read(./.env)", "Read(**/.env)", "Read(./secrets/**)", "Read(./keys/*.pem)", "Read(~/.ssh/**)",
        "Edit(./locked/**)")
# The same files denied by literal rules only: no ``**`` rule whose reach covers every folder.
LITERAL = ("Read(./.env)", "Read(./nested/.env)", "Read(./caf\u00e9/.env)", "Read(./secrets/**)", "Read(./keys/*.pem)",
           "Read(~/.ssh/**)", "Edit(./locked/**)")
RULE_SETS = (DENY, LITERAL)
TOOLS = ("Read", "Grep", "Glob", "Write", "Edit", "NotebookEdit")
MODES = ("default", "acceptEdits", "bypassPermissions")
WRITTEN = "PWNED-by-the-oracle\n"


def _notebook(source: str) -> str:
    cell = {"cell_type": "code", "id": "c1", "metadata": {}, "source": source, "outputs": [],
            "execution_count": None}
    return json.dumps({"cells": [cell], "metadata": {}, "nbformat": 4, "nbformat_minor": 5})


def build_world(root: Path) -> tuple[Path, Path]:
    """The project and the home folder under ``root``; returns (project, home)."""
    proj, home, out = root / "proj", root / "home", root / "outside"
    for d in (proj / "sub", proj / "secrets", proj / "nested", proj / "locked", proj / "sp ace",
              proj / "caf\u00e9", proj / "keys", home / ".ssh", out):
        d.mkdir(parents=True)
    files = {
        ".env": f"SECRET={TOKEN}\n", "nested/.env": f"NESTED={TOKEN}\n",
        "secrets/key.pem": f"-----KEY {TOKEN}-----\n", "secrets/n.ipynb": _notebook(f"key = '{TOKEN}'"),
        "caf\u00e9/.env": f"CAFE={TOKEN}\n", "keys/id.pem": f"ID {TOKEN}\n", "keys/pub.txt": "public\n", "locked/data.txt": "LOCKED data\n",
        "a.txt": "SECRET=decoy alpha\n", ".ENV": "SECRET=upper decoy\n", "sp ace/b.txt": "SECRET=spaced\n",
        "cafe\u0301.txt": "SECRET=nfd decoy\n", "sub/c.txt": "SECRET=sub decoy\n", "nb.ipynb": _notebook("x = 1"),
    }
    for rel, text in files.items():
        (proj / rel).write_text(text)
    os.chmod(proj / "secrets" / "key.pem", 0o600)
    (home / ".ssh" / "id_rsa").write_text(f"RSA {TOKEN2}\n")
    (out / "o.txt").write_text("outside\n")
    links = {
        "env-link": str(proj / ".env"), "rel-link": ".env", "chain1": "env-link", "chain2": "chain1",
        "secdir": "secrets", "secdir2": str(proj / "secrets"), "nested-link": "nested", "homessh": str(home / ".ssh"),
        "keylink": str(home / ".ssh" / "id_rsa"), "homelink": str(home), "loop1": "loop2", "loop2": "loop1",
        "dangling": "nowhere/file", "sub/up": "../.env", "sub/updir": "..", "lockdir": "locked",
        "locked-link": "locked/data.txt", "outlink": str(out), "ipynb-link.ipynb": "secrets/n.ipynb",
        "pem-link.txt": "secrets/key.pem", "swap": "a.txt", "keydir": "keys", "keydir2": "keydir",
        "dang-sec": "secrets/born.txt", "dang-lock": "locked/born.txt", "dang-ssh": str(home / ".ssh" / "authorized_keys"),
        "dang-env": "nested/.env.d/../.env", "dang-dir": "locked/born", "dang-sdir": "secrets/born",
    }
    for rel, target in links.items():
        os.symlink(target, proj / rel)
    os.link(proj / ".env", proj / "hard-env")
    os.link(proj / "secrets" / "key.pem", proj / "hard-pem.txt")
    os.link(home / ".ssh" / "id_rsa", proj / "sub" / "hard-rsa")
    os.link(proj / "secrets" / "n.ipynb", proj / "hard-nb.ipynb")
    return proj, home


NAMES = [
    ".env", "env-link", "rel-link", "chain2", "secdir/key.pem", "secrets/key.pem", "secrets//key.pem",
    "secrets/./key.pem", "secdir2/key.pem", "nested/.env", "nested-link/.env", "homessh/id_rsa", "keylink",
    "homelink/.ssh/id_rsa", "hard-env", "hard-pem.txt", "loop1", "dangling", "sub/up", "sub/updir/.env",
    "sub/../.env", ".ENV", "a.txt", "sp ace/b.txt", "caf\u00e9/.env", "cafe\u0301/.env", "cafe\u0301.txt",
    "secrets", "secdir", "secdir/", "homessh", ".env/", "secrets/n.ipynb", "secdir/n.ipynb",
    "ipynb-link.ipynb", "pem-link.txt", "locked/data.txt", "lockdir/data.txt", "locked-link",
    "lockdir/new.txt", "secrets/new.txt", "secdir/new.txt", "nested-link/new.env", "outlink/o.txt",
    "nb.ipynb", "new.txt", "sub", ".", "", "swap", "a.txt/..", ".env\x00", "x/" * 300 + ".env",
    "./" * 200 + ".env", "sub/" + "../sub/" * 100 + "up", "keydir", "keydir2/", "keydir/id.pem", "keys/id.pem",
    "keydir/new.pem", "keys", "dang-sec", "dang-lock", "dang-ssh", "dang-env", "sub/hard-rsa", "..", "../home",
    "hard-nb.ipynb", "dang-dir/x.txt", "dang-sdir/x.txt",
]
PREFIXES = ["", "./", "{proj}/", "{proj}//", "sub/../", "~/../proj/", "file://{proj}/", "{proj}/./sub/../",
            "././/", "secdir/../", "~/", "{home}/", "sub/updir/", "/proc/self/root{proj}/", "{proj}/sub/up/../",
            "/proc/self/cwd/"]


@dataclass
class Snapshot:
    files: dict[str, tuple[bytes, int]] = field(default_factory=dict)
    links: dict[str, str] = field(default_factory=dict)


def snapshot(root: Path) -> Snapshot:
    snap = Snapshot()
    for folder, dirs, names in os.walk(root):
        for name in dirs + names:
            p = os.path.join(folder, name)
            st_ = os.lstat(p)
            if stat.S_ISLNK(st_.st_mode):
                snap.links[p] = os.readlink(p)
            elif stat.S_ISREG(st_.st_mode):
                with open(p, "rb") as fh:
                    snap.files[p] = (fh.read(), stat.S_IMODE(st_.st_mode))
    return snap


def secret_inodes(proj: Path, home: Path) -> set[tuple[int, int]]:
    paths = [proj / ".env", proj / "nested" / ".env", proj / "caf\u00e9" / ".env", proj / "secrets" / "key.pem",
             proj / "secrets" / "n.ipynb", proj / "keys" / "id.pem", home / ".ssh" / "id_rsa"]
    return {(s.st_dev, s.st_ino) for s in (os.stat(p) for p in paths)}


def _tools():
    try:
        return tuple(load_tool(TOOL_TARGETS[n]) for n in TOOLS)
    except Exception as exc:  # another helper's tool is not importable right now
        pytest.skip(f"real tools unavailable: {exc}")


def spell(prefix: str, name: str, proj: Path, home: Path) -> str:
    return prefix.replace("{proj}", str(proj)).replace("{home}", str(home)) + name


def _inode_of(raw: str, proj: Path) -> tuple[int, int] | None:
    """The inode the tools would open for ``raw`` (as their resolve_path reads it), if any."""
    if "\x00" in raw or not raw or "://" in raw:
        return None
    p = os.path.normpath(os.path.join(proj, os.path.expanduser(raw)))
    try:
        s = os.stat(p)
    except (OSError, ValueError):
        return None
    return (s.st_dev, s.st_ino) if stat.S_ISREG(s.st_mode) else None


def request(i: int, action: tuple, path: str) -> ToolUseRequest:
    tool, extra = action
    key = {"Read": "file_path", "Write": "file_path", "Edit": "file_path", "NotebookEdit": "notebook_path"}.get(tool)
    data = dict(extra)
    if key is not None:
        data[key] = path
    elif path:
        data["path"] = path
    return ToolUseRequest(f"t{i}", tool, data)


GREP_EXTRAS = st.fixed_dictionaries({
    "pattern": st.sampled_from(["TOKEN", ".", "S", "(?s).+", "KEY|RSA|SECRET", "key"]),
    "output_mode": st.sampled_from(["content", "files_with_matches", "count"]),
}, optional={
    "-C": st.integers(0, 3), "-A": st.integers(0, 3), "-B": st.integers(0, 3), "multiline": st.booleans(),
    "-o": st.booleans(), "-i": st.booleans(), "glob": st.sampled_from(["*.pem", "*", ".env", "**/*", "*.ipynb"]),
    "head_limit": st.sampled_from([0, 1, 5]),
})
ACTIONS = st.one_of(
    st.tuples(st.just("Read"), st.sampled_from([{}, {"offset": 1, "limit": 1}])),
    st.tuples(st.just("Grep"), GREP_EXTRAS),
    st.tuples(st.just("Glob"), st.fixed_dictionaries({"pattern": st.sampled_from(
        ["**/*", "*", ".env", "**/.env", "secrets/*", "secdir/*", "homessh/*", "**/*.pem", "../home/.ssh/*"])})),
    st.tuples(st.just("Write"), st.just({"content": WRITTEN})),
    st.tuples(st.just("Edit"), st.sampled_from([{"old_string": "SECRET", "new_string": WRITTEN},
                                                 {"old_string": "LOCKED", "new_string": WRITTEN},
                                                 {"old_string": "", "new_string": WRITTEN}])),
    st.tuples(st.just("NotebookEdit"), st.just({"cell_id": "c1", "new_source": WRITTEN})),
)
STEP = st.tuples(ACTIONS, st.sampled_from(PREFIXES), st.sampled_from(NAMES), st.booleans())


async def run_sequence(steps, mode: str, rules=DENY, on_event=None) -> None:
    """Run ``steps`` ((action, prefix, name, read first) …) in a fresh world and check the invariants."""
    root = Path(tempfile.mkdtemp(prefix="file-oracle-"))
    try:
        proj, home = build_world(root)
        with pytest.MonkeyPatch.context() as mp:
            mp.setenv("HOME", str(home))
            mp.chdir(proj)  # /proc/self/cwd is the project, as in a kernel started there
            await _run_checked(steps, mode, rules, proj, home, on_event)
    finally:
        shutil.rmtree(root, ignore_errors=True)


async def _run_checked(steps, mode, rules, proj: Path, home: Path, on_event) -> None:
    before = snapshot(proj.parent)
    denied = secret_inodes(proj, home)
    locked = os.stat(proj / "locked" / "data.txt")
    ctx = make_ctx(proj, deny=rules, mode=mode, tools=_tools())
    approver = RecordingApprover()
    asked_outside = False
    for i, (action, prefix, name, read_first) in enumerate(steps):
        path = spell(prefix, name, proj, home)
        reqs = [request(i, action, path)]
        if read_first and action[0] in ("Edit", "Write", "NotebookEdit"):
            reqs.insert(0, request(100 + i, ("Read", {}), path))
        for req in reqs:
            n_asks = len(approver.asks)
            outcome = await run_tool_use(req, ctx, approver, on_event=on_event)
            shown = json.dumps(outcome.content)
            assert TOKEN not in shown and TOKEN2 not in shown, f"{req} leaked: {shown[:400]}"
            target = _inode_of(path, proj) if req.name in ("Read", "Write", "Edit", "NotebookEdit") else None
            if target in denied or (target == (locked.st_dev, locked.st_ino) and req.name != "Read"):
                assert outcome.is_error, f"{req} reached a denied file: {outcome.text[:300]}"
            asked_outside |= len(approver.asks) > n_asks
    # bypassPermissions answers asks itself: there a write outside the project needs no ask.
    _check_files(before, snapshot(proj.parent), proj, asked_outside or mode == "bypassPermissions")


def _check_files(before: Snapshot, after: Snapshot, proj: Path, asked: bool) -> None:
    assert after.links == before.links, "a symlink was changed"
    protected = (str(proj / "secrets"), str(proj / "locked"), str(proj.parent / "home"))
    for p, (data, mode) in before.files.items():
        now = after.files.get(p)
        if p.startswith(protected) or p.endswith((".env", "hard-pem.txt", "id.pem", "hard-rsa", "hard-nb.ipynb")):
            assert now == (data, mode), f"{p} changed: {now!r}"
        elif now != (data, mode):
            assert now is not None and now[0] in (WRITTEN.encode(), data.replace(b"SECRET", WRITTEN.encode(), 1)) \
                or now[0].startswith(b"{"), f"{p}: unexpected content {now!r}"
            assert asked or p.startswith(str(proj) + "/"), f"{p} outside the project changed without an ask"
    for p, (data, _mode) in after.files.items():
        if p not in before.files:
            assert data == WRITTEN.encode(), f"new file {p} holds {data!r}"
            assert p.startswith(str(proj) + "/") or asked, f"{p} created outside the project without an ask"
            assert not p.startswith((str(proj / "secrets/"), str(proj / "locked/"))), f"{p} created in a denied folder"
            assert not p.endswith(("/.env", ".pem")) or not p.startswith(str(proj / "keys/")), f"{p} is denied"


def test_the_secrets_are_reachable(tmp_path):
    """The oracle can fail: without the deny rules these spellings do reach the tokens."""
    proj, home = build_world(tmp_path)
    for name in ("env-link", "secdir/key.pem", "homessh/id_rsa", "hard-env", "sub/up"):
        assert _inode_of(name, proj) in secret_inodes(proj, home), name
        assert TOKEN in (proj / name).read_text() or TOKEN2 in (proj / name).read_text()


async def test_no_rules_would_leak(tmp_path, monkeypatch):
    """The same calls with no deny rule print the token: the checks below are not vacuous."""
    proj, home = build_world(tmp_path)
    monkeypatch.setenv("HOME", str(home))
    ctx = make_ctx(proj, mode="bypassPermissions", tools=_tools())
    for req in (ToolUseRequest("r", "Read", {"file_path": "secdir/key.pem"}),
                ToolUseRequest("g", "Grep", {"pattern": "TOKEN", "path": "secdir", "output_mode": "content"})):
        outcome = await run_tool_use(req, ctx, RecordingApprover())
        assert TOKEN in outcome.text, outcome.text


ROWS = [
    (("Read", {}), "", "env-link"), (("Read", {}), "file://{proj}/", ".env"), (("Read", {}), "", "hard-env"),
    (("Read", {}), "", "hard-pem.txt"), (("Read", {}), "", "sub/updir/.env"), (("Read", {}), "", "ipynb-link.ipynb"),
    (("Read", {}), "", "pem-link.txt"), (("Read", {}), "", "hard-nb.ipynb"), (("Read", {}), "", "sub/hard-rsa"),
    (("Write", {"content": WRITTEN}), "", "dang-sec"), (("Write", {"content": WRITTEN}), "", "dang-dir/x.txt"),
    (("Write", {"content": WRITTEN}), "", "dang-ssh"), (("Read", {}), "/proc/self/cwd/", ".env"), (("Read", {}), "~/", ".ssh/id_rsa"), (("Read", {}), "", "homelink/.ssh/id_rsa"),
    (("Grep", {"pattern": "TOKEN", "output_mode": "content"}), "", "secdir"),
    (("Grep", {"pattern": "TOKEN", "output_mode": "content"}), "", "homessh"),
    (("Grep", {"pattern": "TOKEN", "output_mode": "content"}), "", "homelink"),
    (("Grep", {"pattern": "TOKEN", "output_mode": "content", "-C": 2}), "", ""),
    (("Grep", {"pattern": "(?s).+", "output_mode": "content", "multiline": True}), "", "secdir/"),
    (("Grep", {"pattern": "TOKEN", "output_mode": "content"}), "", "hard-pem.txt"),
    (("Grep", {"pattern": "TOKEN", "output_mode": "content"}), "", "."),
    (("Grep", {"pattern": "TOKEN", "output_mode": "content"}), "", "nested-link"),
    (("Grep", {"pattern": "TOKEN", "output_mode": "content"}), "", "keydir"),
    (("Grep", {"pattern": "TOKEN", "output_mode": "count"}), "", "keydir2"),
    (("Glob", {"pattern": "*"}), "", "secdir"),
    (("Write", {"content": WRITTEN}), "", "lockdir/data.txt"), (("Write", {"content": WRITTEN}), "", "secdir/new.txt"),
    (("Write", {"content": WRITTEN}), "", "hard-env"), (("Write", {"content": WRITTEN}), "", "locked-link"),
    (("Edit", {"old_string": "LOCKED", "new_string": WRITTEN}), "", "lockdir/data.txt"),
    (("Edit", {"old_string": "SECRET", "new_string": WRITTEN}), "", "hard-env"),
    (("NotebookEdit", {"cell_id": "c1", "new_source": WRITTEN}), "", "ipynb-link.ipynb"),
]


@pytest.mark.parametrize("rules", RULE_SETS, ids=("globs", "literal"))
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("row", ROWS, ids=lambda r: f"{r[0][0]}:{r[1]}{r[2]}")
async def test_fixed_rows(row, mode, rules):
    action, prefix, name = row
    await run_sequence([(action, prefix, name, True)], mode, rules)


@settings(max_examples=EXAMPLES, deadline=None, derandomize=EXAMPLES <= 500,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(steps=st.lists(STEP, min_size=1, max_size=4), mode=st.sampled_from(MODES), rules=st.sampled_from(RULE_SETS))
async def test_generated_sequences(steps, mode, rules):
    await run_sequence(steps, mode, rules)


def _swapper(link: Path, target: str, tool: str):
    """An event sink re-pointing ``link`` once ``tool`` passed its checks, right before its call."""

    def on_event(event) -> None:
        if isinstance(event, ToolCallStarted) and event.tool_name == tool:
            os.unlink(link)
            os.symlink(target, link)

    return on_event


TOCTOU = [  # (tool, input, link, first target, swapped-in target, read first)
    ("Read", {"file_path": "swap"}, "swap", "a.txt", ".env", False),
    ("Read", {"file_path": "swap"}, "swap", "a.txt", "keys/id.pem", False),
    ("Read", {"file_path": "swapdir/key.pem"}, "swapdir", "sub", "secrets", False),
    ("Read", {"file_path": "swap.ipynb"}, "swap.ipynb", "nb.ipynb", "secrets/n.ipynb", False),
    ("Read", {"file_path": "swap.pdf"}, "swap.pdf", "a.txt", "secrets/key.pem", False),
    ("Read", {"file_path": "swap.png"}, "swap.png", "a.txt", "sub/hard-rsa", False),
    ("Read", {"file_path": "swap"}, "swap", "a.txt", "hard-env", False),
    ("Grep", {"pattern": "TOKEN", "path": "swapdir", "output_mode": "content"}, "swapdir", "sub", "secrets", False),
    ("Grep", {"pattern": "TOKEN", "path": "swapdir"}, "swapdir", "sub", "keys", False),
    ("Grep", {"pattern": "TOKEN", "path": "swap", "output_mode": "count"}, "swap", "a.txt", ".env", False),
    ("Write", {"file_path": "swap", "content": WRITTEN}, "swap", "a.txt", ".env", True),
    ("Write", {"file_path": "swap", "content": WRITTEN}, "swap", "a.txt", "locked/data.txt", True),
    ("Write", {"file_path": "swapdir/key.pem", "content": WRITTEN}, "swapdir", "sub", "secrets", False),
    ("Edit", {"file_path": "swap", "old_string": "SECRET", "new_string": WRITTEN}, "swap", "a.txt", ".env", True),
    ("Edit", {"file_path": "swap", "old_string": "LOCKED", "new_string": WRITTEN}, "swap", "a.txt", "locked-link", True),
    ("NotebookEdit", {"notebook_path": "swap.ipynb", "cell_id": "c1", "new_source": WRITTEN}, "swap.ipynb",
     "nb.ipynb", "secrets/n.ipynb", True),
]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("case", TOCTOU, ids=lambda c: f"{c[0]}:{c[1].get('file_path') or c[1].get('path') or ''}->{c[4]}")
async def test_link_swapped_between_check_and_call(case, mode, tmp_path, monkeypatch):
    """The checks pass on a harmless target; the link then points at a denied file before ``call``."""
    tool, data, link, first, swapped, read_first = case
    proj, home = build_world(tmp_path)
    monkeypatch.setenv("HOME", str(home))
    if os.path.lexists(proj / link):
        os.unlink(proj / link)
    os.symlink(first, proj / link)
    before = snapshot(tmp_path)
    ctx = make_ctx(proj, deny=DENY, mode=mode, tools=_tools())
    approver = RecordingApprover()
    if read_first:
        key = "notebook_path" if tool == "NotebookEdit" else "file_path"
        seen = await run_tool_use(ToolUseRequest("r", "Read", {"file_path": data[key]}), ctx, approver)
        assert not seen.is_error, seen.text
    outcome = await run_tool_use(ToolUseRequest("t", tool, data), ctx, approver,
                                 on_event=_swapper(proj / link, swapped, tool))
    assert os.readlink(proj / link) == swapped, "the swap did not happen"
    assert TOKEN not in json.dumps(outcome.content), outcome.text
    if tool in ("Read", "Write", "Edit", "NotebookEdit"):
        assert outcome.is_error and "denied" in outcome.text, outcome.text
    after = snapshot(tmp_path)
    for p, was in before.files.items():
        if "/secrets/" in p or "/locked/" in p or "/.ssh/" in p or p.endswith((".env", "hard-pem.txt", "id.pem", "hard-env",
                                                                               "hard-rsa")):
            assert after.files.get(p) == was, f"{p} changed"


@pytest.mark.parametrize("case", [c for c in TOCTOU if c[0] == "Read"], ids=lambda c: f"{c[2]}->{c[4]}")
async def test_link_swap_without_proc(case, tmp_path, monkeypatch):
    """Where ``/proc/self/fd`` cannot tell the open file's path, the path is resolved again and
    must name the very file that is open; the swapped link is still refused."""
    real_readlink = os.readlink

    def no_proc(path, *args, **kw):
        if str(path).startswith("/proc/self/fd/"):
            raise OSError("no /proc here")
        return real_readlink(path, *args, **kw)

    monkeypatch.setattr(os, "readlink", no_proc)
    await test_link_swapped_between_check_and_call(case, "default", tmp_path, monkeypatch)
