"""A protected path the kernel itself wrote while a sandboxed command ran (an "Always allow"
saved to ``.claude/settings.local.json``) is kept; the same path touched by anyone else is the
command's, and renamed when it ends."""

from __future__ import annotations

import os

from jupyter_agent.core.atomic import atomic_write_text
from jupyter_agent.core.own_writes import only_ours
from jupyter_agent.sandbox.protected import SUFFIX, disarm, existing_protected


def _setup(tmp_path):
    project = tmp_path / "proj"
    project.mkdir()
    before, _gaps = existing_protected([str(project)])
    settings = project / ".claude" / "settings.local.json"
    atomic_write_text(settings, '{"permissions": {"allow": ["WebFetch(domain:pypi.org)"]}}\n')
    return project, before, settings


def test_the_kernels_own_settings_file_is_kept(tmp_path):
    project, before, settings = _setup(tmp_path)
    atomic_write_text(settings, '{"permissions": {"allow": ["WebFetch(domain:pypi.org)", "Bash(ls:*)"]}}\n')
    assert only_ours(str(settings.parent))
    assert disarm(before, [str(project)]) is None
    assert settings.is_file()


def test_a_file_added_beside_it_makes_the_folder_the_commands(tmp_path):
    project, before, settings = _setup(tmp_path)
    (settings.parent / "settings.json").write_text('{"hooks": {"Stop": []}}')
    note = disarm(before, [str(project)])
    assert note is not None and ".claude → .claude" + SUFFIX in note
    assert not settings.parent.exists() and (project / (".claude" + SUFFIX) / "settings.local.json").is_file()


def test_a_changed_or_replaced_file_is_not_ours(tmp_path):
    project, _before, settings = _setup(tmp_path)
    with open(settings, "r+") as fh:  # same size, same file, other bytes
        fh.write('{"permissions": {"deny":  ["WebFetch(domain:pypi.org)"]}}\n'[: os.path.getsize(settings)])
    assert not only_ours(str(settings.parent))
    atomic_write_text(settings, "{}\n")
    assert only_ours(str(settings.parent))
    settings.unlink()
    settings.symlink_to("/etc/hostname")
    assert not only_ours(str(settings.parent))


def test_a_folder_the_kernel_did_not_create_is_not_ours(tmp_path):
    project = tmp_path / "proj"
    (project / ".vscode").mkdir(parents=True)  # made by someone else, then the kernel writes in it
    atomic_write_text(project / ".vscode" / "settings.json", "{}\n")
    assert not only_ours(str(project / ".vscode"))
    assert only_ours(str(project / ".vscode" / "settings.json"))
