"""Ruby's ``require "acme/clean"`` loads ``acme/clean.rb`` from ``$LOAD_PATH`` (``code_imports.py``):
``ruby -Ilib``, ``$LOAD_PATH.unshift File.expand_path("../lib", __dir__)`` (a bin script's usual
first line), ``$: << "lib"``.  Under ``Bash(rm:*)`` denied, such a file's ``system("rm -rf
build")`` asks; before, the "ask" rows ran unasked.  (Ruby is not installed here: the rows follow
Ruby's documented ``$LOAD_PATH`` and ``File.expand_path``.)"""

from __future__ import annotations

import pytest

from .conftest import verdict_name
from .tools import decide_bash, make_ctx, write_files

_RULES = {"allow": ("Bash(*)",), "deny": ("Bash(rm:*)",)}
FILES = {
    "lib/acme/clean.rb": 'module Acme\n  def self.go\n    system("rm -rf build")\n  end\nend\n',
    "lib/acme/calm.rb": 'module Acme\n  def self.hi\n    puts "to rm a file use rm"\n  end\nend\n',
    "bin/tool.rb": '$LOAD_PATH.unshift File.expand_path("../lib", __dir__)\nrequire "acme/clean"\nAcme.go\n',
    "bin/tool2.rb": '$LOAD_PATH << File.expand_path("../../lib", __FILE__)\nrequire("acme/clean")\n',
    "bin/tool3": '#!/usr/bin/env ruby\n$:.unshift(File.join(__dir__, "../lib"))\nrequire "acme/clean"\n',
    "plain.rb": 'require "acme/clean"\n',
    "literal.rb": '$LOAD_PATH.unshift("lib")\nrequire "acme/clean.rb"\n',
    "calm.rb": '$LOAD_PATH.unshift "lib"\nrequire "json"\nrequire "acme/calm"\n',
}
ROWS = [
    ("ruby bin/tool.rb", "ask"), ("ruby bin/tool2.rb", "ask"), ("ruby bin/tool3", "ask"), ("./bin/tool3", "ask"),
    ("ruby -Ilib plain.rb", "ask"), ("ruby -I lib plain.rb", "ask"), ("ruby literal.rb", "ask"),
    ("bundle exec ruby bin/tool.rb", "ask"),
    ("ruby plain.rb", "allow"), ("ruby calm.rb", "allow"),  # (plain.rb alone: Ruby finds no acme/clean either)
]


@pytest.mark.parametrize(("command", "expected"), ROWS)
async def test_what_a_ruby_script_requires_of_the_project(world, command, expected):
    write_files(world.project, FILES)
    verdict = await decide_bash(make_ctx(world.project, mode="bypassPermissions", **_RULES), command)
    assert verdict_name(verdict) == expected, (command, getattr(verdict, "message", ""))
