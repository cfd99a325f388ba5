"""Commands other interpreters' command-line code builds (``permissions/script_commands.py``).

In bypassPermissions with ``Bash(*)`` allowed and ``Bash(rm:*)`` denied, ``node -e
'require("child_process").execSync("r"+"m x")'``, ``perl -e 'system("r"."m x")'``, ``php -r``,
``ruby -e``, ``Rscript -e``, ``lua -e``, ``julia -e`` and ``expect -c 'spawn rm x'`` removed
``x``: no string literal of the code said ``rm x``.  These languages are read with regular
expressions: a call that runs a command asks unless its command is a fixed string (then the rules
meet it as a Bash line).  The interpreters present here run each attack once, to show it is real.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from jupyter_agent.permissions.script_commands import script_commands
from tests.permissions.conftest import verdict_name
from tests.permissions.tools import decide_bash, make_ctx

LINES = [
    ("js", 'require("child_process").execSync("r"+"m x")', (None,)),
    ("js", 'require("child_process").execSync("rm x")', ("rm x",)),
    ("js", 'require("child_process").execSync("r\\x6d x")', (None,)),  # an escape: "rm x"
    ("js", 'const cp = require("child_process"); cp.exec(`ls -la`, (e, out) => console.log(out))', ("ls -la",)),
    ("js", 'require("child_process").execSync(`r${"m"} x`)', (None,)),
    ("js", 'const {spawnSync} = require("child_process"); spawnSync("r" + "m", ["x"])', (None,)),
    ("js", 'const {spawnSync} = require("child_process"); spawnSync("git", ["log", f], {stdio: "inherit"})',
     ('git log "$__script_value_2"',)),
    ("js", 'const {spawn} = require("child_process"); spawn("sh", ["-c", cmd])', ('sh -c "$__script_value_2"',)),
    ("js", 'eval(Buffer.from("cmVx", "base64").toString())', (None,)),
    ("js", 'require(name)', (None,)),
    ("js", 'console.log(require("./package.json").version)', ()),
    ("js", 'const m = /a(b)/.exec(s); console.log(m)', ()),  # no child_process: RegExp's exec
    ("perl", 'system("r"."m x")', (None,)),
    ("perl", '$c = "r"; $c .= "m x"; system($c)', (None,)),
    ("perl", 'system(`cat cmd.txt`)', (None,)),
    ("perl", 'exec reverse("x mr")', (None,)),
    ("perl", 'system "ls -la"', ("ls -la",)),
    ("perl", 'system("rm", "x")', ("rm x",)),
    ("perl", 'system("$x")', (None,)),
    ("perl", 'eval $code', (None,)),
    ("perl", 'print "hello\\n"; eval { 1 }', ()),
    ("ruby", 'system("r"+"m x")', (None,)),
    ("ruby", 'system(File.read("cmd.txt"))', (None,)),
    ("ruby", 'system("ls", "-la")', ("ls -la",)),
    ("ruby", 'system("#{c} x")', (None,)),
    ("ruby", 'require "json"; puts JSON.dump([1])', ()),
    ("php", 'system("r"."m x");', (None,)),
    ("php", 'passthru(file_get_contents("cmd.txt"));', (None,)),
    ("php", 'echo shell_exec("ls");', ("ls",)),
    ("php", 'echo json_encode([1, 2]);', ()),
    ("r", 'system(paste0("r", "m x"))', (None,)),
    ("r", 'system2("rm", c("x"))', ("rm x",)),
    ("r", 'system2("git", args)', ('git "$__script_value_1"',)),
    ("r", 'eval(parse(text = code))', (None,)),
    ("r", 'print(sum(1:10))', ()),
    ("lua", 'os.execute("r".."m x")', (None,)),
    ("lua", 'os.execute("ls")', ("ls",)),
    ("lua", 'load(code)()', (None,)),
    ("julia", 'run(`$(string("r", "m")) x`)', (None,)),
    ("julia", 'run(`ls -la`)', ("ls -la",)),
    ("julia", 'println(1 + 2)', ()),
    ("tcl", 'spawn rm x', ("rm x",)),
    ("tcl", 'exec -ignorestderr -- rm x', ("rm x",)),
    ("tcl", 'set c rm; exec $c x', (None,)),
    ("tcl", 'puts [exec ls]', ("ls",)),
    ("tcl", 'eval $cmd', (None,)),
    ("tcl", 'set f [open "|rm x"]', (None,)),
    ("tcl", 'puts hello', ()),
]


@pytest.mark.parametrize(("language", "code", "expected"), LINES, ids=[f"{lang}:{c[:50]}" for lang, c, _ in LINES])
def test_the_shell_lines_the_code_runs(language, code, expected):
    assert script_commands(language, code) == expected


BYPASS = {"allow": ("Bash(*)",), "deny": ("Bash(rm:*)",), "mode": "bypassPermissions"}
ATTACKS = [
    "node -e 'require(\"child_process\").execSync(\"r\"+\"m x\")'",
    "node -e 'require(\"child_process\").execSync(\"r\\x6d x\")'",
    "node -e 'require(\"child_process\").execSync(require(\"fs\").readFileSync(\"cmd.txt\", \"utf8\"))'",
    "node -e 'eval(Buffer.from(\"cmVxdWlyZSgiY2hpbGRfcHJvY2VzcyIpLmV4ZWNTeW5jKCJybSB4Iik=\", \"base64\").toString())'",
    "perl -e 'system(\"r\".\"m x\")'",
    "perl -e '$c = \"r\"; $c .= \"m x\"; system($c)'",
    "perl -e 'exec scalar reverse(\"x mr\")'",
    "php -r 'system(\"r\".\"m x\");'",
    "php -r 'system(file_get_contents(\"cmd.txt\"));'",
    "ruby -e 'system(\"r\"+\"m x\")'",
    "Rscript -e 'system(paste0(\"r\", \"m x\"))'",
    "lua -e 'os.execute(\"r\"..\"m x\")'",
    "julia -e 'run(`$(string(\"r\", \"m\")) x`)'",
    "expect -c 'spawn rm x'",
    "tclsh <<< 'exec rm x'",
    "node - <<'EOF'\nconst {execSync} = require('child_process')\nexecSync('r' + 'm x')\nEOF",
    "echo 'require(\"child_process\").execSync(\"r\"+\"m x\")' > t.js && node -e \"$(cat t.js)\"",
]
CALM = [
    "node -e 'console.log(require(\"./package.json\").version)'",
    "node -e 'const cp = require(\"child_process\"); console.log(cp.execSync(\"git status\").toString())'",
    "perl -ne 'print if /x/' notes.txt",
    "perl -pi -e 's/a/b/' notes.txt",
    "ruby -e 'puts 1 + 2'",
    "Rscript -e 'print(sum(1:10))'",
]


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "cmd.txt").write_text("rm x")
    (tmp_path / "notes.txt").write_text("a\n")
    (tmp_path / "package.json").write_text('{"version": "1.0.0"}')
    (tmp_path / "x").write_text("keep me")
    return tmp_path


@pytest.mark.parametrize("command", ATTACKS)
async def test_a_command_the_code_builds_asks(project, command):
    verdict = await decide_bash(make_ctx(project, **BYPASS), command)
    assert verdict_name(verdict) in ("ask", "deny"), (command, getattr(verdict, "message", ""))


@pytest.mark.parametrize("command", CALM)
async def test_code_that_runs_fixed_commands_or_none_is_as_before(project, command):
    verdict = await decide_bash(make_ctx(project, **BYPASS), command)
    assert verdict_name(verdict) == "allow", (command, getattr(verdict, "message", ""))


async def test_no_rule_naming_a_program_no_question(project):
    ctx = make_ctx(project, allow=("Bash(*)",), deny=("Read(./.env)",), mode="bypassPermissions")
    for command in ATTACKS[:3]:
        assert verdict_name(await decide_bash(ctx, command)) == "allow", command


@pytest.mark.parametrize("command", [a for a in ATTACKS if "<<" not in a and "&&" not in a])
def test_each_attack_really_removes_the_file(project, command):
    """The effect is real, for the interpreters this machine has."""
    program = command.split()[0]
    if shutil.which(program) is None:
        pytest.skip(f"{program} is not installed")
    subprocess.run(["bash", "-c", command], cwd=project, capture_output=True, timeout=60)
    assert not (project / "x").exists(), command
