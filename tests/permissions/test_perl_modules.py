"""Perl's modules of the project (``code_imports.py``): ``use My::Clean;`` loads ``My/Clean.pm`` from
``@INC`` (``-I lib``, ``use lib "lib"``, ``use lib "$FindBin::Bin/lib"``), and its strings count as
the script's.  Under ``Bash(rm:*)`` denied, a module's ``system("rm -rf build")`` asks; before,
each "ask" row ran unasked.  The ground truth: real Perl runs a script whose every module logs
that it was loaded."""

from __future__ import annotations

import os
import shutil
import subprocess

import pytest

from jupyter_agent.permissions.code_imports import loaded_files

from .conftest import verdict_name
from .tools import decide_bash, make_ctx, write_files

_RULES = {"allow": ("Bash(*)",), "deny": ("Bash(rm:*)",)}
WIPE = 'package {name};\nsub go {{ system("rm -rf build"); }}\n1;\n'
CALM = 'package {name};\nsub go {{ print "to rm a file use rm\\n"; }}\n1;\n'

FILES = {
    "uselib.pl": 'use strict;\nuse lib "lib";\nuse My::Clean;\nMy::Clean::go();\n',
    "findbin.pl": "use FindBin;\nuse lib \"$FindBin::Bin/lib\";\nuse My::Clean qw(go);\n",
    "findbin2.pl": "use FindBin qw($Bin);\nuse lib \"$Bin/../proj/lib\";\nrequire My::Clean;\n",
    "plain.pl": "use My::Clean;\n",  # needs -Ilib
    "chain.pl": 'use lib "lib";\nuse My::Middle;\n',
    "parent.pl": 'use lib "lib";\nuse My::Child;\n',
    "calm.pl": 'use strict;\nuse warnings;\nuse lib "lib";\nuse My::Calm;\nuse POSIX qw(floor);\n',
    "lib/My/Clean.pm": WIPE.format(name="My::Clean"),
    "lib/My/Middle.pm": "package My::Middle;\nuse My::Clean;\n1;\n",
    "lib/My/Child.pm": "package My::Child;\nuse parent -norequire, 'Other';\nuse parent 'My::Clean';\n1;\n",
    "lib/My/Calm.pm": CALM.format(name="My::Calm"),
    "t/clean.t": 'use My::Clean;\nprint "ok 1\\n";\n',  # prove -l puts lib/ on @INC
    "t/calm.t": 'use My::Calm;\nprint "ok 1\\n";\n',
    "bin/tool": '#!/usr/bin/perl\nuse FindBin;\nuse lib "$FindBin::Bin/../lib";\nuse My::Clean;\n',  # by its #!
}

ROWS = [
    ("perl uselib.pl", "ask"), ("perl findbin.pl", "ask"), ("perl findbin2.pl", "ask"),
    ("perl -Ilib plain.pl", "ask"), ("perl -I lib plain.pl", "ask"), ("perl chain.pl", "ask"),
    ("perl parent.pl", "ask"), ("perl -Ilib t/clean.t", "ask"), ("perl -Ilib -MMy::Clean -e 'My::Clean::go()'", "ask"),
    ("prove -l", "ask"), ("prove -lv t/", "ask"), ("prove t/ -l", "ask"), ("prove -Ilib t/clean.t", "ask"), ("prove -rl", "ask"),
    ("perl bin/tool", "ask"), ("./bin/tool", "ask"),
    ("perl calm.pl", "allow"), ("perl -e 'print 1'", "allow"), ("prove -l t/calm.t", "allow"),
]



@pytest.mark.parametrize(("command", "expected"), ROWS)
async def test_what_a_perl_script_loads_of_the_project(world, command, expected):
    write_files(world.project, FILES)
    verdict = await decide_bash(make_ctx(world.project, mode="bypassPermissions", **_RULES), command)
    assert verdict_name(verdict) == expected, (command, getattr(verdict, "message", ""))


_LOG = "BEGIN { open(my $f, '>>', $ENV{LOG}) or die; print $f __FILE__, \"\\n\"; close $f }\n"


@pytest.mark.skipif(shutil.which("perl") is None, reason="perl is not installed")
def test_the_modules_found_are_the_modules_perl_loads(tmp_path):
    project = tmp_path / "proj"
    write_files(project, {
        "main.pl": _LOG + 'use FindBin;\nuse lib "$FindBin::Bin/lib";\nuse lib "vendor";\nuse A::B;\n'
                          "require C;\nuse parent -norequire, 'Nope';\nuse base 'D::E';\n",
        "lib/A/B.pm": _LOG + "package A::B;\nuse A::Helper;\n1;\n",
        "lib/A/Helper.pm": _LOG + "package A::Helper;\n1;\n",
        "vendor/C.pm": _LOG + "package C;\n1;\n",
        "lib/D/E.pm": _LOG + "package D::E;\nsub new { 1 }\n1;\n",
        "lib/Unused.pm": _LOG + "package Unused;\n1;\n",
    })
    log = tmp_path / "ran.log"
    subprocess.run(["perl", "main.pl"], cwd=project, check=True, timeout=60, env={**os.environ, "LOG": str(log)})
    root = os.path.realpath(project)
    ran = {os.path.relpath(os.path.realpath(os.path.join(root, line)), root) for line in log.read_text().split()}
    assert ran == {"main.pl", "lib/A/B.pm", "lib/A/Helper.pm", "vendor/C.pm", "lib/D/E.pm"}, ran
    found = {os.path.relpath(p, root) for p in loaded_files([os.path.join(root, "main.pl")], root)}
    assert found == ran - {"main.pl"}
