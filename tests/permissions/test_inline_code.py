"""Paths spelled as string literals in code an interpreter takes on its command line (session 30).

With ``Read(./.env)`` in deny and a rule allowing the interpreter, ``python -c
"print(open('.env').read())"``, ``node -e 'fs.readFileSync(".env")'`` and ``python - <<'EOF' …
open('.env') … EOF`` printed the file.  A literal is checked as a path the command names: a Read
deny rule or a protected path asks (in every mode); an Edit rule only for a literal that reads
as a path.  A path the code computes (``"." + "env"``) is the sandbox's to hold.
"""

from __future__ import annotations

import shutil
import subprocess

import pytest

from tests.permissions.conftest import verdict_name
from tests.permissions.tools import decide_bash, make_ctx

ALLOW = tuple(f"Bash({p}:*)" for p in ("python", "python3", "python3.12", "node", "ruby", "perl", "php", "Rscript",
                                       "julia", "bun", "uv", "ipython", "pythonw", "expect", "gnuplot", "octave"))
ASKED = [
    "python -c \"print(open('.env').read())\"", "python3 -c 'import pathlib; print(pathlib.Path(\".env\").read_text())'",
    "python -X dev -c \"open('.env')\"", "python -Bc \"open('.env')\"", "python3.12 -c \"open('./.env')\"",
    "node -e 'console.log(require(\"fs\").readFileSync(\".env\", \"utf8\"))'", "node --eval='require(\"fs\").readFileSync(\".env\")'",
    "node -p 'require(\"fs\").readFileSync(\".env\", \"utf8\")'", "bun -e 'await Bun.file(\".env\").text()'",
    "ruby -e 'puts File.read(\".env\")'", "perl -e 'open F, \".env\"; print <F>'", "perl -ne'print \".env\"' x",
    "php -r 'echo file_get_contents(\".env\");'", "Rscript -e 'cat(readLines(\".env\"))'", "julia -e 'print(read(\".env\", String))'",
    "python - <<'EOF'\nprint(open('.env').read())\nEOF", "python3 <<EOF\nprint(open(\"sub/../.env\").read())\nEOF",
    "node <<< 'console.log(require(\"fs\").readFileSync(\".env\", \"utf8\"))'", "uv run python -c \"open('.env')\"",
    "python -c \"open('locked/x', 'w').write('1')\"", "ipython -c \"open('.env')\"",
    "pythonw -c \"open('.env')\"",  # every name bash_runner_table.PYTHONS knows
    # session 43: node's -pe (-p -e) read "e" as the code; a command line in a string or in a
    # language's command quotes (perl and ruby backquotes, qx{}, %x()) printed the file
    "node -pe 'require(\"fs\").readFileSync(\".env\", \"utf8\")'", "perl -e 'print `cat .env`'",
    "perl -e 'print qx{cat .env}'", "ruby -e 'puts %x(cat .env)'", "php -r 'echo `cat .env`;'",
    "python -c \"import os; os.system('cat .env')\"",
    "node -e 'require(\"child_process\").execSync(\"cat .env\", {stdio: \"inherit\"})'",
    "expect -c 'exec cat .env'", "gnuplot -e 'system(\"cat .env\")'", "octave --eval 'type .env'",
    # session 51: a name Python builds from its literals (python_strings.py) was allowed
    "python -c \"print(open('.' + 'env').read())\"",
]
ALLOWED = [
    "python -c 'print(1)'", "python -c \"print('hello world')\"", "python -c \"print(open('a.py').read())\"",
    "node -e 'console.log(\"%d rows\", 3)'",
    "python -c \"import json; print(json.dumps({'a': 1}))\"", "python - <<'EOF'\nprint('ok')\nEOF",
    "python -c \"print('locked')\"",  # a word, not a path: Edit rules check path-like strings only
    "python -c 'import os; print(os.environ)'", "perl -e 'print `cat a.py`'",
]


@pytest.fixture
def ctx(world):
    (world.project / "locked").mkdir()
    return make_ctx(world.project, allow=ALLOW, deny=("Read(./.env)", "Edit(./locked/**)"))


@pytest.mark.parametrize("command", ASKED)
async def test_a_denied_path_spelled_in_the_code_asks(ctx, command):
    verdict = await decide_bash(ctx, command)
    assert verdict_name(verdict) == "ask", command
    assert "a string in its code" in verdict.message


@pytest.mark.parametrize("command", ALLOWED)
async def test_code_that_spells_no_guarded_path_runs(ctx, command):
    assert verdict_name(await decide_bash(ctx, command)) == "allow", command


@pytest.mark.parametrize("command", ["python -c \"open('.git/config', 'w').write('x')\"",
                                     "node -e 'require(\"fs\").writeFileSync(\".claude/settings.json\", \"{}\")'",
                                     "python -c \"open('.mcp.json', 'w')\""])
async def test_a_protected_path_in_the_code_asks_in_bypass_mode(world, command):
    ctx = make_ctx(world.project, mode="bypassPermissions")
    assert verdict_name(await decide_bash(ctx, command)) == "ask", command
    assert verdict_name(await decide_bash(ctx, "python -c \"print(open('a.py').read())\"")) == "allow"


