"""The shell code IPython runs from notebook cells and ``.ipy`` files, as one shell script.

NotebookExecute runs cells, and a Bash line may run a whole notebook (``jupyter nbconvert
--execute``, ``papermill``, ``ipython x.ipynb``: ``notebook_runs.py``).  Running the code is
approved as a whole, but its shell commands meet the Bash deny and ask rules and the safety checks
as a Bash call would: in bypassPermissions, ``!rm -rf build`` in a cell ran under ``Bash(rm:*)``.

The cell is read the way IPython reads it: IPython's own input transformer
(``TransformerManager.transform_cell``: ``!cmd``, ``x = !cmd``, ``%magic``, ``%%magic`` cells,
prompts and indentation stripped, ``\\`` continuations) turns it into Python, and the calls it
makes to ``get_ipython().system/getoutput/run_line_magic/run_cell_magic`` (found with ``ast``) are
turned into shell code:

- ``!``/``!!``/``%sx``/``%system``/``%sc``/``%%sx``/``%%!``: the command;
- the shell aliases (``%rm``, ``%mv``, ``%ll``…, the defaults and those ``%alias`` defines; after
  ``%rehashx`` every program is one), ``%alias_magic`` names;
- a cell of one line is run through IPython's automagic first: ``rm -r build`` alone in a cell
  runs ``rm`` (checked with IPython's ``LineInfo``, as its prefilter does);
- ``%cd``/``%pushd``/``%popd`` (later commands run there), ``%env``/``%set_env`` (exported),
  ``%pip``/``%uv`` (``python -m pip``), ``%conda``/``%mamba``/``%micromamba``;
- ``%run x.ipynb`` / ``%run x.ipy``: ``ipython x.ipynb``, whose cells ``notebook_runs`` reads;
- ``%%bash``, ``%%sh``, ``%%script PROGRAM`` (with the options its parser knows): the body, or
  ``PROGRAM ARGS <<'EOF'`` when the program is not a shell reading the body as its script
  (``%%bash -c 'rm x'`` runs ``rm x``);
- ``%%writefile``/``%%file``: ``cat > FILE <<'EOF'`` (a later ``!bash FILE`` runs what it wrote);
- ``%%capture``, ``%time``/``%%time``, ``%timeit``, ``%prun``, ``%debug``: the code they run;
- ``%pycat``/``%less``/``%more``/``%pfile``/``%page``/``%load``/``%loadpy``/``%edit F``: ``cat F`` (the
  file's text reaches the model, or runs); ``%save F``, ``%history -f F``, ``%logstart [F]``,
  ``%notebook F``: ``touch F`` (``%save`` adds ``.py``: both names).

IPython fills ``{expr}`` and ``$name`` into a command line from Python before the shell sees it
(``DollarFormatter``, once per expansion step; when that fails the line runs as written): each
form is kept, and a value is a word only known at run time, in whatever quotes it sits.  Python
code (``os.system``, ``subprocess``) is a program, as a ``.py`` file's is: a string of it that is a
command a deny or ask rule names asks (``cells_strings_check``), as a script's strings do when Bash
runs it.  A cell IPython cannot transform is code only known at run time.
"""

from __future__ import annotations

import argparse
import ast
import builtins
import keyword
import os
import re
import shlex
import shutil
from collections.abc import Iterable
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..core.context import ToolUseContext
from ..core.permission_types import PermissionAsk, PermissionDeny, PermissionResult
from .bash_words import run_time_word
from .script_files import POSIX_SHELLS, interpreter_name, templated
from .shell_invocation import shell_call
from .verdicts import is_sticky, new_ask

if TYPE_CHECKING:
    from .bash_verdict import Verdict
    from .compiled import CompiledRules, PathScope

RUN_TIME = run_time_word("PYTHON_VALUE")  # a word only known at run time (a Python value)
UNKNOWN_CODE = '"${IPYTHON_CODE}"'  # a command only known at run time (code this module cannot read)
_VALUE = "\ue000"  # marks a Python value while the text is being expanded
_VALUE_PATTERN = re.compile(_VALUE)
_CALLS = frozenset({"system", "getoutput", "system_piped", "system_raw", "run_line_magic", "run_cell_magic"})
_SHELL_LINE_MAGICS = frozenset({"sx", "system"})
_STATEMENT_MAGICS = frozenset({"time", "timeit", "prun", "debug"})
_SCRIPT_MAGICS = frozenset({"bash", "sh", "script", "perl", "ruby", "python", "python2", "python3", "pypy"})
_PYTHON_NAMES = frozenset(dir(builtins)) | frozenset(keyword.kwlist) | {"get_ipython", "exit", "quit"}
_MAX_DEPTH = 8  # %%capture in %%time in …, %alias_magic of an %alias_magic
_MAX_FORMS = 4  # forms of one command line (expanded or not)


def cell_shell_code(source: str) -> str:
    """The shell code one cell's source runs, as one script (empty when none)."""
    return notebook_shell_code((source,))


