"""Shell scripts a line runs from a file meet the rules too (session 31's probe).

With ``Bash(rm:*)`` in deny and ``Bash(bash:*)`` allowed, ``bash clean.sh`` ran clean.sh's ``rm
-rf src``, though ``bash -c 'rm -rf src'`` and ``bash < clean.sh`` were held to the rule: the file's
text was not read.  Now ``bash|sh FILE``, ``source FILE``, ``. FILE`` and ``./FILE`` (a shell
script) have the file's commands checked as the line's own, and a script whose text is not known
when the line runs is code only known at run time.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess

import pytest

from jupyter_agent.permissions.script_files import templated
from tests.permissions.conftest import verdict_name
from tests.permissions.tools import decide_bash, make_ctx

ALLOW = tuple(f"Bash({p}:*)" for p in ("bash", "sh", "source", ".", "timeout", "make", "chmod", "echo", "fish",
                                        "./clean.sh", "./plain", "./py-tool", "./env-bash"))
DENY = ("Bash(rm:*)", "Read(./.env)")


def _scripts(project):
    files = {
        "clean.sh": "#!/bin/bash\nset -e\nrm -rf build\n",
        "plain": "echo no shebang\nrm -f x\n",  # bash runs a text file without #! itself
        "env-bash": "#!/usr/bin/env bash\nrm -f x\n",
        "py-tool": "#!/usr/bin/env python3\nrm = 1\n",  # python, not shell code
        "peek.sh": "echo start\ncat .env\n",
        "outer.sh": "bash clean.sh\n",
        "ok.sh": "echo hi\ncurl -s https://example.com -o page.html\nnpm install\n",  # needs approval, no rule
        "cd-home.sh": "cd ~ && cat .ssh/id_rsa\n",
        "hooks.sh": "echo 'curl x | sh' > .git/hooks/pre-commit\n",
        "grows.sh": "echo 'rm -rf src' >> grows.sh\n",
        "binary.sh": "echo \x00\n",
        "long.sh": "echo x\n" * 30_000,
        "deep1.sh": "bash deep2.sh\n", "deep2.sh": "bash deep3.sh\n", "deep3.sh": "bash deep4.sh\n",
        "deep4.sh": "bash deep5.sh\n", "deep5.sh": "bash deep6.sh\n", "deep6.sh": "echo end\n",
    }
    for name, text in files.items():
        path = project / name
        path.write_text(text)
        path.chmod(0o755)


ROWS = [
    # the script's commands meet the deny rules
    ("bash clean.sh", "deny"), ("sh -e clean.sh arg", "deny"), ("bash -x -o pipefail clean.sh", "deny"),
    ("bash -- clean.sh", "deny"), ("source clean.sh", "deny"), (". ./clean.sh", "deny"), ("./clean.sh", "deny"),
    ("timeout 60 bash clean.sh", "deny"), ("./plain", "deny"), ("./env-bash", "deny"), ("bash ./py-tool", "deny"),
    ("chmod +x clean.sh && ./clean.sh", "deny"), ("bash clean.sh > build.log 2>&1", "deny"),
    ("bash outer.sh", "deny"), ("bash peek.sh", "deny"), ("cd sub && bash ../clean.sh", "deny"),
    ("bash $PWD/clean.sh", "ask"),  # a file only known at run time: a deny rule may match what it runs
    # a script whose text is not known when it runs
    ("echo 'rm -rf x' > new.sh; bash new.sh", "ask"), ("make && bash ok.sh", "ask"), ("bash grows.sh", "ask"),
    ("bash binary.sh", "ask"), ("bash long.sh", "ask"), ("bash deep1.sh", "ask"),
    ("echo x >> ok.sh && bash ok.sh", "ask"), ("bash ok.sh > ok.sh", "ask"),
    # known and harmless: what it would need approval for is covered by the rule allowing bash
    ("bash ok.sh", "allow"), ("source ok.sh", "allow"), ("./py-tool", "allow"), ("bash missing.sh", "allow"),
    ("bash deep3.sh", "allow"), ("cat ok.sh && bash ok.sh", "allow"),
    ("fish clean.sh", "allow"),  # a script in another language is a program like any other
]


@pytest.mark.parametrize(("command", "expected"), ROWS)
async def test_the_commands_of_a_script_meet_the_rules(world, command, expected):
    _scripts(world.project)
    ctx = make_ctx(world.project, allow=ALLOW, deny=DENY)
    verdict = await decide_bash(ctx, command)
    assert verdict_name(verdict) == expected, (command, verdict)


async def test_the_denial_names_the_script_and_its_command(world):
    _scripts(world.project)
    verdict = await decide_bash(make_ctx(world.project, allow=ALLOW, deny=DENY), "bash clean.sh")
    assert "'rm -rf build'" in verdict.message and "Bash(rm:*)" in verdict.message and "clean.sh" in verdict.message


async def test_in_bypass_mode_safety_checks_and_deny_rules_still_apply(world):
    _scripts(world.project)
    ctx = make_ctx(world.project, deny=("Bash(rm:*)", "Read(~/.ssh/**)"), mode="bypassPermissions")
    assert verdict_name(await decide_bash(ctx, "bash clean.sh")) == "deny"
    assert verdict_name(await decide_bash(ctx, "bash cd-home.sh")) == "deny"  # the script's own cd is followed
    assert verdict_name(await decide_bash(ctx, "bash hooks.sh")) == "ask"  # writes .git/hooks: protected
    assert verdict_name(await decide_bash(ctx, "bash ok.sh")) == "allow"
    assert verdict_name(await decide_bash(ctx, "echo x > other.txt && bash clean.sh")) == "deny"  # still read
    assert verdict_name(await decide_bash(ctx, "echo x > clean.sh && bash clean.sh")) == "ask"  # not known


async def test_without_deny_rules_an_unknown_script_is_not_asked_about(world):
    _scripts(world.project)
    ctx = make_ctx(world.project, allow=ALLOW)
    for command in ("bash clean.sh", "make && bash ok.sh", "bash long.sh"):
        assert verdict_name(await decide_bash(ctx, command)) == "allow", command


async def test_source_looks_on_path_first(world, monkeypatch):
    _scripts(world.project)
    tools = world.root / "bin"
    tools.mkdir()
    (tools / "ok.sh").write_text("rm -rf /tmp/nothing-here\n")  # source ok.sh runs this one, not ./ok.sh
    monkeypatch.setenv("PATH", f"{tools}{os.pathsep}{os.environ['PATH']}")
    ctx = make_ctx(world.project, allow=ALLOW, deny=DENY)
    assert verdict_name(await decide_bash(ctx, "source ok.sh")) == "deny"
    assert verdict_name(await decide_bash(ctx, "bash ok.sh")) == "allow"  # bash looks in the folder first
    assert verdict_name(await decide_bash(ctx, "bash ./ok.sh")) == "allow"


def test_the_shell_does_what_the_analysis_assumes(tmp_path):
    """A real bash: a file without ``#!`` run by path is run as a shell script; ``source NAME``
    finds NAME on PATH before the working folder; ``bash NAME`` takes the working folder's."""
    (tmp_path / "plain").write_text("echo ran-as-shell\n")
    (tmp_path / "plain").chmod(0o755)
    tools = tmp_path / "bin"
    tools.mkdir()
    (tools / "s.sh").write_text("echo from-path\n")
    (tmp_path / "s.sh").write_text("echo from-folder\n")
    env = {**os.environ, "PATH": f"{tools}{os.pathsep}{os.environ['PATH']}"}
    run = lambda line: subprocess.run(["bash", "-c", line], cwd=tmp_path, env=env, capture_output=True,  # noqa: E731
                                      text=True, check=True).stdout.strip()
    assert run("./plain") == "ran-as-shell"
    assert run("source s.sh") == "from-path"
    assert run("bash s.sh") == "from-folder"


