"""``make`` runs its makefile's recipes: their commands meet the rules (session 31's probe).

With ``Bash(rm:*)`` in deny, in bypassPermissions mode ``make clean`` ran ``clean:``'s ``rm -rf
build``, the deny rules seeing only ``make clean``.  Now the recipes of the goals make builds (and
of their prerequisites), with make's variables expanded, and each ``$(shell …)`` make expands, are
checked as commands of the line (``permissions/make_recipes.py``).
"""

from __future__ import annotations

import shutil
import subprocess

import pytest

from tests.permissions.conftest import verdict_name
from tests.permissions.tools import decide_bash, make_ctx

MAKEFILE = """\
BUILD := build
VERSION = $(shell git describe --tags)
PY ?= python3

all: compile

compile: gen
\t@echo compiling
\t$(CC) -o $(BUILD)/x x.c

gen:
\t$(PY) gen.py

clean:
\t-$(RM) -r $(BUILD)

peek:
\tcat .env

release: all
\techo $(VERSION)

sub:
\t$(MAKE) -C web wipe

%.tmp:
\trm -f $@

.DEFAULT:
\trm -f $@.stale

ifeq ($(MODE),strict)
strict-only:
\tcurl -s https://example.com
endif

.PHONY: all compile gen clean peek release sub
include config.mk
-include optional.mk
"""
CONFIG = "scrub:\n\trm -rf $(BUILD)/cache\n"
WEB = "wipe:\n\trm -rf dist\nok:\n\techo ok\n"

ROWS_MADE_FIRST = [  # a makefile the line makes before make reads it (none was there)
    ("cd empty && printf 'all:\\n\\trm -rf x\\n' > Makefile && make", "ask"), ("cd empty && make", "allow"),
]


@pytest.mark.parametrize(("command", "expected"), ROWS_MADE_FIRST)
async def test_a_makefile_made_first(world, command, expected):
    (world.project / "empty").mkdir()
    ctx = make_ctx(world.project, allow=("Bash(make:*)", "Bash(printf:*)"), deny=("Bash(rm:*)",),
                   mode="bypassPermissions")
    verdict = await decide_bash(ctx, command)
    assert verdict_name(verdict) == expected, (command, verdict)


ROWS = [
    ("make clean", "deny"), ("make peek", "deny"), ("make release", "deny"), ("make sub", "deny"),
    ("make scrub", "deny"), ("make -C web wipe", "deny"), ("make -f Makefile clean", "deny"),
    ("make --file=Makefile clean", "deny"), ("gmake clean", "deny"), ("timeout 60 make clean", "deny"),
    ("make -s -j4 clean", "deny"), ("make -fMakefile clean", "deny"), ("make -sfextra.mk wipe2", "deny"),
    ("make -sn clean", "allow"), ("make all clean", "deny"), ("cd web && make wipe", "deny"),
    ("make a.tmp", "ask"),  # a pattern rule may build it: may run rm
    ('make -C "$D" clean', "ask"), ('cd "$D" && make clean', "ask"), ('make -f "$F"', "ask"), ("echo 'x:' > Makefile && make", "ask"),
    ("make -f Makefile -f extra.mk wipe2", "deny"), ("make nothing-builds-this", "ask"),  # .DEFAULT's recipe
    ("echo 'x:' >> extra.mk && make -f Makefile -f extra.mk", "ask"),
    ("make", "allow"), ("make all", "allow"), ("make -n clean", "allow"), ("make --dry-run clean", "allow"),
    ("make RM=echo clean", "allow"), ("make -C web ok", "allow"), ("cd sub && make", "allow"),
    ("make strict-only", "allow"),
    # a shell running code: what its commands do is what it does (`sh -c 'make'` asked for nothing)
    ("sh -c 'make'", "allow"), ('bash -c "make all"', "allow"), ("sh -c 'sh -c make'", "allow"),
    ("sh -c 'make clean'", "deny"), ("sh -c 'echo x: > Makefile; make'", "ask"), ('sh -c "$X"; make', "ask"),
    ("sh run.sh && make", "ask"),
]


def _write(project):
    (project / "Makefile").write_text(MAKEFILE)
    (project / "config.mk").write_text(CONFIG)
    (project / "extra.mk").write_text("wipe2:\n\trm -rf out\n")
    (project / "web").mkdir()
    (project / "web" / "Makefile").write_text(WEB)


@pytest.mark.parametrize(("command", "expected"), ROWS)
async def test_recipes_meet_the_rules(world, command, expected):
    _write(world.project)
    ctx = make_ctx(world.project, deny=("Bash(rm:*)", "Read(./.env)", "Bash(git describe:*)"),
                   mode="bypassPermissions")
    verdict = await decide_bash(ctx, command)
    assert verdict_name(verdict) == expected, (command, verdict)


