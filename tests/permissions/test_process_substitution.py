"""A word that is one process substitution alone, and runners that hand their input lines on as
arguments (session 44).

``diff <(sort a) <(sort b)`` asked in every mode: each ``<(…)`` was "a file only known at run
time".  Bash gives the program the name of a pipe (``/dev/fd/63``) that the commands inside write
(or, for ``>(…)``, read); those commands are analysed as commands of the line, and reading or
writing the pipe as data touches no file.  What the pipe *holds* stays unknown, so a pipe in the
place of code, a configuration or a list of files still asks (``bash <(…)``, ``source <(…)``,
``sed -f <(…)``, ``xargs -a <(…)``, ``curl -K <(…)``).

``echo .env | parallel cat`` printed ``.env`` under ``Read(./.env)``: without ``:::`` GNU parallel
gives the command each line it reads as an argument (after it, or where ``{}`` stands), as rush
and xe do; the command was read as ``cat`` alone (and ``entr``'s ``/_`` as the file ``/_``).

And ``read -r line`` / ``mapfile -t lines`` (plain names, known options) are read-only: they set
variables from their input, a redirect checked as any read is.
"""

from __future__ import annotations

import shutil
import subprocess

import pytest

from tests.permissions.conftest import verdict_name
from tests.permissions.tools import decide_bash, make_ctx

READ_ONLY_PIPES = [  # default mode, no rules: read-only commands on pipes run unasked
    "diff <(sort a.py) <(sort b.py)",
    "comm -12 <(sort a.py) <(sort b.py)",
    "cat <(sort a.py)",
    "grep -f <(echo x) a.py",
    "wc -l < <(ls)",
    "while read -r l; do echo \"$l\"; done < <(ls)",
    "sort a.py > >(head -3)",
    "head -n 3 <(ls)",
    "cmp <(ls) <(ls)",
    "jq . <(cat data.json)",
    "awk '{print $1}' <(ls)",
    "sed -n 1,5p <(ls)",
    "sed -e p <(ls)",
    "ls <(true)",
]


STILL_ASKED = [  # what is in the pipe matters: code, a script, a configuration, a list of files
    "bash <(echo ls)", "sh <(echo ls)", "source <(echo ls)", ". <(echo ls)",
    "sed -f <(echo p) a.py", "sed <(echo p) a.py", "sed -n <(ls)",
    "xargs -a <(echo a.py) cat", "make -f <(printf 'a:\\n\\tls\\n')",
    "bash --rcfile <(echo ls) -i -c ls", "curl -K <(echo 'output = x') https://example.com",
    "ssh -F <(echo 'ProxyCommand ls') host", "wc --files0-from=<(printf 'a.py\\0')",
    "tar -cf - -T <(echo a.py)", "sqlite3 db < <(echo '.shell ls')",
    "cat <(ls) > .git/config",  # the write is what asks
    "sed -i s/a/b/ <(ls)",
    "cat <(ls) | sh",
]


@pytest.mark.parametrize(("command", "expected"), [(c, "allow") for c in READ_ONLY_PIPES]
                         + [(c, "ask") for c in STILL_ASKED])
async def test_a_pipe_is_no_file_but_what_it_holds_is_unknown(world, command, expected):
    """Default mode, no rules: read-only commands on pipes run unasked; a pipe holding code, a
    configuration or a list of files still asks."""
    ctx = make_ctx(world.project, mode="default")
    verdict = verdict_name(await decide_bash(ctx, command))
    assert verdict == expected, (command, verdict)


