"""FileStateCache: what the agent has read, so it never writes over what it has not seen.

Every write tool (Write, Edit, NotebookEdit, on files and on live notebook cells alike) asks
``check_writable`` first and calls ``record_write`` after.  Entries are keyed by the file's
real path, so a symlink and its target share one entry.
"""

from __future__ import annotations

import hashlib
import os
import time
from collections import OrderedDict
from collections.abc import Mapping
from dataclasses import dataclass, field, replace

NOT_READ_MESSAGE = "File has not been read yet. Read it first before writing to it."
MODIFIED_MESSAGE = (
    "File has been modified since read, either by the user or by a linter. "
    "Read it again before attempting to write it."
)
PARTIAL_READ_MESSAGE = (
    "File has only been read in part (offset/limit). Read the whole file before overwriting it."
)


def content_hash(data: bytes | str) -> str:
    """A stable hash of file content (str is hashed as UTF-8)."""
    if isinstance(data, str):
        data = data.encode("utf-8", "surrogatepass")
    return hashlib.sha256(data).hexdigest()


def normalize_path(path: str | os.PathLike[str]) -> str:
    """The cache key: absolute, ``~`` expanded, symlinks followed, ``..`` collapsed."""
    return os.path.realpath(os.path.expanduser(os.fspath(path)))


@dataclass(frozen=True)
class FileState:
    """What the agent saw of one file (or notebook) when it last read or wrote it."""

    path: str
    content_hash: str | None
    mtime_ns: int
    size: int
    partial: bool = False
    offset: int | None = None
    limit: int | None = None
    content: str | None = None
    cell_hashes: Mapping[str, str] | None = None
    recorded_at: float = field(default_factory=time.time)

    @property
    def weight(self) -> int:
        """Bytes this entry holds against the cache's budget."""
        cells = sum(len(k) + len(v) for k, v in (self.cell_hashes or {}).items())
        return len(self.content or "") + cells + 256


class FileStateCache:
    """Bounded LRU (entries and bytes) of ``FileState`` by normalized path."""

    def __init__(self, max_entries: int = 100, max_bytes: int = 25 * 1024 * 1024) -> None:
        self.max_entries = max_entries
        self.max_bytes = max_bytes
        self._entries: OrderedDict[str, FileState] = OrderedDict()
        self._bytes = 0

    def __len__(self) -> int:
        return len(self._entries)

    def __contains__(self, path: object) -> bool:
        return isinstance(path, (str, os.PathLike)) and normalize_path(path) in self._entries

    @property
    def total_bytes(self) -> int:
        return self._bytes

    def get(self, path: str | os.PathLike[str]) -> FileState | None:
        key = normalize_path(path)
        state = self._entries.get(key)
        if state is not None:
            self._entries.move_to_end(key)
        return state

    def set(self, state: FileState) -> FileState:
        key = normalize_path(state.path)
        state = replace(state, path=key)
        old = self._entries.pop(key, None)
        if old is not None:
            self._bytes -= old.weight
        self._entries[key] = state
        self._bytes += state.weight
        self._evict()
        return state

    def invalidate(self, path: str | os.PathLike[str]) -> None:
        old = self._entries.pop(normalize_path(path), None)
        if old is not None:
            self._bytes -= old.weight

    def clear(self) -> None:
        self._entries.clear()
        self._bytes = 0

    def keys(self) -> list[str]:
        return list(self._entries)

    def clone(self) -> FileStateCache:
        """An independent copy (subagents start from their parent's view)."""
        other = FileStateCache(self.max_entries, self.max_bytes)
        for state in self._entries.values():
            other.set(state)
        return other

    def record_read(
        self,
        path: str | os.PathLike[str],
        data: bytes | str | None,
        *,
        mtime_ns: int | None = None,
        size: int | None = None,
        partial: bool = False,
        offset: int | None = None,
        limit: int | None = None,
        keep_content: str | None = None,
        cell_hashes: Mapping[str, str] | None = None,
    ) -> FileState:
        """Remember a read.  ``data`` is the whole file's bytes (None when only part was hashed)."""
        st = _stat_or_none(path) if mtime_ns is None or size is None else None
        return self.set(
            FileState(
                path=os.fspath(path),
                content_hash=content_hash(data) if data is not None else None,
                mtime_ns=mtime_ns if mtime_ns is not None else (st.st_mtime_ns if st else 0),
                size=size if size is not None else (st.st_size if st else 0),
                partial=partial,
                offset=offset,
                limit=limit,
                content=keep_content,
                cell_hashes=dict(cell_hashes) if cell_hashes is not None else None,
            )
        )

    def record_write(
        self,
        path: str | os.PathLike[str],
        data: bytes | str,
        *,
        keep_content: str | None = None,
        cell_hashes: Mapping[str, str] | None = None,
    ) -> FileState:
        """After a successful write the agent has seen the new content in full."""
        return self.record_read(path, data, keep_content=keep_content, cell_hashes=cell_hashes)

    def check_writable(
        self,
        path: str | os.PathLike[str],
        current: bytes | None,
        *,
        require_full: bool = True,
    ) -> str | None:
        """None if the agent may write ``path``; otherwise the message for the model.

        ``current`` is the file's bytes now (None if it does not exist: new files need no read).
        Content is compared by hash, so a change within the same mtime tick and size is caught.
        """
        if current is None:
            return None
        state = self.get(path)
        if state is None:
            return NOT_READ_MESSAGE
        if require_full and state.partial:
            return PARTIAL_READ_MESSAGE
        if state.content_hash is not None:
            return None if content_hash(current) == state.content_hash else MODIFIED_MESSAGE
        st = _stat_or_none(path)
        if st is None or st.st_mtime_ns != state.mtime_ns or st.st_size != state.size:
            return MODIFIED_MESSAGE
        return None

    def is_unchanged(self, path: str | os.PathLike[str], *, mtime_ns: int, size: int) -> bool:
        """True when a full read is cached and the file's stat still matches it."""
        state = self.get(path)
        return (
            state is not None
            and not state.partial
            and state.mtime_ns == mtime_ns
            and state.size == size
        )

    def _evict(self) -> None:
        while self._entries and (
            len(self._entries) > self.max_entries or self._bytes > self.max_bytes
        ):
            if len(self._entries) == 1:
                break
            _, old = self._entries.popitem(last=False)
            self._bytes -= old.weight


def _stat_or_none(path: str | os.PathLike[str]) -> os.stat_result | None:
    try:
        return os.stat(path)
    except OSError:
        return None
