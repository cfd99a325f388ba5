"""The permission system: rules, modes, settings files, Bash analysis, paths and hooks.

Entry points (imported from their modules; this package stays light because the tool registry
imports ``rules`` at start-up):

- ``decide.has_permission_to_use_tool(tool, input, context)`` — the pipeline run_tool_use calls
- ``bash.check_bash_permission`` / ``bash.is_read_only_command`` — for the Bash tool
- ``filesystem.check_read_permission`` / ``check_write_permission`` / ``read_denied`` — file tools
- ``settings.load_settings`` / ``settings.build_permission_context`` — settings files → context
- ``updates.apply_permission_update`` — "Always allow"
- ``hooks.HookRunner`` (in ``context.extra[hooks.HOOKS_KEY]``) — command and Python hooks
"""