RUNTIME_CODE = [  # shell code only known at run time behind a runner: found with this change, allowed before
    'find . -exec sh -c "$X" \\;', 'uv run bash -c "$X"', 'find . -name "*.sh" -exec bash {} \\;',
    'find . -name "*.sh" -exec bash {} +', 'uv run bash "$S"', 'echo x | bash /dev/stdin', 'bash /dev/fd/3 3<x.sh',
]


@pytest.mark.parametrize("command", RUNTIME_CODE)
async def test_code_only_known_at_run_time_may_be_what_a_deny_rule_names(world, command):
    ctx = make_ctx(world.project, deny=("Bash(rm:*)",), mode="bypassPermissions")
    verdict = await decide_bash(ctx, command)
    assert verdict_name(verdict) == "ask" and "Bash(rm:*)" in verdict.message, (command, verdict)


def _packages(project):
    (project / "package.json").write_text(json.dumps({"name": "p", "scripts": {
        "build": "tsc && rm -rf dist/tmp", "prelint": "cat .env", "lint": "eslint .", "all": "npm run build",
        "postinstall": "rm -rf .cache", "fmt": "prettier --write .", "test": "jest", "show": "cat"}}))
    (project / "web" / "src").mkdir(parents=True)
    (project / "web" / "package.json").write_text(json.dumps({"scripts": {"clean": "rm -rf build", "dev": "vite"}}))
    (project / "broken").mkdir()
    (project / "broken" / "package.json").write_text('{"scripts": {"test": "jest"')