UNDER_RULES = [  # Bash(*) allowed, Bash(rm:*) and Read(./.env) denied, bypassPermissions
    ("diff <(sort a.py) <(sort a.py)", "allow"),
    ("sort a.py | tee >(wc -l) > /dev/null", "allow"),
    ("cat <(cat .env)", "deny"),  # the command inside is checked
    ("diff <(sort .env) a.py", "deny"),
    ("cat a.py > >(rm x)", "deny"),
    ("tee >(rm x) < a.py", "deny"),
    ("cat <(echo .env)", "allow"),  # prints the text ".env"
    ("bash <(echo 'rm x')", "ask"),
    ("source <(cat .env)", "deny"),
    ("xargs -a <(echo .env) cat", "ask"),
    ("sed -n 'e rm x' <(ls)", "deny"),
    ("sed -n p <(ls)", "allow"),
    # runners handing on the lines they read as arguments
    ("echo .env | parallel cat", "ask"),
    ("echo .env | parallel -X cat", "ask"),
    ("echo .env | parallel -j4 'cat {}'", "ask"),
    ("parallel -a list cat", "ask"),
    ("parallel --arg-file list cat", "ask"),
    ("parallel cat < list", "ask"),
    ("echo .env | parallel sh -c 'cat {}'", "ask"),
    ("echo .env | parallel \"$OPTS\" cat", "ask"),  # an option only known at run time
    ("echo .env | rush 'cat {}'", "ask"),
    ("echo .env | rush cat", "ask"),
    ("echo .env | xe cat", "ask"),
    ("echo x | parallel rm", "deny"),
    ("echo x | rush rm", "deny"),
    ("echo x | xe rm", "deny"),
    ("echo .env | entr -n cat /_", "ask"),  # /_: the file (of those read) that changed
    ("ls | entr -n rm /_", "deny"),
    ("ls | entr -n pytest", "allow"),
    ("ls | parallel echo", "allow"),  # echo reads no file
    ("parallel --pipe wc -l < a.py", "allow"),  # the input is wc's standard input
    ("echo .env | parallel --semaphore cat", "allow"),  # runs `cat` once, no arguments
    ("parallel -j2 cat ::: a.py", "allow"),
    ("parallel -j2 cat ::: .env", "deny"),
]


@pytest.mark.parametrize(("command", "expected"), UNDER_RULES)
async def test_pipes_and_input_arguments_under_rules(world, command, expected):
    (world.project / "list").write_text(".env\n")
    ctx = make_ctx(world.project, allow=("Bash(*)",), deny=("Bash(rm:*)", "Read(./.env)"),
                   mode="bypassPermissions")
    verdict = verdict_name(await decide_bash(ctx, command))
    assert verdict == expected, (command, verdict)


def test_bash_names_a_pipe_for_a_lone_process_substitution(tmp_path):
    """The ground truth: the word is a /dev/fd pipe, the command inside writes it, and a pipe in
    the middle of a word is not a lone one (the rows treat only whole words as pipes)."""
    out = subprocess.run(["bash", "-c", "echo <(true) x<(true); cat <(echo hi)"], capture_output=True,
                         text=True, cwd=tmp_path, timeout=30).stdout.split()
    assert out[0].startswith("/dev/fd/") and out[1].startswith("x/dev/fd/") and out[2] == "hi", out


@pytest.mark.skipif(shutil.which("parallel") is None, reason="GNU parallel is not installed")
@pytest.mark.parametrize("command", ["echo .env | parallel cat", "echo .env | parallel 'cat {}'",
                                     "parallel -a list cat", "echo .env | parallel -X cat"])
def test_parallel_hands_its_input_lines_to_the_command(world, command):
    """The ground truth of the rows: without ``:::`` parallel appends each line it reads."""
    (world.project / "list").write_text(".env\n")
    out = subprocess.run(["bash", "-c", command], capture_output=True, text=True, cwd=world.project,
                         timeout=60, env={"PATH": "/usr/bin:/bin", "HOME": str(world.home)})
    assert "SECRET=1" in out.stdout, (command, out.stdout, out.stderr)


INPUT_READERS = [  # default mode, Read(./.env) denied
    ("read -r l < a.py", "allow"),
    ("IFS= read -r x y < a.py", "allow"),
    ("read -ra arr <<< 'a b'", "allow"),
    ("read -p 'go? ' -t 5 answer", "allow"),
    ("read -d '' -r x < a.py", "allow"),
    ("read -u 3 l 3< a.py", "allow"),
    ("mapfile -t lines < a.py", "allow"),
    ("readarray -t -d , arr < a.py", "allow"),
    ("read -r l < .env", "deny"),
    ("read x <<< $(cat .env)", "deny"),
    ("read -r x < ~/.ssh/id_rsa", "ask"),  # outside the working directories
    ("read PATH < a.py; ls", "ask"),  # a name that changes what runs
    ("read IFS < a.py; ls", "ask"),
    ("read 'a[$(ls)]' < a.py", "ask"),  # the subscript is evaluated
    ("read -a 'a[0]' < a.py", "ask"),
    ("read -r $v < a.py", "ask"),  # a name only known at run time
    ("mapfile -C ls arr < a.py", "ask"),  # a callback: code
    ("mapfile -tC ls arr < a.py", "ask"),
    ("read -X x", "ask"),  # an option this reader does not know
]


@pytest.mark.parametrize(("command", "expected"), INPUT_READERS)
async def test_read_and_mapfile_into_plain_names_are_read_only(world, command, expected):
    ctx = make_ctx(world.project, deny=("Read(./.env)",), mode="default")
    verdict = verdict_name(await decide_bash(ctx, command))
    assert verdict == expected, (command, verdict)
