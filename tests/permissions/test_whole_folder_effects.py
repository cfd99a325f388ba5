"""Commands that read, rewrite or remove every file below a folder without naming one:
``gzip -rc . | gunzip`` prints ``.env``; ``gzip -r .`` replaces ``.git/config`` by
``.git/config.gz``; ``rclone cat .`` prints every file, ``rclone serve http .`` hands them out,
``rclone purge .`` removes them.  A Read deny rule below the folder asks (as ``tar cf - .``
does), and so does a protected folder inside it when the command rewrites or removes (as
``rm -rf .`` does), in every mode.  Where this machine has the program, a test runs it first to
show the effect is real.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import zipfile

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
    # archives, images and backups of a whole folder (python -m zipfile's ground truth below)
    ("python3 -m zipfile -c x.zip .", "ask"),
    ("python3 -mzipfile -c x.zip .", "ask"),
    ("python3 -m tarfile -c x.tar .", "ask"),
    ("python3 -m zipfile -c x.zip data", "allow"),
    ("python3 -m zipfile -l x.zip", "allow"),
    ("jar cf x.jar .", "ask"),
    ("jar --create --file x.jar .", "ask"),
    ("jar cf x.jar data", "allow"),
    ("bsdtar cf - . | bsdtar xOf - ./.env", "ask"),
    ("bsdtar tf x.tar", "allow"),
    ("rar a x.rar .", "ask"),
    ("shar . > x.shar", "ask"),
    ("mksquashfs . /tmp/x.sqfs", "ask"),
    ("genisoimage -V LABEL -o /tmp/x.iso .", "ask"),
    ("xorriso -as mkisofs -o /tmp/x.iso .", "ask"),
    ("mkfs.ext4 -d . /tmp/img", "ask"),
    ("mkfs.btrfs --rootdir . /tmp/img", "ask"),
    ("mkfs.ext4 -d data /tmp/img", "allow"),
    ("kopia snapshot create .", "ask"),
    ("rdiff-backup . /tmp/backup", "ask"),
    ("colordiff -rN . /tmp/empty", "ask"),  # -N: a file missing on one side is printed whole
    ("colordiff -u data/a.csv data/a.csv", "allow"),
    # fd -x|-X hands every file it finds to a command, as find -exec does
    ("fd -H -x cat", "ask"),
    ("fd . -H -X cat", "ask"),
    ("fd -H --search-path . -x cat", "ask"),
    ("fdfind -H -x cat", "ask"),  # Debian's name for it
    ("fd -H csv data -x cat", "allow"),
    ("fd -H", "allow"),  # names only
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
    # a backup restored into . (or a sync with .) writes names only the backup knows
    ("kopia restore k1 .", "ask"),
    ("kopia snapshot restore k1 .", "ask"),
    ("kopia restore k1 data", "allow"),
    ("rdiff-backup --force /b .", "ask"),
    ("rdiff-backup restore /b .", "ask"),
    ("rdiff-backup -r now /b .", "ask"),
    ("rdiff-backup list increments /b", "allow"),
    ("duplicity restore file:///b .", "ask"),  # a file:// URL is a backup too
    ("duplicity file:///b .", "ask"),
    ("duplicity restore file:///b data", "allow"),
    ("unison . ssh://host//b -batch", "ask"),
    ("unison data ssh://host//b -batch", "allow"),
    ("unison myprofile", "ask"),  # the roots are in ~/.unison/myprofile.prf
]


@pytest.mark.parametrize(("command", "expected"), WRITE_ROWS)
async def test_whole_folder_rewrites_keep_off_protected_folders(project, command, expected):
    for mode, allow in (("default", ("Bash(*)",)), ("bypassPermissions", ())):
        verdict = await decide_bash(make_ctx(project, allow=allow, mode=mode), command)
        assert verdict_name(verdict) == expected, (mode, verdict)
        if expected == "ask" and "profile" not in command:
            assert ".git" in verdict.message or "working directory" in verdict.message, verdict.message


def test_real_python_zipfile_archives_every_file(project):
    """Ground truth for the python -m zipfile rows: the archive of . holds .env."""
    assert _run(project, f"python3 -m zipfile -c {project.parent / 'x.zip'} .").returncode == 0
    with zipfile.ZipFile(project.parent / "x.zip") as archive:
        assert archive.read(".env") == b"SECRET=1\n"


MOUNT_ROWS = [  # (command, with Read(./.env) denied, with no rule: .git is what is at stake)
    ("mount --bind . /tmp/m", "ask", "allow"),  # .env shows at /tmp/m/.env, which no rule names
    ("mount -o bind . /tmp/m", "ask", "allow"),
    ("bindfs . /tmp/m", "ask", "allow"),
    ("unionfs a=RW:.=RO /tmp/m", "ask", "allow"),
    ("mount --bind /tmp/x .", "ask", "ask"),  # hides the project, .git too, behind /tmp/x
    ("mount -t tmpfs none .", "ask", "ask"),
    ("sshfs host:/x .", "ask", "ask"),
    ("mount --bind data /tmp/m", "allow", "allow"),
    ("sshfs host:/x /tmp/m", "allow", "allow"),
    ("mount", "allow", "allow"),  # a listing
    ("bwrap --bind / / --bind . /mnt cat /mnt/.env", "ask", "allow"),
    ("proot -b .:/mnt cat /mnt/.env", "ask", "allow"),
    ("bwrap --ro-bind / / --bind . /mnt", "ask", "allow"),  # the last words a bind (bwrap then runs nothing)
    ("proot -r . ls", "ask", "allow"),
    ("bwrap --ro-bind / / cat data/a.csv", "allow", "allow"),  # / at /: every path is itself
    ("proot -b /usr ls", "allow", "allow"),
]


@pytest.mark.parametrize(("command", "with_read_deny", "without"), MOUNT_ROWS)
async def test_mounts_and_binds_meet_the_rules(project, command, with_read_deny, without):
    for mode, allow in (("default", ("Bash(*)",)), ("bypassPermissions", ())):
        ctx = make_ctx(project, allow=allow, deny=("Read(./.env)",), mode=mode)
        assert verdict_name(await decide_bash(ctx, command)) == with_read_deny, (mode, command)
        ctx = make_ctx(project, allow=allow, mode=mode)
        assert verdict_name(await decide_bash(ctx, command)) == without, (mode, command)


@pytest.mark.skipif(os.geteuid() != 0 or shutil.which("unshare") is None, reason="needs root and unshare")
def test_real_bind_mount_shows_the_file_under_another_name(project, tmp_path):
    """Ground truth (in a mount namespace of its own, so nothing outlives the test)."""
    (tmp_path / "m").mkdir()
    real = _run(project, f"unshare -m sh -c 'mount --bind . {tmp_path / 'm'} && cat {tmp_path / 'm' / '.env'}'")
    if real.returncode != 0 and "mount" in real.stderr:
        pytest.skip(f"mounts are not allowed here: {real.stderr.strip()}")
    assert real.stdout == "SECRET=1\n"


LINK_ROWS = [
    ("ln -s . l && cat l/.env", "ask"),  # l is the project under another name
    ("ln -sf .. data/up; cat data/up/proj/.env", "ask"),  # .. from data/: the project again
    ("ln -s ../.. data/x", "ask"),  # the project's parent, from data/x's folder
    ("ln -sr . data/x", "ask"),  # -r: the target as given from here
    ("ln -s -t data ..", "ask"),  # data/.. is the project
    ("ln -s data l", "allow"),  # nothing denied below data
    ("ln -s a.csv data/b.csv", "allow"),
    ("ln -sf ../data/a.csv data/c.csv", "allow"),
    ("ln data/a.csv hard.csv", "allow"),  # a hard link is a file's other name (never a folder's)
]


@pytest.mark.parametrize(("command", "expected"), LINK_ROWS)
async def test_a_link_to_a_folder_with_a_denied_file_asks(project, command, expected):
    for mode, allow in (("default", ("Bash(*)",)), ("bypassPermissions", ())):
        ctx = make_ctx(project, allow=allow, deny=("Read(./.env)",), mode=mode)
        verdict = await decide_bash(ctx, command)
        assert verdict_name(verdict) == expected, (mode, verdict)


def test_real_link_reads_the_denied_file(project):
    """Ground truth for the first row: at decision time l did not exist, so l/.env matched no rule."""
    assert _run(project, "ln -s . l && cat l/.env").stdout == "SECRET=1\n"
