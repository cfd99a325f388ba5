"""The shell code ``make`` runs from its makefile: the recipes of the goals it builds (and what
they need), and every ``$(shell …)`` it expands as it reads the file.

``make clean`` under ``Bash(make:*)`` runs ``clean:``'s ``rm -rf build``; ``bash.py`` holds these
commands to the deny and ask rules and the safety checks, as those of a script file
(``script_files.py``).  The makefile is the one make picks (``-f FILE``; else ``GNUmakefile``,
``makefile``, ``Makefile`` in the folder it runs in, ``-C DIR``), with the files it includes.

Variables are expanded as make would where their values are plain (defined in the file, on the
command line, or make's defaults: ``$(CC)`` is ``cc``, ``$(RM)`` is ``rm -f``); so are the
automatic variables of the target being built (``$@``, ``$<`` — the first prerequisite of the rule
with the recipe, as make orders them —, ``$^``, ``$+``, ``$?`` as all the prerequisites, ``$*``
of a pattern rule, and their ``D``/``F`` parts: ``cp $< $@`` building ``.git/hooks/pre-commit``
writes that protected file); anything else — functions, a variable from the environment — is a
word only known at run time (so is a variable set inside a conditional); substitution references
(``$(SRCS:.c=.o)``) are make's words and ``$(wildcard P)`` its patterns.  Which recipes run
follows the rules from the goals (the first target by default, included files' too) through their
prerequisites; when that is not certain (pattern rules, a rule inside a conditional,
``$(eval)``, a target-specific variable) a command a deny rule names asks instead of being
denied.  ``make -n`` runs no recipe.  Makefiles make cannot be read here (one named at run time, ``SHELL`` or
``.RECIPEPREFIX`` set, an include only known at run time) are code only known at run time.
"""

from __future__ import annotations

import os
import re

from .bash_analysis import CommandInfo
from .bash_words import Word, run_time_word
from .bash_wrappers import MAKES
from .script_files import POSIX_SHELLS, Script, interpreter_name, not_there, read_script, scripts_of_forms
from .shell_invocation import shell_call

_DEFAULT_NAMES = ("GNUmakefile", "makefile", "Makefile")
_DEFAULTS = {"CC": "cc", "CXX": "g++", "CPP": "cc -E", "RM": "rm -f", "AR": "ar", "AS": "as", "LD": "ld",
             "MAKE": "make", "INSTALL": "install", "YACC": "yacc", "LEX": "lex", "FC": "f77", "PC": "pc",
             "CO": "co", "GET": "get", "TEX": "tex", "MAKEINFO": "makeinfo", "ARFLAGS": "rv", "CFLAGS": "",
             "CXXFLAGS": "", "CPPFLAGS": "", "LDFLAGS": "", "LDLIBS": "", "MAKEFLAGS": ""}
_VALUE_OPTIONS = frozenset({"-f", "--file", "--makefile", "-C", "--directory", "-I", "--include-dir", "-j", "--jobs",
                            "-l", "--load-average", "-o", "--old-file", "--assume-old", "-W", "--what-if",
                            "--new-file", "--assume-new", "-O", "--output-sync"})
_NO_RECIPES = frozenset({"-n", "--dry-run", "--just-print", "--recon", "-q", "--question", "-t", "--touch", "-p",
                         "--print-data-base", "-v", "--version", "-h", "--help"})
_ASSIGNMENT = re.compile(r"^(?:(?:override|export|private)\s+)*([.A-Za-z_][\w.-]*)\s*(::=|:::=|:=|\?=|\+=|!=|=)(.*)$")
_REFERENCE = re.compile(r"\$(?:\(([^()$]*)\)|\{([^{}$]*)\}|([^({$]))")
_SUBSTITUTION = re.compile(r"^([.A-Za-z_][\w.-]*):([^=\s]*)=(\S*)$")  # $(VAR:a=b)
_SHELL_CALL = re.compile(r"\$[({]\s*shell\s")
_RUNTIME = "\x01"  # while expanding: a value only known at run time (no $ in it)
# what the shell code gets there: a word only known at run time
_RUNTIME_WORD = run_time_word("MAKE_EXPANDS_THIS", quoted=False)
_MAX_FILES = 16


class _Unknown(Exception):
    """The makefile cannot be read here: code only known at run time (the message says why)."""


def make_scripts(info: CommandInfo, cwds: list[str], memo: dict[tuple[object, ...], object]) -> list[Script]:
    """The recipes (and ``$(shell)`` code) the ``make`` in this command runs (every form);
    ``memo``: this decision's (a long line runs make many times in the same folders)."""
    return scripts_of_forms(info, cwds, memo, MAKES, _of_form, per_folder=True)


