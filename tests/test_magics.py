"""%agent: option parsing, prompt interpolation, notebook context, loading and settings."""

from __future__ import annotations

import pytest
from IPython.core.error import UsageError
from IPython.core.interactiveshell import InteractiveShell
from traitlets import TraitError

from jupyter_agent.magics import cell_context
from jupyter_agent.magics.interpolate import InterpolationError, interpolate
from jupyter_agent.magics.options import parse_options, split_options


@pytest.fixture(scope="module")
def ip(tmp_path_factory):
    import os

    os.environ["JUPYTER_AGENT_HOME"] = str(tmp_path_factory.mktemp("agent-home"))
    shell = InteractiveShell.instance()
    shell.run_line_magic("load_ext", "jupyter_agent")
    yield shell
    shell.run_line_magic("unload_ext", "jupyter_agent")


# -- options -------------------------------------------------------------------------------------


def test_prompt_is_kept_verbatim_after_options():
    opts = parse_options("""--model claude-x --allow "Bash(pytest:*)" --allow Edit fix it, don't "break" {x}""")
    assert opts.model == "claude-x"
    assert opts.allow == ["Bash(pytest:*)", "Edit"]
    assert opts.prompt == """fix it, don't "break" {x}"""


def test_double_dash_ends_options():
    assert split_options("--mode plan -- --new is not an option here") == (
        ["--mode", "plan"],
        "--new is not an option here",
    )


@pytest.mark.parametrize(
    ("line", "resume", "prompt"),
    [
        ("--resume", "", ""),
        ("--resume go on", "", "go on"),
        ("--resume 20261130-101116-abcdef12 go on", "20261130-101116-abcdef12", "go on"),
        ("--resume=mysession go on", "mysession", "go on"),
    ],
)
def test_resume_takes_an_id_only_when_it_looks_like_one(line, resume, prompt):
    opts = parse_options(line)
    assert (opts.resume, opts.prompt) == (resume, prompt)


def test_cell_magic_prompt_is_the_cell():
    opts = parse_options("--mode acceptEdits", "line one\nline two\n")
    assert opts.mode == "acceptEdits" and opts.prompt == "line one\nline two"


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("--mode nope do it", "invalid choice: 'nope'"),
        ("--bogus", "unknown option --bogus"),
        ("--stop --cost", "one of --stop, --cost"),
        ("--cost hello", "--cost takes no prompt"),
        ("--permissions list them", "--permissions takes no prompt"),
        ("--permissions --tools", "one of --tools, --permissions"),
        ("--forget", "--forget needs a value"),
        ("--model", "--model needs a value"),
    ],
)
def test_bad_options_raise_usage_error_with_usage(line, message):
    with pytest.raises(UsageError) as info:
        parse_options(line)
    assert message in str(info.value)
    assert "%agent [--new] [--resume [ID]]" in str(info.value)


# -- interpolation -------------------------------------------------------------------------------


def test_interpolation_like_f_strings():
    ns = {"df": {"rows": 3}, "name": "x", "pi": 3.14159, "items": [1, 2, 3]}
    assert interpolate("rows={df['rows']} {name!r} {pi:.2f} {len(items)} {items[1:]}", ns) == (
        "rows=3 'x' 3.14 3 [2, 3]"
    )
    assert interpolate("literal {{braces}} and {{x}}", ns) == "literal {braces} and {x}"
    assert interpolate("a != b: {1 != 2}", ns) == "a != b: True"
    assert interpolate("{ {'k': 1}['k'] }", ns) == "1"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("{missing}", "NameError"),
        ("{unclosed", "Unclosed '{'"),
        ("single } brace", "Single '}'"),
        ("{}", "Empty {}"),
    ],
)
def test_interpolation_errors_name_the_field(text, message):
    with pytest.raises(InterpolationError) as info:
        interpolate(text, {})
    assert message in str(info.value)


