"""The commands ``pixi run`` runs (``permissions/pixi_tasks.py``).

Session 34's probe: with ``Bash(pixi:*)`` allowed (or in bypassPermissions) and ``Bash(rm:*)``
denied, ``pixi run clean`` whose task says ``rm -rf data`` was allowed, and so was ``pixi run
'make && rm -rf x'`` (one word: pixi splits it and runs it as shell code).  pixi is not on PyPI,
npm or Debian, so these rows follow its source (``pixi_manifest::task``, ``pixi_task::task_graph``).
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from jupyter_agent.core.permission_types import PermissionAllow, PermissionAsk, PermissionDeny
from jupyter_agent.permissions.bash_analysis import analyze
from jupyter_agent.permissions.pixi_tasks import _quote, pixi_scripts
from jupyter_agent.permissions.verdicts import is_sticky
from tests.permissions.tools import decide_bash, make_ctx

MANIFEST = """\
[workspace]
name = "x"
channels = ["conda-forge"]
platforms = ["linux-64"]

[tasks]
clean = "rm -rf data"
safe = "echo hi"
build = { cmd = ["echo", "building", "&&", "ls"], depends-on = ["clean"] }
style = ["safe", "clean"]
peek = { cmd = "cat .env", cwd = "scripts" }
greet = { cmd = "echo {{ who }}", args = ["who"] }
pick = { cmd = "{{ prog }} x", args = ["prog"] }
listed = { cmd = ["rm", "-rf", "a b"] }
spaced = { cmd = ["echo", "a && rm -rf x"] }
tail = { cmd = "echo", args = [{ arg = "n", default = "1" }] }
envy = { cmd = "ls", env = { PATH = "/tmp/evil" } }
single = { cmd = "echo", depends-on = "clean" }
tabled = { depends-on = [{ task = "clean", args = [] }] }

[target.linux-64.tasks]
native = "rm -rf native"

[feature.dev.tasks]
devclean = "rm -rf dist"