def _of_form(form: tuple[Word, ...], cwd: str, cwd_unknown: bool) -> list[Script]:
    name = form[0].text
    given: list[str] = []  # -f FILE, each read in turn
    folder = cwd
    goals: list[str] = []
    overrides: dict[str, str] = {}
    recipes = True
    anchored = False  # make -C /abs: where it runs does not depend on the cwd
    args = form[1:]
    i = 0
    while i < len(args):
        text = args[i].literal
        value = args[i + 1].literal if i + 1 < len(args) else None
        if text is None:
            return [Script(f"{name}'s makefile", None, f"{args[i].text} is only known at run time")]
        key, eq, attached = text.partition("=")
        if text[:1] == "-" and text != "-":
            if text in _NO_RECIPES or (text[:2] != "--" and _short_flags(text) & set("nqtp")):
                recipes = False
            if text.startswith("--"):
                option = key
            else:  # a cluster: -sfFILE is -s -f FILE
                at = next((j for j, char in enumerate(text[1:], 1) if f"-{char}" in _VALUE_OPTIONS), len(text))
                option, text = (f"-{text[at]}", f"-{text[at:]}") if at < len(text) else (text[:2], text)
            if text.startswith("--") and eq:
                value, step = attached, 1
            elif not text.startswith("--") and len(text) > 2 and option in _VALUE_OPTIONS:
                value, step = text[2:], 1
            elif option in _VALUE_OPTIONS:
                step = 2
            else:
                i += 1
                continue
            if option in ("-f", "--file", "--makefile"):
                if value is not None:
                    given.append(value)
            elif option in ("-C", "--directory"):
                if value is None:
                    return [Script(f"{name}'s makefile", None, "make -C names a folder only known at run time")]
                folder = os.path.realpath(os.path.join(os.path.expanduser(folder), os.path.expanduser(value)))
                anchored = anchored or os.path.isabs(os.path.expanduser(value))
            if value is None and option in ("-f", "--file", "--makefile"):
                return [Script(f"{name}'s makefile", None, "make -f names a file only known at run time")]
            i += step
            continue
        if eq and re.match(r"^[A-Za-z_][\w.-]*[:+?!]*$", key):
            overrides[key.rstrip(":+?!")] = attached
        else:
            goals.append(text)
        i += 1
    if cwd_unknown and not anchored and not all(os.path.isabs(os.path.expanduser(g)) for g in given or ["."]):
        return [Script(f"{name}'s makefile", None, "make runs in a folder only known at run time")]
    if any(g.startswith(("/dev/", "/proc/")) or g == "-" for g in given):
        return [Script(" ".join(given), None, "make reads a makefile as it runs")]
    paths = [os.path.realpath(os.path.join(folder, os.path.expanduser(g))) for g in given]
    if not paths:
        # (a makefile that is no regular file, a named pipe, is read as make reads it: not knowable)
        default = next((os.path.join(folder, n) for n in _DEFAULT_NAMES if os.path.exists(os.path.join(folder, n))), "")
        if not default:
            return not_there(folder, _DEFAULT_NAMES)  # no makefile: make only runs its built-in rules
        paths = [os.path.realpath(default)]
    missing = [Script(p, p, missing=True) for p in paths if not os.path.exists(p)]
    if missing:
        return missing  # make stops before running anything, unless the line makes it
    try:
        code, certain = _MakeFile(folder, overrides).recipes(paths, goals, recipes)
    except _Unknown as why:
        return [Script(f"the makefile {paths[0]}", None, str(why))]
    # one script, and each other makefile as one the line must not change first (its code is in the first)
    return [Script(f"the makefile {paths[0]}", paths[0], code=code, cwd=folder, certain=certain),
            *(Script(p, p, code="", cwd=folder) for p in paths[1:])]


