"""Ways a line changes how its later commands run: ``set -k`` and assignments inside ``${…}``.

``set -k`` puts every ``NAME=value`` argument into the command's environment, so
``cat LD_PRELOAD=x.so f`` would load a library into ``cat``; ``${CDPATH:=/etc}`` makes ``cd x``
land elsewhere, and a set ``GLOBIGNORE`` makes ``*`` match dot files such as ``.env``.
"""

from __future__ import annotations

import shlex

import pytest

from jupyter_agent.permissions.bash_readonly import check_read_only
from jupyter_agent.permissions.bash_words import Word
from tests.permissions.conftest import verdict_name
from tests.permissions.tools import decide_bash, make_ctx

ROWS = [
    ("set-k-then-preload", "set -k; cat LD_PRELOAD=/tmp/x.so a.py", "ask"),
    ("set-k-in-cluster", "set -ek", "ask"),
    ("set-o-keyword", "set -o keyword", "ask"),
    ("set-o-posix", "set +o posix", "ask"),
    ("set-dynamic", "set $OPTS", "ask"),
    ("set-k-after-o", "set -o pipefail -k", "ask"),
    ("set-strict-mode", "set -euo pipefail", "allow"),
    ("set-trace", "set -x && ls", "allow"),
    ("set-separate", "set -e -o pipefail -x", "allow"),
    ("set-prints", "set", "ask"),  # it prints every variable, credentials too (test_environment_secrets)
    ("set-positional", "set -- -k", "allow"),
    ("set-positional-first", "set a -k", "allow"),
    ("assign-path-in-expansion", "echo ${PATH:=/tmp}; ls", "ask"),
    ("assign-without-colon", "echo ${PATH=/tmp}", "ask"),
    ("globignore-then-star", ": ${GLOBIGNORE:=x}; cat *", "ask"),
    ("cdpath", ": ${CDPATH:=/etc}; cd x", "ask"),
    ("assign-quoted", 'echo "${X:=y}"', "ask"),
    ("default-is-fine", "echo ${X:-default}", "allow"),
    ("alternate-with-equals-word", "echo ${X:+=}", "allow"),
    ("length", "echo ${#X}", "allow"),
    # variables that make a read-only program load code or a config that runs code
    ("ripgrep-config", "RIPGREP_CONFIG_PATH=/tmp/x rg foo", "ask"),
    ("gconv-modules", "GCONV_PATH=/tmp grep x a.py", "ask"),
    ("openssl-engine", "env OPENSSL_CONF=/tmp/x ls", "ask"),
    ("jvm-agent", "JAVA_TOOL_OPTIONS=-javaagent:x.jar ls", "ask"),
    ("harmless-locale", "LC_ALL=C ls", "allow"),
    ("file-magic", "MAGIC=.env file a.py", "ask"),  # file prints the lines it cannot parse
    # export/declare of variables that change nothing that runs: read-only (they asked)
    ("export-plain", "export OMP_NUM_THREADS=1 MPLBACKEND=Agg && echo $MPLBACKEND", "allow"),
    ("export-existing", "export HOME", "allow"), ("local-plain", "local x=1", "allow"),
    ("export-from-home", 'export DATA="$HOME/data"', "allow"),
    ("export-path", "export PATH=/tmp:$PATH", "ask"), ("export-prints-all", "export", "ask"),
    ("declare-prints-all", "declare -p", "ask"), ("export-function", "export -f f", "ask"),
    ("declare-arithmetic", "declare -i x=1+2", "ask"), ("export-runtime-name", 'export "$N"=1', "ask"),
]


@pytest.mark.parametrize(("command", "expected"), [r[1:] for r in ROWS], ids=[r[0] for r in ROWS])
async def test_environment_change_rows(world, command, expected):
    ctx = make_ctx(world.project, allow=("Bash(echo:*)", "Bash(cd:*)"))
    verdict = await decide_bash(ctx, command)
    assert verdict_name(verdict) == expected, verdict


@pytest.mark.parametrize("option", list("abefhmnptuvxBCEPT"))
def test_every_listed_set_letter_alone_is_read_only(option):
    for sign in "-+":
        assert check_read_only((Word("set"), Word(sign + option))).read_only


@pytest.mark.parametrize("option", ["-k", "+k", "-xk", "-o", "-i", "-s", "-c", "-H", "-xH"])  # -H: history expansion
def test_other_set_letters_are_not(option):
    words = (Word("set"), Word(option), Word("keyword")) if option == "-o" else (Word("set"), Word(option))
    assert not check_read_only(words).read_only


@pytest.mark.parametrize(("command", "expected"), [
    ("LESSKEYIN=./keys less a.py", "ask"),  # a lesskey source's #env section can set LESSOPEN
    ("LESSCLOSE='sh x %s' less a.py", "ask"), ("LESSOPEN='|sh x %s' less a.py", "ask"),
    ("LESSEDIT='sh x' less a.py", "ask"), ("LESS=-i less a.py", "ask"), ("less a.py", "allow"),
])
async def test_less_variables_that_run_commands_ask_under_an_allow_rule(world, command, expected):
    ctx = make_ctx(world.project, allow=("Bash(less:*)",))
    assert verdict_name(await decide_bash(ctx, command)) == expected, command


