"""A rule that allows a writing program (``Bash(rm:*)``, ``Bash(cp:*)``, ``Bash(curl:*)``) allows
the program, not writing anywhere: a file it writes outside the working directories asks, as a
redirection there (``echo x > /tmp/x``) and a read there (``cat /etc/hosts``) do, and as Claude
Code asks for ``curl -o /tmp/x`` under ``Bash(curl:*)``.  ``bypassPermissions`` lets it through
(with ``blockWritesOutsideWorkingDirectories`` it asks in every mode: test_block_outside_writes).
Not asked about: ``/dev/null`` and the other sinks, the session's own folder, an
``additionalDirectories`` folder, a folder an ``Edit`` allow rule covers."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.permissions.conftest import verdict_name
from tests.permissions.tools import decide_bash, make_ctx, project_and_outside

ALLOW = tuple(f"Bash({p}:*)" for p in (
    "rm", "cp", "mv", "touch", "mkdir", "ln", "curl", "wget", "tar", "zip", "git", "find", "tee", "dd",
    "sort", "rsync", "gzip", "install", "chmod", "truncate", "gcc", "pandoc", "uv", "pytest"))

OUTSIDE = [  # {o}: a folder beside the project; each asks in default and acceptEdits, runs in bypass
    "rm {o}/notes.txt",
    "rm -rf {o}",
    "rm -rf ..",
    "rm -rf ../elsewhere",
    "cp notes.txt {o}/",
    "cp -r . {o}/copy",
    "mv notes.txt ..",
    "touch {o}/made",
    "mkdir -p {o}/a/b",
    "ln -s notes.txt {o}/link",
    "curl -s -o {o}/page https://example.com",
    "wget -q -O {o}/page https://example.com",
    "tar cf {o}/x.tar notes.txt",
    "zip -q {o}/x.zip notes.txt",
    "git diff --output={o}/x",
    "git clone https://example.com/r.git {o}/r",
    "find {o} -delete",
    "echo x | tee {o}/x",
    "dd if=notes.txt of={o}/x",
    "sort -o {o}/x notes.txt",
    "rsync -a notes.txt {o}/",
    "gzip {o}/notes.txt",
    "install -m 644 notes.txt {o}/x",
    "chmod 600 {o}/notes.txt",
    "truncate -s 0 {o}/notes.txt",
    "git status && rm -rf {o}",
    "cp notes.txt ~/notes.txt",
    "echo x > ~/notes.txt",  # a redirection's ~ is home's, as an argument's is
    "date >> ~/notes.txt 2>&1",
    "gcc -O2 -o {o}/app main.c",
    "pandoc notes.txt -o {o}/notes.pdf",
    "uv venv {o}/venv",
    "pytest --basetemp={o}/bt",
    "pytest --junitxml={o}/report.xml",
]

INSIDE = [  # the same programs writing inside, or into a sink: the rule allows them in every mode
    "rm notes.txt",
    "rm -rf build",
    "cp notes.txt copy.txt",
    "mkdir -p a/b",
    "curl -s -o /dev/null https://example.com",
    "curl -s https://example.com -o page",
    "tar cf - notes.txt",
    "git diff --output=diff.txt",
    "echo x | tee /dev/stderr",
    "dd if=notes.txt of=/dev/null",
    "find . -name '*.pyc' -delete",
    "cp notes.txt /dev/null",
    "cp -v notes.txt /dev/stdout",
    "tar cf /dev/null .",
    "gcc -o /dev/null main.c",
    "sort -o /dev/stdout notes.txt",
    "wget -q -O /dev/null https://example.com",
]


@pytest.fixture
def places(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path]:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    (tmp_path / "home").mkdir()
    return project_and_outside(tmp_path)


@pytest.mark.parametrize("line", OUTSIDE)
async def test_a_write_outside_asks_under_a_rule_allowing_the_program(places, line):
    project, outside = places
    command = line.format(o=outside)
    for mode in ("default", "acceptEdits"):
        verdict = await decide_bash(make_ctx(project, allow=ALLOW, mode=mode), command)
        assert verdict_name(verdict) == "ask", (mode, command, verdict)
        assert "outside the working directories" in verdict.message, (mode, command, verdict.message)
        if command.startswith("find ") or "~/notes.txt" in command:
            continue  # it reads the folder too: no one rule lifts both; the home folder is never offered
        # Always allow offers the folder for the session (a prefix rule would not stop the question)
        assert [(u.destination, all(r.startswith("Edit(/") for r in u.rules)) for u in verdict.suggestions] == [
            ("session", True)], verdict.suggestions
    verdict = await decide_bash(make_ctx(project, allow=ALLOW, mode="bypassPermissions"), command)
    assert verdict_name(verdict) == "allow", (command, verdict)
    verdict = await decide_bash(make_ctx(project, allow=ALLOW, mode="dontAsk"), command)
    assert verdict_name(verdict) == "deny", (command, verdict)


async def test_a_redirection_to_home_is_checked_as_the_path_it_names(places):
    """``> ~/x`` writes ``$HOME/x``: rules and protected paths there apply (it used to ask as
    a name known only at run time, in every mode); other tildes still ask."""
    project, _outside = places
    home = project.parent / "home"
    ctx = make_ctx(project, allow=("Bash(*)",), deny=("Edit(~/secret/**)",), mode="bypassPermissions")
    for command, expected in [
        ("echo x > ~/notes.txt", "allow"),
        ("echo x > ~/secret/a", "deny"),
        ("echo x >> ~/.bashrc", "ask"),
        ("echo x >> ~/.ssh/authorized_keys", "ask"),
        ("echo x > ~+/x", "ask"),  # the folder stack: not home
        ("echo x > ~nobody-here/x", "ask"),
        ("echo x > ~/*.txt", "ask"),
        ("HOME=/etc; echo x > ~/passwd", "ask"),
    ]:
        assert verdict_name(await decide_bash(ctx, command)) == expected, command
    assert not (home / "secret").exists()


@pytest.mark.parametrize("line", INSIDE)
async def test_a_write_inside_or_to_a_sink_is_what_the_rule_allows(places, line):
    project, _outside = places
    (project / "build").mkdir()
    for mode in ("default", "acceptEdits", "dontAsk"):
        verdict = await decide_bash(make_ctx(project, allow=ALLOW, mode=mode), line)
        assert verdict_name(verdict) == "allow", (mode, line, verdict)


@pytest.mark.parametrize("line", [
    "rm -f /dev/null", "rm -rf /dev/stdout", "chmod 600 /dev/null", "mv notes.txt /dev/null", "mv /dev/null x",
    "ln -sf notes.txt /dev/null", "touch /dev/null", "install notes.txt /dev/null", "rsync notes.txt /dev/null",
    "sed -i s/a/b/ /dev/null", "truncate -s 0 /dev/null", "cp -p notes.txt /dev/null", "cp -a notes.txt /dev/null",
    "cp -f notes.txt /dev/tty", "cp --remove-destination notes.txt /dev/null", "cp -b notes.txt /dev/null",
    "cp notes.txt $X /dev/null", "curl -sR -o /dev/null https://example.com", "rm -f /dev/../dev/null",
    "find . | xargs cp -t /dev/null",
])
async def test_what_removes_replaces_or_changes_a_device_asks(places, line):
    """A device is no file to write outside only for a program that writes into it (``curl -o
    /dev/null``): ``rm -f /dev/null``, ``mv x /dev/null``, ``chmod 600 /dev/null`` once ran under
    the program's rule in default mode and broke the machine's /dev/null.  *Always allow* offers
    no rule for all of /dev."""
    project, _outside = places
    for mode in ("default", "acceptEdits"):
        verdict = await decide_bash(make_ctx(project, allow=ALLOW + ("Bash(sed:*)", "Bash(xargs:*)"), mode=mode), line)
        assert verdict_name(verdict) == "ask", (mode, line, verdict)
        assert "outside the working directories" in verdict.message, verdict.message
        assert not any(r.startswith("Edit(//dev") for u in verdict.suggestions for r in u.rules), verdict.suggestions


@pytest.mark.parametrize("line", ["cp notes.txt {o}/", "rm -rf {o}/sub", "curl -s -o {o}/page https://example.com"])
async def test_an_added_folder_or_an_edit_allow_rule_lets_it_write_there(places, line):
    project, outside = places
    command = line.format(o=outside)
    added = make_ctx(project, allow=ALLOW, additional=(outside,))
    assert verdict_name(await decide_bash(added, command)) == "allow", command
    edit_rule = make_ctx(project, allow=ALLOW + (f"Edit(/{outside}/**)",))
    assert verdict_name(await decide_bash(edit_rule, command)) == "allow", command
    other_rule = make_ctx(project, allow=ALLOW + (f"Edit(/{outside}/sub/**)",))
    if "/sub" not in command:
        assert verdict_name(await decide_bash(other_rule, command)) == "ask", command


async def test_the_sessions_own_folder_stays_writable(places):
    project, _outside = places
    ctx = make_ctx(project, allow=ALLOW)
    own = ctx.session_dir / "outputs"
    own.mkdir(parents=True)
    for command in (f"cp notes.txt {own}/", f"rm -f {own}/old.txt", f"curl -s -o {own}/page https://example.com"):
        assert verdict_name(await decide_bash(ctx, command)) == "allow", command


async def test_a_deny_rule_still_wins_over_the_outside_question(places):
    project, outside = places
    ctx = make_ctx(project, allow=ALLOW, deny=(f"Edit(/{outside}/**)",))
    verdict = await decide_bash(ctx, f"cp notes.txt {outside}/")
    assert verdict_name(verdict) == "deny" and f"Edit(/{outside}/**)" in verdict.message, verdict


async def test_a_link_inside_leading_out_is_outside(places):
    """The real path decides: a symlink in the project to a folder beside it is outside."""
    project, outside = places
    (project / "out").symlink_to(outside)
    ctx = make_ctx(project, allow=ALLOW)
    for command in ("cp notes.txt out/", "rm -rf out/notes.txt", "touch out/new"):
        verdict = await decide_bash(ctx, command)
        assert verdict_name(verdict) == "ask" and "outside the working directories" in verdict.message, command


@pytest.mark.parametrize("command", [
    'cp notes.txt "$DEST"', 'mkdir -p "$OUT/x"', "touch ${STAMP:-/tmp/stamp}", 'git diff --output="$F"',
    'git diff --out=$F', '"git" diff "--output=$F"', "curl -o$F https://example.com", "curl -so$F https://example.com",
    'curl -s --output "$F" https://example.com', "tar -cf$F notes.txt", "git diff --outp$X"])
async def test_a_write_to_a_place_known_only_at_run_time_asks(places, command):
    project, _outside = places
    verdict = await decide_bash(make_ctx(project, allow=ALLOW), command)
    assert verdict_name(verdict) == "ask" and "run time" in verdict.message, (command, verdict)
    if command.startswith(("touch $", "tar ")):
        return  # asked in every mode already: a protected path may be named; tar's members are checked
    bypass = make_ctx(project, allow=ALLOW, mode="bypassPermissions")
    assert verdict_name(await decide_bash(bypass, command)) == "allow", command


async def test_a_source_known_only_at_run_time_writing_inside_is_allowed(places):
    project, _outside = places
    (project / "build").mkdir()
    ctx = make_ctx(project, allow=ALLOW)
    for command in ('cp "$SRC" build/copy.txt', "git diff --stat=$W", "curl -s -H \"$H\" -o page https://example.com"):
        assert verdict_name(await decide_bash(ctx, command)) == "allow", command


@pytest.mark.parametrize(("text", "letter", "long", "value"), [
    ('--output="$F"', "", "--output", '"$F"'),
    ("--out=$F", "", "--output", "$F"),
    ('"--output=$F"', "", "--output", '$F"'),
    ("--out$X", "", "--output", "$X"),  # the name goes on at run time: it may be --output
    ("-o$F", "o", "--output", "$F"),
    ("-so$F", "o", "--output", "$F"),
    ("-s$X", "o", "--output", "$X"),  # $X may hold the letter
    ("--lr=$LR", "o", "--output", None),  # another option
    ("--x$Y", "", "--output", None),  # cannot become --output
    ("-o$F", "", "--output", None),  # only the long option asked for
    ('"$F"', "o", "--output", None),  # no option at all
])
def test_an_option_value_only_known_at_run_time(text, letter, long, value):
    from jupyter_agent.permissions.bash_readonly import option_arguments
    from jupyter_agent.permissions.bash_words import make_word

    found = option_arguments([make_word(text, static=False)], letter, long)
    assert [(w.text, w.static) for w in found] == ([] if value is None else [(value, False)])


async def test_always_allow_on_a_write_outside_allows_that_folder(places):
    project, outside = places
    ctx = make_ctx(project, allow=ALLOW)
    verdict = await decide_bash(ctx, f"cp notes.txt {outside}/ && mkdir -p {outside}/sub")
    assert verdict_name(verdict) == "ask"
    (update,) = verdict.suggestions
    assert update.rules == (f"Edit(/{outside}/**)",) and update.destination == "session"
    granted = make_ctx(project, allow=ALLOW + update.rules)
    assert verdict_name(await decide_bash(granted, f"cp notes.txt {outside}/x.txt")) == "allow"
    assert verdict_name(await decide_bash(granted, f"cp notes.txt {outside}/../x.txt")) == "ask"  # not beside it
    # the program not allowed as well: a folder rule would not be enough, so none is offered
    mixed = await decide_bash(make_ctx(project), f"cp notes.txt {outside}/")
    assert all(not r.startswith("Edit(") for u in mixed.suggestions for r in u.rules)


@pytest.mark.parametrize("command", ["rm -rf /usr/local/nothing-here", "cp notes.txt ~/", "rm -rf /tmp"])
async def test_the_root_and_home_are_never_offered_whole(places, command):
    project, _outside = places
    verdict = await decide_bash(make_ctx(project, allow=ALLOW), command)
    assert verdict_name(verdict) == "ask"
    rules = [r for u in verdict.suggestions for r in u.rules]
    assert "Edit(///**)" not in rules and f"Edit(/{Path.home()}/**)" not in rules, rules


@pytest.mark.parametrize("command", ["echo {o}/notes.txt | xargs rm", "find . -name '*.pyc' | xargs rm -f",
                                     "ls | xargs -I{} cp notes.txt {}", "xargs -a list.txt rm"])
async def test_a_writer_fed_by_xargs_asks(places, command):
    """The paths come from standard input (or xargs -a FILE): known only at run time, as `rm "$f"`."""
    project, outside = places
    ctx = make_ctx(project, allow=ALLOW + ("Bash(xargs:*)", "Bash(echo:*)", "Bash(ls:*)"))
    verdict = await decide_bash(ctx, command.replace("{o}", str(outside)))
    assert verdict_name(verdict) == "ask" and "only known at run time" in verdict.message, verdict


@pytest.mark.parametrize("command", ["dd if=notes.txt of=~+/../elsewhere/x", "dd if=notes.txt of=~/x",
                                     "dd if=notes.txt of=~-/x"])
async def test_a_tilde_after_the_equals_sign_is_expanded_as_bash_does(places, command):
    """`of=~+/../elsewhere/x` looks like an assignment, so bash expands its tilde ($PWD): it
    writes beside the project (it was read as a folder named `~+` inside it)."""
    project, _outside = places
    verdict = await decide_bash(make_ctx(project, allow=ALLOW), command)
    assert verdict_name(verdict) == "ask", (command, verdict)


def test_assignment_tildes():
    from jupyter_agent.permissions.bash_patterns import _assignment_tildes

    assert _assignment_tildes("of=~+/../x", "/p") == "of=/p/../x"
    assert _assignment_tildes("P=a:~/b", "/p") == f"P=a:{Path.home()}/b"
    assert _assignment_tildes("of=~-/x", "/p") is None  # the previous folder: only known at run time
    assert _assignment_tildes("x=~no-such-user-here/y", "/p") == "x=~no-such-user-here/y"


@pytest.mark.parametrize("command", ["mkdir -p .bashrc/x", "install -D notes.txt .bashrc/x", "mkdir -p .git/x/y",
                                     "install -D notes.txt .claude/x/y"])
async def test_folders_made_on_the_way_are_written_too(places, command):
    """mkdir -p and install -D make the missing folders above what they name: a protected name
    among them asks in every mode (the rule-allowed write oracle found `mkdir -p .bashrc/new`)."""
    project, _outside = places
    for mode in ("default", "bypassPermissions"):
        verdict = await decide_bash(make_ctx(project, allow=ALLOW, mode=mode), command)
        assert verdict_name(verdict) == "ask", (mode, command, verdict)