class _MakeFile:
    def __init__(self, folder: str, overrides: dict[str, str]) -> None:
        self.folder = folder
        self.overrides = overrides
        self.variables: dict[str, str] = {}
        self.rules: dict[str, tuple[list[str], list[str]]] = {}  # target -> (prerequisites, recipe lines)
        self.patterns: list[tuple[re.Pattern[str], list[str], list[str]]] = []
        self.first: str | None = None
        self.certain = True
        self.parse_code: list[str] = []  # $(shell …) expanded as the file is read
        self.files = 0
        self.conditional = 0  # inside this many ifeq/ifdef blocks
        self.maybe: set[str] = set()  # targets a conditional defines
        self.lines: dict[str, list[tuple[list[str], list[str]]]] = {}  # target -> each rule's (prerequisites, recipe)
        self.auto: dict[str, str] = {}  # the automatic variables of the recipe being expanded

    def recipes(self, paths: list[str], goals: list[str], run: bool) -> tuple[str, bool]:
        """The code make runs: what reading the file runs, then the recipes of the goals and
        their prerequisites (``run``: False for ``make -n``, which only expands them — their
        ``$(shell …)`` still runs)."""
        for path in paths:
            self._read(path)
        code: list[str] = []
        default = self.variables.get(".DEFAULT_GOAL") or self.first
        todo = list(goals) or ([default] if default else [])
        seen: set[str] = set()
        phony = set(self.rules.get(".PHONY", ([], []))[0])
        while todo:
            target = todo.pop()
            if target in seen:
                continue
            seen.add(target)
            prerequisites, lines = self.rules.get(target, ([], []))
            if target in self.maybe:
                self.certain = False
            if not lines and target not in phony:
                matched = False
                for pattern, pattern_prerequisites, pattern_lines in self.patterns:  # %.o: %.c may build it
                    match = pattern.fullmatch(target)
                    if match is not None:
                        self.certain, matched = False, True
                        stem = match.group(1)
                        implied = [p.replace("%", stem) for p in pattern_prerequisites]
                        if any("$" in line for line in pattern_lines):
                            self.auto = self._automatic(target, implied + self._ordered(target), stem)
                        code.extend(self._shell(line) for line in pattern_lines)
                        todo.extend(implied)
                if (not matched and target not in self.rules and ".DEFAULT" in self.rules
                        and not os.path.exists(os.path.join(self.folder, target))):
                    self.certain = False  # .DEFAULT's recipe builds a target nothing else does (unless a file)
                    self.auto = self._automatic(target, [], None)
                    code.extend(self._shell(line) for line in self.rules[".DEFAULT"][1])
            todo.extend(self._expand(p) for p in prerequisites)
            if any("$" in line for line in lines):  # the prerequisites expanded only for a recipe using them
                self.auto = self._automatic(target, self._ordered(target), None)
            code.extend(self._shell(line) for line in lines)
            self.auto = {}
        code = [*self.parse_code, *(code if run else [])]  # with what expanding the recipes ran
        return "\n".join(c for c in code if c.strip()), self.certain

    def _ordered(self, target: str) -> list[str]:
        """The target's prerequisites as make orders them: the rule with the recipe first (the
        last such rule: make uses the last recipe), then the others in the order read."""
        lines = self.lines.get(target, [])
        chosen = next((line for line in reversed(lines) if line[1]), None)
        ordered = [*(chosen[0] if chosen else []), *(p for line in lines if line is not chosen for p in line[0])]
        return [word for p in ordered for word in self._expand(p).split()]

    def _automatic(self, target: str, prerequisites: list[str], stem: str | None) -> dict[str, str]:
        """``$@``, ``$<``, ``$^``, ``$+``, ``$?`` (any of them may be newer: all), ``$*`` and their
        ``D``/``F`` forms for a recipe building ``target``; ``$*`` of an explicit rule, ``$|``
        and ``$%`` stay only known at run time."""
        unique = list(dict.fromkeys(prerequisites))
        values = {"@": [target], "<": prerequisites[:1], "^": unique, "+": prerequisites, "?": unique}
        if stem is not None:
            values["*"] = [stem]
        auto: dict[str, str] = {}
        for name, words in values.items():
            auto[name] = " ".join(words)
            auto[name + "D"] = " ".join(os.path.dirname(w.rstrip("/")) or "." for w in words)
            auto[name + "F"] = " ".join(os.path.basename(w.rstrip("/")) for w in words)
        return auto

    def _read(self, path: str) -> None:
        self.files += 1
        if self.files > _MAX_FILES:
            raise _Unknown("it includes too many files to follow")
        text, why = read_script(path)
        if text is None:
            raise _Unknown(f"{path}: {why}")
        text = text.replace("\r\n", "\n")
        current: list[list[str]] | None = None  # the recipe lists of the rule being read
        in_define = 0
        for line in _logical_lines(text):
            if in_define:
                if re.match(r"^\s*endef\b", line):
                    in_define -= 1
                elif re.match(r"^\s*(?:override\s+|export\s+)?define\b", line):
                    in_define += 1
                continue
            if line.startswith("\t") and current is not None:
                for recipe in current:
                    recipe.append(line[1:])
                continue
            stripped = line.split("#", 1)[0].strip() if "$(shell" not in line else line.strip()
            if not stripped:
                continue
            deferred = re.match(r"^[^:=]*[^:!+?]=", stripped) or re.match(r"^[^:=]*[?+]=", stripped)
            if _SHELL_CALL.search(stripped) and not deferred:  # VAR := $(shell …): runs as make reads it
                self.parse_code.extend(_shell_calls(stripped, self))
            if "$(eval" in stripped or "${eval" in stripped:
                self.certain = False
            word = stripped.split(None, 1)[0]
            if re.match(r"^(?:override\s+|export\s+)?define\b", stripped):
                in_define = 1
                current = None
                continue
            if word in ("ifeq", "ifneq", "ifdef", "ifndef", "else", "endif"):
                self.conditional = max(0, self.conditional + (word[:2] == "if") - (word == "endif"))
                continue
            if word in ("include", "-include", "sinclude"):
                self._include(stripped.split(None, 1)[1] if " " in stripped else "", word == "include")
                current = None
                continue
            if word in ("export", "unexport", "vpath", "override", "undefine") and _ASSIGNMENT.match(stripped) is None:
                continue
            assignment = _ASSIGNMENT.match(stripped)
            if assignment is not None and ":" not in stripped[:assignment.start(2)]:
                self._assign(assignment.group(1), assignment.group(2), assignment.group(3).strip())
                current = None
                continue
            current = self._rule(stripped)
        shell = self.variables.get("SHELL")
        name = interpreter_name(self._expand(shell).split()) if shell is not None else "sh"
        if name not in POSIX_SHELLS:
            raise _Unknown(f"its recipes run in {shell}, not a shell this analyzer reads")
        flags = self.variables.get(".SHELLFLAGS")
        if shell is not None or flags is not None:  # SHELL = zsh, .SHELLFLAGS = -O dotglob -c: read otherwise
            words = self._expand(flags).split() if flags is not None else ["-c"]
            if shell_call([*words, "RECIPE"], name).prelude:
                raise _Unknown(f"its recipes run with {name} {' '.join(words)[:40]}, which reads them otherwise")
        if ".RECIPEPREFIX" in self.variables:
            raise _Unknown("it sets .RECIPEPREFIX (which lines are recipes)")

    def _include(self, names: str, required: bool) -> None:
        expanded = self._expand(names)
        for name in expanded.split():
            if _RUNTIME in name or any(c in name for c in "*?["):
                raise _Unknown(f"it includes {name}, only known as make runs")
            path = os.path.join(self.folder, name)
            if os.path.exists(path):  # (one that is no regular file cannot be read: not knowable)
                self._read(os.path.realpath(path))
            elif required:
                raise _Unknown(f"it includes {name}, which make may build first")

    def _assign(self, name: str, op: str, value: str) -> None:
        if name in self.overrides:
            return
        if self.conditional:  # set or not, depending: its value is not known
            if op == "!=":
                self.parse_code.append(self._shell(value))
            self.variables[name] = _RUNTIME
        elif op == "!=":  # VAR != command: runs as make reads the file
            self.parse_code.append(self._shell(value))
            self.variables[name] = _RUNTIME
        elif op == "+=":
            self.variables[name] = f"{self.variables.get(name, '')} {value}".strip()
        elif op == "?=":
            self.variables.setdefault(name, value)
        else:
            self.variables[name] = value

    def _rule(self, line: str) -> list[list[str]] | None:
        """``targets: prerequisites [; recipe]``; the recipe lists lines after it go to."""
        match = re.match(r"^([^:=]*?)(::?)(?!=)(.*)$", line)
        if match is None:
            self.certain = False  # not a line this reader knows
            return None
        targets = self._expand(match.group(1)).split()
        rest = match.group(3)
        inline = None
        if ";" in rest:
            rest, inline = rest.split(";", 1)
        if _ASSIGNMENT.match(rest.strip()):  # target: VAR = value
            self.certain = False
            return None
        prerequisites = [p for p in rest.replace("|", " ").split() if p]
        recipe: list[str] = [inline] if inline is not None else []
        lists: list[list[str]] = []
        for target in targets:
            if "%" in target:
                pattern = re.compile("(.+)".join(re.escape(part) for part in target.split("%", 1)))
                self.patterns.append((pattern, prerequisites, recipe))
                lists.append(recipe)
                continue
            if self.conditional:
                self.maybe.add(target)
            own = list(recipe)  # this rule's own recipe lines, for the order of its prerequisites
            self.lines.setdefault(target, []).append((prerequisites, own))
            lists.append(own)
            if self.first is None and not target.startswith("."):
                self.first = target
            old_prerequisites, old_recipe = self.rules.get(target, ([], []))
            if recipe or not old_recipe:
                self.rules[target] = (old_prerequisites + prerequisites, recipe if recipe else old_recipe)
            else:
                self.rules[target] = (old_prerequisites + prerequisites, old_recipe)
            lists.append(self.rules[target][1])
        unique: list[list[str]] = []
        for recipe_list in lists:
            if not any(recipe_list is u for u in unique):
                unique.append(recipe_list)
        return unique

    def _value(self, name: str, depth: int) -> str:
        if name in self.overrides:
            value = self.overrides[name]
        elif name in self.variables:
            value = self.variables[name]
        elif name in _DEFAULTS:
            value = _DEFAULTS[name]
        elif name in self.auto:
            return self.auto[name]  # already expanded
        else:
            return _RUNTIME  # from the environment, or automatic ($@, $<)
        return self._expand(value, depth + 1)

    def _expand(self, text: str, depth: int = 0) -> str:
        if depth > 10:
            return _RUNTIME

        def one(match: re.Match[str]) -> str:
            name = match.group(1) if match.group(1) is not None else (
                match.group(2) if match.group(2) is not None else match.group(3))
            if name.startswith(("shell ", "shell\t")):  # VAR = $(shell …) runs where VAR is expanded
                self.parse_code.append(self._shell(name[6:]))
                return _RUNTIME
            reference = _SUBSTITUTION.match(name)
            if reference is not None:  # $(OBJS:.c=.o), $(SRCS:%.c=build/%.o)
                value = self._value(reference.group(1), depth)
                if _RUNTIME in value:
                    return _RUNTIME
                return " ".join(_substituted(w, reference.group(2), reference.group(3)) for w in value.split())
            if name.startswith(("wildcard ", "wildcard\t")):  # the files its patterns name: as the shell's
                patterns = self._expand(name[9:], depth + 1)
                return _RUNTIME if _RUNTIME in patterns else " ".join(patterns.split())
            if " " in name or "," in name or ":" in name or "(" in name:  # another function
                return _RUNTIME
            return self._value(name, depth)

        text = text.replace("$$", "\x00")  # a literal $ (the shell's), put back by _shell
        for _ in range(20):
            if "$" not in text:
                break
            text = _REFERENCE.sub(one, text)
        else:
            return _RUNTIME
        return text.replace("$", "") if "$" in text else text  # an unbalanced $( left: nothing make runs

    def _shell(self, line: str) -> str:
        """A recipe line as the shell gets it: its ``@``/``-``/``+`` prefix off, variables expanded."""
        line = line.lstrip()
        while line[:1] in ("@", "-", "+"):
            line = line[1:].lstrip()
        return self._expand(line).replace("\x00", "$").replace(_RUNTIME, _RUNTIME_WORD)


