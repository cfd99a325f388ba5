from __future__ import annotations

import os

from jupyter_agent.core.file_state import (
    MODIFIED_MESSAGE,
    NOT_READ_MESSAGE,
    PARTIAL_READ_MESSAGE,
    FileStateCache,
    normalize_path,
)


def _read(cache: FileStateCache, path, **kw):
    data = path.read_bytes()
    return cache.record_read(path, data, **kw)


def test_unread_existing_file_cannot_be_written(tmp_path):
    f = tmp_path / "a.txt"
    f.write_text("one")
    assert FileStateCache().check_writable(f, f.read_bytes()) == NOT_READ_MESSAGE


def test_new_file_needs_no_read(tmp_path):
    assert FileStateCache().check_writable(tmp_path / "new.txt", None) is None


def test_unchanged_file_is_writable(tmp_path):
    f = tmp_path / "a.txt"
    f.write_text("one")
    cache = FileStateCache()
    _read(cache, f)
    assert cache.check_writable(f, f.read_bytes()) is None


def test_change_within_same_mtime_and_size_is_caught(tmp_path):
    f = tmp_path / "a.txt"
    f.write_text("abc")
    cache = FileStateCache()
    _read(cache, f)
    st = f.stat()
    f.write_text("xyz")  # same size
    os.utime(f, ns=(st.st_atime_ns, st.st_mtime_ns))  # same mtime, to the nanosecond
    assert f.stat().st_mtime_ns == st.st_mtime_ns and f.stat().st_size == st.st_size
    assert cache.check_writable(f, f.read_bytes()) == MODIFIED_MESSAGE


def test_touch_without_content_change_is_still_writable(tmp_path):
    f = tmp_path / "a.txt"
    f.write_text("abc")
    cache = FileStateCache()
    _read(cache, f)
    os.utime(f, ns=(1, 1))
    assert cache.check_writable(f, f.read_bytes()) is None


def test_successful_write_updates_entry(tmp_path):
    f = tmp_path / "a.txt"
    f.write_text("abc")
    cache = FileStateCache()
    _read(cache, f)
    f.write_text("new content")
    assert cache.check_writable(f, f.read_bytes()) == MODIFIED_MESSAGE
    cache.record_write(f, b"new content")
    assert cache.check_writable(f, f.read_bytes()) is None


def test_partial_read_blocks_full_overwrite_but_not_edit(tmp_path):
    f = tmp_path / "a.txt"
    f.write_text("l1\nl2\nl3\n")
    cache = FileStateCache()
    cache.record_read(f, None, partial=True, offset=2, limit=1)
    assert cache.check_writable(f, f.read_bytes()) == PARTIAL_READ_MESSAGE
    assert cache.check_writable(f, f.read_bytes(), require_full=False) is None
    f.write_text("l1\nl2\nl4\n")
    os.utime(f, ns=(1, 2))
    assert cache.check_writable(f, f.read_bytes(), require_full=False) == MODIFIED_MESSAGE


def test_symlink_and_target_share_one_entry(tmp_path):
    target = tmp_path / "real.txt"
    target.write_text("x")
    link = tmp_path / "link.txt"
    link.symlink_to(target)
    cache = FileStateCache()
    _read(cache, link)
    assert cache.get(target) is not None
    assert cache.keys() == [normalize_path(tmp_path / "sub" / ".." / "real.txt")]  # one entry: the target's


def test_lru_bounded_by_entries(tmp_path):
    cache = FileStateCache(max_entries=3)
    files = []
    for i in range(5):
        f = tmp_path / f"f{i}"
        f.write_text(str(i))
        files.append(f)
        _read(cache, f)
        cache.get(files[0])  # keep the first one fresh
    assert len(cache) == 3
    assert cache.get(files[0]) is not None
    assert cache.get(files[1]) is None and cache.get(files[2]) is None
    assert cache.get(files[4]) is not None


def test_lru_bounded_by_bytes(tmp_path):
    cache = FileStateCache(max_entries=100, max_bytes=10_000)
    for i in range(5):
        f = tmp_path / f"f{i}"
        f.write_text("x")
        cache.record_read(f, b"x", keep_content="y" * 4_000)
    assert cache.total_bytes <= 10_000
    assert len(cache) == 2
    assert cache.get(tmp_path / "f4") is not None


def test_is_unchanged_requires_full_read_and_same_stat(tmp_path):
    f = tmp_path / "a.txt"
    f.write_text("abc")
    cache = FileStateCache()
    st = f.stat()
    cache.record_read(f, None, partial=True)
    assert not cache.is_unchanged(f, mtime_ns=st.st_mtime_ns, size=st.st_size)
    _read(cache, f)
    assert cache.is_unchanged(f, mtime_ns=st.st_mtime_ns, size=st.st_size)
    assert not cache.is_unchanged(f, mtime_ns=st.st_mtime_ns + 1, size=st.st_size)


def test_clone_is_independent(tmp_path):
    f = tmp_path / "a.txt"
    f.write_text("abc")
    cache = FileStateCache()
    _read(cache, f)
    other = cache.clone()
    other.invalidate(f)
    assert cache.get(f) is not None and other.get(f) is None


def test_cell_hashes_are_kept(tmp_path):
    nb = tmp_path / "n.ipynb"
    nb.write_text("{}")
    cache = FileStateCache()
    cache.record_read(nb, b"{}", cell_hashes={"c1": "h1"})
    assert dict(cache.get(nb).cell_hashes) == {"c1": "h1"}
