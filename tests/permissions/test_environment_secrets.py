"""Read-only commands that would print credentials from the environment ask instead.

A notebook's kernel often holds credentials in its environment (``load_dotenv()``, cloud keys),
and a command's output goes to the model.  Dumping the environment, or expanding a variable
whose name looks like a credential's, is not run as read-only; a length, a test, a quoted
``'$X'`` (no expansion) and ordinary variables still are.  A rule that allows the program wins.
"""

from __future__ import annotations

import os
import subprocess

import pytest

from jupyter_agent.permissions.bash_secrets import SECRET_NAME, secret_expansion
from tests.permissions.conftest import verdict_name
from tests.permissions.tools import decide_bash, make_ctx

ROWS = [
    ("env", "ask"),
    ("env -0", "ask"),
    ("env -u PATH", "ask"),
    ("env | grep -i key", "ask"),
    ("printenv", "ask"),
    ("printenv OPENAI_API_KEY", "ask"),
    ("printenv HOME PATH", "allow"),
    ("set", "ask"),
    ("set | grep TOKEN", "ask"),
    ("set -o", "allow"),
    ("ps e", "ask"),
    ("ps auxe", "ask"),
    ("ps eww 1", "ask"),
    ("ps aux", "allow"),
    ("ps -E", "ask"),  # macOS's ps: each process's environment
    ("ps -axE", "ask"),
    ("ps -o pid,environ", "ask"),
    ("ps -eo pid,comm", "allow"),
    # jq and yq programs can read the environment themselves
    ("jq -n env", "ask"),
    ("jq -n '$ENV.OPENAI_API_KEY'", "ask"),
    ("jq -rn '\"\\(env)\"'", "ask"),
    ("yq -n 'strenv(GITHUB_TOKEN)'", "ask"),
    ("yq '.a | envsubst' f.yml", "ask"),
    ("jq '.env' data.json", "allow"),  # a key named env
    ("jq .environment data.json", "allow"),
    ("ps -ef", "allow"),
    ("ps -eo user,pid", "allow"),
    ("ps -o user", "allow"),  # a format word, not BSD flags
    ("echo $OPENAI_API_KEY", "ask"),
    ("echo \"${AWS_SECRET_ACCESS_KEY}\"", "ask"),
    ("echo ${GITHUB_TOKEN:0:4}", "ask"),
    ("printf '%s\\n' \"$DB_PASSWORD\"", "ask"),
    ("cat <<< \"$HF_TOKEN\"", "ask"),
    ("cat <<EOF\ntoken=$GITHUB_TOKEN\nEOF", "ask"),
    ("echo ${#OPENAI_API_KEY}", "allow"),
    ("echo '$GITHUB_TOKEN'", "allow"),
    ("cat <<'EOF'\ntoken=$GITHUB_TOKEN\nEOF", "allow"),
    ("test -n \"$GITHUB_TOKEN\"", "allow"),
    ("[ -z \"$API_KEY\" ] && echo missing", "allow"),
    ("echo $HOME $PATH", "allow"),
    ("cat <<< \"$HOME\"", "allow"),
    ("echo $GIT_AUTHOR_NAME", "allow"),
]


@pytest.mark.parametrize(("command", "expected"), ROWS)
async def test_environment_secrets(world, command, expected):
    assert verdict_name(await decide_bash(make_ctx(world.project), command)) == expected


async def test_a_rule_that_allows_the_program_wins(world):
    ctx = make_ctx(world.project, allow=("Bash(printenv:*)", "Bash(echo:*)"))
    for command in ("printenv", "printenv OPENAI_API_KEY", "echo $OPENAI_API_KEY"):
        assert verdict_name(await decide_bash(ctx, command)) == "allow", command


@pytest.mark.parametrize("name", ["OPENAI_API_KEY", "GITHUB_TOKEN", "AWS_SECRET_ACCESS_KEY", "DB_PASSWORD", "PGPASS",
                                  "DB_PASS", "SENTRY_DSN", "DATABASE_URL", "MONGODB_URI", "SSH_PRIVATE_KEY",
                                  "SESSION_COOKIE", "HF_AUTH", "GPG_PASSPHRASE"])
def test_credential_names(name):
    assert SECRET_NAME.search(name) and secret_expansion(f"x=${{{name}}}") == name


@pytest.mark.parametrize("name", ["HOME", "PATH", "PWD", "USER", "LANG", "GIT_AUTHOR_NAME", "PASSAGE", "SHELL"])
def test_ordinary_names(name):
    assert not SECRET_NAME.search(name)


def test_ps_e_really_prints_environments():
    """The BSD ``e`` flag is the one that prints (procps): ``ps -e`` lists every process only."""
    env = {**os.environ, "JA_PROBE_MARK": "visible-value"}
    proc = subprocess.Popen(["sleep", "30"], env=env)
    try:
        with_e = subprocess.run(["ps", "e", "-p", str(proc.pid), "ww"], capture_output=True, text=True).stdout
        plain = subprocess.run(["ps", "-e", "-o", "pid,args"], capture_output=True, text=True).stdout
    finally:
        proc.kill()
        proc.wait()
    assert "JA_PROBE_MARK=visible-value" in with_e and "visible-value" not in plain
