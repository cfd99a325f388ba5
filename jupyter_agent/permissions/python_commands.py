"""The commands Python code runs, as shell lines: ``os.system('r' + 'm x')`` runs ``rm x``.

A string literal of ``python -c CODE`` that reads as a command a deny or ask rule names asks
(``bash.py``), but a command the code *builds* was not seen: ``os.system('r' + 'm x')``,
``subprocess.run([p, 'x'])`` with ``p = 'mr'[::-1]``, and ``exec(bytes.fromhex('…').decode())``
ran ``rm`` under ``Bash(rm:*)`` denied in bypassPermissions.  Here the code is read with ``ast``:
each call that runs a program (``os.system``/``popen``, ``subprocess.*``, ``os.exec*``/``spawn*``/
``posix_spawn``, ``pty.spawn``, ``asyncio.create_subprocess_*``, a ``.system(…)`` of a C library)
becomes the shell line it runs, its values computed from the code's literals
(``python_strings``).  A value only known at run time becomes a quoted variable, which the Bash
analysis reads as such: ``subprocess.run(['sh', '-c', cmd])`` is ``sh -c "$…"``, a program chosen
at run time.  A shell string with any part only known at run time, and ``exec``/``eval``/
``compile`` of code only known at run time, are ``None``: code only known at run time.

Imports and their aliases are followed (``import subprocess as sp``, ``from os import system as
s``, ``__import__('os')``, ``getattr(os, 'sys' + 'tem')``, ``s = os.system``); a function reached
another way (through a dict, a lambda, a class) is not seen, though the strings it gets still are.
"""

from __future__ import annotations

import ast
import shlex
from functools import lru_cache

from .python_folders import python_tree
from .python_strings import _Folder, _NotKnown

# the shell runs the whole (first) argument
_SHELL = frozenset({"os.system", "os.popen", "posix.system", "posix.popen", "subprocess.getoutput",
                    "subprocess.getstatusoutput", "commands.getoutput", "commands.getstatusoutput",
                    "asyncio.create_subprocess_shell", "platform.popen"})
# an argument list (or a program), or a shell line with shell=True
_PROCESS = frozenset({"subprocess.run", "subprocess.call", "subprocess.check_call", "subprocess.check_output",
                      "subprocess.Popen"})
# function -> (the position of the program, whether the arguments follow as a list or one by one)
_EXEC: dict[str, tuple[int, str]] = {
    **{f"os.exec{s}": (0, "each") for s in ("l", "le", "lp", "lpe")},
    **{f"os.exec{s}": (0, "list") for s in ("v", "ve", "vp", "vpe")},
    **{f"os.spawn{s}": (1, "each") for s in ("l", "le", "lp", "lpe")},
    **{f"os.spawn{s}": (1, "list") for s in ("v", "ve", "vp", "vpe")},
    "os.posix_spawn": (0, "list"), "os.posix_spawnp": (0, "list"),
    "asyncio.create_subprocess_exec": (0, "rest"), "pty.spawn": (0, "argv"),
}
_LIBRARIES = frozenset({"ctypes.CDLL", "ctypes.PyDLL", "ctypes.cdll.LoadLibrary", "ctypes.pydll.LoadLibrary",
                        "ctypes.CDLL.__init__", "_ctypes.dlopen", "ctypes.WinDLL", "ctypes.OleDLL"})
_PEXPECT = frozenset({"pexpect.run", "pexpect.runu", "pexpect.spawn", "pexpect.spawnu", "pexpect.pty_spawn.spawn",
                      "pexpect.popen_spawn.PopenSpawn"})
# modules whose attributes are programs: sh.rm('x'), from plumbum.cmd import rm, plumbum.local['rm']
_PROGRAM_MODULES = ("sh.", "plumbum.cmd.", "plumbum.local.", "sh.contrib.")
# methods of an object this does not know (IPython's shell, a C library) that run a shell line
_IPYTHON_SHELL = frozenset({"system", "getoutput", "system_raw", "system_piped"})
_IPYTHON_MAGICS = frozenset({"run_line_magic", "run_cell_magic", "magic", "run_cell"})
_SHELL_MAGICS = frozenset({"sx", "system", "sc", "bash", "sh", "script", "!"})
_CODE = frozenset({"exec", "eval", "compile", "builtins.exec", "builtins.eval", "builtins.compile"})
# modules whose functions run programs or code: getattr(os, name) with a name only known at run time
_RUNNING_MODULES = frozenset({"os", "posix", "subprocess", "pty", "asyncio", "builtins", "commands", "ctypes"})
_IMPORTERS = frozenset({"__import__", "importlib.import_module", "builtins.__import__"})
_BUILTINS = frozenset({"exec", "eval", "compile", "__import__", "getattr", "vars"})
_OPENERS = frozenset({"io.open", "pathlib.Path", "builtins.open"})
_OPENS = ("open", "Path")
_RUN_TIME = object()  # a function only known at run time, of a module that runs programs
_MAX_DEPTH = 3  # exec('exec(…)'): code in code, this deep
_MAX_COMMANDS = 64


