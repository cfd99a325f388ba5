"""The shell code ``just`` runs from its justfile: the recipes of the recipes asked for (the
first one by default) and of their dependencies, and the backticks of its variables.

The justfile is the one just finds (``justfile`` or ``.justfile``, any case, in the folder it runs
in or the nearest one above; ``-f FILE``), and recipes run in its folder (``[no-cd]``: where just
runs).  ``mod NAME ['PATH']`` (``mod?``: if it is there) adds a module: ``NAME.just``,
``NAME/mod.just`` or ``NAME/justfile``, whose recipes run in that file's folder and are asked for
as ``just NAME RECIPE``, ``just NAME::RECIPE`` or ``just NAME`` (its first recipe); every module's
variables are evaluated, each in its folder, when recipes run.  ``{{NAME}}`` of a variable the file
sets once to a string (``build := "out"``) is that string, unless the line sets variables
(``NAME=VALUE``, ``--set``) or the file imports others; any other ``{{…}}`` (a recipe's
parameter, an expression) is a value only known at run time; a recipe with a ``#!`` line runs
as a script of that interpreter (a POSIX shell's is read, another language's is a program).  ``set dotenv-load`` reads ``.env`` as ``source .env``
would.  Variables' backticks run as just starts to run recipes (not for ``-n``/``--list``; with
``set lazy`` only where used, not followed).  A justfile just cannot be read here (another shell,
a recipe named at run time, ``--command``, ``--choose``, ``just DIR/recipe``) is code only known
at run time.  ``import 'FILE'`` (``import?``: if it is there) adds the file's recipes, which run
in the justfile's folder, never make the default recipe, and give way to the justfile's own of the
same name.
"""

from __future__ import annotations

import os
import re

from .bash_analysis import CommandInfo
from .bash_words import Word, run_time_word
from .script_files import (
    POSIX_SHELLS,
    NotKnown,
    Script,
    interpreter_name,
    not_there,
    per_form,
    read_script,
    scripts_of_forms,
    templated,
)
from .shell_invocation import shell_call

JUST = frozenset({"just"})
_NAMES = ("justfile", ".justfile")
_NO_RECIPES = frozenset({"-n", "--dry-run", "-l", "--list", "--summary", "--show", "-s", "--dump", "--fmt",
                         "--evaluate", "--variables", "--help", "-h", "--version", "-V", "--init", "--edit",
                         "--groups", "--completions", "--changelog", "--check"})
_UNKNOWN_OPTIONS = frozenset({"-c", "--command", "--choose", "--shell", "--shell-arg", "--shell-command",
                              "-g", "--global-justfile", "--unstable", "--chooser"})
_VALUE_OPTIONS = frozenset({"-f", "--justfile", "-d", "--working-directory", "--dotenv-filename", "--dotenv-path",
                            "-E", "--color", "--tempdir", "--timestamp-format", "--list-heading",
                            "--list-prefix", "--command-color", "--dump-format", "--alias-style"})
_RECIPE = re.compile(r"^@?([A-Za-z_][\w-]*)((?:\s+[*+$]?[A-Za-z_][\w-]*(?:\s*=\s*(?:'[^']*'|\"[^\"]*\"|\S+))?)*)"
                     r"\s*:(?!=)(.*)$")
_RUNTIME = run_time_word("JUST_VALUE", quoted=False)
_TEMPLATE = re.compile(r"\{\{.*?\}\}")
_STRING_VARIABLE = re.compile(r"""^(?:export\s+)?([A-Za-z_][\w-]*)\s*:=\s*("(?:[^"\\]|\\.)*"|'[^']*')\s*(?:#.*)?$""")
_NAME_VARIABLE = re.compile(r"^(?:export\s+)?([A-Za-z_][\w-]*)\s*:=")
_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "\\": "\\", '"': '"'}



def just_scripts(info: CommandInfo, cwds: list[str], memo: dict[tuple[object, ...], object]) -> list[Script]:
    """The recipes (and backticks) the ``just`` in this command runs (every form)."""
    return scripts_of_forms(info, cwds, memo, JUST, _scripts_of, per_folder=True)