def _substituted(word: str, old: str, new: str) -> str:
    """``word`` through a substitution reference ``$(VAR:old=new)`` (``patsubst``: ``old``
    without ``%`` is ``%old``)."""
    if "%" not in old:
        old, new = "%" + old, "%" + new if "%" not in new else new
    prefix, _, suffix = old.partition("%")
    if len(word) < len(prefix) + len(suffix) or not (word.startswith(prefix) and word.endswith(suffix)):
        return word
    stem = word[len(prefix):len(word) - len(suffix)]
    return new.replace("%", stem, 1)


def _short_flags(text: str) -> set[str]:
    """The flags of a cluster such as ``-sn`` (``-fMakefile.top``: none after the valued ``f``)."""
    flags = set()
    for char in text[1:]:
        if f"-{char}" in _VALUE_OPTIONS:
            break
        flags.add(char)
    return flags


def _logical_lines(text: str) -> list[str]:
    """Lines with backslash-newline continuations joined."""
    lines: list[str] = []
    pending = ""
    for raw in text.split("\n"):
        if raw.endswith("\\") and not raw.endswith("\\\\"):
            pending += raw[:-1] + " "
            continue
        lines.append(pending + raw)
        pending = ""
    if pending:
        lines.append(pending)
    return lines


def _shell_calls(text: str, makefile: _MakeFile) -> list[str]:
    """The code of each ``$(shell …)`` in ``text`` (balanced parentheses)."""
    found = []
    for match in _SHELL_CALL.finditer(text):
        opener = text[match.start() + 1]
        closer = ")" if opener == "(" else "}"
        depth, start = 1, match.end()
        for j in range(start, len(text)):
            if text[j] == opener:
                depth += 1
            elif text[j] == closer:
                depth -= 1
                if depth == 0:
                    found.append(makefile._shell(text[start:j]))
                    break
        else:
            raise _Unknown("a $(shell …) does not end")
    return found


__all__ = ["MAKES", "make_scripts"]
