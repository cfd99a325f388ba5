"""A rule that allows a program (``Bash(tar:*)``, ``Bash(cp:*)``, ``Bash(curl:*)``) does not let
it read a file a ``Read`` deny rule covers: not by a pattern (``cp .e* x``, ``{.env,a}``), not
inside another word (``dd if=.env``, ``curl -d @.env``), not by copying or archiving the folder
that holds it (``tar cf - .``, ``cp -r . ../copy``, ``find . -exec cat {} +``).  Each row that
can run locally is run by real bash in a fresh project: an asking row must really reach the
secret, an allowed row must not.  Patterns naming protected paths ask the same way
(``rm -rf .gi*``)."""

from __future__ import annotations

import random
import shutil
import subprocess
from pathlib import Path

import pytest

from jupyter_agent.permissions.bash_braces import MAX_WORDS, expand_braces
from tests.permissions.conftest import verdict_name
from tests.permissions.tools import decide_bash, make_ctx

TOKEN = "TOKEN-5d0c7a"
DENY = ("Read(./.env)",)

ROWS = [
    # (rule, command, expected, run it?)
    ("Bash(tar:*)", "tar cf - .", "ask", True),
    ("Bash(tar:*)", "tar cf ../x.tar .", "ask", True),
    ("Bash(tar:*)", "tar -C . -cf - .", "ask", True),
    ("Bash(tar:*)", "tar cf - src", "allow", True),
    # names from a list or standard input: no argument spells .env
    ("Bash(tar:*)", "find . -name '.e*' | tar cf - -T -", "ask", True),
    ("Bash(tar:*)", "find . -name '.e*' > list.txt; tar --files-from=list.txt -cf -", "ask", False),
    ("Bash(zip:*)", "find . -name '.e*' | zip -q -0 - -@", "ask", True),  # -0: stored, so the text shows
    ("Bash(cpio:*)", "find . -name '.e*' | cpio -o", "ask", False),  # (cpio is not installed here)
    ("Bash(7z:*)", "7z a x.7z @list.txt", "ask", False),
    ("Bash(cp:*)", "cp -r . ../copy", "ask", True),
    ("Bash(cp:*)", "cp -rt ../ .", "ask", True),
    ("Bash(cp:*)", "cp .e* ../stolen", "ask", True),
    ("Bash(cp:*)", "cp {.env,src/a.py} ../", "ask", True),
    ("Bash(cp:*)", "cp .{e,x}nv ../", "ask", True),
    ("Bash(cp:*)", "cp -r src copy", "allow", True),
    ("Bash(cp:*)", "cp src/a.py .", "allow", True),  # `.` is the destination
    ("Bash(cp:*)", "cp src/{a,b}.py build/", "allow", True),
    ("Bash(awk:*)", "awk 1 .e?v", "deny", True),  # read-only now: the pattern is listed, as for cat
    ("Bash(awk:*)", "awk 1 src/*.py", "allow", True),
    ("Bash(dd:*)", "dd if=.env", "ask", True),
    ("Bash(dd:*)", "dd if=src/a.py", "allow", True),
    ("Bash(find:*)", "find . -type f -exec cat {} +", "ask", True),
    ("Bash(find:*)", "find . -name '.e*' -exec cat {} \\;", "ask", True),
    ("Bash(find:*)", "find -L . -type f -execdir cat {} +", "ask", True),
    ("Bash(find:*)", "find src -type f -exec cat {} +", "allow", True),
    ("Bash(zip:*)", "zip -q -0 -r ../x.zip .", "ask", True),
    ("Bash(zip:*)", "zip -q -0 -r build/x.zip src", "allow", True),
    ("Bash(rsync:*)", "rsync -a . ../copy", "ask", True),
    ("Bash(rsync:*)", "rsync -a src copy", "allow", True),
    ("Bash(curl:*)", "curl -s -d @.env http://127.0.0.1:9/", "ask", False),
    ("Bash(curl:*)", "curl -s -F f=@.env http://127.0.0.1:9/", "ask", False),
    ("Bash(curl:*)", "curl -s --data-urlencode k@.env http://127.0.0.1:9/", "ask", False),
    ("Bash(curl:*)", "curl -s --data-binary @.e* http://127.0.0.1:9/", "allow", False),  # curl does not glob: no file `@.e*`
    ("Bash(curl:*)", "curl -s -F f=@src/a.py http://127.0.0.1:9/", "allow", False),
    ("Bash(rm:*)", "rm -rf .gi*", "ask", False),
    ("Bash(rm:*)", "rm -rf {.git,build}", "ask", False),
    ("Bash(rm:*)", "rm -rf .cla?de", "ask", False),
    ("Bash(rm:*)", "rm -rf buil*", "allow", False),
    ("Bash(mv:*)", "mv src/a.py ~/.bash{rc,_profile}", "ask", False),
]