def _of_form(form: tuple[Word, ...], cwd: str, cwd_unknown: bool) -> list[Script]:
    given, folder, run, overridden = None, None, True, False
    words: list[str] = []
    args = form[1:]
    i = 0
    while i < len(args):
        text = args[i].literal
        if text is None:
            raise NotKnown(f"{args[i].text} is only known at run time")
        option, eq, value = text.partition("=")
        if text[:1] == "-" and text != "-":
            if option in _UNKNOWN_OPTIONS:
                raise NotKnown(f"just {option} runs what this analyzer does not read")
            if option in _NO_RECIPES:
                run = False
            if option in _VALUE_OPTIONS and not eq:
                following = args[i + 1].literal if i + 1 < len(args) else None
                if following is None:
                    raise NotKnown(f"just {option} has a value only known at run time")
                value = following
                i += 1
            if option in ("-f", "--justfile"):
                given = value
            elif option in ("-d", "--working-directory"):
                folder = value
            elif option == "--set":
                overridden = True
                i += 2
            i += 1
            continue
        if "=" in text and re.match(r"^[A-Za-z_][\w-]*=", text):  # NAME=VALUE overrides a variable
            overridden = True
            i += 1
            continue
        words.append(text)
        i += 1
    if words and "/" in words[0]:
        raise NotKnown("just DIR/RECIPE runs a justfile found from another folder")
    if cwd_unknown and not (given and os.path.isabs(os.path.expanduser(given))):
        raise NotKnown("just runs in a folder only known at run time")
    if given is not None:
        path = os.path.realpath(os.path.join(cwd, os.path.expanduser(given)))
        if not os.path.exists(path):
            return [Script(path, path, missing=True)]
    else:
        found = _find(cwd)
        if found is None:
            return not_there(cwd, ("justfile", ".justfile"))
        path = found
    home = os.path.realpath(os.path.join(cwd, os.path.expanduser(folder))) if folder else os.path.dirname(path)
    parsed = _Justfile(path, values=not overridden)
    if folder and parsed.modules:
        raise NotKnown("just --working-directory with modules: where their recipes run is not read here")
    recipes, certain = parsed.code(words, run)
    shown = f"the justfile {path}"
    scripts = [Script(shown, path, code=recipes, cwd=home, certain=certain)]
    for module, code in parsed.module_code.items():  # each module's recipes run in its own folder
        scripts.append(Script(f"the just module {module.path}", module.path, code="\n".join(code),
                              cwd=os.path.dirname(module.path), certain=certain))
    if parsed.no_cd:
        scripts.append(Script(shown, path, code="\n".join(parsed.no_cd_code), cwd=cwd, certain=certain))
    if run:  # variables are evaluated as just starts to run recipes: the justfile's and every module's
        for module in parsed.every_module():
            if module.backticks and not module.lazy:
                scripts.append(Script(f"the variables of {module.path}", module.path,
                                      code="\n".join(module.backticks),
                                      cwd=home if module is parsed else os.path.dirname(module.path)))
    return scripts


def _find(folder: str) -> str | None:
    while True:
        try:
            names = {n.lower(): n for n in os.listdir(folder)}
        except OSError:
            names = {}
        for name in _NAMES:
            if name in names and os.path.isfile(os.path.join(folder, names[name])):
                return os.path.realpath(os.path.join(folder, names[name]))
        parent = os.path.dirname(folder)
        if parent == folder:
            return None
        folder = parent


_MOD = re.compile(r"""^mod(\??)\s+([A-Za-z_][\w-]*)(?:\s+(?:'([^']*)'|"((?:[^"\\]|\\.)*)"))?\s*(?:#.*)?$""")


