"""npm run NAME -w WS / -ws runs the workspaces' scripts: they meet the rules (session 36).

These asked before (a package chosen by an option was not read).  Now the workspaces of the nearest
package.json listing ``workspaces`` are read (``permissions/package_scripts.py``), checked against a
real npm.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys

import pytest

from jupyter_agent.permissions.bash_analysis import analyze
from jupyter_agent.permissions.package_scripts import MANAGERS, _of_form
from tests.permissions.conftest import verdict_name
from tests.permissions.tools import decide_bash, make_ctx


def _workspace(root, scripts_a: dict[str, str] | None = None) -> None:
    for folder in ("packages/a", "packages/b", "tools/c"):
        (root / folder).mkdir(parents=True, exist_ok=True)
    (root / "package.json").write_text(json.dumps({"name": "root", "private": True,
                                                   "workspaces": ["packages/*", "tools/c"],
                                                   "scripts": {"build": "echo root"}}))
    (root / "packages/a/package.json").write_text(json.dumps({"name": "pa", "version": "1.0.0", "scripts": scripts_a or {
        "build": "rm -rf dist", "peek": "cat .env"}}))
    (root / "packages/b/package.json").write_text(json.dumps({"name": "@s/pb", "version": "1.0.0",
                                                              "scripts": {"test": "echo b"}}))
    (root / "tools/c/package.json").write_text(json.dumps({"name": "pc", "version": "1.0.0",
                                                           "scripts": {"build": "echo c", "prebuild": "rm -f x"}}))


@pytest.mark.parametrize(("command", "expected"), [
    ("npm run build -w pa", "deny"), ("npm run build -w packages/a", "deny"),
    ("npm run build -w packages", "deny"),  # a folder holding workspaces: each of them
    ("npm run build -ws", "deny"), ("npm run build --workspaces --if-present", "deny"),
    ("npm run build --workspace=pc", "deny"),  # pc's prebuild
    ("cd packages/b && npm run build -w pa", "deny"), ("npm run peek -w pa", "deny"),
    ("cd packages && npm run build -ws", "deny"),  # not inside one: all of them
    ("npm test -w @s/pb", "allow"), ("npm run build --include-workspace-root", "allow"),
    ("npm run build -w @s/pb", "allow"),  # no build script there: nothing runs
    ("npm run build -w nosuch", "ask"), ("npm install -w pa", "ask"), ('npm run build -w "$W"', "ask"),
])
async def test_workspace_scripts_meet_the_rules(world, command, expected):
    _workspace(world.project)
    ctx = make_ctx(world.project, allow=("Bash(npm:*)",), deny=("Bash(rm:*)", "Read(./packages/a/.env)"),
                   mode="bypassPermissions")
    verdict = await decide_bash(ctx, command)
    assert verdict_name(verdict) == expected, (command, verdict)


@pytest.mark.skipif(shutil.which("npm") is None, reason="needs npm")
def test_real_npm_runs_the_workspace_scripts_predicted(tmp_path):
    """Each file the real npm's workspace scripts touch is one the predicted commands touch, in the
    predicted folder, and the words after the script's name (not npm's -w) reach the script."""
    _workspace(tmp_path, {"build": "touch by-a", "prebuild": "touch by-a-pre", "show": "touch"})
    (tmp_path / "tools/c/package.json").write_text(json.dumps({"name": "pc", "version": "1.0.0", "scripts": {
        "build": "touch by-c"}}))
    (tmp_path / "package.json").write_text(json.dumps({"name": "root", "private": True, "workspaces": [
        "packages/*", "tools/c"], "scripts": {"build": "touch by-root"}}))
    predicted, touched = _run_and_predict(tmp_path, [
        ("packages/b", "npm run build -ws --if-present --include-workspace-root"),  # from b: b (and the root)
        ("packages", "npm run build --workspaces --if-present"),  # in no workspace: all of them
        ("packages/b", "npm run show -w pa extra")])
    assert touched == predicted == {"by-root", "packages/a/by-a", "packages/a/by-a-pre", "packages/a/extra",
                                    "tools/c/by-c"}, (touched, predicted)


def _pnpm_workspace(root, build_a: str = "rm -rf dist", build_root: str = "rm -rf rootdist") -> None:
    for folder in ("packages/a", "packages/b", "tools/c"):
        (root / folder).mkdir(parents=True, exist_ok=True)
    (root / "package.json").write_text(json.dumps({"name": "root", "private": True, "scripts": {"build": build_root}}))
    (root / "pnpm-workspace.yaml").write_text('packages:\n  - "packages/*"\n  - "tools/c"\n')
    (root / "packages/a/package.json").write_text(json.dumps({"name": "pa", "version": "1.0.0", "scripts": {
        "build": build_a, "prebuild": build_a.replace("dist", "pre"), "show": "touch"}}))
    (root / "packages/b/package.json").write_text(json.dumps({"name": "@s/pb", "version": "1.0.0",
                                                              "scripts": {"test": "echo b"}}))
    (root / "tools/c/package.json").write_text(json.dumps({"name": "pc", "version": "1.0.0",
                                                           "scripts": {"build": build_a.replace("dist", "c")}}))


@pytest.mark.parametrize(("command", "expected"), [
    ("pnpm -r build", "deny"), ("pnpm -r run build", "deny"), ("pnpm --filter pa build", "deny"),
    ('pnpm -F "p*" build', "deny"), ("pnpm -w build", "deny"), ("cd packages/b && pnpm --filter ../a build", "deny"),
    ("pnpm --filter @s/pb test", "allow"), ("pnpm -r --include-workspace-root test", "allow"),
    ("pnpm --filter ./packages/b build", "allow"),
    ("pnpm --filter pa... build", "ask"), ('pnpm --filter "$F" build', "ask"),
    ("pnpm -r install", "ask"), ("pnpm install", "ask"),  # every package's lifecycle scripts: not read
])
async def test_pnpm_workspace_scripts_meet_the_rules(world, command, expected):
    _pnpm_workspace(world.project)
    ctx = make_ctx(world.project, allow=("Bash(pnpm:*)",), deny=("Bash(rm:*)",), mode="bypassPermissions")
    verdict = await decide_bash(ctx, command)
    assert verdict_name(verdict) == expected, (command, verdict)


def _pnpm() -> str | None:
    return shutil.which("pnpm")


@pytest.mark.skipif(_pnpm() is None, reason="pnpm is not installed (.ci/run installs it from npm)")
def test_real_pnpm_runs_the_workspace_scripts_predicted(tmp_path):
    """Each file a real pnpm's -r / --filter / -w runs touch is one predicted, in the predicted folder."""
    _pnpm_workspace(tmp_path, "touch by-dist", "touch by-root")
    predicted, touched = _run_and_predict(tmp_path, [
        ("packages/b", "pnpm -r build"),  # the root is left out
        ("packages/b", "pnpm --filter pa run show extra"), ("tools", "pnpm --filter ./c build"),
        ("packages/b", "pnpm -w build"), ("packages/b", "pnpm -F p* build")])
    assert touched == predicted == {"packages/a/by-dist", "packages/a/by-pre", "tools/c/by-c", "packages/a/extra",
                                    "by-root"}, (touched, predicted)