async def test_an_ask_rule_meets_a_conditional_recipe(world):
    _write(world.project)
    ctx = make_ctx(world.project, ask=("Bash(curl:*)",), mode="bypassPermissions")
    assert verdict_name(await decide_bash(ctx, "make strict-only MODE=strict")) == "ask"


async def test_the_denial_names_the_recipe(world):
    _write(world.project)
    ctx = make_ctx(world.project, allow=("Bash(make:*)",), deny=("Bash(rm:*)",))
    verdict = await decide_bash(ctx, "make clean")
    assert verdict_name(verdict) == "deny" and "'rm -f -r build'" in verdict.message and "Makefile" in verdict.message


@pytest.mark.parametrize(("makefile", "expected"), [
    ("SHELL := /bin/bash\nclean:\n\trm -rf build\n", "deny"),  # still a shell this analyzer reads
    ("SHELL := /usr/bin/python3\nclean:\n\tprint(1)\n", "ask"),  # another language: not known
    ("SHELL := /usr/bin/env -S bash -e\nclean:\n\trm -rf build\n", "deny"),  # env's options skipped
    (".RECIPEPREFIX = >\nclean:\n> rm -rf build\n", "ask"),
    ("include missing.mk\nclean:\n\techo\n", "ask"),  # make may build it first
    ("include $(shell ls *.mk)\nclean:\n\techo\n", "ask"),
    ("X != rm -f y\nclean:\n\techo\n", "deny"),  # != runs as make reads the file
    ("X := $(shell rm -f y)\nclean:\n\techo\n", "deny"),
    ("X = $(shell rm -f y)\nclean:\n\techo\n", "allow"),  # deferred: X is never expanded
    ("clean: ; rm -rf build\n", "deny"),  # a recipe on the rule's line
    ("clean:\n\trm -rf \\\n\t  build\n", "deny"),
    ("define HELP\nclean:\n\trm -rf x\nendef\nclean:\n\techo $$HOME\n", "allow"),
])
async def test_makefile_shapes(world, makefile, expected):
    (world.project / "Makefile").write_text(makefile)
    ctx = make_ctx(world.project, deny=("Bash(rm:*)",), mode="bypassPermissions")
    verdict = await decide_bash(ctx, "make clean")
    assert verdict_name(verdict) == expected, (makefile, verdict)


async def test_without_deny_or_ask_rules_nothing_changes(world):
    _write(world.project)
    ctx = make_ctx(world.project, allow=("Bash(make:*)",))
    for command in ("make clean", "make a.tmp", "make release"):
        assert verdict_name(await decide_bash(ctx, command)) == "allow", command


@pytest.mark.skipif(shutil.which("make") is None, reason="needs make")
def test_make_expands_as_the_analysis_assumes(tmp_path):
    """Ground truth: ``$(RM)`` is ``rm -f``; ``:=`` runs its ``$(shell)`` as make reads the file,
    ``=`` only where the variable is expanded; the default goal is the first target."""
    (tmp_path / "Makefile").write_text("D = $(shell touch deferred-ran)\nI := $(shell touch immediate-ran)\n"
                                       "first:\n\t@echo $(RM)\nsecond:\n\t@echo $(D)\n")
    out = subprocess.run(["make"], cwd=tmp_path, capture_output=True, text=True, check=True).stdout
    assert out.strip() == "rm -f"
    assert (tmp_path / "immediate-ran").exists() and not (tmp_path / "deferred-ran").exists()
    subprocess.run(["make", "second"], cwd=tmp_path, capture_output=True, check=True)
    assert (tmp_path / "deferred-ran").exists()


AUTOMATIC = """\
OUT = build
all: $(OUT)/app.bin hooks/pre-commit b.tmp
$(OUT)/app.bin: main.c util.c
$(OUT)/app.bin: lib.c main.c
\techo @=$@ <=$< ^=$^ +=$+ ?=$? @D=$(@D) @F=$(@F) <F=$(<F) ^D=$(^D)
hooks/pre-commit: hook.sh
\techo cp $< $@
%.tmp: %.src extra.c
\techo stem=$* @=$@ <=$< ^=$^ *F=$(*F)
"""