class _Justfile:
    def __init__(self, path: str, level: int = 0, values: bool = True) -> None:
        text, why = read_script(path)
        if text is None:
            raise NotKnown(f"{path}: {why}")
        self.fixed = values  # no variable set on the command line: the file's strings hold
        self.values = _string_variables(text) if values else {}  # {{name}} of a fixed string
        self.path = path
        self.level = level  # 0: the justfile; 1: a module of it …
        self.modules: dict[str, _Justfile] = {}
        self.module_code: dict[_Justfile, list[str]] = {}  # (the justfile's) code each module's recipes run
        self.recipes: dict[str, tuple[int, list[str], list[str], bool]] = {}  # name -> (params, deps, body, no-cd)
        self.variadic: set[str] = set()
        self.first: str | None = None  # the default recipe: the first, or the one marked [default]
        self.default_set = False
        self.backticks: list[str] = []
        self.dotenv = False
        self.lazy = False  # set lazy: a variable is evaluated only where it is used
        self.certain = True
        self.no_cd: bool = False
        self.no_cd_code: list[str] = []
        self._parse(text.replace("\r\n", "\n").split("\n"), os.path.dirname(path), 0)
        if level and (self.dotenv or any(recipe[3] for recipe in self.recipes.values())):
            raise NotKnown(f"the just module {path} loads a .env or has [no-cd] recipes, not read here")

    def every_module(self) -> list[_Justfile]:
        """This justfile and its modules, theirs too."""
        found = [self]
        for module in self.modules.values():
            found.extend(module.every_module())
        return found

    def _mod(self, line: str, folder: str, depth: int) -> None:
        """``mod NAME`` / ``mod NAME 'PATH'`` / ``mod? NAME``: a module, as just finds its file."""
        match = _MOD.match(line)
        if match is None or depth or self.level > 8:
            raise NotKnown("a mod this analyzer does not read")
        optional, name = match.group(1), match.group(2)
        given = match.group(3) if match.group(3) is not None else match.group(4)
        if given is not None and "\\" in given:
            raise NotKnown("a mod this analyzer does not read")
        if given is None:
            candidates = [os.path.join(folder, name + ".just"), *_module_files(os.path.join(folder, name))]
        else:
            target = os.path.join(folder, os.path.expanduser(given))
            candidates = _module_files(target) if os.path.isdir(target) else [target]
        there = [c for c in candidates if os.path.isfile(c)]
        if len(there) > 1:
            raise NotKnown(f"mod {name}: more than one file for it, which just refuses")
        if not there:
            if optional:
                return
            raise NotKnown(f"mod {name}: its file is not there (just stops)")
        if name in self.modules:
            raise NotKnown(f"mod {name} twice")
        self.modules[name] = _Justfile(os.path.realpath(there[0]), self.level + 1, self.fixed)

    def _parse(self, lines: list[str], folder: str, depth: int) -> None:
        """The lines of the justfile (``depth`` 0) or of a file it imports (whose recipes run in the
        justfile's folder, do not make the default recipe, and give way to the justfile's own)."""
        attributes: list[str] = []
        i = 0
        while i < len(lines):
            line = lines[i]
            i += 1
            stripped = line.strip()
            if not stripped or stripped.startswith("#"):
                continue
            if line[:1] in " \t":
                raise NotKnown("an indented line outside a recipe")
            if stripped.startswith("["):
                attributes.append(stripped)
                continue
            word = stripped.split(None, 1)[0]
            if word in ("import", "import?"):
                self._import(stripped, folder, depth)
                continue
            if word in ("mod", "mod?"):
                self._mod(stripped, folder, depth)
                attributes = []
                continue
            if word == "set":
                self._setting(stripped)
                continue
            if word == "alias":
                match = re.match(r"^alias\s+([\w-]+)\s*:=\s*([\w-]+)", stripped)
                if match:
                    self.recipes.setdefault(match.group(1), (0, [match.group(2)], [], False))
                continue
            if _NAME_VARIABLE.match(stripped):
                value = stripped.split(":=", 1)[1]
                if value.strip().startswith(("```", "'''", '"""')):
                    raise NotKnown("a multi-line value is not read here")
                self.backticks.extend(re.findall(r"`([^`]*)`", value))
                continue
            match = _RECIPE.match(stripped)
            if match is None:
                raise NotKnown(f"a line this analyzer does not read: {stripped[:40]}")
            name, params, deps = match.group(1), match.group(2).split(), match.group(3)
            body: list[str] = []
            while i < len(lines) and (lines[i][:1] in " \t" or not lines[i].strip()):
                body.append(lines[i])
                i += 1
            no_cd = any(a.startswith("[no-cd") or "no-cd" in a for a in attributes)
            if any("working-directory" in a or "script" in a.split("(")[0].split(":")[0] for a in attributes):
                self.certain = False
            count = len([p for p in params if "=" not in p and not p.startswith("=")])
            if any(p[:1] in "*+" for p in params) or any(p.startswith("$*") or p.startswith("$+") for p in params):
                self.variadic.add(name)
            dep_names = re.findall(r"\(\s*([\w-]+(?:::[\w-]+)*)|(?<![\w(:-])([A-Za-z_][\w-]*(?:::[\w-]+)*)",
                                   deps.split("#", 1)[0])  # a::b: recipe b of module a
            names = frozenset(p.lstrip("*+$").split("=", 1)[0] for p in params)
            recipe = (count, [a or b for a, b in dep_names], self._body(body, names), no_cd)
            if depth == 0:
                self.recipes[name] = recipe
            else:
                self.recipes.setdefault(name, recipe)
            if any(a.startswith("[default") for a in attributes):
                self.first, self.default_set = name, True
            elif self.first is None and depth == 0:
                self.first = name
            attributes = []

    def _import(self, line: str, folder: str, depth: int) -> None:
        """``import 'FILE'`` (``import?``: when it is there), relative to the importing file."""
        match = re.match(r"""^import(\??)\s+(?:'([^']*)'|"((?:[^"\\]|\\.)*)")\s*(?:#.*)?$""", line)
        if match is None:
            raise NotKnown("an import this analyzer does not read")
        name = match.group(2) if match.group(2) is not None else match.group(3)
        if "\\" in name or depth > 8:
            raise NotKnown("an import this analyzer does not read")
        path = os.path.join(folder, os.path.expanduser(name))
        if not os.path.lexists(path) and match.group(1):
            return
        text, why = read_script(path)
        if text is None:
            raise NotKnown(f"{path}: {why}")
        self._parse(text.replace("\r\n", "\n").split("\n"), os.path.dirname(path), depth + 1)

    def _setting(self, line: str) -> None:
        match = re.match(r"^set\s+([\w-]+)\s*(?::=\s*(.*))?$", line)
        if match is None:
            raise NotKnown("a setting this analyzer does not read")
        name, value = match.group(1), (match.group(2) or "true").strip()
        if name in ("shell", "script-interpreter"):
            program = re.findall(r"['\"]([^'\"]*)['\"]", value)
            if not program or interpreter_name(program) not in POSIX_SHELLS:
                raise NotKnown(f"its recipes run in {value}, not a shell this analyzer reads")
            if shell_call([*program[1:], "RECIPE"], interpreter_name(program)).prelude:  # zsh, bash -O dotglob
                raise NotKnown(f"its recipes run in {value}, which reads them otherwise")
        elif name in ("dotenv-load", "dotenv-required") and value == "true":
            self.dotenv = True
        elif name == "lazy":
            self.lazy = value == "true"
        elif name in ("dotenv-filename", "dotenv-path"):
            files = re.findall(r"['\"]([^'\"]*)['\"]", value)
            if files:
                self.backticks.append(f". {files[0]}")  # read as just starts
        elif name in ("working-directory", "no-cd", "positional-arguments", "windows-shell", "windows-powershell",
                      "tempdir", "unstable"):
            self.certain = self.certain and name in ("positional-arguments", "windows-shell", "windows-powershell",
                                                     "unstable")

    def _body(self, body: list[str], params: frozenset[str] = frozenset()) -> list[str]:
        lines = [b for b in body if b.strip()]
        if not lines:
            return []
        indent = min(len(b) - len(b.lstrip()) for b in lines)
        text = [b[indent:] for b in body]
        if text and text[0].startswith("#!"):
            shell = interpreter_name(text[0][2:].split()) in POSIX_SHELLS
            return [self._interpolated(t, params) for t in text[1:]] if shell else []
        out = []
        for line in text:
            line = line.strip()
            while line[:1] in ("@", "-"):
                line = line[1:]
            if line:
                out.append(self._interpolated(line, params))
        return out

    def _interpolated(self, line: str, params: frozenset[str]) -> str:
        """The recipe line the shell gets: a fixed string's ``{{name}}`` is its text, put in as
        just puts it (before the shell reads the line: ``x; rm y`` runs rm); any other ``{{…}}``
        is a word only known at run time."""
        def fixed(match: re.Match[str]) -> str:
            name = match.group(0)[2:-2].strip()
            if name in self.values and name not in params:  # a parameter of the same name hides it
                return self.values[name]
            return match.group(0)

        line = line.replace("{{{{", "\x00")
        line = _TEMPLATE.sub(fixed, line)
        line = templated(line, _TEMPLATE, lambda _m: f'"{_RUNTIME}"')
        return line.replace("\x00", "{{")

    def code(self, asked: list[str], run: bool) -> tuple[str, bool]:
        """The justfile's own code the recipes asked for run (and their dependencies); a module's
        goes to ``module_code``."""
        lines = [". ./.env"] if self.dotenv else []
        certain = all(m.certain for m in self.every_module())
        if not run:
            return "\n".join(lines), certain
        seen: set[tuple[_Justfile, str]] = set()
        todo = self._goals(asked)
        while todo:
            scope, name = todo.pop()
            if "::" in name:  # a dependency on a module's recipe: a::b
                *path, name = name.split("::")
                for part in path:
                    found = scope.modules.get(part)
                    if found is None:
                        raise NotKnown(f"a dependency on a module this analyzer did not find ({part})")
                    scope = found
            if (scope, name) in seen or name not in scope.recipes:
                continue
            seen.add((scope, name))
            _count, deps, body, no_cd = scope.recipes[name]
            todo.extend((scope, dep) for dep in deps)
            if scope is not self:
                self.module_code.setdefault(scope, []).extend(body)
                continue
            (self.no_cd_code if no_cd else lines).extend(body)
            self.no_cd = self.no_cd or no_cd
        return "\n".join(lines), certain

    def _goals(self, asked: list[str]) -> list[tuple[_Justfile, str]]:
        """The recipes the words ask for, each word path from the justfile: ``RECIPE ARGS…``,
        ``MODULE RECIPE ARGS…``, ``MODULE::RECIPE ARGS…``, ``MODULE`` (its first recipe).  An
        unknown name stops (just then runs nothing; what came before is kept, which asks more)."""
        if not asked:
            return [(self, self.first)] if self.first else []
        goals: list[tuple[_Justfile, str]] = []
        i = 0
        while i < len(asked):
            scope: _Justfile | None = self
            word: str | None = asked[i]
            i += 1
            if "::" in (word or ""):
                *path, word = (word or "").split("::")
                for part in path:
                    scope = scope.modules.get(part) if scope else None
            else:
                while scope is not None and word in scope.modules and word not in scope.recipes:
                    scope = scope.modules[word or ""]
                    word = asked[i] if i < len(asked) else None
                    if word is not None and (word in scope.recipes or word in scope.modules):
                        i += 1
                    else:
                        word = scope.first  # the module's first recipe
                        break
            if scope is None or word is None or word not in scope.recipes:
                break  # just stops: no such recipe
            goals.append((scope, word))
            i += len(asked) if word in scope.variadic else scope.recipes[word][0]
        return goals