class CodeFile(str):
    """A file whose text the code runs as code: ``exec(open('steps.txt').read())``."""


@lru_cache(maxsize=64)
def python_commands(code: str) -> tuple[str | None, ...]:
    """The shell line each call of ``code`` that runs a program runs (``"$…"`` for a value only
    known at run time), None for one that runs a command or code only known at run time, a
    ``CodeFile`` for a file it runs as code; ``()`` when the code runs none (or is not Python)."""
    found: list[str | None] = []
    _read(code, found, 0)
    return tuple(found[:_MAX_COMMANDS])


def _read(code: str, found: list[str | None], depth: int) -> None:
    tree = python_tree(code)
    if tree is None:
        return
    reader = _Reader(tree)
    called = {id(node.func) for node in ast.walk(tree) if isinstance(node, ast.Call)}
    bound = {id(value) for value in reader.nodes.values()}  # s = os.system: its calls are read as such
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            reader.call(node, found, depth)
        elif (isinstance(node, (ast.Attribute, ast.Name)) and isinstance(node.ctx, ast.Load)
              and id(node) not in called and id(node) not in bound and reader.runs(node)):
            found.append(None)  # map(os.system, commands), Thread(target=os.system, …): run at run time
        if len(found) >= _MAX_COMMANDS:
            return


