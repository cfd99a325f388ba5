"""Programs that write through an option value or one operand among others
(``bash_option_writes``): ``git diff --output=F``, ``uniq IN OUT``, ``tar cf F``, ``curl -o F`` …

1. The files the analyzer says they write are the files the real programs write: each row runs
   in an empty folder and the new files are compared with the prediction.
2. With a rule allowing the program, a write outside the working directories asks (in every
   mode with ``blockWritesOutsideWorkingDirectories``), the same write inside runs.
3. Under an ``Edit`` deny rule the write is denied (see also ``test_edit_named.py``).
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from jupyter_agent.permissions.bash_option_writes import NEW_NAME, option_written
from jupyter_agent.permissions.bash_words import make_word
from jupyter_agent.permissions.bash_writes import written_targets
from tests.permissions.conftest import verdict_name
from tests.permissions.tools import decide_bash, make_ctx, project_and_outside, with_permissions


def _words(line: str):
    import shlex

    return [make_word(w) for w in shlex.split(line)]


def _targets(line: str) -> list[tuple[str, bool]]:
    return [(w.text, recursive) for w, recursive in option_written(_words(line))]


@pytest.mark.parametrize(("line", "expected"), [
    ("git diff --output=o.txt", [("o.txt", False)]),
    ("git log -p --out o.txt", [("o.txt", False)]),
    ("git -C sub diff --output=o.txt", [("sub/o.txt", False)]),
    ("git -C sub diff --output=/abs/o.txt", [("/abs/o.txt", False)]),
    ("git diff --output-indicator-new=x", []),
    ("git archive -o a.tar HEAD", [("a.tar", False)]),
    ("git format-patch -o out HEAD~1", [(f"out/{NEW_NAME}", False)]),
    ("git bundle create b.bundle HEAD", [("b.bundle", False)]),
    ("git clone --depth 1 https://x/r dest", [("dest", True)]),
    ("git clone https://x/r", []),  # ./r: inside the folder it runs in
    ("git init -b main repo", [("repo", True)]),
    ("git worktree add -b topic ../wt", [("../wt", True)]),
    ("git status", []),
    ("uniq -f 1 in.txt out.txt", [("out.txt", False)]),
    ("uniq in.txt", []),
    ("xxd -c 8 in.bin out.hex", [("out.hex", False)]),
    ("tree -o t.txt", [("t.txt", False)]),
    ("tar czf a.tgz src", [("a.tgz", False)]),
    ("tar cbf 20 a.tar src", [("a.tar", False)]),
    ("tar -c -f a.tar src", [("a.tar", False)]),
    ("tar --create --file=a.tar src", [("a.tar", False)]),
    ("tar -cf - src", []),
    ("tar tf a.tar", []),
    ("zip -r a.zip src", [("a.zip", False)]),
    ("gzip -k f.txt", [("f.txt", False), ("f.txt.gz", False)]),
    ("gunzip src/x.py.gz", [("src/x.py.gz", False), ("src/x.py", False)]),  # the name it writes, too
    ("gzip -d a.tgz", [("a.tgz", False), ("a.tar", False)]), ("unxz a.py.xz", [("a.py.xz", False), ("a.py", False)]),
    ("zstd -dq a.py.zst", [("a.py.zst", False), ("a.py", False)]), ("bzip2 a", [("a", False), ("a.bz2", False)]),
    ("gzip -S .z1 -d a.z1", [("a.z1", False), ("a", False)]), ("gzip -d odd", [("odd", False)]),
    ("gzip -c f.txt", []),
    ("gzip -dc f.gz", []),
    ("zstd f.txt -o f.zst", [("f.zst", False)]),
    ("rsync -a -e ssh src/ backup/", [("backup/", False)]),
    ("rsync -a src/ host:backup/", []),
    ("rsync -a host:src/ ./a:b", [("./a:b", False)]),
    ("scp -P 22 host:x.csv data/", [("data/", False)]),
    ("curl -sSLo page.html https://x", [("page.html", False)]),
    ("curl -D h.txt --output-dir dl -O https://x/a", [("h.txt", False), (f"dl/{NEW_NAME}", False)]),
    ("wget -O - https://x", []),
    ("wget -O p.html -o log.txt https://x", [("p.html", False), ("log.txt", False)]),
    ("split -l 10 in.txt part_", [("part_aa", False)]),
    ("csplit -f piece in.txt 3", [("piece00", False)]),
    ("mkdir -m 700 -p a/b", [("a/b", False)]),  # without a folder to look in: the operand only
    ("script -q -c true session.log", [("session.log", False)]),
    ("mktemp -p tmp", [(f"tmp/{NEW_NAME}", False)]),
    ("mktemp -p tmp fileXXXX", [("tmp/fileXXXX", False)]),
    ("python -m venv .venv", [(".venv", True)]),
    ("python3 -m pip install --target lib pkg", [(f"lib/{NEW_NAME}", False)]),
    ("pip install --log pip.log -t lib x", [(f"lib/{NEW_NAME}", False), ("pip.log", False)]),
    ("jupyter nbconvert --to html nb/a.ipynb --output b", [("nb/b.html", False)]),  # beside the notebook
    ("jupyter nbconvert --to html a.ipynb --output-dir out", [("out/a.html", False)]),
    ("jupyter nbconvert --to markdown a.ipynb", [("a.md", False), ("a_files", True)]),
    ("pytest --basetemp=bt -q", [("bt", True)]),
    ("pytest --junitxml r.xml --log-file=l.log", [("r.xml", False), ("l.log", False)]),
    ("python -m pytest -o cache_dir=cc --cov-report=html:cov --debug=d.log",
     [("d.log", False), ("cc", True), ("cov", True)]),
    ("pytest -o addopts='--basetemp=/x -q'", [("/x", True)]),
    ("pytest -q tests", []),
    ("gcc -O2 -Wall -fno-common -o bin/app a.c", [("bin/app", False)]),  # -fno-common holds no -o
    ("cc -oapp a.c", [("app", False)]),
    ("gcc -c a.c", []),
    ("go build -o bin/x ./cmd", [("bin/x", False)]),
    ("go vet ./...", []),
    ("pandoc a.md -o a.pdf", [("a.pdf", False)]),
    ("shuf -o out.txt in.txt", [("out.txt", False)]),
    ("iconv -f latin1 -t utf8 -o out.txt in.txt", [("out.txt", False)]),
    ("gpg --output x.gpg -c y", [("x.gpg", False)]),
    ("ssh-keygen -t ed25519 -N '' -f k", [("k", False), ("k.pub", False)]),
    ("uv venv env", [("env", True)]),
    ("virtualenv -p python3 env", [("env", True)]),
    ("mkfifo p q", [("p", False), ("q", False)]),
    ("fallocate -l 4096 big", [("big", False)]),
])
def test_what_each_program_writes(line, expected):
    assert _targets(line) == expected


def test_tar_extraction_and_creation_both_come_from_written_targets():
    assert [(w.text, r) for w, r in written_targets(_words("tar czf out.tgz src"), ".")] == [("out.tgz", False)]
    assert [(w.text, r) for w, r in written_targets(_words("tar xzf in.tgz -C dest"), ".")] == [("dest", True)]


def _run(line: str, folder: Path) -> set[str]:
    """The files (relative paths) ``line`` really creates in the empty-but-for-inputs ``folder``."""
    before = {str(p.relative_to(folder)) for p in folder.rglob("*")}
    subprocess.run(["bash", "-c", line], cwd=folder, check=True, capture_output=True, timeout=60,
                   env={**os.environ, "GIT_CONFIG_NOSYSTEM": "1", "HOME": str(folder),
                        # only what the line names: no bytecode caches, no plugins of whatever pytest is found
                        "PYTHONDONTWRITEBYTECODE": "1", "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"})
    return {str(p.relative_to(folder)) for p in folder.rglob("*")} - before


REAL = [  # (program needed, line, inputs to create)
    ("uniq", "uniq -f 0 in.txt out.txt", ("in.txt",)),
    ("xxd", "xxd -c 8 in.txt out.hex", ("in.txt",)),
    ("tar", "tar czf a.tgz in.txt", ("in.txt",)),
    ("tar", "tar -c -f b.tar in.txt", ("in.txt",)),
    ("zip", "zip -q z.zip in.txt", ("in.txt",)),
    ("split", "split -l 1 in.txt part_", ("in.txt",)),
    ("csplit", "csplit -s -f piece in.txt 2", ("in.txt",)),
    ("mkdir", "mkdir -m 700 -p made", ()),
    ("git", "git init -q repo && git -C repo diff --output=o.txt", ()),
    ("shuf", "shuf -o out.txt in.txt", ("in.txt",)),
    ("iconv", "iconv -f latin1 -t utf-8 -o out.txt in.txt", ("in.txt",)),
    ("mkfifo", "mkfifo p q", ()),
    ("ssh-keygen", "ssh-keygen -q -t ed25519 -N '' -f k", ()),
    ("gcc", "gcc -O2 -Wall -fno-common -o app main.c", ("main.c",)),
    ("pytest", "pytest -q -p no:randomly --junitxml=r.xml --log-file=l.log -o cache_dir=cc test_w.py", ("test_w.py",)),
]


@pytest.mark.parametrize(("program", "line", "inputs"), REAL, ids=[r[1] for r in REAL])
def test_the_prediction_matches_what_the_program_writes(tmp_path, program, line, inputs):
    if shutil.which(program) is None:
        pytest.skip(f"{program} is not installed")
    for name in inputs:
        (tmp_path / name).write_text("def test_w():\n    pass\n" if name.startswith("test_") else
                                     "int main(void) { return 0; }\n" if name.endswith(".c") else "a\nb\nc\n")
    created = _run(line, tmp_path)
    predicted = set()
    for part in line.split(" && "):
        for word, _recursive in option_written(_words(part)):
            predicted.add(os.path.normpath(word.text))
    assert predicted <= created, (predicted, created)  # every predicted file is really written
    # and nothing else is written beside them (split and csplit go on: part_ab, piece01)
    stems = {p.split("/")[0] for p in predicted} | {p[:-2] for p in predicted if p.endswith(("aa", "00"))}
    tops = {c.split("/")[0] for c in created}
    assert all(any(top == stem or top.startswith(stem) for stem in stems) for top in tops), (stems, tops)


OUTSIDE_LINES = [
    "git diff --output={o}/x", "git log -p --output {o}/x", "git format-patch -o {o} HEAD~1",
    "git archive -o {o}/x.tar HEAD", "git bundle create {o}/x.bundle HEAD", "git clone https://x/y {o}/y",
    "git init {o}/y", "git worktree add {o}/y", "git -C {o} diff --output=x", "uniq notes.txt {o}/x",
    "xxd notes.txt {o}/x", "tree -o {o}/x", "tar -cf {o}/x.tar notes.txt", "tar czf {o}/x.tgz notes.txt",
    "zip {o}/x.zip notes.txt", "rsync notes.txt {o}/x", "scp notes.txt {o}/x", "curl -o {o}/x https://example.com",
    "wget -O {o}/x https://example.com", "split notes.txt {o}/x", "csplit -f {o}/x notes.txt 1", "mkdir {o}/x",
    "mkdir -p {o}/x/y", "script -q -c true {o}/x", "mktemp -p {o}", "python -m venv {o}/v", "pip install --target {o}/x y",
    "jupyter nbconvert --output-dir {o} x.ipynb", "gzip {o}/notes.txt", "find . -fprint {o}/x",
    "find . -name '*.txt' -fprintf {o}/x %p",
]
PROGRAMS = ("git", "uniq", "xxd", "tree", "tar", "zip", "rsync", "scp", "curl", "wget", "split", "csplit", "mkdir",
            "script", "mktemp", "python", "pip", "jupyter", "gzip", "find")


@pytest.mark.parametrize("line", OUTSIDE_LINES)
async def test_a_write_outside_asks_and_in_every_mode_when_blocked(tmp_path, line):
    project, outside = project_and_outside(tmp_path)
    allow = tuple(f"Bash({p}:*)" for p in PROGRAMS)
    blocking = with_permissions(make_ctx(project, allow=allow), block_outside_writes=True)
    outside_line = line.format(o=outside)
    verdict = await decide_bash(blocking, outside_line)
    assert verdict_name(verdict) == "ask", outside_line
    assert "blockWritesOutsideWorkingDirectories" in verdict.message
    inside_line = line.format(o=project / "out").replace(f"{project}/out/notes.txt", "notes.txt")
    assert verdict_name(await decide_bash(blocking, inside_line)) == "allow", inside_line
    # not blocked: it asks as a redirection there does (the rule allows the program, not the
    # place), and bypassPermissions lets it through
    plain = await decide_bash(make_ctx(project, allow=allow), outside_line)
    assert verdict_name(plain) == "ask" and "outside the working directories" in plain.message, outside_line
    assert "blockWritesOutsideWorkingDirectories" not in plain.message
    bypass = make_ctx(project, allow=allow, mode="bypassPermissions")
    assert verdict_name(await decide_bash(bypass, outside_line)) == "allow", outside_line


async def test_edit_deny_covers_the_written_file(tmp_path):
    project, _outside = project_and_outside(tmp_path)
    ctx = make_ctx(project, allow=("Bash(git:*)", "Bash(uniq:*)", "Bash(find:*)"), deny=("Edit(./locked/**)",))
    for line in ("git diff --output=locked/x", "git -C locked diff --output=x", "uniq notes.txt locked/x",
                 "find . -fls locked/x"):
        verdict = await decide_bash(ctx, line)
        assert verdict_name(verdict) == "deny" and "Edit(./locked/**)" in verdict.message, line
    assert verdict_name(await decide_bash(ctx, "git diff --output=open/x")) == "allow"


def test_pytest_empties_its_basetemp_first(tmp_path):
    """Why ``--basetemp`` counts as writing everything below it: pytest removes what was there."""
    (tmp_path / "bt").mkdir()
    (tmp_path / "bt" / "keep.txt").write_text("mine\n")
    (tmp_path / "test_t.py").write_text("def test_t(tmp_path):\n    assert tmp_path.is_dir()\n")
    line = "pytest -q -p no:cacheprovider --basetemp=bt test_t.py"
    subprocess.run(["bash", "-c", f"{shutil.which('python') or 'python'} -m {line}"], cwd=tmp_path, check=True,
                   capture_output=True, timeout=120)
    assert not (tmp_path / "bt" / "keep.txt").exists()
    assert _targets(line) == [("bt", True)]


def test_mkdir_p_makes_the_missing_folders_above(tmp_path):
    (tmp_path / "a").mkdir()
    line = "mkdir -p a/b/c .bashrc/x"
    targets = [(w.text, r) for w, r in option_written(_words(line), str(tmp_path))]
    assert targets == [("a/b/c", False), (".bashrc/x", False), ("a/b", False), (".bashrc", False)]
    created = _run(line, tmp_path)
    assert {t for t, _ in targets} <= created | {"a"}, created


# Under Bash(gunzip:*) with Edit(**/*.py) denied, `gunzip src/x.py.gz` wrote src/x.py: the
# name a decompressor writes is its operand without the suffix (gzip -d a.tgz writes a.tar).
@pytest.mark.parametrize(("line", "expected"), [
    ("gunzip src/x.py.gz", "deny"), ("gzip -d src/x.py.gz", "deny"), ("bunzip2 src/x.py.bz2", "deny"),
    ("unxz src/x.py.xz", "deny"), ("zstd -d src/x.py.zst", "deny"), ("xz --decompress src/x.py.xz", "deny"),
    ("gzip -S .bak -d src/x.py.bak", "deny"), ("gunzip -c src/x.py.gz", "allow"), ("gunzip notes.txt.gz", "allow"),
])
async def test_what_a_decompressor_writes_is_checked(tmp_path, line, expected):
    ctx = make_ctx(tmp_path, allow=("Bash(gunzip:*)", "Bash(gzip:*)", "Bash(bunzip2:*)", "Bash(unxz:*)", "Bash(zstd:*)",
                                    "Bash(xz:*)"), deny=("Edit(**/*.py)",))
    assert verdict_name(await decide_bash(ctx, line)) == expected, line