@pytest.mark.skipif(shutil.which("make") is None, reason="needs make")
def test_automatic_variables_are_what_make_gives_them(tmp_path):
    """``$@``, ``$<`` (the first prerequisite of the rule with the recipe, as make orders them),
    ``$^``, ``$+``, ``$?`` (all: every prerequisite is newer than a missing target), ``$*`` and the
    ``D``/``F`` forms: the analysis's recipe code is what a real make runs, word for word."""
    from jupyter_agent.permissions.make_recipes import _MakeFile

    (tmp_path / "Makefile").write_text(AUTOMATIC)
    for name in ("main.c", "util.c", "lib.c", "hook.sh", "b.src", "extra.c"):
        (tmp_path / name).write_text("x\n")
    (tmp_path / "build").mkdir()
    (tmp_path / "hooks").mkdir()
    ran = subprocess.run(["make", "-n"], cwd=tmp_path, capture_output=True, text=True, check=True).stdout.split("\n")
    code, _certain = _MakeFile(str(tmp_path), {}).recipes([str(tmp_path / "Makefile")], [], True)
    assert sorted(line for line in ran if line) == sorted(code.split("\n")), (ran, code)


async def test_a_recipe_writing_a_protected_file_through_its_target_asks(world):
    """``make`` (a target ``.git/hooks/pre-commit`` built by ``cp $< $@``) installed a git hook
    unasked in bypassPermissions; ``cp $< leak.txt`` with ``.env`` as the prerequisite copied it
    out under ``Read(./.env)``."""
    (world.project / ".git" / "hooks").mkdir(parents=True, exist_ok=True)
    (world.project / "hook.sh").write_text("echo hi\n")
    (world.project / ".env").write_text("K=1\n")
    (world.project / "Makefile").write_text("all: .git/hooks/pre-commit\n.git/hooks/pre-commit: hook.sh\n"
                                            "\tcp $< $@\nleak: .env\n\tcp $< leak.txt\nok: notes.txt\n"
                                            "\tcp $< $@.bak\n")
    (world.project / "notes.txt").write_text("n\n")
    ctx = make_ctx(world.project, deny=("Read(./.env)",), mode="bypassPermissions")
    verdict = await decide_bash(ctx, "make")
    assert verdict_name(verdict) == "ask" and ".git/hooks/pre-commit" in verdict.message, verdict
    verdict = await decide_bash(ctx, "make leak")
    assert verdict_name(verdict) == "deny" and "Read(./.env)" in verdict.message, verdict
    assert verdict_name(await decide_bash(ctx, "make ok")) == "allow"


@pytest.mark.skipif(shutil.which("make") is None, reason="needs make")
def test_substitution_references_and_wildcards_are_expanded_as_make_does(tmp_path):
    """``$(SRCS:.c=.o)`` and ``$(SRCS:%.c=build/%.o)`` give make's words exactly; ``$(wildcard P)``
    gives its patterns, which the analysis expands as the shell would (the files that are there)."""
    from jupyter_agent.permissions.make_recipes import _MakeFile

    (tmp_path / "Makefile").write_text("SRCS = a.c b.c dir/x.cc\nOBJS = $(SRCS:.c=.o)\nOBJ2 = $(SRCS:%.c=build/%.o)\n"
                                       "OBJ3 = $(SRCS:.cc=)\nall:\n\techo $(OBJS) / $(OBJ2) / $(OBJ3)\n"
                                       "clean:\n\trm -f $(wildcard *.o)\n")
    printed = subprocess.run(["make", "-n"], cwd=tmp_path, capture_output=True, text=True, check=True).stdout.strip()
    code, _certain = _MakeFile(str(tmp_path), {}).recipes([str(tmp_path / "Makefile")], [], True)
    assert code == printed == "echo a.o b.o dir/x.cc / build/a.o build/b.o dir/x.cc / a.c b.c dir/x"
    code, _certain = _MakeFile(str(tmp_path), {}).recipes([str(tmp_path / "Makefile")], ["clean"], True)
    assert code == "rm -f *.o"


async def test_a_clean_recipe_of_computed_names_needs_no_question(world):
    """``rm -f $(OBJS)`` with ``OBJS = $(SRCS:.c=.o)``, or ``$(wildcard *.o)``: names the analysis
    computes, so ``make clean`` runs unasked in bypassPermissions (a run-time word there asks, as a
    task file's value may be a protected path); ``$(wildcard .git/*)`` names protected files."""
    (world.project / "Makefile").write_text("SRCS = a.c b.c\nOBJS = $(SRCS:.c=.o)\nclean:\n\trm -f $(OBJS) "
                                            "$(wildcard *.o)\nwipe:\n\trm -f $(wildcard .git/*)\n"
                                            "odd:\n\trm -f $(shell cat list.txt)\n")
    (world.project / "a.o").write_text("")
    (world.project / ".git").mkdir(exist_ok=True)
    (world.project / ".git" / "config").write_text("")
    ctx = make_ctx(world.project, mode="bypassPermissions")
    assert verdict_name(await decide_bash(ctx, "make clean")) == "allow"
    assert verdict_name(await decide_bash(ctx, "make wipe")) == "ask"
    assert verdict_name(await decide_bash(ctx, "make odd")) == "ask"