def notebook_shell_code(sources: Iterable[str]) -> str:
    """The shell code cells run one after another (``%cd`` and ``%alias`` in one hold in the next)."""
    reader = IPythonReader()
    for source in sources:
        reader.cell(source)
    return reader.code()


class IPythonReader:
    """Reads cells in the order they run; ``code()`` is their shell code so far.

    A new kernel has IPython's default aliases.  ``shell``: the IPython shell the cells will run
    in (NotebookExecute in this kernel), whose aliases, ``%alias_magic`` names and bookmarks are
    read as they are now.  ``other_kernel``: they run in a kernel that cannot be looked at (another
    open notebook's), where any line magic IPython does not define may be an alias made earlier:
    a program only known at run time."""

    def __init__(self, shell: Any = None, other_kernel: bool = False) -> None:
        from IPython.core.alias import Alias, default_aliases
        from IPython.core.magic import MagicAlias

        # what %NAME runs: ("alias", shell command) or ("magic", target, params); %%NAME: the latter
        self.names: dict[str, tuple[str, ...]] = {name: ("alias", cmd) for name, cmd in default_aliases()}
        self.cell_names: dict[str, tuple[str, ...]] = {}
        self.rehashed = False  # %rehashx: every program on PATH is an alias
        self.bookmarks: set[str] = set()
        self.other_kernel = other_kernel
        self.lines: list[str] = []
        self.depth = 0
        if shell is not None:
            self.names = {}
            for kind, names in (("line", self.names), ("cell", self.cell_names)):
                for name, function in shell.magics_manager.magics[kind].items():
                    if isinstance(function, Alias):
                        names[name] = ("alias", function.cmd)
                    elif isinstance(function, MagicAlias):
                        names[name] = ("magic", function.magic_name, function.magic_params or "")
            try:
                self.bookmarks = set(shell.db.get("bookmarks", {}))
            except Exception:  # (IPython's history database may be off)
                self.bookmarks = set()

    def fresh(self) -> IPythonReader:
        """A reader of no cells yet with this one's names (the shell's, read once on the loop:
        the check itself runs in the permission thread, once more after a git listing)."""
        reader = IPythonReader(other_kernel=self.other_kernel)
        reader.names, reader.cell_names, reader.bookmarks = dict(self.names), dict(self.cell_names), set(self.bookmarks)
        return reader

    def code(self) -> str:
        return "\n".join(self.lines)

    def cell(self, source: str, prefilter: bool = True) -> None:
        """A cell's code (``prefilter``: a cell of one line may be automagic, as ``run_cell`` does)."""
        from IPython.core.inputtransformer2 import TransformerManager
        from IPython.core.splitinput import LineInfo

        if self.depth >= _MAX_DEPTH:
            self.lines.append(UNKNOWN_CODE)
            return
        try:
            code = TransformerManager().transform_cell(source)
        except Exception:  # IPython shows the error and runs none of it; this IPython may not be the kernel's
            self.lines.append(UNKNOWN_CODE)
            return
        self.depth += 1
        try:
            lines = code.splitlines()
            if prefilter and len(lines) == 1:
                info = LineInfo(lines[0])
                if not info.esc and info.the_rest[:1] not in ("=", ",") and self._automagic(info.ifun):
                    self.line_magic(info.ifun, info.the_rest)
                    return
            for name, args in _ipython_calls(code):
                if name == _CHDIR:  # os.chdir('..'): the shell commands after it run there
                    self.lines.append(f"cd {_path_word(args[0])}" if args else f"cd {RUN_TIME}")
                elif name == _SETENV:  # os.environ['HOME'] = h: the shell commands after it see it
                    self.lines.append(_setenv_line(args))
                elif name == _UNKNOWN:
                    self.lines.append(UNKNOWN_CODE)
                elif name == "run_line_magic" and len(args) == 2:
                    self.line_magic(args[0], args[1])
                elif name == "run_cell_magic" and len(args) == 3:
                    self.cell_magic(args[0], args[1], args[2])
                elif name not in ("run_line_magic", "run_cell_magic") and len(args) == 1:
                    self.shell(args[0], 1)
        finally:
            self.depth -= 1

    def _automagic(self, name: str) -> bool:
        if not name or "." in name or name in _PYTHON_NAMES:
            return False  # a builtin or a keyword is Python, as IPython's is_shadowed says
        return (name in self.names or name in _LINE_MAGICS or self._rehashed(name)
                or (self.other_kernel and name not in _ipython_line_magics()))

    def _rehashed(self, name: str) -> bool:
        """After ``%rehashx`` each program on PATH is an alias of the same name."""
        return self.rehashed and name.isidentifier() and shutil.which(name) is not None

    def shell(self, command: str, expansions: int) -> None:
        """A command line IPython expands ``expansions`` times before the shell runs it."""
        for form in _expanded(command, expansions):
            self.lines.append(_as_shell(form))

    def line_magic(self, name: str, line: str, hops: int = 0) -> None:
        entry = self.names.get(name)
        if entry is not None and entry[0] == "magic":
            if hops < _MAX_DEPTH:
                self.line_magic(entry[1], f"{entry[2]} {line}" if entry[2] else line, hops + 1)
            else:
                self.lines.append(UNKNOWN_CODE)
        elif entry is not None and entry[0] == "alias":
            for form in _expanded(line, 1):  # run_line_magic expands the line; system, the command
                command = _alias_command(entry[1], form)
                if command is not None:
                    self.shell(command, 1)
        elif name in _SHELL_LINE_MAGICS:
            self.shell(line, 2)
        elif name == "sc":  # %sc [-l] [-v] var=command
            self.shell(line.partition("=")[2], 2)
        elif name in ("cd", "pushd"):
            self.lines.append(self._cd(_expanded(line, 1)))
        elif name == "popd":
            self.lines.append("popd")
        elif name in ("env", "set_env"):
            self._export(name, line)
        elif name in ("pip", "uv"):
            self.shell(f"python -m {name} {line}", 2)
        elif name in ("conda", "mamba", "micromamba"):
            self.shell(f"{name} {line}", 2)
        elif name == "run":
            self._run(line)
        elif name in _FILE_MAGICS:
            for form in _expanded(line, 1):
                self._file_magic(name, form)
        elif name in _STATEMENT_MAGICS:
            for statement in _statements(line):
                self.cell(statement, prefilter=False)
        elif name in ("alias", "unalias", "alias_magic", "bookmark", "rehashx"):
            self._define(name, line)
        elif self._rehashed(name):
            self.shell(f"{name} {line}", 2)
        elif self.other_kernel and name not in _ipython_line_magics():
            for form in _expanded(line, 2):  # maybe an alias that kernel has
                self.lines.append(_as_shell(f'"${{IPYTHON_ALIAS}}" {form}'))

    def cell_magic(self, name: str, line: str, body: str, hops: int = 0) -> None:
        entry = self.cell_names.get(name)
        if entry is not None:
            if hops < _MAX_DEPTH:
                self.cell_magic(entry[1], f"{entry[2]} {line}" if entry[2] else line, body, hops + 1)
            else:
                self.lines.append(UNKNOWN_CODE)
        elif name in ("sx", "system", "!"):
            self.shell(body, 1)
        elif name in _SCRIPT_MAGICS:
            for form in _expanded(line, 1):
                self._script(form if name == "script" else f"{name} {form}", body)
        elif name in ("writefile", "file"):
            for form in _expanded(line, 1):
                self._writefile(form, body)
        elif name == "capture":
            self.cell(body)
        elif name in _STATEMENT_MAGICS:  # %%timeit SETUP: the setup statement runs too
            for statement in _statements(line):
                self.cell(statement, prefilter=False)
            self.cell(body, prefilter=False)

    def _script(self, line: str, body: str) -> None:
        """``%%script PROGRAM ARGS``: IPython's own option parser takes its options out; the
        program gets the body on its input."""
        try:
            words = shlex.split(line)
            _options, command = _script_parser().parse_known_args(words)
        except (ValueError, _OptionError):
            self.lines.append(UNKNOWN_CODE)
            return
        if not command:
            return
        name = interpreter_name(command)
        call = shell_call(command[1:], name) if name in POSIX_SHELLS else None
        if call is not None and call.mode == "stdin":  # %%script bash -O dotglob: the shell runs the body
            self.lines.append(call.prelude + body)
        else:
            self.lines.append(_as_shell(f"{shlex.join(command)} {_heredoc(body)}"))

    def _file_magic(self, name: str, line: str) -> None:
        """``%pycat F``, ``%load F``, ``%less F`` … show a file (``cat F``); ``%save F``,
        ``%history -f F``, ``%logstart F``, ``%notebook F`` write one (``touch F``)."""
        valued, writes = _FILE_MAGICS[name]
        try:
            words = shlex.split(line)
        except ValueError:
            self.lines.append(UNKNOWN_CODE)
            return
        operands, values, i = [], [], 0
        while i < len(words):
            word = words[i]
            if word[:1] == "-" and len(word) > 1:
                if word in valued:
                    values.append(words[i + 1] if i + 1 < len(words) else "")
                    i += 1
                elif word[:2] in valued:  # -fFILE
                    values.append(word[2:])
            else:
                operands.append(word)
            i += 1
        if name in ("history", "hist"):
            files = [v for v in values if v]  # -f FILE
        elif name == "logstart":
            files = operands[:1] or ["ipython_log.py"]
        elif name in ("save", "notebook"):
            files = operands[:1]
            if name == "save" and files and not files[0].endswith((".py", ".ipy")):
                files.append(files[0] + ".py")  # IPython adds the suffix; the name as given is checked too
        else:
            files = operands
        targets = [RUN_TIME if _VALUE in f else _path_word(f) for f in files if f]
        if targets:
            self.lines.append(f"{'touch' if writes else 'cat'} -- {' '.join(targets)}")

    def _writefile(self, line: str, body: str) -> None:
        words = line.split()
        append = any(w in ("-a", "--append") for w in words)
        rest = [w for w in words if w not in ("-a", "--append")]
        if not rest:
            return
        name = " ".join(rest)
        if re.match(r"^('.*'|\".*\")$", name):
            name = name[1:-1]
        target = RUN_TIME if _VALUE in name else _path_word(name)
        self.lines.append(f"cat {'>>' if append else '>'} {target} {_heredoc(body)}")

    def _cd(self, forms: list[str]) -> str:
        targets = set()
        for form in forms:
            text = form.strip()
            words = text.split(None, 1)
            while words and words[0] in ("-q", "-b", "-qb", "-bq"):
                if "b" in words[0]:
                    return f"cd {RUN_TIME}"  # a bookmark: kept in IPython's database
                words = words[1].split(None, 1) if len(words) > 1 else []
            text = " ".join(words)
            if text.startswith("-") or _VALUE in text or text in self.bookmarks:
                return f"cd {RUN_TIME}"  # the folder history (-, -2, --name) or a value
            targets.add(text)
        if len(targets) != 1:
            return f"cd {RUN_TIME}"
        target = targets.pop()
        return f"cd {_path_word(target)}" if target else "cd"

    def _export(self, name: str, line: str) -> None:
        """``%env NAME=VALUE``, ``%set_env NAME VALUE``: the commands after it see it."""
        for form in _expanded(line, 1):
            var, sep, value = form.partition("=" if "=" in form else " ")
            var, value = var.strip(), value.strip()
            if not sep or not var or re.search(r"\s", var):
                continue  # %env, %env NAME: they only show it; IPython refuses a name with a space
            if var.isidentifier():
                self.lines.append(_as_shell(f"export {var}={shlex.quote(value)}"))
            else:  # a name no shell line can export
                self.lines.append(UNKNOWN_CODE)

    def _run(self, line: str) -> None:
        """``%run [options] FILE``: an ``.ipy`` file or a notebook is IPython code
        (``ipython FILE`` runs it the same way); a ``.py`` file, a Python program (``python FILE``,
        ``-m MODULE``: ``python -m MODULE``), whose strings are read as a script's."""
        for form in _expanded(line, 1):
            try:
                words = shlex.split(form)
            except ValueError:
                self.lines.append(UNKNOWN_CODE)
                continue
            i = _after_run_options(words)
            if i is None:  # -m MODULE: Python's, as python -m runs it (its strings are read as a script's)
                module = next((w[w.index("m") + 1:] or (words[k + 1] if k + 1 < len(words) else "")
                               for k, w in enumerate(words) if w.startswith("-") and "m" in w), "")
                if module and _VALUE not in module:
                    self.lines.append(f"python -m {shlex.quote(module)}")
                return
            if i >= len(words):
                continue
            target = words[i]
            if _VALUE in target:
                self.lines.append(f"ipython {RUN_TIME}")
            elif target.lower().endswith((".ipy", ".ipynb")):
                self.lines.append(f"ipython {_path_word(target)}")
            else:  # a Python program: python FILE, whose strings are read (code_files.py)
                self.lines.append(f"python {_path_word(target)}")

    def _define(self, name: str, line: str) -> None:
        words = line.split(None, 1)
        if name == "rehashx":
            self.rehashed = True
        elif name == "bookmark" and words and not words[0].startswith("-"):
            self.bookmarks.add(words[0])
        elif name == "alias" and len(words) == 2:
            self.names[words[0]] = ("alias", words[1])
        elif name == "unalias" and words:
            self.names.pop(words[0], None)
        elif name == "alias_magic":
            try:
                args = _alias_magic_parser().parse_args(shlex.split(line))
            except (ValueError, _OptionError):
                return
            params = args.params or ""
            if len(params) > 1 and params[0] == params[-1] and params[0] in "'\"":
                params = params[1:-1]
            entry, name = ("magic", args.target.lstrip("%"), params), args.name.lstrip("%")
            if args.line or not args.cell:
                self.names[name] = entry
            if args.cell or not args.line:
                self.cell_names[name] = entry


