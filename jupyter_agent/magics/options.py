"""The ``%agent`` options: declared with IPython's ``magic_arguments``, parsed off the line's front.

Only leading ``--options`` are parsed; everything after them is the prompt, verbatim (quotes,
apostrophes and all).  ``--`` ends the options explicitly.  ``--resume`` takes an id only in
the ``--resume=ID`` form or when the next word looks like a session id (has a digit, no spaces).
"""

from __future__ import annotations

import os
import re
import shlex
from dataclasses import dataclass, field

from IPython.core.error import UsageError
from IPython.core.magic_arguments import argument, magic_arguments

from ..core.permission_types import PERMISSION_MODES

PROMPT_TOOL_NAME = re.compile(r"mcp__[A-Za-z0-9_-]+?__[A-Za-z0-9_.-]+")
_SESSION_ID = re.compile(r"^(?=.*\d)[A-Za-z0-9_.:-]{6,}$")
_VALUE_OPTIONS = {"--model", "--mode", "--allow", "--deny", "--approval-timeout", "--mcp", "--add-dir", "--forget",
                  "--permission-prompt-tool"}
_FLAG_OPTIONS = {"--new", "--stop", "--compact", "--cost", "--tools", "--help", "--trust", "--sandbox", "--permissions",
                 "--sessions"}
_ACTIONS = ("help", "stop", "compact", "cost", "tools", "permissions", "sessions")


@dataclass
class AgentOptions:
    new: bool = False
    resume: str | None = None  # "" = the latest session
    model: str | None = None
    mode: str | None = None
    allow: list[str] = field(default_factory=list)
    deny: list[str] = field(default_factory=list)
    add_dir: list[str] = field(default_factory=list)
    forget: list[str] = field(default_factory=list)
    approval_timeout: float | None = None
    permission_prompt_tool: str | None = None
    mcp: list[str] = field(default_factory=list)
    rewind: int | None = None
    stop: bool = False
    compact: bool = False
    cost: bool = False
    tools: bool = False
    permissions: bool = False
    sessions: bool = False
    help: bool = False
    trust: bool = False
    sandbox: bool = False
    prompt: str = ""

    @property
    def action(self) -> str | None:
        """The one non-prompt action asked for (help / stop / compact / cost / tools / permissions /
        sessions), if any."""
        for name in _ACTIONS:
            if getattr(self, name):
                return name
        return "rewind" if self.rewind is not None else None


def _folder(value: str) -> str:
    """An ``--add-dir`` value as the absolute path of an existing folder."""
    path = os.path.abspath(os.path.expanduser(value))
    if not os.path.isdir(path):
        raise UsageError(f"%agent --add-dir: {value!r} is not a folder")
    return path


@magic_arguments()
@argument("--new", action="store_true", help="Start a new session (the old one stays on disk).")
@argument("--resume", nargs="?", const="", default=None, metavar="ID",
          help="Resume a saved session: this notebook's latest (else the project's), or ID (write --resume=ID before a prompt).")
@argument("--sessions", action="store_true",
          help="List this project's saved sessions (newest first) with their prompts and cost; "
               "in a notebook each has a Resume button.")
@argument("--model", help="Model for this session, e.g. claude-sonnet-5-5.")
@argument("--mode", choices=list(PERMISSION_MODES), help="Permission mode.")
@argument("--allow", action="append", default=[], metavar="RULE",
          help="Allow rule for this session, e.g. 'Bash(pytest:*)' (repeatable).")
@argument("--deny", action="append", default=[], metavar="RULE",
          help="Deny rule for this session, e.g. 'Read(./.env)' (repeatable).")
@argument("--add-dir", action="append", default=[], metavar="DIR",
          help="Add a working directory for this session, beside the project (repeatable).")
@argument("--forget", action="append", default=[], metavar="RULE",
          help="Remove a rule from this session and from the user / project / local settings files (repeatable).")
@argument("--approval-timeout", type=float, metavar="SECONDS",
          help="Deny an approval nobody answers within SECONDS (headless runs).")
@argument("--permission-prompt-tool", metavar="TOOL",
          help="An MCP tool (mcp__server__tool) that answers approvals instead of a person (headless runs).")
@argument("--mcp", action="append", default=[], metavar="SERVERS",
          help="MCP servers for this session: .mcp.json-style JSON text or a path to such a file (repeatable).")
@argument("--trust", action="store_true",
          help="Trust this folder's .claude settings (allow rules, mode, hooks) without asking, and remember it.")
@argument("--sandbox", action="store_true",
          help="Run this session's Bash commands in the bubblewrap sandbox (sandbox.enabled, for this session).")
@argument("--rewind", nargs="?", const=1, type=int, default=None, metavar="N",
          help="Restore files and cells to how they were before the last N turns (default 1).")
@argument("--stop", action="store_true", help="Stop the running turn (so does the kernel's interrupt button).")
@argument("--compact", action="store_true", help="Summarise the conversation to free context.")
@argument("--cost", action="store_true", help="Show tokens and cost so far.")
@argument("--tools", action="store_true", help="List the tools the model can call.")
@argument("--permissions", action="store_true",
          help="List the mode, working directories and permission rules in effect, and where each rule comes from.")