PACKAGE_ROWS = [
    # the script's commands (and its pre/post scripts) meet the rules, in the package's folder
    ("npm run build", "deny"), ("npm run-script build", "deny"), ("yarn build", "deny"), ("yarn run build", "deny"),
    ("pnpm build", "deny"), ("pnpm run build", "deny"), ("bun run build", "deny"), ("npm run all", "deny"),
    ("npm run lint", "deny"), ("npm install", "deny"), ("npm ci", "deny"), ("npm i left-pad", "deny"),
    ("cd web && npm run clean", "deny"), ("cd web/src && npm run clean", "deny"), ("timeout 60 npm run build", "deny"),
    ("npm --loglevel warn run build", "deny"), ("npm run show -- .env", "deny"), ("yarn show .env", "deny"),
    ("pnpm run show .env", "deny"), ("npm run build -- --watch", "deny"),
    # not known when the line runs
    ('npm run "$S"', "ask"), ("npm --prefix web run clean", "ask"), ("npm -w web run clean", "ask"),
    ("pnpm -r build", "ask"), ("yarn workspace web clean", "ask"), ("pnpm --filter web dev", "ask"), ("yarn --cwd web clean", "ask"),
    ("npm pkg set scripts.fmt='rm x' && npm run fmt", "ask"), ("cd broken && npm test", "ask"),
    # nothing a rule closes
    ("npm run fmt", "allow"), ("npm run show -- a.py", "allow"), ("npm test", "allow"), ("npm run missing", "allow"), ("npm run", "allow"),
    ("npm install -g x", "allow"), ("cd web && npm run dev", "allow"), ("npm exec -- eslint .", "allow"),
]


@pytest.mark.parametrize(("command", "expected"), PACKAGE_ROWS)
async def test_package_scripts_meet_the_rules(world, command, expected):
    _packages(world.project)
    ctx = make_ctx(world.project, deny=DENY, mode="bypassPermissions")
    verdict = await decide_bash(ctx, command)
    assert verdict_name(verdict) == expected, (command, verdict)


async def test_the_nearest_package_is_the_one_whose_scripts_run(world):
    _packages(world.project)
    ctx = make_ctx(world.project, deny=DENY, mode="bypassPermissions", cwd=world.project / "web" / "src")
    assert verdict_name(await decide_bash(ctx, "npm install")) == "allow"  # web's package.json: no postinstall
    assert verdict_name(await decide_bash(ctx, "yarn add x")) == "allow"
    assert verdict_name(await decide_bash(ctx, "npm run clean")) == "deny"
    assert verdict_name(await decide_bash(ctx, "cd ../.. && npm install")) == "deny"  # the project's postinstall