# magics that show a file's text to the model or write a file: name -> (options that take a
# value, whether it writes); %pycat/%less/%more/%pfile page it, %load/%loadpy put it in the cell,
# %edit runs it; %save, %history -f, %logstart, %notebook write one
_FILE_MAGICS: dict[str, tuple[frozenset[str], bool]] = {
    **{name: (frozenset(), False) for name in ("pycat", "less", "more", "pfile", "page")},
    **{name: (frozenset({"-r", "-s", "-n"}), False) for name in ("load", "loadpy")},
    "edit": (frozenset({"-n"}), False),
    "save": (frozenset(), True), "notebook": (frozenset(), True), "logstart": (frozenset(), True),
    **{name: (frozenset({"-f"}), True) for name in ("history", "hist")},
}
# the line magics automagic may run that this module reads (others run no shell code)
_LINE_MAGICS = frozenset({*_SHELL_LINE_MAGICS, "sc", "cd", "pushd", "popd", "env", "set_env", "pip", "uv", "conda",
                          "mamba", "micromamba", "run", *_STATEMENT_MAGICS, "alias", "unalias", "alias_magic",
                          "bookmark", "rehashx", *_FILE_MAGICS})


@cache
def _ipython_line_magics() -> frozenset[str]:
    """The line magics IPython itself defines (each ``Magics`` class lists its own); made on first
    use, so that importing the Bash check does not import IPython."""
    import IPython.core.magics as magics

    found: set[str] = set()
    for name in dir(magics):  # (the module imports its classes lazily)
        value = getattr(magics, name, None)
        table = getattr(value, "magics", None)
        if isinstance(value, type) and isinstance(table, dict) and isinstance(table.get("line"), dict):
            found.update(table["line"])
    return frozenset(found)


