"""A small Language Server Protocol client: JSON-RPC over stdio, one server per language+workspace."""

from .client import LspClient, LspError
from .manager import LspManager, LspSettings, get_lsp_manager, shutdown_lsp

__all__ = ["LspClient", "LspError", "LspManager", "LspSettings", "get_lsp_manager", "shutdown_lsp"]