def test_what_cannot_be_filled_in_is_kept_as_written_when_asked():
    """Code pasted into a %%agent prompt was a UsageError ('Could not evaluate {k: v for …}')
    unless every brace was doubled; %agent now sends it as written and says so."""
    ns = {"df_rows": 3}
    kept: list[str] = []
    text = "rows {df_rows}; fix: def f(d): return {k: v for k, v in d.items()} } and {unclosed"
    assert interpolate(text, ns, kept) == "rows 3; fix: def f(d): return {k: v for k, v in d.items()} } and {unclosed"
    assert len(kept) == 2 and "{k: v for k, v in d.items()} is not a value here (NameError" in kept[0]
    assert "Unclosed" in kept[1]
    assert interpolate("{{x}} {df_rows:.1f}", ns, kept) == "{x} 3.0"


# -- notebook context ----------------------------------------------------------------------------


def test_context_includes_the_failed_cell_traceback(ip):
    ip.run_cell("def broken():\n    return 1 / 0\nbroken()", cell_id="cell-fails")
    ctx = cell_context.gather(ip, "cell-agent")
    assert ctx.failed is not None
    assert ctx.failed.cell_id == "cell-fails"
    assert "ZeroDivisionError" in ctx.failed.traceback
    assert "return 1 / 0" in ctx.failed.source
    reminder = ctx.reminder()
    assert "%agent cell with id cell-agent" in reminder
    assert "The previously executed cell (cell id cell-fails) failed" in reminder
    ip.run_cell("x = 1", cell_id="cell-ok")
    assert cell_context.gather(ip, "c").failed is None


def test_the_failure_the_page_shows_for_the_clicked_cell_is_kept(ip):
    """A Fix clicked on a cell that is not the last one run: the page hands the kernel that
    cell's source and (coloured) traceback, which go to the agent as the cell to fix."""
    import json

    chosen = {"cell_id": "old-cell", "source": "rows = []\nsum(rows) / len(rows)",
              "traceback": "\x1b[0;31mZeroDivisionError\x1b[0m: division by zero \u2028 \"quoted\" \\"}
    ip.run_cell("x = 1", cell_id="later-cell")  # ran after it, and succeeded
    given = f"json.loads({json.dumps(json.dumps(chosen))})"  # what commands.ts's loadCode writes
    assert ip.run_cell(_labextension_helper(given), silent=True, store_history=False).success
    ctx = cell_context.gather(ip, "cell-agent")
    assert ctx.failed is not None and ctx.failed.cell_id == "old-cell" and ctx.failed.chosen
    assert ctx.failed.traceback == 'ZeroDivisionError: division by zero \u2028 "quoted" \\'
    assert "The cell the user asks to fix (cell id old-cell) failed" in ctx.reminder()
    assert "sum(rows) / len(rows)" in ctx.reminder()


def _labextension_helper(chosen: str = "None") -> str:
    """The quiet helper "Fix This Cell with the Agent" runs first (labextension/src/commands.ts),
    with ``chosen`` (a Python expression) where the page puts the clicked cell's failure."""
    import ast
    import re
    from pathlib import Path

    ts = (Path(__file__).parents[1] / "labextension" / "src" / "commands.ts").read_text()
    body = re.search(r"const LOAD = \[\n(.*?)\n\]\.join", ts, re.S)
    assert body
    lines = [ast.literal_eval(line.strip().rstrip(",")) for line in body.group(1).splitlines()]
    assert sum("CHOSEN" in line for line in lines) == 1
    return "\n".join(lines).replace("CHOSEN", chosen)