class _OptionError(Exception):
    pass


class _Parser(argparse.ArgumentParser):
    def error(self, message: str):  # type: ignore[override]
        raise _OptionError(message)


@cache
def _script_parser() -> _Parser:
    # IPython's %%script options (ScriptMagics.shebang), parsed as it does: parse_known_args
    parser = _Parser(add_help=False)
    for option in ("--out", "--err", "--proc"):
        parser.add_argument(option)
    parser.add_argument("--bg", action="store_true")
    parser.add_argument("--no-raise-error", action="store_true")
    return parser


@cache
def _alias_magic_parser() -> _Parser:
    parser = _Parser(add_help=False)
    parser.add_argument("-l", "--line", action="store_true")
    parser.add_argument("-c", "--cell", action="store_true")
    parser.add_argument("-p", "--params")
    parser.add_argument("name")
    parser.add_argument("target")
    return parser




def _after_run_options(words: list[str]) -> int | None:
    """Where ``%run``'s file is among ``words``: its options are getopt's
    ``nidtN:b:pD:l:rs:T:em:G`` (None: ``-m``, a module)."""
    i = 0
    while i < len(words) and words[i].startswith("-") and words[i] != "-":
        option, i = words[i], i + 1
        if option == "--":
            break
        for at, letter in enumerate(option[1:], 2):
            if letter == "m":
                return None
            if letter in "NbDlsT":  # the rest of the word is the value, else the next word is
                i += 0 if option[at:] else 1
                break
    return i


