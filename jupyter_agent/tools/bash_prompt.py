"""What the model reads about the Bash tool (its API description)."""

from __future__ import annotations

from .shell.output import MAX_INLINE_CHARS

DEFAULT_TIMEOUT_MS = 120_000
MAX_TIMEOUT_MS = 600_000

BASH_PROMPT = f"""\
Runs a bash command on the user's machine and returns its output (stdout and stderr merged, in \
the order they were written).

The shell:
- Every call starts a fresh non-interactive bash with the user's environment. The working \
directory carries over from call to call (a `cd` stays in effect); variables, aliases, \
functions and `source`d files do not — set what you need in the same command.
- Prefer absolute paths and avoid `cd` where you can; when you do need a directory change, \
combine it with the work: `cd /path/to/project && make test`.
- Always double-quote paths that may contain spaces or special characters: `ls "/tmp/my dir"`.
- stdin is closed: commands that wait for input get end-of-file at once. Never start \
interactive programs (editors, pagers, `git rebase -i`, `python` without a script, prompts \
asking y/n); pass flags such as `-y`, `--no-edit`, `--yes` or pipe from `printf` instead.
- Run several independent commands in one call with `;` or `&&` (use `&&` when later ones \
depend on earlier ones); keep separate concerns in separate calls.

Use the dedicated tools instead of shell equivalents — they are faster, safer and their \
results are easier to read: Read (not `cat`, `head`, `tail`), Grep (not `grep`, `rg`), \
Glob (not `find`, `ls -R`), Edit and Write (not `sed -i`, `echo >`, heredocs into files). \
Use Bash for what only a shell does: builds, tests, git, package managers, running scripts.

Time limits and output:
- Default timeout {DEFAULT_TIMEOUT_MS // 1000} s; set `timeout` (milliseconds, at most \
{MAX_TIMEOUT_MS:,}) for longer work. On timeout or when the user stops the call, the command \
and every process it started are killed.
- Output over {MAX_INLINE_CHARS:,} characters is cut to its head and tail; the full text is \
saved to a file whose path is given — Read or Grep that file instead of re-running the command.
- Colours and terminal escape codes are removed; binary output is reported, not shown.

Long-running commands (servers, watchers, long builds):
- Set `run_in_background: true`. You get a task id at once; the command keeps running while \
you work. Read its new output with TaskOutput (`block: false` to peek, or wait for it to \
finish) and stop it with TaskStop. Do not append `&` yourself: processes a foreground command \
leaves running are stopped when that command returns. Do not poll with `sleep`.

Git and safety:
- Never change git config, force-push, reset --hard or delete branches unless the user asked.
- Describe what the command does in `description` (5-10 words), e.g. "Run the unit tests".
"""