def test_the_failure_before_the_labextensions_quiet_helper_is_kept(ip):
    """The helper (it loads the extension) is an execution too: it replaced IPython's record of
    the failed cell, so "Fix This Cell with the Agent" sent no traceback.  It keeps it now, for
    the next cell only; the helper's own failure is nobody's."""
    helper = _labextension_helper()
    assert cell_context.HELPER_MARK in helper
    ip.run_cell("ratio = 1 / 0", cell_id="cell-fails")
    assert ip.run_cell(helper, silent=True, store_history=False).success
    assert "_jupyter_agent_load" not in ip.user_ns  # the helper leaves no name behind
    failed = cell_context.gather(ip, "cell-agent").failed
    assert failed is not None and failed.cell_id == "cell-fails" and "ZeroDivisionError" in failed.traceback
    ip.run_cell(helper, silent=True, store_history=False)  # clicked twice: still that failure
    assert cell_context.gather(ip, "cell-agent").failed == failed
    ip.run_cell("x = 1", cell_id="cell-ok")  # a cell ran since: nothing to tell
    assert cell_context.gather(ip, "c").failed is None
    ip.run_cell("import sys; sys.modules['jupyter_agent_missing'] = None")
    broken = ip.run_cell(helper.replace("'jupyter_agent'", "'jupyter_agent_missing'"), silent=True)
    assert not broken.success and isinstance(broken.error_in_exec, ImportError)
    assert cell_context.gather(ip, "c").failed is None


def test_notebook_path_from_the_session_variable(ip, monkeypatch):
    monkeypatch.setitem(ip.user_ns, "__session__", "/home/u/work/analysis.ipynb")
    assert cell_context.notebook_path(ip) == "/home/u/work/analysis.ipynb"
    assert "Jupyter notebook /home/u/work/analysis.ipynb" in cell_context.gather(ip, None).reminder()


def test_the_other_open_notebooks_are_named_relative_to_the_working_folder(tmp_path):
    work = tmp_path / "work"
    (work / "sub").mkdir(parents=True)
    own, other, deeper, outside = work / "a.ipynb", work / "b.ipynb", work / "sub" / "c.ipynb", tmp_path / "o.ipynb"
    paths = [str(own), str(other), str(deeper), str(outside)]
    note = cell_context.open_notebooks_note(paths, "a.ipynb", work)  # the own path as the kernel has it
    assert note.startswith("<system-reminder>\nAlso open in JupyterLab: b.ipynb, sub/c.ipynb, "
                           f"{outside}. Read, NotebookEdit and NotebookExecute act on these live")
    assert note.endswith("\n</system-reminder>") and "a.ipynb," not in note
    assert cell_context.open_notebooks_note([str(own)], str(own), work) == ""  # only the user's own
    assert cell_context.open_notebooks_note([], None, work) == ""
    many = [str(work / f"n{i:02}.ipynb") for i in range(25)]
    crowded = cell_context.open_notebooks_note(many, str(own), work)
    assert "n19.ipynb (and 5 more)." in crowded and "n20.ipynb" not in crowded


# -- the extension -------------------------------------------------------------------------------


def test_load_ext_registers_magics_and_config(ip):
    assert "agent" in ip.magics_manager.magics["line"]
    assert "agent" in ip.magics_manager.magics["cell"]
    ip.run_line_magic("config", 'AgentMagics.model = "claude-test-model"')
    magics = ip._jupyter_agent_magics
    assert magics.model == "claude-test-model"
    ip.run_line_magic("config", 'AgentMagics.mode = "plan"')
    assert magics.mode == "plan"
    ip.run_line_magic("config", 'AgentMagics.mode = "default"')


def test_magic_usage_errors_surface_in_the_cell(ip):
    with pytest.raises(UsageError, match="unknown option --nope"):
        ip.run_line_magic("agent", "--nope")
    with pytest.raises(UsageError, match="what should the agent do"):
        ip.run_line_magic("agent", "")


def test_cost_and_tools_reports(ip):
    magics = ip._jupyter_agent_magics
    if magics.session is None:
        assert ip.run_line_magic("agent", "--cost") == "No agent session yet."
    tools = ip.run_line_magic("agent", "--tools")
    assert "tools the model can call" in tools
    lines = {line.split()[0]: line.split(None, 1)[1] for line in tools.splitlines()[1:] if line.startswith("  ")
             and len(line.split()) > 1}
    # what each tool does, as the model is told — not a class docstring (the session's Edit is
    # a checkpoint wrapper whose docstring described the wrapper)
    assert lines["Read"] == "Reads a file from the local filesystem and shows it to you."
    assert lines["Edit"] == "Performs an exact string replacement in a file."
    assert lines["Bash"].startswith("Runs a bash command on the user's machine")
    assert lines["WebFetch"] == "Fetches content from a specified URL and processes it using an AI model"
    assert lines["Agent"].startswith("Launches a subagent")
    assert not any("``" in text or "wrapped tool" in text for text in lines.values())
    assert all(lines.get(name) for name in ("TaskOutput", "TaskStop", "Grep", "Glob", "Write"))
    cost = ip.run_line_magic("agent", "--cost")
    assert cost.startswith(f"Session {magics.session.id}") and "cost $0.0000" in cost