@pytest.mark.parametrize("command", ["node -pe 'require(\"fs\").readFileSync(\".env\", \"utf8\")'",
                                     "perl -e 'print `cat .env`'", "perl -e 'print qx{cat .env}'",
                                     "php -r 'echo `cat .env`;'"])
def test_real_interpreters_print_the_file_so(tmp_path, command):
    """The ground truth of the session-43 rows, for the interpreters this machine has."""
    program = command.split()[0]
    if shutil.which(program) is None:
        pytest.skip(f"needs {program}")
    (tmp_path / ".env").write_text("SECRET=1\n")
    real = subprocess.run(["bash", "-c", command], cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert "SECRET=1" in real.stdout, (command, real.stderr)


# session 49: the Lisps, the ML family, Raku, the TypeScript runners, QuickJS, Janet, Hy,
# CoffeeScript and nix took code (-e, --eval, --expr) that was never read, and their script
# files were never opened: with Bash(*) allowed in bypassPermissions, each printed .env
MORE_INTERPRETERS = [
    "elixir -e 'IO.puts File.read!(\".env\")'", "clojure -e '(print (slurp \".env\"))'",
    "clj --eval '(slurp \".env\")'", "bb -e '(slurp \".env\")'", "racket -e '(display (file->string \".env\"))'",
    "guile -c '(display (call-with-input-file \".env\" get-string-all))'", "sbcl --eval '(open \".env\")'",
    "ghc -e 'readFile \".env\" >>= putStr'", "scala -e 'print(io.Source.fromFile(\".env\").mkString)'",
    "raku -e 'print slurp q{.env}'", "ts-node -e 'require(\"fs\").readFileSync(\".env\")'",
    "tsx -p 'require(\"fs\").readFileSync(\".env\", \"utf8\")'", "qjs -e 'std.loadFile(\".env\")'",
    "janet -e '(print (slurp \".env\"))'", "hy -c '(print (.read (open \".env\")))'",
    "nix eval --raw --expr 'builtins.readFile ./.env'",  # a bare path literal, outside quotes
    "nix-instantiate --eval -E 'builtins.readFile ./.env'",
]
SCRIPT_RUNNERS = [("ocaml", "x.ml"), ("racket", "x.rkt"), ("sbcl --script", "x.lisp"), ("guile", "x.scm"),
                  ("clojure", "x.clj"), ("bb", "x.clj"), ("raku", "x.raku"), ("janet", "x.janet"), ("qjs", "x.js"),
                  ("pwsh", "x.ps1"), ("swipl", "x.pl"), ("escript", "x.erl"), ("wish", "x.tcl"), ("hy", "x.hy")]


@pytest.mark.parametrize("command", MORE_INTERPRETERS)
async def test_more_interpreters_code_is_read(world, command):
    for mode, allow in (("default", ("Bash(*)",)), ("bypassPermissions", ("Bash(*)",))):
        ctx = make_ctx(world.project, allow=allow, deny=("Read(./.env)",), mode=mode)
        verdict = await decide_bash(ctx, command)
        assert verdict_name(verdict) == "ask", (mode, verdict)
        assert ".env" in verdict.message


@pytest.mark.parametrize(("runner", "script"), SCRIPT_RUNNERS)
async def test_more_interpreters_scripts_are_read(world, runner, script):
    ctx = make_ctx(world.project, allow=("Bash(*)",), deny=("Read(./.env)",), mode="bypassPermissions")
    (world.project / script).write_text('(print (slurp ".env"))\n')
    verdict = await decide_bash(ctx, f"{runner} {script}")
    assert verdict_name(verdict) == "ask", verdict
    assert script in verdict.message and ".env" in verdict.message
    (world.project / script).write_text('(print "hello")\n')
    assert verdict_name(await decide_bash(ctx, f"{runner} {script}")) == "allow"


@pytest.mark.parametrize(("command", "expected"), [
    ("socat -u OPEN:.env -", "ask"), ("socat - GOPEN:.env", "ask"), ("socat - open:./sub/../.env,rdonly", "ask"),
    ("socat -u FILE:.env STDOUT", "ask"), ("socat -u - CREATE:.git/config", "ask"),
    ("socat PTY,link=.bashrc -", "ask"),  # the link it makes
    ("socat READLINE,history=.git/x -", "ask"),  # the history file it writes
    ("socat - 'SHELL:rm x'", "deny"),  # socat 1.8's SHELL: runs the code as EXEC: does
    ("socat - OPEN:a.py", "allow"), ("socat TCP-LISTEN:8080,fork OPEN:a.py", "allow"), ("socat - TCP:host:80", "allow"),
])
async def test_socat_addresses_name_files(world, command, expected):
    ctx = make_ctx(world.project, allow=("Bash(*)",), deny=("Read(./.env)", "Bash(rm:*)"), mode="bypassPermissions")
    assert verdict_name(await decide_bash(ctx, command)) == expected, command


@pytest.mark.skipif(shutil.which("socat") is None, reason="needs socat")
def test_real_socat_prints_the_file_an_address_names(tmp_path):
    (tmp_path / ".env").write_text("SECRET=1\n")
    real = subprocess.run(["socat", "-u", "OPEN:.env", "-"], cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert real.stdout == "SECRET=1\n"
