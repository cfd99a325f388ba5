"""Error tree, split by who reads the error.

``ToolError`` and its children are shown to the model as an ``is_error`` tool result: the
message says what to do next.  ``AgentConfigError`` and its children are raised to the
notebook's user (a misconfiguration they can fix); they never reach the model.
"""

from __future__ import annotations


class AgentError(Exception):
    """Base of every error raised by jupyter-agent."""


class ToolError(AgentError):
    """A problem the model can act on; becomes an ``is_error`` tool result."""


class InputValidationError(ToolError):
    """The tool input does not fit the tool's schema or fails ``validate_input``."""


class PermissionDeniedError(ToolError):
    """The permission system or the user refused the call."""


class StaleFileError(ToolError):
    """The file changed since the agent read it, or was never read."""


class ToolInterruptedError(ToolError):
    """The call was cancelled by the user's stop."""


class AgentConfigError(AgentError):
    """A misconfiguration by the notebook's user (settings, options, credentials)."""