@argument("prompt", nargs="*", help="What to ask the agent; {expr} interpolates Python values.")
def agent_usage(line: str) -> None:
    """Talk to the coding agent in this kernel: %agent [options] prompt, or %%agent with the
    prompt in the cell's body."""


agent_usage.parser.prog = "agent"  # shown as %agent  # type: ignore[attr-defined]


def usage_text() -> str:
    return agent_usage.parser.format_help()  # type: ignore[attr-defined]


def help_text() -> str:
    """``%agent --help``: the options, then where the rest is."""
    return usage_text() + (
        "\nExamples:\n"
        "  %agent fix the failing cell\n"
        "  %agent --mode plan how should I split this notebook into modules?\n"
        "  %agent --allow 'Bash(pytest:*)' run the tests and fix what fails\n"
        "  %agent /review 123          (.claude/commands/review.md, or the skill review)\n"
        "  %%agent                     (the prompt is the rest of the cell)\n"
        "\nConfiguration: %config AgentMagics (defaults of new sessions), and Claude Code's\n"
        ".claude/settings.json files for rules, hooks and MCP servers (README: Configuration).\n"
    )


def _take_token(rest: str) -> tuple[str, str]:
    """The first shell-like word of ``rest`` and what follows it (leading spaces removed)."""
    lexer = shlex.shlex(rest, posix=True)
    lexer.whitespace_split = True
    lexer.commenters = ""
    try:
        token = lexer.get_token() or ""
    except ValueError as exc:
        raise UsageError(f"%agent: {exc} in the options\n\n{usage_text()}") from exc
    remainder = lexer.instream.read() if hasattr(lexer.instream, "read") else ""
    return token, remainder.lstrip()


def split_options(line: str) -> tuple[list[str], str]:
    """Leading option tokens and the verbatim prompt after them."""
    tokens: list[str] = []
    rest = line.strip()
    while rest.startswith("-"):
        token, after = _take_token(rest)
        if token == "--":
            return tokens, after
        name = token.split("=", 1)[0]
        tokens.append(token)
        rest = after
        if "=" in token:
            continue
        if name in _VALUE_OPTIONS:
            value, rest = _take_token(rest)
            if not value:
                raise UsageError(f"%agent: {name} needs a value\n\n{usage_text()}")
            tokens.append(value)
        elif name == "--resume" and rest:
            value, after = _take_token(rest)
            if _SESSION_ID.match(value):
                tokens.append(value)
                rest = after
        elif name == "--rewind" and rest:
            value, after = _take_token(rest)
            if value.isdigit():
                tokens.append(value)
                rest = after
        elif name not in _FLAG_OPTIONS and name not in ("--resume", "--rewind"):
            raise UsageError(f"%agent: unknown option {token}\n\n{usage_text()}")
    return tokens, rest


def parse_options(line: str, cell: str | None = None) -> AgentOptions:
    """Parse ``%agent`` / ``%%agent`` input; errors raise ``UsageError`` with the usage text."""
    tokens, prompt = split_options(line)
    if "--help" in tokens:
        return AgentOptions(help=True)  # asked for: printed as text, not as an error
    try:
        args = agent_usage.parser.parse_args(tokens)  # type: ignore[attr-defined]
    except UsageError as exc:
        raise UsageError(f"%agent: {exc}\n\n{usage_text()}") from None
    if cell is not None:
        prompt = (prompt + "\n" + cell).strip() if prompt else cell.strip()
    opts = AgentOptions(
        new=args.new,
        resume=args.resume,
        model=args.model,
        mode=args.mode,
        allow=list(args.allow or []),
        deny=list(args.deny or []),
        add_dir=[_folder(value) for value in args.add_dir or []],
        forget=list(args.forget or []),
        approval_timeout=args.approval_timeout,
        permission_prompt_tool=args.permission_prompt_tool,
        mcp=list(args.mcp or []),
        rewind=args.rewind,
        stop=args.stop,
        compact=args.compact,
        cost=args.cost,
        tools=args.tools,
        permissions=args.permissions,
        sessions=args.sessions,
        trust=args.trust,
        sandbox=args.sandbox,
        prompt=prompt,
    )
    if opts.approval_timeout is not None and not opts.approval_timeout > 0:
        raise UsageError(f"%agent: --approval-timeout must be a positive number of seconds\n\n{usage_text()}")
    if opts.permission_prompt_tool is not None and not PROMPT_TOOL_NAME.fullmatch(opts.permission_prompt_tool):
        raise UsageError("%agent: --permission-prompt-tool takes an MCP tool's name, mcp__SERVER__TOOL, "
                         f"not {opts.permission_prompt_tool!r}\n\n{usage_text()}")
    if opts.rewind is not None and opts.rewind < 1:
        raise UsageError(f"%agent: --rewind takes a number of turns, 1 or more\n\n{usage_text()}")
    actions = [a for a in _ACTIONS if getattr(opts, a)]
    actions += ["rewind"] if opts.rewind is not None else []
    if len(actions) > 1:
        raise UsageError(f"%agent: use one of --{', --'.join(actions)} at a time\n\n{usage_text()}")
    if actions and opts.prompt:
        raise UsageError(f"%agent: --{actions[0]} takes no prompt\n\n{usage_text()}")
    return opts
