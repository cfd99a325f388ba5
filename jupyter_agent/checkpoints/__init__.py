"""Checkpoints: each turn's prior state of the files and cells the agent changed; rewind."""

from .install import install_checkpoints, rewind_session
from .model import RestoreOutcome, RewindReport
from .rewind import rewind
from .store import CheckpointStore, get_store
from .wrap import CheckpointingTool, with_checkpoints

__all__ = [
    "CheckpointStore",
    "CheckpointingTool",
    "RestoreOutcome",
    "RewindReport",
    "get_store",
    "install_checkpoints",
    "rewind",
    "rewind_session",
    "with_checkpoints",
]