def _heredoc(body: str) -> str:
    end = "IPYTHON_CELL_END"
    while end in body:
        end += "_"
    return f"<<'{end}'\n{body.rstrip(chr(10))}\n{end}"


def _path_word(text: str) -> str:
    """``text`` as one shell word; a leading ``~`` stays a home folder."""
    if text == "~" or text.startswith("~/"):
        return "~" + (shlex.quote(text[1:]) if len(text) > 1 else "")
    return shlex.quote(text)


def _alias_command(template: str, rest: str) -> str | None:
    """The command an IPython alias runs (``Alias.__call__``): ``%l`` is the rest of the line,
    each ``%s`` one word of it; None when IPython refuses it."""
    if "%l" in template:
        template, rest = template.replace("%l", rest), ""
    count = template.count("%s") - template.count("%%s")
    if count == 0:
        return f"{template.replace('%%s', '%s')} {rest}"
    words = rest.split(None, count)
    if len(words) < count:
        return None
    try:
        return f"{template % tuple(words[:count])} {' '.join(words[count:])}"
    except (TypeError, ValueError):
        return None


def _statements(line: str) -> list[str]:
    """The statement ``%timeit -n1 -r1 STMT`` times: the line from each place its options may end."""
    found = [line]
    for match in re.finditer(r"\S+\s*", line):
        if not (match.group().startswith("-") or match.group().strip().isdigit()) or len(found) > 6:
            break
        found.append(line[match.end():])
    return [s for s in dict.fromkeys(found) if s.strip()]


def _expanded(text: str, times: int) -> list[str]:
    """``text`` as written and as IPython's ``var_expand`` may make it, ``times`` times over
    (``{expr}`` and ``$name`` are values; ``{{``/``$$`` are escapes)."""
    forms = [text]
    for _ in range(times):
        expanded = _expand_once(forms[-1])
        if expanded is None or expanded in forms:
            break
        forms.append(expanded)
    return forms[:_MAX_FORMS]


def _expand_once(text: str) -> str | None:
    from IPython.utils.text import DollarFormatter

    if "{" not in text and "}" not in text and "$" not in text:
        return text
    try:
        parts = list(DollarFormatter().parse(text))
    except (ValueError, IndexError):
        return None  # IPython leaves a line it cannot format as it is
    return "".join(literal + (_VALUE if field is not None else "") for literal, field, _spec, _conv in parts)


