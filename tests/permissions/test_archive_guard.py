"""Extracting an archive writes the files it names: its member list is read when deciding.

The real-run tests show ``tar -xf`` and ``unzip`` really create ``.claude/settings.local.json``
from an archive; with the program allowed by a rule, or in bypassPermissions, that now asks.
"""

from __future__ import annotations

import io
import shutil
import subprocess
import tarfile
import zipfile

import pytest

from jupyter_agent.permissions.archive_guard import archive_writes
from jupyter_agent.permissions.bash_words import Word
from tests.permissions.conftest import verdict_name
from tests.permissions.tools import decide_bash, make_ctx

SETTINGS = ".claude/settings.local.json"


def _tar(path, members, mode="w", links=()):
    with tarfile.open(path, mode) as t:
        for name in members:
            info = tarfile.TarInfo(name)
            info.size = 2
            t.addfile(info, io.BytesIO(b"{}"))
        for name, target in links:
            info = tarfile.TarInfo(name)
            info.type = tarfile.SYMTYPE
            info.linkname = target
            t.addfile(info)


@pytest.fixture
def archives(world):
    p = world.project
    _tar(p / "evil.tar", ["src/ok.py", SETTINGS])
    _tar(p / "evil.tgz", [".git/hooks/pre-commit"], "w:gz")
    _tar(p / "ok.tar", ["src/a.py", "docs/b.md"])
    _tar(p / "abs.tar", ["/etc/cron.d/x"])
    _tar(p / "up.tar", ["../../outside/x"])
    _tar(p / "locked.tar", ["locked/f.txt"])
    _tar(p / "link.tar", ["d/ok"], links=[("d/home", "../../..")])
    _tar(p / "inlink.tar", ["d/ok"], links=[("d/sibling", "../src")])
    with zipfile.ZipFile(p / "evil.zip", "w") as z:
        z.writestr(SETTINGS, "{}")
    with zipfile.ZipFile(p / "ok.zip", "w") as z:
        z.writestr("src/c.py", "x")
    (p / "junk.tar").write_bytes(b"not an archive")
    shutil.copy(p / "evil.zip", p / "evil.jar")
    shutil.copy(p / "ok.zip", p / "ok.jar")
    return p


# Extracted into sub/ (a folder with no protected folder below it, so only the members decide:
# extracting where .git already is asks whatever the archive holds).
ROWS = [
    ("tar -xf evil.tar -C sub", "ask"),
    ("tar xf evil.tar -C sub", "ask"),
    ("tar -xzf evil.tgz -C sub", "ask"),
    ("tar --extract --file=evil.tar --directory=sub", "ask"),
    ("tar -x -f evil.tar -C sub", "ask"),
    ("tar -xf ok.tar -C sub", "allow"),
    ("tar -xf ok.tar -C .claude", "ask"),
    ("tar xfC ok.tar sub/.git", "ask"),  # bundled letters take their values in order
    ("tar -xPf abs.tar -C sub", "ask"),
    ("tar -xf up.tar -C sub", "ask"),
    ("tar -xf locked.tar -C .", "deny"),
    ("tar -xf link.tar -C sub", "ask"),  # a link out of the folder
    ("tar -xf inlink.tar -C sub", "allow"),  # a link that stays inside
    ("tar -xf junk.tar -C sub", "ask"),
    ("tar -xf missing.tar -C sub", "ask"),
    ("tar -x -C sub < evil.tar", "ask"),  # from standard input
    ("tar -xf $A -C sub", "ask"),
    ("tar -tf evil.tar", "allow"),  # listing writes nothing
    ("tar -xOf evil.tar -C sub", "allow"),  # to standard output
    ("tar -xOf evil.tar", "allow"),  # where .git is: still nothing written
    ("tar xOf evil.tar", "allow"),
    ("unzip -p evil.zip", "allow"),  # piped to standard output
    ("unzip -l evil.zip", "allow"),
    ("tar -xf ok.tar", "ask"),  # extracting where .git is asks whatever the archive holds
    ("unzip evil.zip -d sub", "ask"),
    ("unzip -o -q -d sub evil.zip", "ask"),
    ("unzip ok.zip -d sub", "allow"),
    ("unzip ok.zip -d sub/.git", "ask"),
    ("unzip -l evil.zip -d sub", "allow"),  # a listing
    ("python -m zipfile -e evil.zip sub", "ask"),
    ("python -m tarfile -e evil.tar sub", "ask"),
    ("python -m zipfile -e ok.zip sub", "allow"),
    ("cpio -idv < x.cpio", "ask"),
    ("7z x evil.zip -osub", "ask"),
    ("7z x ok.zip -osub", "allow"),
    # session 29: jar is a zip; extractors of formats not listed here ask, their listings do not
    ("jar xf evil.jar --dir sub", "ask"), ("jar -xf evil.jar -C sub", "ask"), ("jar --extract --file=ok.jar --dir=sub", "allow"),
    ("jar xf ok.jar --dir sub", "allow"), ("jar tf evil.jar", "allow"), ("jar xf missing.jar --dir sub", "ask"),
    ("jar x < evil.jar", "ask"),
    ("tar --ext --file=evil.tar --direct=sub", "ask"),  # GNU tar's abbreviations (real tar extracted it)
    ("tar --ext --file=ok.tar --direct=sub", "allow"), ("cpio --ext < x.cpio", "ask"),
    ("ar x lib.a", "ask"), ("ar t lib.a", "allow"), ("ar p lib.a", "allow"), ("unrar x a.rar sub/", "ask"),
    ("unrar e a.rar", "ask"), ("unrar l a.rar", "allow"), ("rar x a.rar", "ask"), ("arj x a.arj", "ask"),
    ("lha x a.lzh", "ask"), ("lha l a.lzh", "allow"), ("pax -r -f a.pax", "ask"), ("pax -rf a.pax", "ask"),
    ("pax -f a.pax", "allow"), ("cabextract -d sub a.cab", "ask"), ("cabextract -l a.cab", "allow"),
    ("unsquashfs -d sub fs.img", "ask"), ("unsquashfs -l fs.img", "allow"), ("dpkg-deb -x p.deb sub", "ask"),
    ("dpkg-deb -R p.deb sub", "ask"), ("dpkg-deb -c p.deb", "allow"), ("unar -o sub a.rar", "ask"),
    ("lsar a.rar", "allow"), ("aunpack a.tgz", "ask"), ("atool -x a.tgz", "ask"), ("atool -l a.tgz", "allow"),
    ("xar -xf a.xar", "ask"), ("xar -tf a.xar", "allow"),
]