def _run_and_predict(root, lines: list[tuple[str, str]]) -> tuple[set[str], set[str]]:
    """Run each (folder, line) for real, and read what the analysis says its scripts touch: (the
    files predicted, the files touched), relative to ``root``."""
    env = dict(os.environ, HOME=str(root / "home"), npm_config_update_notifier="false")
    predicted: set[str] = set()
    for where, line in lines:
        program = _program(line.split()[0]) or line.split()[0]
        done = subprocess.run([program, *line.split()[1:]], cwd=root / where, env=env, capture_output=True, text=True,
                              timeout=120)
        assert done.returncode == 0, line + done.stdout + done.stderr
        # (jlpm is read as yarn: the analysis gives its form again under that name)
        form = next(f for f in analyze(line).commands[0].forms if f[0].text in MANAGERS)
        for script in _of_form(form, [str(root / where)], False):
            for command in (script.code or "").splitlines():
                words = command.replace("'", "").split()
                if words[:1] == ["touch"]:
                    predicted |= {os.path.relpath(os.path.join(script.cwd or "", w), root) for w in words[1:]}
    touched = {str(p.relative_to(root)) for p in root.rglob("*") if p.is_file()
               and p.name not in ("package.json", "pnpm-workspace.yaml") and "home" not in p.parts}
    return predicted, touched


