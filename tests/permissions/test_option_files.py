"""A file named inside an option word (``--file=.env``, ``-f.env``) is a read like any other."""

from __future__ import annotations

import shutil
import subprocess

import pytest

from jupyter_agent.permissions.bash_readonly import check_read_only
from jupyter_agent.permissions.bash_words import Word
from tests.permissions.conftest import verdict_name
from tests.permissions.tools import decide_bash, make_ctx

ENV = ("Read(./.env)",)

ROWS = [
    ("grep-attached-f", "grep -f.env sub", "deny"),
    ("grep-cluster-f", "grep -rf.env sub", "deny"),
    ("grep-long-file", "grep --file=.env sub", "deny"),
    ("grep-exclude-from", "grep -r -e S --exclude-from=.env sub", "deny"),
    ("du-files0-from", "du --files0-from=.env", "deny"),
    ("du-exclude-from", "du -X.env", "deny"),
    ("wc-files0-from", "wc --files0-from=.env", "deny"),
    ("sort-files0-from", "sort --files0-from=.env", "deny"),
    ("diff-from-file", "diff --from-file=.env sub", "deny"),
    # the files named inside a list are only known at run time (sort prints them)
    ("sort-list-of-files", "sort --files0-from=list0", "ask"),
    ("sort-list-separate", "sort --files0-from list0", "ask"),
    ("sort-list-abbreviated", "sort --files0=list0", "ask"),
    ("wc-list-of-files", "wc --files0-from=list0", "ask"),
    ("du-list-of-files", "du --fil=list0", "ask"),
    ("find-list-of-files", "find -files0-from list0 -name x", "ask"),
    ("checksums-list", "sha256sum -c sums", "ask"),
    ("checksums-cluster", "md5sum -bc sums", "ask"),
    ("checksums-long-abbreviated", "sha1sum --ch sums", "ask"),
    ("checksum-of-a-file", "sha256sum a.py", "allow"),
    # jq's module system reads files the program text names
    ("jq-import", "jq -n 'import \"secrets/creds\" as $c; $c'", "ask"),
    ("jq-include", "jq -n -L sub 'include \"m\"; 1'", "ask"),
    ("yq-import", "yq -n 'import \"secrets/creds\" as $c; $c'", "ask"),
    ("jq-program-file", "jq -f prog.jq a.json", "ask"),
    ("jq-program-file-long", "jq --from-file prog.jq a.json", "ask"),
    ("jq-plain", "jq -r '.cells | length' a.json", "allow"),
    ("du-plain", "du -sh sub", "allow"),
    ("diff-to-file", "diff --to-file=.env sub", "deny"),
    ("file-namefile", "file -f.env", "deny"),
    ("hexdump-format-file", "hexdump -f.env a.py", "deny"),
    ("jq-from-file", "jq -f.env", "deny"),
    ("rg-patterns", "rg -f.env sub", "deny"),
    ("through-link", "grep --file=env-link sub", "deny"),
    ("outside-asks", "grep -f/etc/hosts a.py", "ask"),
    ("long-outside-asks", "diff --from-file=/etc/hosts a.py", "ask"),
    # options and expressions that run programs or read files the arguments do not name
    ("rg-hostname-bin", "rg --hostname-bin=./evil --hyperlink-format=default x sub", "ask"),
    ("yq-load-str", "yq '.a = load_str(\".env\")' a.yaml", "ask"),
    ("yq-expression-file", "yq -f x.yq a.yaml", "ask"),
    ("yq-plain", "yq '.a' a.yaml", "allow"),
    # option values that are not files stay harmless
    ("flags-cluster", "ls -la", "allow"),
    ("grep-cluster", "grep -rn TODO sub", "allow"),
    ("attached-count", "head -n50 a.py", "allow"),
    ("color", "grep --color=always x a.py", "allow"),
    ("format", "git log --format=%H:%s -n 3", "allow"),
    ("skip-fields-is-not-a-positional", "uniq --skip-fields=1 a.py", "allow"),
]


@pytest.mark.parametrize(("command", "expected"), [r[1:] for r in ROWS], ids=[r[0] for r in ROWS])
async def test_option_file_rows(world, command, expected):
    ctx = make_ctx(world.project, deny=ENV)
    verdict = await decide_bash(ctx, command)
    assert verdict_name(verdict) == expected, verdict


@pytest.mark.parametrize(
    ("command", "paths"),
    [
        ("grep -rf.env x", ["x", ".env"]),
        ("grep -rn x", ["x"]),  # n is not a file option of grep
        ("cat --squeeze-blank=no a", ["a", "no"]),
        ("cat --number a", ["a"]),
        ("du -X.env -sh", [".env"]),
        ("du -sh -X .env", [".env"]),  # a separate value is an operand already
    ],
)
def test_attached_values_are_collected_after_the_operands(command, paths):
    check = check_read_only(tuple(Word(t) for t in command.split()))
    assert check.read_only
    assert [w.text for w in check.paths] == paths


WRITERS = ("Bash(git diff:*)", "Bash(sort:*)", "Bash(cp:*)")


@pytest.mark.parametrize("mode", ["default", "bypassPermissions"])
@pytest.mark.parametrize(
    ("command", "expected"),
    [
        ("git diff --output=.git/config", "ask"),
        ("sort --output=.claude/settings.json a.py", "ask"),
        ("sort -o.claude/settings.json a.py", "ask"),
        ("cp a.py --target-directory=.git", "ask"),
        ("cp -t.git a.py", "ask"),
        ("cp -rt.git a.py sub", "ask"),
        ("cp --suffix=.env a.py sub/", "ask"),  # names a Read-denied file (over-cautious, never silent)
        ("cp --target-directory=sub a.py", "allow"),
        ("sort -o out.txt a.py", "allow"),
        ("cp --backup=numbered a.py b.py", "allow"),
    ],
)
async def test_protected_paths_inside_option_words_of_allowed_commands(world, mode, command, expected):
    ctx = make_ctx(world.project, deny=ENV, allow=WRITERS, mode=mode)
    verdict = await decide_bash(ctx, command)
    assert verdict_name(verdict) == expected, verdict


@pytest.mark.skipif(shutil.which("jq") is None, reason="needs jq")
@pytest.mark.parametrize(
    ("program", "expected"),
    [("import \"secrets/creds\" as $c; $c", "ask"), ("include \"secrets/creds\"; leak", "ask"), ("1 + 1", "allow")],
)
async def test_real_jq_reads_what_its_modules_name(tmp_path, program, expected):
    """``Read(./secrets/**)``: real jq imports ``secrets/creds.json`` by the program text alone."""
    (tmp_path / "secrets").mkdir()
    (tmp_path / "secrets" / "creds.json").write_text('{"key": "TOKEN-jq-41"}')
    (tmp_path / "secrets" / "creds.jq").write_text('def leak: "TOKEN-jq-41";')
    command = f"jq -n '{program}'"
    verdict = await decide_bash(make_ctx(tmp_path, deny=("Read(./secrets/**)",)), command)
    assert verdict_name(verdict) == expected, verdict
    done = subprocess.run(["/bin/bash", "-c", command], cwd=tmp_path, capture_output=True, text=True, timeout=10)
    assert ("TOKEN-jq-41" in done.stdout) is (expected == "ask"), done
