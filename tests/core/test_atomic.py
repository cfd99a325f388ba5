from __future__ import annotations

import os
import stat

import pytest

from jupyter_agent.core import atomic
from jupyter_agent.core.atomic import WriteTargetMoved, atomic_write_bytes, atomic_write_text


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

    def broken_replace(src, dst, **kwargs):
        raise OSError("disk full")

    monkeypatch.setattr(os, "replace", broken_replace)
    monkeypatch.setattr(os, "rename", broken_replace)
    try:
        atomic_write_text(f, "new")
    except OSError:
        pass
    else:  # pragma: no cover
        raise AssertionError("expected the write to fail")
    assert f.read_text() == "old"
    assert [p.name for p in tmp_path.iterdir()] == ["a.txt"]


def test_pinned_write_refuses_a_folder_that_became_a_link(tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    (tmp_path / "sub").symlink_to(outside)  # the checked real path was tmp_path/sub/f.txt
    with pytest.raises(WriteTargetMoved, match="replaced by a link"):
        atomic_write_bytes(tmp_path / "sub" / "f.txt", b"x", pinned=True)
    assert list(outside.iterdir()) == []


def test_pinned_write_replaces_a_link_it_finds_instead_of_following_it(tmp_path):
    victim = tmp_path / "victim"
    victim.write_text("keep")
    (tmp_path / "f.txt").symlink_to(victim)
    atomic_write_bytes(tmp_path / "f.txt", b"new", pinned=True)
    assert victim.read_text() == "keep"
    assert not (tmp_path / "f.txt").is_symlink() and (tmp_path / "f.txt").read_bytes() == b"new"


@pytest.mark.parametrize("pinned", [True, False])
def test_a_folder_swapped_after_opening_does_not_move_the_write(tmp_path, monkeypatch, pinned):
    """Every step after the folder is opened is relative to it: the temp file, the rename and the
    fsync stay in the opened folder even when its name now leads somewhere else."""
    if not atomic._DIR_FDS:
        pytest.skip("this system cannot write relative to an open folder")
    outside, sub = tmp_path / "outside", tmp_path / "sub"
    outside.mkdir()
    sub.mkdir()
    existing_mode = atomic._existing_mode

    def swap_then_mode(folder, name):
        os.rename(sub, tmp_path / "sub.old")
        os.symlink(outside, sub)
        return existing_mode(folder, name)

    monkeypatch.setattr(atomic, "_existing_mode", swap_then_mode)
    atomic_write_bytes(sub / "f.txt", b"x", pinned=pinned)
    assert list(outside.iterdir()) == []
    assert [p.name for p in (tmp_path / "sub.old").iterdir()] == ["f.txt"]


def test_a_long_file_name_gets_a_temp_name_that_fits(tmp_path):
    name = "n" * 255
    atomic_write_bytes(tmp_path / name, b"x")
    assert [p.name for p in tmp_path.iterdir()] == [name]


def test_without_a_name_for_the_open_folder_the_check_compares_what_the_name_leads_to(tmp_path, monkeypatch):
    """Where the system cannot name an open folder (no /proc, no F_GETPATH), a pinned write
    compares the opened folder with what its name leads to now."""
    monkeypatch.setattr(atomic, "_fd_path", lambda fd: None)
    atomic_write_bytes(tmp_path / "ok.txt", b"x", pinned=True)
    assert (tmp_path / "ok.txt").read_bytes() == b"x"
    outside = tmp_path / "outside"
    outside.mkdir()
    (tmp_path / "sub").symlink_to(outside)
    with pytest.raises(WriteTargetMoved):
        atomic_write_bytes(tmp_path / "sub" / "f.txt", b"x", pinned=True)
    assert list(outside.iterdir()) == []


def test_a_pinned_write_creates_no_folder_through_a_link(tmp_path):
    """The checked real path was tmp_path/sub/new/deeper/f.txt; sub became a link to outside
    before the write: no folder may be created outside (mkdir -p would follow the link)."""
    if not atomic._DIR_FDS:
        pytest.skip("this system cannot create folders relative to an open folder")
    outside = tmp_path / "outside"
    outside.mkdir()
    (tmp_path / "sub").symlink_to(outside)
    with pytest.raises(WriteTargetMoved, match="replaced by a link"):
        atomic_write_bytes(tmp_path / "sub" / "new" / "deeper" / "f.txt", b"x", pinned=True)
    assert list(outside.iterdir()) == []


def test_a_pinned_write_creates_missing_folders(tmp_path):
    target = tmp_path / "a" / "b" / "c.txt"
    assert atomic_write_bytes(target, b"x", pinned=True) == target
    assert target.read_bytes() == b"x"
    (tmp_path / "file").write_text("x")
    with pytest.raises(NotADirectoryError):
        atomic_write_bytes(tmp_path / "file" / "d.txt", b"x", pinned=True)
