"""Runner oracle: real bash runs generated lines through stub runners, and what ran judges us.

Stubs named like runners in ``bash_runner_table.py`` (``eatmydata``, ``faketime``, ``uv``) log their
name, read their options the way a real program might (including options the analyzer's table
does not know, which each stub reads in its own hidden way) and ``exec`` the command they
find; ``qa`` and ``qc`` only log.  With ``Bash(qa:*)`` and the runners allowed and
``Bash(qc:*)`` denied, for every generated line:

1. bash ran ``qc`` → the line is not allowed;
2. the line is allowed → bash ran nothing but ``qa`` and the runners.

Raise ``RUNNER_ORACLE_EXAMPLES`` (e.g. 20000) to hunt; CI runs a fixed, derandomized set.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from jupyter_agent.core.permission_types import PermissionAllow
from jupyter_agent.permissions.bash import check_bash_permission
from tests.permissions.oracle_shell import BASH, run_line, sandbox_prefix
from tests.permissions.tools import make_ctx

EXAMPLES = int(os.environ.get("RUNNER_ORACLE_EXAMPLES", "300"))
TIMEOUT = 3.0
ALLOW = ("Bash(qa:*)", "Bash(eatmydata:*)", "Bash(faketime:*)", "Bash(uv run:*)")
RUNNER_NAMES = {"eatmydata", "faketime", "uv"}

pytestmark = pytest.mark.skipif(not os.path.exists(BASH), reason="needs /bin/bash")

# How each stub reads its arguments: value options (known to the table or hidden from it),
# positional words before the command, and words that must come first (uv's "run").
_OPTIONS_LOOP = """while [ $# -gt 0 ]; do
  case "$1" in
    --) shift; break;;
    {values}) shift; shift;;
    -*) shift;;
    *) break;;
  esac
done
"""
STUBS = {
    "eatmydata": {"values": "-z|-Z", "path": "", "positionals": 0},
    "faketime": {"values": "-z", "path": "", "positionals": 1},
    "uv": {"values": "--with|--python|-z", "path": "run", "positionals": 0},
}

RUNNER_PREFIXES = ["eatmydata ", "faketime 1 ", "faketime -f 1 ", "uv run ", "uv -q run ", "uv -z x run ",
                   "uv run --with qa ", "uv run --python qc "]
TOKENS = ["qa ", "qc ", "-z ", "-Z ", "-q ", "-f ", "-- ", "--y=1 ", "-zq ", "$x ", "'qc' ", "\"$x\" ",
          "--with ", "run ", "1 "]
SEPARATORS = ["; ", "| ", "&& ", "|| "]


@st.composite
def runner_command(draw) -> str:
    prefix = "".join(draw(st.lists(st.sampled_from(RUNNER_PREFIXES), min_size=1, max_size=2)))
    return prefix + "".join(draw(st.lists(st.sampled_from(TOKENS), min_size=0, max_size=5)))


LINES = st.lists(st.tuples(runner_command(), st.sampled_from(SEPARATORS)), min_size=1, max_size=2).map(
    lambda parts: "".join(cmd + sep for cmd, sep in parts[:-1]) + parts[-1][0])


def _stub(bin_dir: Path, log: Path, name: str, config: dict[str, object] | None) -> None:
    script = f"#!/bin/sh\nprintf '%s\\037%s\\036' {name} \"$*\" >> '{log}'\n"
    if config is not None:
        loop = _OPTIONS_LOOP.replace("{values}", str(config["values"]))
        script += loop
        if config["path"]:
            script += f'[ "$1" = "{config["path"]}" ] || exit 0\nshift\n' + loop
        script += f'[ $# -ge {config["positionals"]} ] || exit 0\nshift {config["positionals"]}\n'
        script += '[ $# -gt 0 ] && exec "$@"\n'
    script += "exit 0\n"
    path = bin_dir / name
    path.write_text(script)
    path.chmod(0o755)


@pytest.fixture(scope="module")
def oracle(tmp_path_factory):
    root = tmp_path_factory.mktemp("runner-oracle").resolve()
    bin_dir, log, work = root / "bin", root / "log", root / "work"
    bin_dir.mkdir()
    work.mkdir()
    for name in ("qa", "qc"):
        _stub(bin_dir, log, name, None)
    for name, config in STUBS.items():
        _stub(bin_dir, log, name, config)
    return root, bin_dir, log, work, sandbox_prefix(root)


def _ran(oracle, line: str) -> list[str] | None:
    root, bin_dir, log, work, sandbox = oracle
    log.write_bytes(b"")
    if not run_line(line, sandbox, work, bin_dir, TIMEOUT):
        return None
    return [r.split(b"\x1f", 1)[0].decode() for r in log.read_bytes().split(b"\x1e") if r]


def check_line(oracle, line: str) -> None:
    work = oracle[3]
    verdict = check_bash_permission(line, make_ctx(work, allow=ALLOW, deny=("Bash(qc:*)",)))
    if not isinstance(verdict, PermissionAllow):
        return  # asked or denied: no invariant can break
    ran = _ran(oracle, line)
    if ran is None:
        return
    assert "qc" not in ran, (line, ran, "allowed with qc denied")
    assert set(ran) <= {"qa"} | RUNNER_NAMES, (line, ran)


FIXED = [
    "eatmydata qc", "eatmydata -z qa qc", "eatmydata -Z qc", "eatmydata -- qc", "faketime 1 qc",
    "faketime -f 1 qc", "uv run qc", "uv -z x run qc", "uv run --with qa qc", "uv run -z qa qc",
    "eatmydata $x qc", "uv run eatmydata qc", "eatmydata faketime 1 uv run qc", "uv run -- qc",
    "eatmydata -zq qc", "uv run --y=1 qc", "qa | eatmydata qa", "uv run run qc",
]


@pytest.mark.parametrize("line", FIXED)
def test_fixed_runner_lines(oracle, line):
    verdict = check_bash_permission(line, make_ctx(oracle[3], allow=ALLOW, deny=("Bash(qc:*)",)))
    ran = _ran(oracle, line)
    if ran is not None and "qc" in ran:
        assert not isinstance(verdict, PermissionAllow), (line, ran)
    check_line(oracle, line)


def test_the_stubs_really_run_what_they_find(oracle):
    assert _ran(oracle, "eatmydata -z x qc") == ["eatmydata", "qc"]
    assert _ran(oracle, "uv -q run --with a qc") == ["uv", "qc"]
    assert _ran(oracle, "faketime 1 -- qc") == ["faketime"]  # faketime's positional was "1"


@settings(max_examples=EXAMPLES, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(line=LINES)
def test_generated_runner_lines(oracle, line):
    check_line(oracle, line)