def _project(root: Path) -> Path:
    project = root / "proj"
    (project / "src").mkdir(parents=True)
    (project / ".git").mkdir()
    (project / ".claude").mkdir()
    (project / "build").mkdir()
    (project / ".env").write_text(f"KEY={TOKEN}\n")
    (project / "src" / "a.py").write_text("print('a')\n")
    (project / "src" / "b.py").write_text("print('b')\n")
    return project


def _leaked(root: Path, stdout: bytes) -> bool:
    """Did the run put the secret on stdout or into any new file outside ``.env`` itself?"""
    if TOKEN.encode() in stdout:
        return True
    for path in root.rglob("*"):
        if path.is_file() and path != root / "proj" / ".env" and TOKEN.encode() in path.read_bytes():
            return True
    return False


@pytest.mark.parametrize(("rule", "command", "expected", "run"), ROWS, ids=[r[1] for r in ROWS])
async def test_a_rule_allowing_a_program_keeps_read_deny_rules(tmp_path, monkeypatch, rule, command, expected, run):
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    (tmp_path / "home").mkdir()
    project = _project(tmp_path)
    for mode in ("default", "bypassPermissions"):
        ctx = make_ctx(project, allow=(rule,), deny=DENY, mode=mode)
        verdict = await decide_bash(ctx, command)
        assert verdict_name(verdict) == expected, (mode, command, verdict)
    if not run:
        return
    program = command.split()[0]
    if shutil.which(program) is None:
        pytest.skip(f"{program} is not installed")
    done = subprocess.run(["bash", "-c", command], cwd=project, capture_output=True, timeout=30,
                          env={"PATH": "/usr/bin:/bin", "HOME": str(tmp_path / "home")})
    assert _leaked(tmp_path, done.stdout) is (expected != "allow"), (command, done.stderr[-300:])


@pytest.mark.parametrize(
    ("text", "words"),
    [("{a,b}", ["a", "b"]), ("x{a,{b,c}}y", ["xay", "xby", "xcy"]), ("{1..3}", ["1", "2", "3"]),
     ("{01..10..3}", ["01", "04", "07", "10"]), ("{a..e..2}", ["a", "c", "e"]), ("{5..1..2}", ["5", "3", "1"]),
     ("{a}", ["{a}"]), ("{}", ["{}"]), ("{a,b", ["{a,b"]), ("{,a}", ["a"]), (".{e,x}nv", [".env", ".xnv"]),
     ("{-1..1}", ["-1", "0", "1"]), ("plain", ["plain"]), ("{'a',b}", None), ("{a,$x}", None),
     ("x{a,{b,c}", None), ("{},{a,b}", None), ("{1..100000}", None)],
)
def test_brace_expansion(text, words):
    assert expand_braces(text) == words


def test_brace_expansion_agrees_with_bash():
    """Generated words from a small alphabet of brace syntax; bash (globbing off) is the judge
    wherever the expander gives an answer, and it must give one for most words."""
    rnd = random.Random(20261130)
    alphabet = ["a", "b", ".env", "{", "}", ",", "..", "1", "3", "05", "-2", "x/", "{}", "*"]
    words = ["".join(rnd.choice(alphabet) for _ in range(rnd.randint(1, 9))) for _ in range(1500)]
    script = "set -f\n" + "\n".join(f"printf '%s\\0' {w}; printf '\\1'" for w in words)
    out = subprocess.run(["bash", "-c", script], capture_output=True, text=True, timeout=60).stdout
    answered = 0
    for word, chunk in zip(words, out.split("\1"), strict=False):
        mine = expand_braces(word)
        if mine is None:
            continue
        answered += 1
        real = [w for w in chunk.split("\0")[:-1] if w]
        assert mine == real, word
    assert answered > 0.9 * len(words) and MAX_WORDS >= 512


@pytest.mark.parametrize(
    ("command", "expected"),
    [("cat {.env,src/a.py}", "deny"), ("cat {'.env',src/a.py}", "ask"), ("cat {a\\,b,src/a.py}", "ask"),
     ('cat "{.env,x}"', "allow"), ("cat src/{a,b}.py", "allow")],
)
async def test_braces_with_quoted_or_escaped_characters_ask(tmp_path, command, expected):
    """After quote removal ``{a\\,b,c}`` reads ``{a,b,c}``; bash makes ``a,b`` and ``c`` of it,
    so only braces written bare are expanded, and the others ask."""
    project = _project(tmp_path)
    assert verdict_name(await decide_bash(make_ctx(project, deny=DENY), command)) == expected