def test_allow_and_mode_change_the_live_session(ip):
    ip.run_line_magic("agent", "--tools")
    magics = ip._jupyter_agent_magics
    status = ip.run_line_magic("agent", '--mode acceptEdits --allow "Bash(pytest:*)" --deny WebFetch')
    assert "mode acceptEdits" in status
    perm = magics.session.context.permission_context
    assert perm.mode == "acceptEdits"
    assert ("session", "Bash(pytest:*)") in perm.rules("allow")
    assert ("session", "WebFetch") in perm.rules("deny")


def test_new_session_replaces_the_old_one(ip):
    ip.run_line_magic("agent", "--tools")
    magics = ip._jupyter_agent_magics
    old = magics.session
    status = ip.run_line_magic("agent", "--new --model claude-other")
    assert magics.session is not old
    assert "model claude-other" in status


def test_a_prompt_without_an_event_loop_is_a_clear_error(ip):
    with pytest.raises(UsageError, match="use it in a Jupyter kernel"):
        ip.run_line_magic("agent", "hello")


def test_a_bad_session_config_is_a_usage_error(ip):
    magics = ip._jupyter_agent_magics
    magics.thinking_budget = 50_000  # larger than max_tokens
    try:
        with pytest.raises(UsageError, match="thinking_budget"):
            ip.run_line_magic("agent", "--new")
    finally:
        magics.thinking_budget = None


def test_add_dir_adds_a_working_directory_to_a_new_and_a_live_session(ip, tmp_path):
    first, second = tmp_path / "data", tmp_path / "more"
    first.mkdir()
    second.mkdir()
    status = ip.run_line_magic("agent", f"--new --add-dir {first}")
    magics = ip._jupyter_agent_magics
    assert f"session {magics.session.id}" in str(status)
    assert first in magics.session.context.permission_context.additional_directories
    ip.run_line_magic("agent", f"--add-dir {second}")
    assert magics.session.context.permission_context.additional_directories[-2:] == (first, second)


def test_a_live_session_cannot_be_switched_past_the_managed_policy(ip, tmp_path, monkeypatch):
    from jupyter_agent.permissions import managed

    policy = tmp_path / "policy"
    policy.mkdir()
    (policy / "managed-settings.json").write_text(
        '{"permissions": {"disableBypassPermissionsMode": "disable", "allowManagedPermissionRulesOnly": true}}')
    monkeypatch.setattr(managed, "MANAGED_DIR", policy)
    magics = ip._jupyter_agent_magics
    status = ip.run_line_magic("agent", "--new --mode acceptEdits")
    assert f"managed settings {policy / 'managed-settings.json'}" in status
    with pytest.raises(UsageError, match="disableBypassPermissionsMode"):
        ip.run_line_magic("agent", "--mode bypassPermissions")
    with pytest.raises(TraitError, match="disableBypassPermissionsMode"):
        magics.mode = "bypassPermissions"  # %config AgentMagics.mode = ...
    assert magics.mode == "default"  # the setting keeps its value too
    with pytest.raises(UsageError, match="allowManagedPermissionRulesOnly"):
        ip.run_line_magic("agent", '--allow "Bash(pytest:*)"')
    perm = magics.session.context.permission_context
    assert perm.mode == "acceptEdits" and perm.rules("allow") == []
    with pytest.raises(UsageError, match="disableBypassPermissionsMode"):
        ip.run_line_magic("agent", "--new --mode bypassPermissions")
    monkeypatch.undo()
    ip.run_line_magic("agent", "--new")


