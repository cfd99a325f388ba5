"""sed as a read-only command, checked against real GNU sed.

A sed script that only prints (addresses, ``/re/`` ranges, ``p``/``d``/``q``, ``s///`` and
``y`` to standard output) runs without asking; ``r FILE`` is a read of FILE.  Generated scripts
mix those with ``w``, ``s///w``, ``e``, ``s///e``, ``r`` and bracket expressions that hold the
delimiter (``s/[/]/g;s/w x/y/p`` writes ``x/y/p`` by sed's reading: a plain reader sees two
harmless substitutions).  Every script the classifier calls read-only is run by real sed in a
fresh folder: it must create and change no file, run nothing, and print a file's text only if
the classifier named that file as a read.
"""

from __future__ import annotations

import os
import random
import shutil
import subprocess
from pathlib import Path

import pytest

from jupyter_agent.permissions.bash_sed import sed_files
from jupyter_agent.permissions.bash_words import Word

pytestmark = pytest.mark.skipif(shutil.which("sed") is None, reason="sed is not installed")

COUNT = int(os.environ.get("SED_ORACLE_EXAMPLES", "400"))
SECRET = "SECRET-71c3"
REGEXES = ["a", "b.", "[0-9]", "[/]", "[]/]", "[^/]x", "[[:alpha:]/]", "\\/", "x\\|y", "^#", "$", "[a-z]*"]
TEXTS = ["X", "&", "\\1", "w x", "p", "/", "e touch RAN", ";w out", "]"]


def _address(rnd: random.Random) -> str:
    return rnd.choice(["", "1", "$", "2,3", f"/{rnd.choice(REGEXES)}/", f"/{rnd.choice(REGEXES)}/,/b/",
                       f"\\%{rnd.choice(REGEXES)}%", "0~2"])


def _command(rnd: random.Random) -> str:
    kind = rnd.randrange(12)
    if kind < 3:
        return _address(rnd) + rnd.choice(["p", "d", "q", "=", "!p"])
    if kind < 7:
        d = rnd.choice(["/", "/", "|", ",", "g", "w", "p"])
        flags = rnd.choice(["", "g", "p", "gp", "w out", "e", "2", "gw sub/x/p", "I"])
        return (f"{_address(rnd)}s{d}{rnd.choice(REGEXES).replace('/', d)}{d}"
                f"{rnd.choice(TEXTS).replace('/', d)}{d}{flags}")
    if kind == 7:
        return f"y/{rnd.choice(['abc', '[/]', 'a/b'])}/{rnd.choice(['xyz', 'w o', '123'])}/"
    if kind == 8:
        return _address(rnd) + rnd.choice(["w out", "W out", "r secret.txt", "R secret.txt", "e touch RAN"])
    if kind == 9:
        return rnd.choice([":a", "ba", "ta", "{p}", "{", "}", "n", "N", "h;G", "l", "a text", "i\\\ntext"])
    return rnd.choice(["s/[/]/g;s/w x/y/p", "s/[/]/X/", "/[]/]/p", "s/a/[/]/", "s/[\\/]/X/"])


def _script(rnd: random.Random) -> str:
    return rnd.choice([";", "\n"]).join(_command(rnd) for _ in range(rnd.randint(1, 3)))


def _folder(tmp: Path) -> Path:
    folder = tmp / "run"
    if folder.exists():
        shutil.rmtree(folder)
    (folder / "sub" / "x").mkdir(parents=True)
    (folder / "x" / "y").mkdir(parents=True)
    (folder / "a.txt").write_text("a/b\n#c\n1 2\nb/a\n")
    (folder / "secret.txt").write_text(SECRET + "\n")
    return folder


def _state(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in folder.rglob("*") if p.is_file()}


def test_every_read_only_script_only_reads_what_it_names(tmp_path):
    rnd = random.Random(20261204)
    read_only = 0
    for _ in range(COUNT):
        script = _script(rnd)
        reads = sed_files([Word("-n"), Word(script), Word("a.txt")], False)
        if reads is None:
            continue
        read_only += 1
        folder = _folder(tmp_path)
        before = _state(folder)
        done = subprocess.run(["sed", "-n", script, "a.txt"], cwd=folder, capture_output=True, timeout=10,
                              env={"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "LC_ALL": "C"})
        assert _state(folder) == before, (script, "a file was created or changed")
        named = {w.text for w in reads}
        if SECRET.encode() in done.stdout:
            assert "secret.txt" in named, (script, "printed a file it did not name")
    assert read_only > COUNT // 10  # the generator reaches the read-only side often enough


@pytest.mark.parametrize(("script", "read_only"), [
    ("/a/,/b/p", True), ("s/foo/bar/g", True), ("/[0-9]/p", True), ("s/[[:space:]]*$//", True),
    ("/start/,/end/{p}", True), ("y/abc/xyz/", True), ("r secret.txt", True),
    ("s/a/b/w out", False), ("w out", False), ("1e touch RAN", False), ("s/x/y/e", False),
    ("s/[/]/g;s/w x/y/p", False),  # sed writes x/y/p
    ("s/[/]/X/", False),  # a bracket holding the delimiter: not followed
])
def test_rows(script, read_only):
    assert (sed_files([Word("-n"), Word(script), Word("a.txt")], False) is not None) is read_only, script


def test_real_sed_reads_brackets_whole(tmp_path):
    """Why a bracket holding the delimiter is not followed: sed writes the file a plain reader misses."""
    folder = _folder(tmp_path)
    subprocess.run(["sed", "-n", "s/[/]/g;s/w x/y/p", "a.txt"], cwd=folder, capture_output=True, timeout=10)
    assert (folder / "x" / "y" / "p").exists()
