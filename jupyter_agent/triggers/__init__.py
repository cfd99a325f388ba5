"""Remote triggers: a token-protected HTTP endpoint on loopback that starts a prompt in a session."""

from .server import TriggerServer
from .store import (
    DELIVERY_KEY,
    ENABLE_ENV,
    Trigger,
    TriggerStore,
    attach_remote_triggers,
    get_trigger_store,
    shutdown_triggers,
)

__all__ = [
    "DELIVERY_KEY", "ENABLE_ENV", "Trigger", "TriggerServer", "TriggerStore",
    "attach_remote_triggers", "get_trigger_store", "shutdown_triggers",
]
