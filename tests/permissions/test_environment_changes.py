"""Ways a line changes how its later commands run: ``set -k`` and assignments inside ``${…}``.

``set -k`` puts every ``NAME=value`` argument into the command's environment, so
``cat LD_PRELOAD=x.so f`` would load a library into ``cat``; ``${CDPATH:=/etc}`` makes ``cd x``
land elsewhere, and a set ``GLOBIGNORE`` makes ``*`` match dot files such as ``.env``.
"""

from __future__ import annotations

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
