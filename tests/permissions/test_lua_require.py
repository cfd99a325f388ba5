"""Lua's ``require "app.clean"`` loads ``./app/clean.lua`` (or ``./app/clean/init.lua``, or a file
of a template the code adds to ``package.path``) from the current folder (``code_imports.py``).
Under ``Bash(rm:*)`` denied, such a module's ``os.execute("rm -rf build")`` asks; before, the
"ask" rows ran unasked.  (Lua is not installed here: the rows follow Lua's documented default
``package.path``, ``./?.lua;./?/init.lua;…``.)"""

from __future__ import annotations

import pytest

from .conftest import verdict_name
from .tools import decide_bash, make_ctx, write_files

_RULES = {"allow": ("Bash(*)",), "deny": ("Bash(rm:*)",)}
WIPE = 'local M = {}\nfunction M.go() os.execute("rm -rf build") end\nreturn M\n'
FILES = {
    "app/clean.lua": WIPE,
    "app/jobs/init.lua": WIPE,
    "lib/vendored.lua": WIPE,
    "app/calm.lua": 'local M = {}\nfunction M.go() print("to rm a file use rm") end\nreturn M\n',
    "main.lua": 'local clean = require("app.clean")\nclean.go()\n',
    "jobs.lua": "local jobs = require 'app.jobs'\n",
    "paths.lua": 'package.path = "lib/?.lua;" .. package.path\nlocal v = require("vendored")\n',
    "chain.lua": 'require "chained"\n',
    "chained.lua": 'require("app.clean")\n',
    "calm.lua": 'local calm = require("app.calm")\nlocal json = require("cjson")\n',
    "bin/tool": '#!/usr/bin/env lua\nrequire("app.clean").go()\n',
}
ROWS = [
    ("lua main.lua", "ask"), ("lua jobs.lua", "ask"), ("lua paths.lua", "ask"), ("lua chain.lua", "ask"),
    ("luajit main.lua", "ask"), ("lua bin/tool", "ask"),
    ("lua calm.lua", "allow"), ("lua -e 'print(1)'", "allow"),
]


@pytest.mark.parametrize(("command", "expected"), ROWS)
async def test_what_a_lua_script_requires_of_the_project(world, command, expected):
    write_files(world.project, FILES)
    verdict = await decide_bash(make_ctx(world.project, mode="bypassPermissions", **_RULES), command)
    assert verdict_name(verdict) == expected, (command, getattr(verdict, "message", ""))
