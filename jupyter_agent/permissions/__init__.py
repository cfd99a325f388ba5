"""The permission system: rules, modes, settings files, Bash analysis, paths and hooks."""