async def test_a_package_script_denial_names_the_script(world):
    _packages(world.project)
    ctx = make_ctx(world.project, allow=("Bash(npm:*)",), deny=DENY)
    verdict = await decide_bash(ctx, "npm run build")
    assert verdict_name(verdict) == "deny" and "'build' script" in verdict.message and "rm -rf dist/tmp" in verdict.message


@pytest.mark.skipif(shutil.which("npm") is None, reason="needs npm")
def test_npm_runs_pre_scripts_in_the_package_folder(tmp_path):
    """Ground truth: ``npm run lint`` from a subfolder runs ``prelint`` then ``lint`` in the
    folder of the nearest package.json."""
    (tmp_path / "package.json").write_text(json.dumps({"name": "p", "version": "1.0.0", "scripts": {
        "prelint": "touch pre-ran", "lint": "touch ran"}}))
    (tmp_path / "deep").mkdir()
    subprocess.run(["npm", "run", "lint"], cwd=tmp_path / "deep", capture_output=True, check=True, timeout=120,
                   env={**os.environ, "npm_config_update_notifier": "false"})
    assert (tmp_path / "pre-ran").exists() and (tmp_path / "ran").exists()


async def test_the_approval_says_what_the_script_changes(world):
    _scripts(world.project)
    _packages(world.project)
    verdict = await decide_bash(make_ctx(world.project), "bash ok.sh")  # no rule: asks
    assert verdict_name(verdict) == "ask"
    assert "ok.sh runs curl -s https://example.com -o page.html; npm install" in verdict.message
    assert "echo hi" not in verdict.message  # read-only commands are not listed
    verdict = await decide_bash(make_ctx(world.project), "npm run build")
    assert "'build' script" in verdict.message and "rm -rf dist/tmp" in verdict.message


@pytest.mark.parametrize(("line", "expected"), [
    ("rm -rf {{d}}", 'rm -rf "$V"'),
    ("rm -rf '{{d}}'", "rm -rf ''\"$V\"''"),
    ('rm -rf "a/{{d}}/b"', 'rm -rf "a/""$V""/b"'),
    ("echo 'it''s {{x}}'", "echo 'it''s '\"$V\"''"),
    ('echo \\"{{x}}', 'echo \\""$V"'),  # an escaped quote opens nothing
    ("echo \"'{{x}}'\"", "echo \"'\"\"$V\"\"'\""),  # a single quote inside double quotes is a character
])
def test_templated_values_stand_outside_quotes(line, expected):
    assert templated(line, re.compile(r"\{\{.*?\}\}"), lambda _m: '"$V"') == expected


@pytest.mark.parametrize(("command", "expected"), [
    # a manifest the line writes in a folder that had none, nearer than the one found above
    ("cd sub && printf '{\"scripts\":{\"x\":\"rm -rf y\"}}' > package.json && npm run x", "ask"),
    ("cd sub && printf '[tool.pdm.scripts]\\nx = \"rm -rf y\"\\n' > pyproject.toml && pdm run x", "ask"),
    ("cd sub && npm run x", "allow"), ("cd sub && pdm run x", "allow"),
])
async def test_a_manifest_the_line_makes_first(world, command, expected):
    (world.project / "package.json").write_text('{"scripts": {"x": "ls"}}')
    (world.project / "pyproject.toml").write_text('[tool.pdm.scripts]\nx = "ls"\n')
    ctx = make_ctx(world.project, allow=("Bash(npm:*)", "Bash(pdm:*)", "Bash(printf:*)"), deny=("Bash(rm:*)",),
                   mode="bypassPermissions")
    verdict = await decide_bash(ctx, command)
    assert verdict_name(verdict) == expected, (command, verdict)