[feature.dev.target.linux-64.tasks]
devnative = "rm -rf devnative"
"""


@pytest.fixture
def project(tmp_path):
    proj = tmp_path / "proj"
    (proj / "scripts").mkdir(parents=True)
    (proj / "pixi.toml").write_text(MANIFEST)
    (proj / "scripts" / ".env").write_text("K=1\n")
    return proj


def _decide(proj: Path, command: str, **rules) -> object:
    ctx = make_ctx(proj, mode=rules.pop("mode", "bypassPermissions"), **rules)
    return asyncio.run(decide_bash(ctx, command))


@pytest.mark.parametrize(("command", "expected"), [
    ("pixi run clean", "deny"), ("pixi run -- clean", "deny"), ("pixi run build", "deny"), ("pixi run style", "deny"),
    ("pixi run listed", "deny"), ("pixi run spaced", "allow"), ("pixi run devclean", "deny"),
    ("pixi run native", "deny"), ("pixi run devnative", "deny"), ("pixi run single", "deny"),
    ("pixi run tabled", "deny"), ("pixi -v run -e dev --frozen clean", "deny"), ("uv run pixi run clean", "deny"),
    ("pixi run 'rm -rf x'", "deny"), ("pixi run 'make && rm -rf x'", "deny"), ("pixi run -x 'rm -rf x'", "deny"),
    ("pixi run echo hi '&&' rm x", "deny"), ("pixi run 'echo \"$(rm x)\"'", "deny"),
    ("pixi run \"echo '$(rm x)'\"", "deny"),  # pixi splits the word, then quotes $(rm x) in "…": it runs
    ("pixi run safe", "allow"), ("pixi run --skip-deps build", "allow"), ("pixi run -n clean", "allow"),
    ("pixi run --dry-run clean", "allow"), ("pixi install", "allow"), ("pixi run", "allow"),
    ("pixi run greet bob", "allow"), ("pixi run tail 5 -- rm", "allow"), ("pixi run \"'unclosed\"", "allow"),
    ("pixi run pick rm", "ask"), ("pixi run --weird safe", "ask"), ("pixi run \"$t\"", "ask"),
    ("pixi run a::test", "allow"), ("pixi run envy", "ask"),
])
def test_pixi_commands_meet_the_bash_rules(project, command, expected):
    verdict = _decide(project, command, allow=("Bash(pixi:*)", "Bash(uv:*)"), deny=("Bash(rm:*)",))
    kinds = {"deny": PermissionDeny, "allow": PermissionAllow, "ask": PermissionAsk}
    assert isinstance(verdict, kinds[expected]), (command, verdict)
    if expected == "deny":
        assert "Bash(rm:*)" in verdict.message


def test_a_task_runs_in_its_cwd_and_extra_words_are_single_quoted(project):
    verdict = _decide(project, "pixi run peek", deny=("Read(./scripts/.env)",))
    assert isinstance(verdict, PermissionDeny) and "Read(./scripts/.env)" in verdict.message
    (info,) = analyze("pixi run safe 'a b' \"it's\" \"$x\"").commands
    scripts = {s.shown: s for s in pixi_scripts(info, [str(project)], {})}
    (script,) = [s for name, s in scripts.items() if "'safe'" in name]
    assert script.code == "echo hi 'a b' 'it'\"'\"'s' \"${PIXI_VALUE}\""
    assert script.cwd == str(project)
    (info,) = analyze("pixi run tail 5 -- rm -rf x").commands  # typed args: words after -- appended
    (script,) = pixi_scripts(info, [str(project)], {})
    assert script.code == "echo 'rm' '-rf' 'x'"


def test_a_member_task_and_template_blocks_are_not_known(project):
    (info,) = analyze("pixi run a::test").commands
    assert pixi_scripts(info, [str(project)], {})[0].code == "a::test"  # no such task: a command
    text = (project / "pixi.toml").read_text().replace('clean = "rm -rf data"', 'clean = "rm -rf data"\n"a::test" = "ls"')
    (project / "pixi.toml").write_text(text)
    (script,) = pixi_scripts(analyze("pixi run a::test").commands[0], [str(project)], {})
    assert script.path is None and "member workspace" in script.why
    (project / "pixi.toml").write_text(MANIFEST + '\n[tasks.block]\ncmd = "{% if x %}rm -rf y{% endif %}"\nargs = ["x"]\n')
    verdict = _decide(project, "pixi run block 1", deny=("Bash(rm:*)",))
    assert isinstance(verdict, PermissionAsk) and "template block" in verdict.message


def test_pyproject_manifests_activation_scripts_and_no_workspace(tmp_path):
    proj = tmp_path / "proj"
    (proj / "sub").mkdir(parents=True)
    (proj / "pyproject.toml").write_text(
        '[project]\nname = "x"\n[tool.pixi.workspace]\nchannels = []\nplatforms = []\n'
        '[tool.pixi.tasks]\nclean = "rm -rf data"\n[tool.pixi.activation]\nscripts = ["setup.sh"]\n')
    (proj / "sub" / "pyproject.toml").write_text('[project]\nname = "y"\n')  # no [tool.pixi]: not a workspace
    assert isinstance(_decide(proj / "sub", "pixi run clean", deny=("Bash(rm:*)",)), PermissionDeny)
    (proj / "setup.sh").write_text("rm -rf build\n")  # sourced before every command of the workspace
    verdict = _decide(proj, "pixi run ls", deny=("Bash(rm:*)",))
    assert isinstance(verdict, PermissionDeny) and "setup.sh" in verdict.message
    verdict = _decide(proj, "pixi run --manifest-path pyproject.toml ls", deny=("Bash(rm:*)",))
    assert isinstance(verdict, PermissionDeny)
    alone = tmp_path / "alone"
    alone.mkdir()
    assert isinstance(_decide(alone, "pixi run 'rm -rf x'", deny=("Bash(rm:*)",)), PermissionAllow)  # pixi fails
    verdict = _decide(alone, "printf '[tasks]\\nx=\"ls\"\\n' > pixi.toml && pixi run 'rm -rf x'", deny=("Bash(rm:*)",))
    assert isinstance(verdict, PermissionAsk) and is_sticky(verdict)


def test_a_broken_manifest_is_code_only_known_at_run_time(project):
    (project / "pixi.toml").write_text("[tasks\n")
    verdict = _decide(project, "pixi run safe", deny=("Bash(rm:*)",))
    assert isinstance(verdict, PermissionAsk) and "not valid TOML" in verdict.message


@pytest.mark.parametrize(("word", "quoted"), [
    ("foobar", "foobar"), ("foo bar", '"foo bar"'), ('"', '"'), ('foo " bar', '"foo \\" bar"'), ("", '""'),
    ("$PATH", "$PATH"), ("name=[64,64]", '"name=[64,64]"'), ("&&", "&&"), ("a\\b c", '"a\\\\b c"'),
])
def test_list_words_are_quoted_as_pixi_quotes_them(word, quoted):
    assert _quote(word) == quoted
