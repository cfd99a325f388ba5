"""Sandboxed Bash: bubblewrap around commands (settings ``sandbox.*`` as in Claude Code)."""