def test_permissions_lists_the_rules_and_forget_removes_one(ip, tmp_path, monkeypatch):
    import json

    from jupyter_agent.permissions import managed

    project, home, policy = tmp_path / "proj", tmp_path / "home", tmp_path / "policy"
    (project / ".claude").mkdir(parents=True)
    (home / ".claude").mkdir(parents=True)
    policy.mkdir()
    local = project / ".claude" / "settings.local.json"
    local.write_text(json.dumps({"model": "keep", "permissions": {
        "allow": ["Bash(pytest:*)", "Bash(make:*)"], "deny": ["Bash(make:*)"]}}, indent=4))
    (home / ".claude" / "settings.json").write_text(json.dumps({"permissions": {"ask": ["Bash(git push:*)"]}}))
    (policy / "managed-settings.json").write_text(json.dumps({"permissions": {"deny": ["Bash(curl:*)"]}, "hooks": {
        "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "http", "url": "http://127.0.0.1:9/audit"}]}]}}))
    monkeypatch.setattr(managed, "MANAGED_DIR", policy)
    monkeypatch.setenv("HOME", str(home))
    magics = ip._jupyter_agent_magics
    monkeypatch.setattr(magics, "project_dir", str(project))
    ip.run_line_magic("agent", '--new --allow "Bash(ls:*)"')
    text = ip.run_line_magic("agent", "--permissions")
    lines = text.splitlines()
    assert lines[0] == f"Session {magics.session.id} · mode default"
    assert f"Working directories: {project} (project)" in lines
    assert f"Managed settings: {policy / 'managed-settings.json'}" in lines
    assert "Sandbox: off (Bash commands run as you; %agent --sandbox turns it on)" in lines
    assert lines[-3:] == ["Hooks:", f"  PreToolUse (Bash): POST http://127.0.0.1:9/audit — {policy / 'managed-settings.json'}",
                          'Remove a rule: %agent --forget "RULE"']
    rows = [line.split() for line in lines if line.startswith("  ") and "POST" not in line]
    assert rows == [["deny", "Bash(curl:*)", "managed", "settings"],
                    ["deny", "Bash(make:*)", ".claude/settings.local.json"],
                    ["ask", "Bash(git", "push:*)", str(home / ".claude" / "settings.json")],
                    ["allow", "Bash(ls:*)", "session", "option"]]
    # the folder is not trusted: the local file's allow rules wait, and the listing says so
    assert ("Held back until you trust this folder: .claude/settings.local.json: allow rules Bash(pytest:*), "
            "Bash(make:*)") in lines
    done = ip.run_line_magic("agent", '--forget "Bash(make:*)" --forget "Bash(ls:*)"')
    assert done == "Removed Bash(make:*) from .claude/settings.local.json.\nRemoved Bash(ls:*) from session option."
    saved = json.loads(local.read_text())
    assert saved == {"model": "keep", "permissions": {"allow": ["Bash(pytest:*)"], "deny": []}}
    perm = magics.session.context.permission_context
    assert all("Bash(make:*)" not in rule and rule != "Bash(ls:*)" for _, rule in perm.rules("allow") + perm.rules("deny"))
    with pytest.raises(UsageError, match="administrator's"):
        ip.run_line_magic("agent", '--forget "Bash(curl:*)"')
    with pytest.raises(UsageError, match="no settings file or session has it"):
        ip.run_line_magic("agent", '--forget "Bash(nothing:*)"')
    assert ("policySettings", "Bash(curl:*)") in magics.session.context.permission_context.rules("deny")
    ip.run_line_magic("agent", "--mode auto")
    assert "Auto mode: the reviewer decides what would ask you; so far 0 approved, 0 refused" in \
        ip.run_line_magic("agent", "--permissions").splitlines()
    ip.run_line_magic("agent", "--sandbox")
    assert "Sandbox: on for Bash (bubblewrap) · hosts reached unasked: none; others are asked about" in \
        ip.run_line_magic("agent", "--permissions").splitlines()
    monkeypatch.undo()
    ip.run_line_magic("agent", "--new")


_PRELOAD_PROBE = """
import sys, threading
importers = []

class Watch:  # notes which thread asks for the SDK first, and lets the normal finders find it
    def find_spec(self, name, path=None, target=None):
        if name == "anthropic":
            importers.append(threading.current_thread().name)
        return None

sys.meta_path.insert(0, Watch())
from traitlets.config import Config
from IPython.core.interactiveshell import InteractiveShell
config = Config()
config.AgentMagics.preload = {preload}
ip = InteractiveShell.instance(config=config)
ip.run_line_magic("load_ext", "jupyter_agent")
threads = [t for t in threading.enumerate() if t.name == "jupyter-agent-preload"]
for t in threads:
    t.join(120)
print(importers, len(threads), "anthropic" in sys.modules)
"""


@pytest.mark.parametrize(("preload", "seen"), [(True, "['jupyter-agent-preload'] 1 True"), (False, "[] 0 False")])
def test_load_ext_imports_the_sdk_in_the_background_unless_told_not_to(preload, seen):
    """%load_ext stays quick (the SDK is not imported on the calling thread), and the first
    %agent does not wait for the SDK: a daemon thread has imported it meanwhile."""
    import subprocess
    import sys

    code = _PRELOAD_PROBE.format(preload=preload)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=180, check=True)
    assert out.stdout.strip().splitlines()[-1] == seen


@pytest.mark.parametrize(("cell", "becomes"), [
    ("%agent what is x?\n", "get_ipython().run_line_magic('agent', 'what is x?')\n"),
    ("%agent how many lines in data.csv?", "get_ipython().run_line_magic('agent', 'how many lines in data.csv?')\n"),
    ("y = 1\n%agent --mode plan is x ok?  \nz = 2\n",
     "y = 1\nget_ipython().run_line_magic('agent', '--mode plan is x ok?')\nz = 2\n"),
    ("if y:\n    %agent why is y?\n", "if y:\n    get_ipython().run_line_magic('agent', 'why is y?')\n"),
    ("%agent it's {x}, isn't it?\n", "get_ipython().run_line_magic('agent', \"it's {x}, isn't it?\")\n"),
    # left to IPython: help on the magic, a string that holds such a line, no question mark
    ("%agent?\n", "get_ipython().run_line_magic('pinfo', '%agent')\n"),
    ("%agent??\n", "get_ipython().run_line_magic('pinfo2', '%agent')\n"),
    ('s = """\n%agent what is x?\n"""\n', 's = """\n%agent what is x?\n"""\n'),
    ("x?\n", "get_ipython().run_line_magic('pinfo', 'x')\n"),
])
def test_a_question_to_the_agent_is_not_a_help_request(ip, cell, becomes):
    """IPython reads `… name?` as help on name: `%agent what is x?` became `%pinfo x`."""
    assert ip.transform_cell(cell) == becomes


def test_unloading_gives_the_question_mark_back_to_ipython():
    shell = InteractiveShell.instance()
    from jupyter_agent import load_ipython_extension, unload_ipython_extension
    from jupyter_agent.magics.question_mark import keep_questions

    unload_ipython_extension(shell)
    assert keep_questions not in shell.input_transformers_cleanup
    load_ipython_extension(shell)
    load_ipython_extension(shell)  # loading twice registers it once
    assert shell.input_transformers_cleanup.count(keep_questions) == 1


def test_compact_and_rewind_outside_a_kernel_say_where_they_run(ip):
    """In a terminal IPython (no event loop) --compact failed with a bare 'RuntimeError: no
    running event loop'; it says what %agent needs, as a prompt does."""
    ip.run_line_magic("agent", "--tools")  # a session exists
    for line in ("--compact", "--rewind"):
        with pytest.raises(UsageError, match="runs its turns on the kernel's event loop"):
            ip.run_line_magic("agent", line)
    with pytest.raises(UsageError) as info:
        ip.run_line_magic("agent", "--mcp '{bad json'")
    assert str(info.value).startswith("%agent --mcp: not valid JSON")