def _as_shell(text: str) -> str:
    """``text`` with each Python value a word only known at run time, whatever quotes it is in
    (``'{x}'`` would otherwise read as the fixed word ``{x}``)."""
    return templated(text, _VALUE_PATTERN, lambda _m: RUN_TIME) if _VALUE in text else text


_CHDIR = "<chdir>"  # what _ipython_calls gives for Python code changing the folder
_SETENV = "<setenv>"  # … and for Python code setting a variable of the environment
_UNKNOWN = "<unknown>"  # … and for a call whose shell code or magic is only known at run time
# code that may run again and again: a chdir or %cd there goes one step further each round
_REPEATING = (ast.For, ast.AsyncFor, ast.While, ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ListComp,
              ast.SetComp, ast.DictComp, ast.GeneratorExp)


def _ipython_calls(code: str) -> list[tuple[str, list[str]]]:
    """``(method, string arguments)`` of each ``get_ipython().METHOD(...)`` call in ``code``, in
    the order they appear (a cell Python cannot compile runs nothing, but its lines are read
    one by one: this Python may not be the kernel's), and ``(_CHDIR, [folder])`` for Python
    changing the folder the later commands run in (``os.chdir('..')``; ``[]``: a folder only
    known at run time — a value, ``contextlib.chdir``, or a chdir or ``%cd`` that may run again
    and again, in a loop or a function)."""
    try:
        nodes: Iterable[tuple[ast.AST, bool]] = _marked(ast.parse(code))
    except (SyntaxError, ValueError):
        nodes = [(node, False) for line in code.splitlines() for node in _line_nodes(line)]
    calls = []
    for node, repeated in nodes:
        setting = _environ_setting(node)
        if setting is not None:
            for entry in setting:
                calls.append((node.lineno, node.col_offset, _SETENV, entry))  # type: ignore[attr-defined]
            continue
        if not isinstance(node, ast.Call):
            continue
        chdir = _chdir_call(node, repeated)
        if chdir is not None:
            calls.append((node.lineno, node.col_offset, _CHDIR, chdir))
            continue
        if not (isinstance(node.func, ast.Attribute) and node.func.attr in _CALLS):
            continue
        owner = node.func.value
        if not (isinstance(owner, ast.Call) and isinstance(owner.func, ast.Name) and owner.func.id == "get_ipython"):
            continue
        args = [a.value for a in node.args if isinstance(a, ast.Constant) and isinstance(a.value, str)]
        if len(args) == len(node.args) and not node.keywords:
            if repeated and node.func.attr == "run_line_magic" and args[:1] in (["cd"], ["pushd"]):
                calls.append((node.lineno, node.col_offset, _CHDIR, []))
                continue
            calls.append((node.lineno, node.col_offset, node.func.attr, args))
        elif node.func.attr == "run_line_magic" and args[:1] in (["cd"], ["pushd"]):  # ('cd', folder)
            calls.append((node.lineno, node.col_offset, _CHDIR, []))
        else:  # get_ipython().system(cmd): shell code only known at run time
            calls.append((node.lineno, node.col_offset, _UNKNOWN, []))
    calls.sort(key=lambda call: (call[0], call[1]))
    return [(name, args) for _line, _col, name, args in calls]


def _marked(tree: ast.AST) -> list[tuple[ast.AST, bool]]:
    """Every node of ``tree``, with whether it sits in code that may run again and again."""
    out: list[tuple[ast.AST, bool]] = []
    stack: list[tuple[ast.AST, bool]] = [(tree, False)]
    while stack:
        node, repeated = stack.pop()
        out.append((node, repeated))
        inside = repeated or isinstance(node, _REPEATING)
        stack.extend((child, inside) for child in ast.iter_child_nodes(node))
    return out


def _environ_setting(node: ast.AST) -> list[list[str]] | None:
    """``[[NAME, VALUE]]`` for each variable Python code sets in the environment the shell
    commands after it get: ``os.environ['X'] = 'v'``, ``os.environ.update(X='v')``,
    ``os.environ.setdefault``, ``os.putenv``, ``del os.environ['X']``, ``os.environ.pop``,
    ``os.unsetenv`` (``[NAME]``: a value only known at run time; ``[]``: a name only known at
    run time); None when ``node`` sets none."""
    def name_of(key: ast.AST) -> list[str]:
        return [key.value] if isinstance(key, ast.Constant) and isinstance(key.value, str) else []

    def value_of(value: ast.AST | None) -> list[str]:
        return [value.value] if isinstance(value, ast.Constant) and isinstance(value.value, str) else []

    def environ(target: ast.AST) -> bool:
        return isinstance(target, ast.Attribute) and target.attr in ("environ", "environb") or (
            isinstance(target, ast.Name) and target.id in ("environ", "environb"))

    if isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Delete)):
        targets = node.targets if isinstance(node, (ast.Assign, ast.Delete)) else [node.target]
        value = node.value if isinstance(node, (ast.Assign, ast.AnnAssign)) else None
        found = []
        for target in targets:
            if isinstance(target, ast.Subscript) and environ(target.value):
                key = name_of(target.slice)
                found.append(key + value_of(value) if key else [])
        return found or None
    if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Attribute):
        return None
    method, owner = node.func.attr, node.func.value
    if environ(owner) and method in ("update", "setdefault", "pop", "clear", "popitem", "__setitem__", "__delitem__"):
        if method == "update" and not node.args:
            return [[k.arg] + value_of(k.value) if k.arg else [] for k in node.keywords] or None
        if method in ("setdefault", "pop", "__setitem__", "__delitem__") and node.args and not node.keywords:
            key = name_of(node.args[0])
            return [key + value_of(node.args[1] if len(node.args) > 1 else None) if key else []]
        return [[]]  # update(mapping), clear(): names only known at run time
    if isinstance(owner, ast.Name) and owner.id == "os" and method in ("putenv", "unsetenv") and node.args:
        key = name_of(node.args[0])
        return [key + value_of(node.args[1] if len(node.args) > 1 else None) if key else []]
    return None


