"""Commands that read, rewrite or remove every file below a folder without naming one:
``gzip -rc . | gunzip`` prints ``.env``; ``gzip -r .`` replaces ``.git/config`` by
``.git/config.gz``; ``rclone cat .`` prints every file, ``rclone serve http .`` hands them out,
``rclone purge .`` removes them.  A Read deny rule below the folder asks (as ``tar cf - .``
does), and so does a protected folder inside it when the command rewrites or removes (as
``rm -rf .`` does), in every mode.  Where this machine has the program, a test runs it first to
show the effect is real.
"""

from __future__ import annotations

import shutil
import subprocess

import pytest

from tests.permissions.conftest import verdict_name
from tests.permissions.tools import decide_bash, make_ctx


@pytest.fixture
def project(tmp_path):
    root = tmp_path / "proj"
    (root / ".git").mkdir(parents=True)
    (root / ".git" / "config").write_text("[core]\n")
    (root / ".env").write_text("SECRET=1\n")
    (root / "data").mkdir()
    (root / "data" / "a.csv").write_text("x,y\n")
    return root


def _run(cwd, command: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["bash", "-c", command], cwd=cwd, capture_output=True, text=True)


@pytest.mark.skipif(shutil.which("gzip") is None, reason="needs gzip")
def test_real_recursive_gzip_reads_and_replaces_every_file(project):
    assert "SECRET=1" in _run(project, "gzip -rc . | gunzip").stdout
    assert "SECRET=1" in _run(project, "zcat -rf .").stdout  # -f: what is not compressed passes through
    _run(project, "gzip -r .")
    assert (project / ".git" / "config.gz").exists() and not (project / ".git" / "config").exists()
    assert (project / ".env.gz").exists()


@pytest.mark.skipif(shutil.which("zstd") is None, reason="needs zstd")
def test_real_recursive_zstd_reads_every_file(project):
    assert "SECRET=1" in _run(project, "zstd -qrc . | zstd -qd").stdout


READ_ROWS = [  # Read(./.env) denied; no protected folder matters for a read
    ("gzip -rc . | gunzip", "ask"),
    ("gzip --rec -c . | gunzip", "ask"),  # getopt_long takes a beginning of --recursive
    ("zcat -rf .", "ask"),
    ("pigz -rc . | unpigz", "ask"),
    ("zstd -rc . | zstd -d", "ask"),
    ("lz4 -r -c . | lz4 -d", "ask"),
    ("gzip -rc data | gunzip", "allow"),  # nothing denied below data
    ("gzip -c data/a.csv", "allow"),
    ("rclone cat .", "ask"),
    ("rclone cat ./", "ask"),
    ("rclone serve http --addr :8080 .", "ask"),
    ("rclone mount . /tmp/mnt", "ask"),
    ("rclone cat data", "allow"),
    ("rclone cat remote:bucket", "allow"),
    ("rclone serve http remote:", "allow"),
]


@pytest.mark.parametrize(("command", "expected"), READ_ROWS)
async def test_whole_folder_reads_meet_a_read_deny(project, command, expected):
    (project / ".git" / "config").unlink()  # only the Read deny stands in the way
    (project / ".git").rmdir()
    for mode, allow in (("default", ("Bash(*)",)), ("bypassPermissions", ())):
        ctx = make_ctx(project, allow=allow, deny=("Read(./.env)",), mode=mode)
        verdict = await decide_bash(ctx, command)
        assert verdict_name(verdict) == expected, (mode, verdict)


WRITE_ROWS = [  # no rule: the project's .git is what is at stake
    ("gzip -r .", "ask"),
    ("gzip --recursive -k .", "ask"),
    ("zstd -r .", "ask"),
    ("compress -r .", "ask"),
    ("gzip -r data", "allow"),
    ("gzip data/a.csv", "allow"),
    ("gzip -rc . > all.gz", "allow"),  # to standard output: nothing below . changes
    ("rclone delete .", "ask"),
    ("rclone purge --fast-list .", "ask"),  # an option's value or not, . counts
    ("rclone rmdirs .", "ask"),
    ("rclone dedupe .", "ask"),
    ("rclone delete data", "allow"),
    ("rclone purge remote:bucket", "allow"),
    ("rclone ls .", "allow"),
]


@pytest.mark.parametrize(("command", "expected"), WRITE_ROWS)
async def test_whole_folder_rewrites_keep_off_protected_folders(project, command, expected):
    for mode, allow in (("default", ("Bash(*)",)), ("bypassPermissions", ())):
        verdict = await decide_bash(make_ctx(project, allow=allow, mode=mode), command)
        assert verdict_name(verdict) == expected, (mode, verdict)
        if expected == "ask":
            assert ".git" in verdict.message, verdict.message