def _string_variables(text: str) -> dict[str, str]:
    """The variables a justfile sets once, at the top level, to one string literal (``d :=
    "build"``, ``export d := 'x'``); none when it imports files or allows duplicate variables
    (another file's or a later line's value may be the one just uses)."""
    values: dict[str, str] = {}
    seen: set[str] = set()
    for line in text.replace("\r\n", "\n").split("\n"):
        stripped = line.strip()
        if line[:1] in " \t" or not stripped:
            continue
        if re.match(r"^(?:import\??|set\s+allow-duplicate-variables)\b", stripped):
            return {}
        named = _NAME_VARIABLE.match(stripped)
        if named is None:
            continue
        name = named.group(1)
        match = _STRING_VARIABLE.match(stripped)
        if name in seen or match is None:
            values.pop(name, None)
            seen.add(name)
            continue
        seen.add(name)
        literal = match.group(2)
        if literal[0] == "'":
            values[name] = literal[1:-1]
        else:
            body = literal[1:-1]
            if re.search(r"\\[^ntr\\\"]", body):  # an escape this reader does not know
                continue
            values[name] = re.sub(r"\\(.)", lambda m: _ESCAPES[m.group(1)], body)
    return {name: value for name, value in values.items() if "{{" not in value and "\x00" not in value}


def _module_files(folder: str) -> list[str]:
    """The files just takes for a module in ``folder``: ``mod.just``, or a justfile (any case)."""
    try:
        names = os.listdir(folder)
    except OSError:
        return []
    return [os.path.join(folder, n) for n in names if n.lower() in ("mod.just", "justfile", ".justfile")]


_scripts_of = per_form("just's justfile", _of_form)

__all__ = ["JUST", "just_scripts"]