def _setenv_line(entry: list[str]) -> str:
    """The shell line for one ``_environ_setting`` entry."""
    if not entry:
        return f"export {RUN_TIME}={RUN_TIME}"
    name = entry[0]
    if not name.isidentifier():
        return UNKNOWN_CODE
    return f"export {name}={shlex.quote(entry[1]) if len(entry) > 1 else RUN_TIME}"


def _chdir_call(node: ast.Call, repeated: bool) -> list[str] | None:
    """``[folder]`` for ``os.chdir('FOLDER')`` (or ``chdir`` imported) run once, ``[]`` for
    another change of folder (``os.chdir(path)``, ``os.fchdir``, ``contextlib.chdir``,
    ``monkeypatch.chdir``, a chdir in a loop), None when ``node`` changes no folder."""
    func = node.func
    name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else None
    if name not in ("chdir", "fchdir"):
        return None
    owner = func.value if isinstance(func, ast.Attribute) else None
    plain = name == "chdir" and (owner is None or isinstance(owner, ast.Name) and owner.id == "os")
    if (plain and not repeated and len(node.args) == 1 and not node.keywords and isinstance(node.args[0], ast.Constant)
            and isinstance(node.args[0].value, str) and node.args[0].value):
        return [node.args[0].value]
    return []


def _line_nodes(line: str) -> list[ast.AST]:
    found: list[ast.AST] = []
    for match in re.finditer(r"get_ipython\(\)\.", line):
        try:
            found.extend(ast.walk(ast.parse(line[match.start():].strip())))
        except (SyntaxError, ValueError):
            continue
    return found


def cells_shell_check(cells: list[tuple[str, str]], context: ToolUseContext, shell: Any = None,
                      other_kernel: bool = False, kernel_cwd: str | None = "",
                      reader: IPythonReader | None = None) -> PermissionResult | None:
    """A deny or an ask no mode may skip for the shell code of these ``(cell id, source)`` code
    cells, as the Bash permission check gives it; None when it has neither.  Each cell is checked,
    after the folder and environment the cells before it leave (``%cd sub``, then ``!cat .env``),
    then all of them as one script (``%%writefile run.sh`` in one, ``!bash run.sh`` in the next).

    ``kernel_cwd`` is the folder the kernel runs the cells in: ``""`` for the session's own
    folder, None when it cannot be known (another notebook's kernel may have ``%cd``'d anywhere).
    ``reader``: instead of ``shell`` and ``other_kernel``, a reader made of them earlier."""
    from .bash import check_bash_permission

    reader = IPythonReader(shell, other_kernel) if reader is None else reader.fresh()
    if kernel_cwd is None:
        reader.lines.append(f"cd {RUN_TIME}")
    elif kernel_cwd and Path(kernel_cwd) != Path(context.cwd):
        reader.lines.append(f"cd {shlex.quote(kernel_cwd)}")
    first = len(reader.lines)
    for cell_id, source in cells:
        state = [line for line in reader.lines if line == "cd" or line.startswith(_STATE)]
        start = len(reader.lines)
        reader.cell(source)
        code = "\n".join(reader.lines[start:])
        if code.strip():
            verdict = _verdict(check_bash_permission("\n".join([*state, code]), context), f"cell {cell_id}")
            if verdict is not None:
                return verdict
    if len(cells) > 1 and "".join(reader.lines[first:]).strip():
        return _verdict(check_bash_permission(reader.code(), context), "the cells")
    return None