def _program(name: str) -> str | None:
    return shutil.which(name, path=os.path.dirname(sys.executable)) or shutil.which(name)


@pytest.mark.parametrize(("command", "expected"), [
    ("yarn workspace pa build", "deny"), ("yarn workspace pa run build", "deny"), ("jlpm workspace pa build", "deny"),
    ("yarn workspaces foreach -A run build", "deny"), ("yarn workspaces foreach run build", "deny"),  # the root's
    ("yarn workspaces run build", "deny"),  # yarn 1: every workspace
    ("yarn workspace @s/pb test", "allow"), ("yarn workspaces list", "allow"),
    ("yarn workspaces foreach --since run build", "ask"),  # some of them: pa's rm may run
    ("yarn workspaces foreach --since=main run test", "allow"), ("yarn workspaces foreach -R run test", "allow"),
    ("yarn workspaces foreach --from pa -R run build", "ask"), ("yarn workspaces foreach -W run build", "ask"),
    ("yarn workspaces foreach --exclude pa run build", "ask"),  # a glob: not matched here
    ("cd tools/c && yarn workspaces foreach --include pc run build", "ask"),  # pc's prebuild
    ("yarn workspaces foreach -n run build", "allow"), ("yarn workspaces foreach --frob run build", "ask"),
("yarn workspace nosuch build", "ask"),
    ('yarn workspace "$W" build', "ask"), ("yarn workspace pa add x", "ask"),
])
async def test_yarn_workspace_scripts_meet_the_rules(world, command, expected):
    _workspace(world.project)
    ctx = make_ctx(world.project, allow=("Bash(yarn:*)", "Bash(jlpm:*)"), deny=("Bash(rm:*)",), mode="bypassPermissions")
    verdict = await decide_bash(ctx, command)
    assert verdict_name(verdict) == expected, (command, verdict)


@pytest.mark.skipif(_program("jlpm") is None, reason="jlpm (JupyterLab's yarn 3) is not installed")
def test_real_yarn_runs_the_workspace_scripts_predicted(tmp_path):
    """JupyterLab's jlpm (yarn 3): ``workspace NAME``, ``foreach`` (the workspace it runs in and those
    below; the root is one) and ``foreach -A`` run what is predicted, where it is predicted."""
    _workspace(tmp_path, {"build": "touch by-a", "show": "touch"})
    (tmp_path / "tools/c/package.json").write_text(json.dumps({"name": "pc", "version": "1.0.0", "scripts": {
        "build": "touch by-c"}}))
    (tmp_path / "package.json").write_text(json.dumps({"name": "root", "private": True, "workspaces": [
        "packages/*", "tools/c"], "scripts": {"build": "touch by-root"}}))
    (tmp_path / "yarn.lock").write_text("")
    # (with CI set, as in .ci/run, yarn makes installs immutable and would refuse to write the lockfile)
    env = dict(os.environ, HOME=str(tmp_path / "home"), YARN_ENABLE_TELEMETRY="0", YARN_ENABLE_GLOBAL_CACHE="0",
               YARN_ENABLE_IMMUTABLE_INSTALLS="0")
    done = subprocess.run([_program("jlpm") or "", "install"], cwd=tmp_path, env=env, capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    predicted, touched = _run_and_predict(tmp_path, [
        ("packages/a", "jlpm workspaces foreach run build"),  # a only
        ("packages/b", "jlpm workspace pa run show extra"),
        ("tools", "jlpm workspaces foreach -A run build")])  # everything, the root too
    touched = {t for t in touched if not t.startswith((".yarn", ".pnp", "yarn.lock", ".yarnrc"))}  # yarn's state
    assert touched == predicted == {"packages/a/by-a", "packages/a/extra", "tools/c/by-c", "by-root"}, (
        touched, predicted)
