"""The scripted Anthropic-compatible model server and test helpers (shipped in the package)."""