def cells_strings_check(cells: list[tuple[str, str]], context: ToolUseContext,
                        cwds: Iterable[str | os.PathLike[str]]) -> PermissionResult | None:
    """An ask no mode may skip when the code of a ``(cell id, source)`` cell names, in a string,
    a protected path or a file a Read deny rule (or, for a path, an Edit deny or ask rule)
    covers — ``open('.env').read()``, ``Path('.git/config').write_text(…)`` — from one of the
    folders ``cwds`` it may run in, as ``python -c`` with that code asks in Bash
    (``bash_arguments.code_strings_reason``); None when none does.  A file named another way
    (built at run time) is not seen: the cell's text is shown when asking."""
    from .bash import python_command_reason, string_command_reason
    from .bash_arguments import code_strings_reason
    from .bash_verdict import Verdict
    from .compiled import compiled_rules
    from .inline_code import code_literals
    from .python_folders import folder_calls_reason, listed_folders, walked_folders
    from .python_strings import folded_strings
    from .verdicts import RULE, SAFETY, sticky_ask

    rules = compiled_rules(context.permission_context)
    scope = rules.scope_of(context.cwd)
    guarded = scope if scope.read_deny or scope.edit_rules else None
    folders = list(dict.fromkeys(os.path.realpath(folder) for folder in cwds))
    v = Verdict()
    memo: dict[tuple[object, ...], object] = {}
    for cell_id, source in cells:
        # os.chdir('/etc'), then open('passwd', 'a'): its names may be read from there too (and in the cells after)
        folders = list(dict.fromkeys([*folders, *_moved_to(source, folders)]))
        literals = code_literals([source], bare=False)  # Python: a command runs from a string
        literals += [text for text in folded_strings(source) if text not in literals]  # '.e' + 'nv'
        for folder in folders if literals or walked_folders(source) or listed_folders(source) else ():
            why = code_strings_reason(literals, folder, guarded, v, scope.edit_rules) if literals else None
            if why is None:  # shutil.make_archive('/tmp/a', 'zip', '.'), shutil.rmtree('.')
                why = folder_calls_reason([source], folder, scope)
            if why is not None:
                return sticky_ask(f"Cell {cell_id}'s code {why}; approve it only if you have read the cell.",
                                  SAFETY, f"cell {cell_id} {why}")
        # os.system("rm -rf x"), subprocess.run(["rm", "x"]): a command a deny or ask rule names
        why = string_command_reason(code_literals([source], bare=False, words=False), context,
                                    f"a string of cell {cell_id}'s code") if literals else None
        if why is None and (rules.rule_programs or rules.rule_program_starts):
            why = python_command_reason([source], rules, f"cell {cell_id}'s code", folders)  # os.system('r' + 'm x')
        if why is None and (rules.rule_programs or rules.rule_program_starts or scope.read_deny):
            why = _imported_reason(source, folders, rules, scope, v, memo)  # import helpers: helpers.py's strings
        if why is not None:
            return sticky_ask(f"Cell {cell_id}'s code {why}; approve it only if you have read the cell.",
                              RULE, f"cell {cell_id}: {why}")
    return None


def _moved_to(source: str, folders: list[str]) -> list[str]:
    """The real folders a cell's fixed ``os.chdir('X')`` and ``%cd X`` move to, from ``folders``."""
    from IPython.core.inputtransformer2 import TransformerManager

    if "chdir" not in source and "cd" not in source:
        return []
    try:
        code = TransformerManager().transform_cell(source)
    except Exception:
        return []
    moved = []
    for name, args in _ipython_calls(code):
        target = args[0] if name == _CHDIR and args else None
        if name == "run_line_magic" and len(args) == 2 and args[0] in ("cd", "pushd"):
            text = args[1].strip()
            target = text if text and text[0] not in "-$" and "{" not in text else None
        if target:
            moved += [os.path.realpath(os.path.join(folder, os.path.expanduser(target))) for folder in folders]
    return moved


def _imported_reason(source: str, folders: list[str], rules: CompiledRules, scope: PathScope, v: Verdict,
                     memo: dict[tuple[object, ...], object]) -> str | None:
    """Why a string of a project module the cell imports (from the kernel's folders) asks: a
    command a deny or ask rule names, or a file a Read deny rule covers."""
    from .bash import code_files_reason
    from .code_imports import loaded_by_code

    for folder in folders:
        found = code_files_reason({path: folder for path in loaded_by_code(source, folder, memo)}, rules, scope, v)
        if found is not None:
            return f"imports {found[1]}, {found[2]}"
    return None


_STATE = ("cd ", "popd", "export ")  # what the reader writes for %cd, %pushd, %popd, %env


def _verdict(verdict: PermissionResult, where: str) -> PermissionResult | None:
    if isinstance(verdict, PermissionDeny):
        return PermissionDeny(f"{verdict.message.rstrip('.')} (shell code in {where}).")
    if isinstance(verdict, PermissionAsk) and is_sticky(verdict):  # the same reason: still sticky
        return new_ask(f"{where[0].upper()}{where[1:]} runs shell code: {verdict.message}", (), verdict.reason)
    return None


__all__ = ["RUN_TIME", "UNKNOWN_CODE", "IPythonReader", "cell_shell_code", "cells_shell_check", "cells_strings_check", "notebook_shell_code"]