RUNNER_ENV_ROWS = [  # a variable that makes an allowed build, test or install run something else
    "PYTHONWARNINGS=ignore::evil.Category pytest",  # imports the module named
    "env PYTHONWARNINGS=ignore::evil.Category pytest",
    "PYTHONWARNINGS=$W pytest",  # a value only known at run time
    "PYTHONBREAKPOINT=evil.hook pytest",
    "PYTHONUSERBASE=/tmp/u pytest",  # a user site whose .pth files run at start-up
    "PYTEST_ADDOPTS=--basetemp=/home pytest",  # pytest empties its basetemp
    "PYTEST_PLUGINS=evil pytest",
    "CC='sh -c id' make",
    "MAKEFLAGS='CC=id' make",
    "export CC=id; make",
    "GOFLAGS=-toolexec=id go test ./...",
    "RUSTC_WRAPPER=/tmp/w cargo build",
    "CARGO_BUILD_RUSTC_WRAPPER=/tmp/w cargo build",
    "npm_config_script_shell=/tmp/sh npm run test",
    "NPM_CONFIG_USERCONFIG=/tmp/npmrc npm run test",
    "PIP_INDEX_URL=http://example.com/simple pip install requests",
    "UV_INDEX_URL=http://example.com/simple uv pip install requests",
    "KUBECONFIG=/tmp/k kubectl get pods",
    "DOCKER_CONFIG=/tmp/d docker ps",
    "CURL_HOME=/tmp curl -s https://example.com",
    "LESS='+!id' git log",
    "NODE_PATH=/tmp/m npm run test",
    # session 29: options read from the environment, settings that name programs, pagers, JVM agents
    "TAR_OPTIONS='--checkpoint=1 --checkpoint-action=exec=id' tar tf a.tar",
    "ZIPOPT='-TT id' zip a.zip a.py", "UNZIP='-d /etc' unzip -l a.zip", "MANOPT='-P id' man ls",
    "RSYNC_RSH=id rsync -a sub host:/x", "RSYNC_CONNECT_PROG=id rsync -a sub host:/x",
    "SHELL=/tmp/evil parallel echo ::: a", "PARALLEL='--shellquote' parallel echo ::: a",
    "SVN_SSH=id svn log", "YARN_YARN_PATH=./evil.js yarn install",
    "JUPYTER_PATH=./k jupyter nbconvert --to html nb.ipynb", "AWS_CONFIG_FILE=./c aws s3 ls",
    "GH_PAGER=id gh pr list", "GH_CONFIG_DIR=./g gh pr list", "HGRCPATH=./h hg status",
    "GNUPGHOME=./g git log", "TF_CLI_CONFIG_FILE=./t terraform plan",
    "TEXMFCNF=./t pdflatex x.tex", "GOENV=./e go test ./...", "GOTOOLCHAIN=go1.99 go test ./...",
    "RUSTUP_TOOLCHAIN=./t cargo build", "SYSTEMD_PAGER=id journalctl -n 5", "PSQL_PAGER=id psql -c 'select 1'",
    "KUBECTL_EXTERNAL_DIFF=id kubectl get pods", "MAVEN_OPTS=-javaagent:x.jar mvn test",
    "GRADLE_OPTS=-javaagent:x.jar gradle test", "SCREENRC=./s screen -dmS x",
]
ALLOWING = ("Bash(pytest:*)", "Bash(make:*)", "Bash(go test:*)", "Bash(cargo build:*)", "Bash(npm run test:*)",
            "Bash(pip install:*)", "Bash(uv pip install:*)", "Bash(kubectl get:*)", "Bash(docker ps:*)",
            "Bash(curl:*)", "Bash(git log:*)", "Bash(tar:*)", "Bash(zip:*)", "Bash(unzip:*)", "Bash(man:*)",
            "Bash(rsync:*)", "Bash(parallel:*)", "Bash(echo:*)", "Bash(svn:*)", "Bash(yarn:*)", "Bash(jupyter:*)",
            "Bash(aws:*)", "Bash(gh:*)", "Bash(hg:*)", "Bash(terraform:*)", "Bash(vim:*)", "Bash(pdflatex:*)",
            "Bash(journalctl:*)", "Bash(psql:*)", "Bash(mvn:*)", "Bash(gradle:*)", "Bash(screen:*)")


@pytest.mark.parametrize("command", RUNNER_ENV_ROWS)
async def test_a_variable_changing_what_an_allowed_program_runs_asks(world, command):
    ctx = make_ctx(world.project, allow=ALLOWING)
    verdict = await decide_bash(ctx, command)
    assert verdict_name(verdict) == "ask" and "which changes what programs run" in verdict.message, verdict
    words = shlex.split(command)
    start = next(i for i, w in enumerate(words) if "=" not in w)
    plain = " ".join(words[start:]) if start else None
    if plain is not None:
        assert verdict_name(await decide_bash(ctx, plain)) == "allow", plain  # the rule alone allows it


@pytest.mark.parametrize("command", [
    "CI=1 pytest", "PYTHONUNBUFFERED=1 pytest", "FOO=1 make", "LC_ALL=C make",
    "PYTHONWARNINGS=ignore pytest", "env PYTHONWARNINGS=error::DeprecationWarning pytest",  # built-in categories
])
async def test_ordinary_variables_keep_the_rule(world, command):
    assert verdict_name(await decide_bash(make_ctx(world.project, allow=ALLOWING), command)) == "allow"
