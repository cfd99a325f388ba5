"""direnv exec / direnv export evaluate the .envrc first: its commands meet the rules (session 36's probe).

With ``Bash(direnv:*)`` allowed and ``Bash(rm:*)`` denied, in bypassPermissions mode ``direnv exec .
pytest`` ran the ``rm -rf cache`` of an allowed ``.envrc``.  Now that ``.envrc``
(``permissions/direnv_envrc.py``) is checked as a script of the line, in its folder: denied when
direnv allows its content, asked when it may (direnv blocks it until ``direnv allow``).
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess

import pytest

from jupyter_agent.permissions.bash_analysis import analyze
from jupyter_agent.permissions.direnv_envrc import _READ
from tests.permissions.conftest import verdict_name
from tests.permissions.tools import decide_bash, make_ctx


def _project(root) -> None:
    for folder in ("sub/deep", "up", "nested/inner"):
        (root / folder).mkdir(parents=True, exist_ok=True)
    (root / ".envrc").write_text("touch by-envrc\nrm -rf cache\n")
    (root / "sub" / ".envrc").write_text("dotenv\n")
    (root / "sub" / ".env").write_text("S=1\n")
    (root / "up" / ".envrc").write_text("source_up\ncat secret.txt\n")
    (root / "nested" / ".envrc").write_text("source_env inner\n")
    (root / "nested" / "inner" / ".envrc").write_text("dotenv_if_exists local.env\n")
    (root / "nested" / "inner" / "local.env").write_text("L=1\n")


def _allow(path) -> None:
    """What ``direnv allow PATH`` writes, in the test's home (``XDG_DATA_HOME`` is unset there)."""
    text = path.read_bytes()
    digest = hashlib.sha256(str(path).encode() + b"\n" + text).hexdigest()
    folder = os.path.join(os.path.expanduser("~"), ".local", "share", "direnv", "allow")
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, digest), "w") as handle:
        handle.write(str(path))


ROWS = [
    ("direnv exec . true", "ask"),  # not allowed (yet): it may run
    ("direnv export json", "ask"), ("cd sub/deep && direnv exec .. true", "ask"),  # sub/.env by dotenv
    ("direnv exec up true", "ask"),  # source_up: the project's .envrc
    ("direnv exec nested true", "ask"),  # source_env inner: its dotenv_if_exists local.env
    ("direnv status", "allow"), ("direnv exec /nonexistent-folder true", "allow"),
    ('direnv exec "$D" true', "ask"),
]


@pytest.mark.parametrize(("command", "expected"), ROWS)
async def test_envrc_meets_the_rules(world, command, expected, monkeypatch):
    monkeypatch.delenv("XDG_DATA_HOME", raising=False)
    _project(world.project)
    ctx = make_ctx(world.project, allow=("Bash(direnv:*)",),
                   deny=("Bash(rm:*)", "Read(./sub/.env)", "Read(./nested/inner/local.env)"), mode="bypassPermissions")
    verdict = await decide_bash(ctx, command)
    assert verdict_name(verdict) == expected, (command, verdict)


async def test_an_allowed_envrc_is_denied_and_a_changed_one_asks(world, monkeypatch):
    monkeypatch.delenv("XDG_DATA_HOME", raising=False)
    _project(world.project)
    for envrc in (".envrc", "nested/.envrc", "sub/.envrc"):
        _allow(world.project / envrc)
    ctx = make_ctx(world.project, allow=("Bash(direnv:*)",),
                   deny=("Bash(rm:*)", "Read(./sub/.env)", "Read(./nested/inner/local.env)"), mode="bypassPermissions")
    assert verdict_name(await decide_bash(ctx, "direnv exec . pytest")) == "deny"
    assert verdict_name(await decide_bash(ctx, "direnv exec nested pytest")) == "deny"  # source_env, dotenv_if_exists
    assert verdict_name(await decide_bash(ctx, "direnv exec sub/deep pytest")) == "deny"  # dotenv: sub/.env
    (world.project / ".envrc").write_text("touch by-envrc\nrm -rf cache other\n")  # direnv blocks it now
    assert verdict_name(await decide_bash(ctx, "direnv exec . pytest")) == "ask"


@pytest.mark.parametrize("text", ["source_url https://x/y.sh sha256-x\n", "use flake\n", "use nix\n",
                                  "has python && dotenv\n", "fetchurl https://x\n"])
async def test_code_from_elsewhere_asks(world, text):
    (world.project / ".envrc").write_text(text)
    ctx = make_ctx(world.project, allow=("Bash(direnv:*)",), deny=("Bash(rm:*)",))
    assert verdict_name(await decide_bash(ctx, "direnv exec . true")) == "ask", text


@pytest.mark.skipif(shutil.which("direnv") is None, reason="direnv is not installed (.ci/run installs it with apt)")
def test_real_direnv_runs_what_is_predicted(tmp_path):
    """A real direnv: a blocked .envrc runs nothing (and the analysis says it only may run); once
    allowed, the files its commands touch are those predicted, in the predicted folders."""
    project, home = tmp_path / "p", tmp_path / "home"
    for folder in (project / "sub" / "deep", project / "lib", home):
        folder.mkdir(parents=True)
    (project / ".envrc").write_text("touch by-root\nsource_env lib\n")
    (project / "lib" / ".envrc").write_text("touch by-lib\ndotenv_if_exists missing.env\n")
    (project / "sub" / ".envrc").write_text("source_up\ntouch by-sub\n")
    env = dict(os.environ, HOME=str(home), XDG_DATA_HOME=str(home / "data"), XDG_CONFIG_HOME=str(home / "cfg"))
    env.pop("DIRENV_DIR", None)

    def predicted(line: str, cwd) -> tuple[set[str], bool]:
        old = os.environ.get("XDG_DATA_HOME")
        os.environ["XDG_DATA_HOME"] = env["XDG_DATA_HOME"]
        try:
            scripts = _READ(analyze(line).commands[0].innermost, str(cwd), False)
        finally:
            if old is None:
                os.environ.pop("XDG_DATA_HOME", None)
            else:
                os.environ["XDG_DATA_HOME"] = old
        made: set[str] = set()
        for script in scripts:
            folders = [script.cwd or ""]  # (cd DIR && { … }) blocks, as direnv_envrc writes them
            for command in (script.code or "").splitlines():
                words = command.replace("(", " ").replace("{", " ").split()
                if words[:1] == ["cd"]:
                    folders.append(words[1].strip("'"))
                elif words == ["})"]:
                    folders.pop()
                elif words[:1] == ["touch"]:
                    made |= {os.path.relpath(os.path.join(folders[-1], w), project) for w in words[1:]}
        return made, all(s.certain for s in scripts) and bool(scripts)

    line = "direnv exec . true"
    blocked = subprocess.run(["direnv", "exec", ".", "true"], cwd=project / "sub" / "deep", env=env,
                             capture_output=True, text=True, timeout=60)
    assert blocked.returncode != 0 and "blocked" in blocked.stderr
    assert not list(project.rglob("by-*"))
    assert predicted(line, project / "sub" / "deep")[1] is False
    for envrc in (project / "sub" / ".envrc", project / ".envrc"):
        subprocess.run(["direnv", "allow", str(envrc)], env=env, check=True, capture_output=True, timeout=60)
    made, certain = predicted(line, project / "sub" / "deep")
    assert certain
    done = subprocess.run(["direnv", "exec", ".", "true"], cwd=project / "sub" / "deep", env=env,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    touched = {str(p.relative_to(project)) for p in project.rglob("by-*")}
    assert touched == made == {"by-root", "lib/by-lib", "sub/by-sub"}, (touched, made)