@pytest.mark.parametrize(("command", "expected"), ROWS)
async def test_archive_members_are_checked(archives, world, command, expected):
    allow = tuple(f"Bash({p}:*)" for p in ("tar", "unzip", "python", "cpio", "7z", "jar", "ar", "unrar", "rar", "arj",
                                           "lha", "pax", "cabextract", "unsquashfs", "dpkg-deb", "unar", "lsar",
                                           "aunpack", "atool", "xar"))
    deny = ("Edit(./locked/**)",) if "locked" in command else ()
    ctx = make_ctx(world.project, allow=allow, deny=deny)
    verdict = await decide_bash(ctx, command)
    assert verdict_name(verdict) == expected, verdict


async def test_bypass_mode_asks_before_an_archive_writes_a_protected_path(archives, world):
    ctx = make_ctx(world.project, mode="bypassPermissions")
    assert verdict_name(await decide_bash(ctx, "tar -xf evil.tar -C sub")) == "ask"
    assert verdict_name(await decide_bash(ctx, "unzip evil.zip -d sub")) == "ask"
    assert verdict_name(await decide_bash(ctx, "tar -xf ok.tar -C sub")) == "allow"


def test_archive_writes_lists_members(archives, world):
    def writes(line):
        return archive_writes([Word(w) for w in line.split()], str(world.project))

    assert writes("tar -xf ok.tar -C out") == (None, ["out/src/a.py", "out/docs/b.md"])
    assert writes("tar -tvf ok.tar") == (None, [])
    assert writes("unzip -d out ok.zip") == (None, ["out/src/c.py"])


@pytest.mark.parametrize(("program", "command", "archive"),
                         [("tar", "tar -xf a.tar", "a.tar"), ("unzip", "unzip -q a.zip", "a.zip")])
def test_real_extraction_creates_what_the_archive_names(tmp_path, program, command, archive):
    """Ground truth for the rows above: the real program creates the settings file."""
    if shutil.which(program) is None:
        pytest.skip(f"{program} is not installed")
    if archive.endswith(".tar"):
        _tar(tmp_path / archive, [SETTINGS])
    else:
        with zipfile.ZipFile(tmp_path / archive, "w") as z:
            z.writestr(SETTINGS, "{}")
    subprocess.run(command, shell=True, cwd=tmp_path, check=True, capture_output=True)
    assert (tmp_path / SETTINGS).read_text() == "{}"


def test_a_compressed_archive_is_listed_only_when_small(archives, world, monkeypatch):
    """A compressed tar is read through to be listed, on the decision's thread: over the cap it asks."""
    from jupyter_agent.permissions import archive_guard

    monkeypatch.setattr(archive_guard, "_MAX_COMPRESSED", 10)
    reason, paths = archive_writes([Word(w) for w in ["tar", "-xzf", "evil.tgz"]], str(world.project))
    assert reason is not None and "too large" in reason and paths == []
    assert archive_writes([Word(w) for w in ["tar", "-xf", "ok.tar"]], str(world.project))[0] is None
