"""System files that run commands, grant rights or redirect traffic, and tools' configuration
files that run commands, are protected (``system_paths.py``, ``paths.PROTECTED_BELOW``).

In bypassPermissions with ``Bash(*)`` allowed, an agent running as root (as in most containers)
wrote ``/etc/cron.d/x``, ``/etc/ld.so.preload``, ``/etc/sudoers.d/x``, ``/etc/gitconfig`` and
``/etc/hosts`` unasked, while ``crontab FILE`` asked; and ``./.pdbrc``, which IPython's
``%debug`` runs in the kernel, was an ordinary file.  Nothing here writes: the decisions are
checked, and where it is safe, the program is shown to run what the file says.
"""

from __future__ import annotations

import subprocess
import sys

import pytest

from jupyter_agent.permissions.decide import has_permission_to_use_tool
from jupyter_agent.permissions.git_worktree import protected_name
from jupyter_agent.permissions.paths import protected_reason_of
from tests.permissions.conftest import verdict_name
from tests.permissions.tools import EditLike, PathInput, decide_bash, make_ctx

SYSTEM = [
    "/etc/cron.d/backup", "/etc/crontab", "/etc/cron.daily/x", "/var/spool/cron/crontabs/root",
    "/etc/systemd/system/x.service", "/lib/systemd/system/x.service", "/usr/lib/systemd/user/x.service",
    "/etc/init.d/x", "/etc/rc.local", "/etc/sudoers", "/etc/sudoers.d/agent", "/etc/ld.so.preload",
    "/etc/ld.so.conf.d/x.conf", "/etc/passwd", "/etc/shadow", "/etc/pam.d/sshd", "/etc/ssh/sshd_config",
    "/etc/apt/apt.conf.d/99hook", "/etc/apt/sources.list.d/x.list", "/etc/yum.repos.d/x.repo", "/etc/hosts",
    "/etc/resolv.conf", "/private/etc/hosts", "/etc/gitconfig", "/usr/local/etc/gitconfig",
    "/opt/conda/envs/a/etc/gitconfig", "/usr/local/etc/npmrc", "/etc/xdg/autostart/x.desktop",
    "/etc/udev/rules.d/99-x.rules", "/etc/logrotate.d/x", "/etc/update-motd.d/99-x", "/etc/ipython/ipython_config.py",
    "/usr/local/etc/ipython/ipython_kernel_config.py", "/home/u/.venv/etc/ipython/ipython_kernel_config.py",
    "/etc/vim/vimrc.local", "/etc/R/Rprofile.site", "/usr/share/bash-completion/completions/git",
    "/home/u/.pyenv/pyenv.d/exec/x.bash", "/home/u/.pyenv/plugins/p/etc/pyenv.d/exec/x.bash",
    "/home/u/.rbenv/rbenv.d/exec/x.bash",
]
NOT_SYSTEM = [
    "/etc/myapp.conf", "/etc/cron.dx", "/etc/hosts.bak/x", "/usr/share/doc/x.txt", "/var/spool/mail/u",
    "/home/u/proj/hosts", "/home/u/proj/etc/config.json", "/home/u/proj/gitconfig", "/home/u/proj/npmrc",
    "/home/u/proj/pyenv.d.txt", "/libx/systemd/x",
]
HOME_FILES = [
    ".pdbrc", ".hgrc", ".psqlrc", ".my.cnf", ".sqliterc", ".irbrc", ".gdbinit", ".ghci", ".ocamlinit", ".lesskey",
    ".emacs", ".emacs.d/init.el", ".vim/plugin/x.vim", ".sbt/1.0/plugins/x.sbt", ".terraform.d/plugins/x",
    ".npm-init.js", ".gemrc", ".terraformrc", ".git-credentials", ".pgpass", ".xinitrc",
    ".cargo/config.toml", ".cargo/config", ".cargo/credentials.toml", ".gradle/init.gradle",
    ".gradle/init.d/x.gradle", ".gradle/gradle.properties", ".m2/settings.xml", ".rustup/settings.toml",
    ".CARGO/Config.toml",  # compared case-folded, as on a case-insensitive disk
]
NOT_HOME = [".cargo/registry/cache/x.crate", ".gradle/caches/x.bin", ".m2/repository/a/b.jar",
            ".rustup/toolchains/x/lib/y", "settings.xml", "config.toml", "init.gradle", "pdbrc"]


@pytest.mark.parametrize("path", SYSTEM)
def test_system_files_that_run_commands_or_grant_rights_are_protected(path):
    assert protected_reason_of(path, path) is not None, path


@pytest.mark.parametrize("path", NOT_SYSTEM)
def test_other_system_files_and_look_alikes_are_not(path):
    assert protected_reason_of(path, path) is None, path


@pytest.mark.parametrize(("target", "expected"), [(p, "ask") for p in SYSTEM[:12]] + [("/etc/myapp.conf", "allow")])
async def test_bypass_asks_before_writing_them(tmp_path, target, expected):
    ctx = make_ctx(tmp_path, allow=("Bash(*)",), mode="bypassPermissions")
    assert verdict_name(await decide_bash(ctx, f"echo '* * * * * root sh /tmp/x' >> {target}")) == expected
    write = await has_permission_to_use_tool(EditLike("Write"), PathInput(file_path=target, content="x"), ctx)
    assert verdict_name(write) == expected
    if expected == "ask":
        assert "protected" in write.message


@pytest.mark.parametrize("name", HOME_FILES)
async def test_tools_start_up_and_configuration_files_ask_in_every_mode(world, name):
    target = world.home / name
    ctx = make_ctx(world.project, allow=("Bash(*)", "Edit", "Write"), mode="bypassPermissions",
                   additional=(world.home,))
    assert protected_reason_of(str(target), str(target)) is not None
    assert verdict_name(await decide_bash(ctx, f"echo x >> {target}")) == "ask"
    project_copy = world.project / name  # by name anywhere, like .npmrc
    write = await has_permission_to_use_tool(EditLike("Write"), PathInput(file_path=str(project_copy)), ctx)
    assert verdict_name(write) == "ask"


@pytest.mark.parametrize("name", NOT_HOME)
async def test_the_rest_of_those_folders_stays_open(world, name):
    target = world.project / name
    ctx = make_ctx(world.project, allow=("Bash(*)",), mode="bypassPermissions")
    assert protected_reason_of(str(target), str(target)) is None
    assert verdict_name(await decide_bash(ctx, f"echo x >> {target}")) == "allow"


def test_git_counts_a_tracked_cargo_config_as_protected():
    assert protected_name(".cargo/config.toml") and protected_name("sub/.gradle/init.d/a.gradle")
    assert not protected_name(".cargo/registry/x") and not protected_name("config.toml")


def test_pdb_really_runs_the_pdbrc_of_the_folder_it_starts_in(tmp_path):
    """Why ./.pdbrc is protected: pdb (and IPython's %debug, a subclass) runs its lines."""
    (tmp_path / "x.py").write_text("y = 1\n")
    (tmp_path / ".pdbrc").write_text("import pathlib; pathlib.Path('ran').write_text('yes')\ncontinue\n")
    subprocess.run([sys.executable, "-m", "pdb", "x.py"], cwd=tmp_path, input="q\n", text=True,
                   capture_output=True, timeout=60, env={"HOME": str(tmp_path), "PATH": "/usr/bin:/bin"})
    assert (tmp_path / "ran").read_text() == "yes"
