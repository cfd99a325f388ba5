from __future__ import annotations

import os
import stat

from jupyter_agent.core.atomic import atomic_write_bytes, atomic_write_text


def test_creates_parents_and_leaves_no_temp_files(tmp_path):
    target = tmp_path / "a" / "b" / "c.txt"
    atomic_write_text(target, "hello")
    assert target.read_text() == "hello"
    assert [p.name for p in target.parent.iterdir()] == ["c.txt"]


def test_keeps_mode_of_existing_file(tmp_path):
    f = tmp_path / "script.sh"
    f.write_text("old")
    f.chmod(0o751)
    atomic_write_text(f, "new")
    assert stat.S_IMODE(f.stat().st_mode) == 0o751
    assert f.read_text() == "new"


def test_new_file_mode_follows_umask(tmp_path):
    f = tmp_path / "new.txt"
    atomic_write_text(f, "x")
    mode = stat.S_IMODE(f.stat().st_mode)
    assert mode & 0o600 == 0o600 and not mode & 0o111


def test_writes_through_symlink(tmp_path):
    target = tmp_path / "real.txt"
    target.write_text("old")
    link = tmp_path / "link.txt"
    link.symlink_to(target)
    atomic_write_bytes(link, b"new")
    assert link.is_symlink()
    assert target.read_text() == "new"


def test_failure_keeps_old_content(tmp_path, monkeypatch):
    f = tmp_path / "a.txt"
    f.write_text("old")

    def broken_replace(src, dst):
        raise OSError("disk full")

    monkeypatch.setattr(os, "replace", broken_replace)
    try:
        atomic_write_text(f, "new")
    except OSError:
        pass
    else:  # pragma: no cover
        raise AssertionError("expected the write to fail")
    assert f.read_text() == "old"
    assert [p.name for p in tmp_path.iterdir()] == ["a.txt"]