class _Reader:
    def __init__(self, tree: ast.Module) -> None:
        self.folder = _Folder(tree)
        self.aliases: dict[str, object] = {}  # name -> the dotted function or module it stands for
        self.nodes: dict[str, ast.expr] = {}  # a name bound once, by NAME = expr
        counts: dict[str, int] = {}  # how many times each name is bound, any way
        star: list[str] = []
        for node in ast.walk(tree):
            if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
                counts[node.id] = counts.get(node.id, 0) + (2 if isinstance(node.ctx, ast.Del) else 1)
            elif isinstance(node, ast.arg):
                counts[node.arg] = counts.get(node.arg, 0) + 2
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                counts[node.name] = counts.get(node.name, 0) + 2
            elif isinstance(node, (ast.AugAssign, ast.AnnAssign)) and isinstance(node.target, ast.Name):
                counts[node.target.id] = counts.get(node.target.id, 0) + 2  # (its Name counts too)
            elif isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.asname:
                        self.aliases[alias.asname] = alias.name
                    else:  # import os.path binds os
                        self.aliases[alias.name.partition(".")[0]] = alias.name.partition(".")[0]
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                for alias in node.names:
                    if alias.name == "*":
                        star.append(node.module)
                    else:
                        self.aliases[alias.asname or alias.name] = f"{node.module}.{alias.name}"
            elif isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
                self.nodes[node.targets[0].id] = node.value
        for module in star:  # from subprocess import *: run, Popen … are subprocess's
            for dotted in (*_SHELL, *_PROCESS, *_EXEC):
                head, _, name = dotted.rpartition(".")
                if head == module:
                    self.aliases.setdefault(name, dotted)
        for name, count in counts.items():
            if count != 1:
                self.nodes.pop(name, None)
        for name, value in list(self.nodes.items()):  # s = os.system; sp = subprocess
            if name not in self.aliases:
                target = self._function(value, set())
                if isinstance(target, str) or target is _RUN_TIME:
                    self.aliases[name] = target

    # what a function expression stands for: a dotted name, _RUN_TIME, or None (not known)
    def _function(self, node: ast.expr, seen: set[str]) -> object:
        if isinstance(node, ast.Name):
            if node.id in self.aliases:
                return self.aliases[node.id]
            if node.id in self.nodes and node.id not in seen:
                return self._function(self.nodes[node.id], seen | {node.id})
            return node.id if node.id in _BUILTINS else None
        if isinstance(node, ast.Attribute):
            base = self._function(node.value, seen)
            if node.attr == "__dict__" or base is _RUN_TIME:
                return base
            return f"{base}.{node.attr}" if isinstance(base, str) else None
        if isinstance(node, ast.Call):
            called = self._function(node.func, seen)
            if called in _IMPORTERS and node.args:
                name = self._text(node.args[0])
                return name if name is not None else _RUN_TIME
            if called == "getattr" and len(node.args) >= 2:
                return self._member(self._function(node.args[0], seen), node.args[1])
            if called == "vars" and len(node.args) == 1:  # vars(os)['system']
                return self._function(node.args[0], seen)
            return None
        if isinstance(node, ast.Subscript):  # os.__dict__['system'], __builtins__['exec']
            return self._member(self._function(node.value, seen), node.slice)
        return None

    def _member(self, base: object, name: ast.expr) -> object:
        if base is _RUN_TIME:
            return _RUN_TIME
        if not isinstance(base, str):
            return None
        text = self._text(name)
        if text is not None:
            return f"{base}.{text}"
        return _RUN_TIME if base.partition(".")[0] in _RUNNING_MODULES else None

    def _value(self, node: ast.expr) -> object:
        try:
            return self.folder.fold(node)
        except (_NotKnown, RecursionError, OverflowError, MemoryError):
            return None

    def _text(self, node: ast.expr) -> str | None:
        if isinstance(node, (ast.Attribute, ast.Call)):  # sys.executable, shutil.which('git')
            program = self._program(node)
            if program is not None:
                return program
        value = self._value(node)
        if isinstance(value, bytes):
            return value.decode("utf-8", "replace")
        return value if isinstance(value, str) else None

    def _program(self, node: ast.Attribute | ast.Call) -> str | None:
        """The program a value names: ``sys.executable`` is python3, ``shutil.which('git')`` git."""
        if isinstance(node, ast.Attribute):
            return "python3" if self._function(node, set()) == "sys.executable" else None
        if self._function(node.func, set()) == "shutil.which" and node.args and len(node.args) == 1:
            value = self._value(node.args[0])
            return value if isinstance(value, str) else None
        return None

    def _items(self, node: ast.expr, seen: frozenset[str] = frozenset()) -> list[str | None] | None:
        """The words of an argument list (None for each only known at run time), or None when even
        the list is not known."""
        if isinstance(node, ast.Name) and node.id in self.nodes and node.id not in seen:
            return self._items(self.nodes[node.id], seen | {node.id})
        if isinstance(node, (ast.List, ast.Tuple)):
            words: list[str | None] = []
            for element in node.elts:
                if isinstance(element, ast.Starred):
                    inner = self._items(element.value, seen)
                    if inner is None:
                        words.append(None)
                        if not words[1:]:  # [*cmd, 'x']: the program is not known
                            return None
                    else:
                        words.extend(inner)
                else:
                    words.append(self._text(element))
            return words
        value = self._value(node)
        if isinstance(value, list) and all(isinstance(v, (str, bytes)) for v in value):
            return [v.decode("utf-8", "replace") if isinstance(v, bytes) else v for v in value]
        if isinstance(value, (str, bytes)):  # a single program
            return [value.decode("utf-8", "replace") if isinstance(value, bytes) else value]
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "split":
            text = self._text(node.func.value)  # 'rm x'.split(), shlex.split('rm x')
            if text is not None and not node.args:
                return [*text.split()]
        if isinstance(node, ast.Call) and self._function(node.func, set()) == "shlex.split" and node.args:
            text = self._text(node.args[0])
            if text is not None:
                try:
                    return [*shlex.split(text)]
                except ValueError:
                    return None
        return None

    def call(self, node: ast.Call, found: list[str | None], depth: int) -> None:
        function = self._function(node.func, set())
        if function is _RUN_TIME:  # getattr(os, name)(…)
            found.append(None)
            return
        if not isinstance(function, str):
            if isinstance(node.func, ast.Call) and self._function(node.func.func, set()) == "sh.Command":
                program = self._text(node.func.args[0]) if node.func.args else None  # sh.Command('rm')('x')
                self._line([program, *self._call_words(node)], found)
                return
            attribute = node.func.attr if isinstance(node.func, ast.Attribute) else None
            if attribute in ("dlopen", "LoadLibrary"):  # cffi.FFI().dlopen('./x.so'): a library it loads
                self._library(node, found)
                return
            if attribute in _IPYTHON_SHELL and len(node.args) == 1:
                function = "os.system"  # ctypes.CDLL(None).system(b'rm x'), get_ipython().system/getoutput(…)
            elif attribute in _IPYTHON_MAGICS:
                self._magic(node, attribute, found, depth)
                return
            else:
                return
        if function.startswith("builtins.") and function[9:] in ("exec", "eval", "compile"):
            function = function[9:]
        if function in _CODE:
            self._code(node, found, depth)
        elif function in _SHELL:
            self._shell(_argument(node, 0, ("cmd", "command")), found)
        elif function in _PROCESS:
            self._process(node, found)
        elif function in _EXEC:
            position, shape = _EXEC[function]
            self._exec(node, position, shape, found)
        elif function in _LIBRARIES:
            self._library(node, found)
        elif function in _PEXPECT:  # pexpect.run('rm x') splits the line itself; spawn('rm', ['x'])
            args = _argument(node, 1, ("args",))
            if args is None:
                self._shell(_argument(node, 0, ("command",)), found)
            else:
                first = _argument(node, 0, ("command",))
                program = self._text(first) if first is not None and first is not _UNKNOWN else None
                self._line([program, *(self._items(args) or [None])] if args is not _UNKNOWN else None, found)
        elif function.startswith(_PROGRAM_MODULES):  # sh.rm('x'), sh.git.log(), plumbum.cmd.rm('x'), local['rm']('x')
            parts = function.split(".")[2 if function.startswith(("plumbum.", "sh.contrib.")) else 1:]
            if parts and not parts[0][:1].isupper():  # (sh.Command, sh.ErrorReturnCode: not programs)
                self._line([*parts, *self._call_words(node)], found)

    def runs(self, node: ast.expr) -> bool:
        """Whether ``node`` names a function that runs a program or code (as a value, not called)."""
        function = self._function(node, set())
        if not isinstance(function, str):
            return False
        function = function[9:] if function.startswith("builtins.") else function
        return (function in _SHELL or function in _PROCESS or function in _EXEC or function in _PEXPECT
                or function in ("exec", "eval"))

    def _library(self, node: ast.Call, found: list[str | None]) -> None:
        """``ctypes.CDLL('./x.so')``: loading a library runs its compiled code, only known at run
        time — unless it is the system's, named without a folder (``CDLL('libc.so.6')``,
        ``CDLL(None)``, ``CDLL(find_library('c'))``)."""
        argument = _argument(node, 0, ("name",))
        if argument is None or (isinstance(argument, ast.Constant) and argument.value is None):
            return
        if isinstance(argument, ast.Call) and self._function(argument.func, set()) == "ctypes.util.find_library":
            return
        text = self._text(argument) if argument is not _UNKNOWN else None
        if text is None or "/" in text:
            found.append(None)

    def _call_words(self, node: ast.Call) -> list[str | None]:
        """A call's positional arguments as words (``*args``: one only known at run time)."""
        return [None if isinstance(a, ast.Starred) else self._text(a) for a in node.args]

    def _magic(self, node: ast.Call, attribute: str, found: list[str | None], depth: int) -> None:
        """IPython's ``run_line_magic('sx', line)``, ``run_cell_magic('bash', '', cell)``,
        ``run_cell(code)``: a shell line or code only known at run time when not fixed."""
        texts = [self._text(a) for a in node.args]
        if attribute == "run_cell":  # its !lines run in a shell, the rest is Python
            code = texts[0] if texts else None
            if code is None:
                found.append(None)
                return
            found.extend(line.strip()[1:].lstrip("!") for line in code.splitlines() if line.strip().startswith("!"))
            if depth < _MAX_DEPTH:
                _read(code, found, depth + 1)
            return
        name = (texts[0] or "").lstrip("%") if texts else ""
        if attribute == "magic" and texts and texts[0] is not None:
            name, _, rest = texts[0].lstrip("%").partition(" ")
            texts = [name, rest]
        if name in _SHELL_MAGICS:
            found.append(texts[-1] if len(texts) >= 2 else None)
        elif not name or texts[0] is None:
            found.append(None)  # a magic only known at run time

    def _code(self, node: ast.Call, found: list[str | None], depth: int) -> None:
        source = _argument(node, 0, ("source", "object"))
        if source is None:
            return
        if source is _UNKNOWN:
            found.append(None)
            return
        if isinstance(source, ast.Call) and self._function(source.func, set()) == "compile":
            return  # exec(compile(…)): the compile call is read itself
        if isinstance(source, ast.Name) and isinstance(self.nodes.get(source.id), ast.Call):
            bound = self.nodes[source.id]
            assert isinstance(bound, ast.Call)
            if self._function(bound.func, set()) == "compile":
                return
        named = self._named_file(source)
        if named is not None:  # exec(open('train.py').read()): the file's code (read by the caller)
            found.append(CodeFile(named))
            return
        text = self._text(source)
        if text is None:
            found.append(None)
        elif depth < _MAX_DEPTH:
            _read(text, found, depth + 1)  # the code it runs runs commands too

    def _shell(self, argument: ast.expr | None, found: list[str | None]) -> None:
        if argument is not None:
            found.append(None if argument is _UNKNOWN else self._text(argument))

    def _process(self, node: ast.Call, found: list[str | None]) -> None:
        argument = _argument(node, 0, ("args",))
        if argument is _UNKNOWN or argument is None:
            found.append(None)
            return
        shell = next((k.value for k in node.keywords if k.arg == "shell"), None)
        if shell is not None and not (isinstance(shell, ast.Constant) and not shell.value):
            # shell=True: a string is the line; of a list, the first word is ('sh', '-c', line, …)
            if isinstance(self._value(argument), (str, bytes)):
                found.append(self._text(argument))
            else:
                items = self._items(argument)
                found.append(items[0] if items else None)
            return
        items = self._items(argument)
        executable = next((k.value for k in node.keywords if k.arg == "executable"), None)
        if executable is not None:  # executable=: the program run; the list's first word is only its name
            items = [self._text(executable), *(items[1:] if items else [None])]
        self._line(items, found)

    def _exec(self, node: ast.Call, position: int, shape: str, found: list[str | None]) -> None:
        args = node.args
        if len(args) <= position or any(isinstance(a, ast.Starred) for a in args[:position + 1]):
            found.append(None)
            return
        program = self._text(args[position])
        rest = args[position + 1:]
        items: list[str | None] | None
        if shape == "argv":  # pty.spawn('rm') or pty.spawn(['rm', 'x'])
            items = self._items(args[position])
        elif shape == "rest":  # create_subprocess_exec('rm', 'x')
            items = [program, *(None if isinstance(a, ast.Starred) else self._text(a) for a in rest)]
        elif shape == "each":  # os.execlp('rm', 'rm', 'x'): the second is the program's own name
            if _name_of(node).endswith("le"):
                rest = rest[:-1]  # execle(path, arg0, …, env)
            items = [program, *(None if isinstance(a, ast.Starred) else self._text(a) for a in rest[1:])]
        else:  # os.execv(path, argv): the first of argv is the program's own name
            argv = self._items(rest[0]) if rest and not isinstance(rest[0], ast.Starred) else None
            items = [program, *(argv[1:] if argv else [None])]
        self._line(items, found)

    def _named_file(self, node: ast.expr) -> str | None:
        """The file whose text ``node`` is, when the code names it: ``open('x.py').read()``,
        ``Path('x.py').read_text()``."""
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                and node.func.attr in ("read", "read_text", "read_bytes") and isinstance(node.func.value, ast.Call)):
            return None
        opened = node.func.value
        if not opened.args or not (self._function(opened.func, set()) in _OPENERS or _name_of(opened) in _OPENS):
            return None
        return self._text(opened.args[0])

    @staticmethod
    def _line(items: list[str | None] | None, found: list[str | None]) -> None:
        if not items:
            found.append(None)
            return
        words = [shlex.quote(word) if word is not None else f'"$__python_value_{n}"' for n, word in enumerate(items)]
        found.append(" ".join(words))


_UNKNOWN = ast.Name(id="")  # an argument passed as f(*args) or f(**kwargs): only known at run time


def _argument(node: ast.Call, position: int, names: tuple[str, ...]) -> ast.expr | None:
    """The argument at ``position`` or of one of ``names``; ``_UNKNOWN`` when it may be in a
    ``*args`` or ``**kwargs``; None when there is none."""
    if any(isinstance(a, ast.Starred) for a in node.args[:position + 1]):
        return _UNKNOWN
    if len(node.args) > position:
        return node.args[position]
    named = next((k.value for k in node.keywords if k.arg in names), None)
    if named is None and any(k.arg is None for k in node.keywords):
        return _UNKNOWN
    return named


def _name_of(node: ast.Call) -> str:
    func = node.func
    return func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""


__all__ = ["CodeFile", "python_commands"]
