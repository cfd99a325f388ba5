"""The agent loop on the Anthropic API: sessions, streaming, caching, retries, compaction."""
