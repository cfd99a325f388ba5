"""The commands other interpreters' command-line code runs: ``node -e``, ``perl -e``, ``ruby -e``,
``php -r``, ``Rscript -e``, ``lua -e``, ``julia -e``, ``expect -c`` and Tcl on standard input.

A string literal of such code that reads as a command a deny or ask rule names asks
(``bash.py``), but a command the code *builds* was not seen: in bypassPermissions under
``Bash(rm:*)``, ``node -e 'require("child_process").execSync("r"+"m x")'``, ``perl -e 'system("r"."m
x")'``, ``ruby -e 'system(File.read("cmd.txt"))'``, ``php -r``, ``Rscript -e 'system(paste0("r","m
x"))'``, ``lua -e 'os.execute("r".."m x")'`` and ``expect -c 'spawn rm x'`` each removed ``x``.
These languages are read with regular expressions, not parsed, so nothing is computed: each call
that runs a command (``execSync``, ``spawn``, ``system``, ``exec``, ``popen``, ``os.execute``,
``system2``, ``run(`…`)``…) becomes the shell line it runs when its command is a fixed string (or
a list of them: a program and its arguments, an argument that is not fixed a quoted variable),
and None — a command only known at run time — when it is anything else.  So is code the code
runs from a value that is not a fixed string (``eval``, ``new Function``, ``require`` of a
computed name, perl's ``eval $x``, R's ``eval(parse(text = x))``, lua's ``load``).
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass
from functools import lru_cache


@dataclass(frozen=True)
class _Language:
    shell: re.Pattern[str]  # its first argument is a shell line (with more: perl's system LIST, a program and its arguments)
    exec: re.Pattern[str] | None  # its first argument is a program, its second a list of arguments
    code: re.Pattern[str] | None  # its first argument is code the language runs
    literal: re.Pattern[str]  # a fixed string, its text in group "text"
    needs: tuple[str, ...] = ()  # the calls count only when the code names one of these (node's child_process)
    lists: str = "[]"  # how an array literal opens and closes
    listed: bool = False  # a shell call given more than one argument runs a program and its arguments (system LIST)


_SINGLE = r"'(?P<text>[^'\\]*)'"


def _literal(double_excludes: str, extra: str = "") -> re.Pattern[str]:
    """A quoted string with no escape (``"r\\x6d"`` is ``rm`` in most of these languages) whose
    double-quoted form holds none of ``double_excludes`` (perl's ``"$x"`` interpolates)."""
    double = rf'"(?P<text2>[^"\\{double_excludes}]*)"'
    return re.compile(rf"\s*(?:{_SINGLE}|{double}{extra})\s*$", re.S)


_CALL = r"(?<![\w$.])"
_LANGUAGES: dict[str, _Language] = {
    "js": _Language(
        shell=re.compile(r"(?<![\w$])(?:execSync|exec)\s*\("),  # (cp.exec(…), require("child_process").exec(…))
        exec=re.compile(r"(?<![\w$])(?:spawnSync|spawn|execFileSync|execFile|fork)\s*\("),
        code=re.compile(r"(?<![\w$.])(?:eval|Function|require|import|(?:vm\.)?run(?:In\w*Context|InThisContext))\s*\("
                        r"|\bnew\s+Function\s*\(|\bprocess\.(?:binding|dlopen)\s*\("),
        literal=_literal("", r"|`(?P<text3>[^`$\\]*)`"),
        needs=("child_process",)),
    "perl": _Language(
        shell=re.compile(_CALL + r"(?:system|exec)\b\s*\(?"),
        exec=None,
        code=re.compile(_CALL + r"(?:eval|do|require)\b\s*\(?(?!\s*\{)"),
        literal=_literal("$@`"), lists="()", listed=True),
    "ruby": _Language(
        shell=re.compile(r"(?<![\w$])(?:Kernel\.|Process\.|IO\.|Open3\.)?(?:system|exec|spawn|popen|popen3|capture2e?|"
                         r"capture3)\b\s*\(?"),
        exec=None,
        code=re.compile(r"(?<![\w$])(?:eval|instance_eval|class_eval|module_eval|load|require|require_relative)\b\s*\(?"
                        r"(?!\s*(?:do\b|\{))"),
        literal=_literal("#`"), listed=True),
    "php": _Language(
        shell=re.compile(_CALL + r"(?:system|exec|shell_exec|passthru|popen|proc_open|pcntl_exec)\s*\("),
        exec=None,
        code=re.compile(_CALL + r"(?:eval|assert|create_function|include|include_once|require|require_once)\b\s*\(?"),
        literal=_literal("$"), lists="[]"),
    "r": _Language(
        shell=re.compile(_CALL + r"(?:system|shell|pipe)\s*\("),
        exec=re.compile(_CALL + r"(?:system2|processx::run|processx::process\$new|sys::exec_wait|sys::exec_internal)\s*\("),
        code=re.compile(_CALL + r"(?:eval|evalq|source|sys\.source)\s*\("),
        literal=_literal(""), lists="c()"),
    "lua": _Language(
        shell=re.compile(r"\b(?:os\.execute|io\.popen)\s*\(?"),
        exec=None,
        code=re.compile(_CALL + r"(?:load|loadstring|dofile|loadfile|require)\s*\(?"),
        literal=_literal("", r"|\[\[(?P<text3>.*?)\]\]")),
    "julia": _Language(
        shell=re.compile(r"\b(?:run|read|success|pipeline|open)\s*\(\s*(?=`)"),
        exec=None,
        code=re.compile(_CALL + r"(?:eval|include|include_string)\s*\("),
        literal=re.compile(r"\s*`(?P<text>[^`$\\]*)`\s*$|\s*\"(?P<text2>[^\"$\\]*)\"\s*$", re.S)),
}
_OF_PROGRAM = {
    **dict.fromkeys(("node", "nodejs", "bun", "ts-node", "tsx", "qjs"), "js"), "perl": "perl", "ruby": "ruby",
    "php": "php", "Rscript": "r", "R": "r", "lua": "lua", "luajit": "lua", "julia": "julia",
    **dict.fromkeys(("expect", "tclsh", "wish", "expectk"), "tcl"),
}
_TCL_RUNS = re.compile(r"(?:^|[;\[{\n])\s*(exec|spawn|eval|uplevel|subst|source|interp\s+eval)\b([^;\]\n]*)")
_TCL_PIPE_OPEN = re.compile(r"\bopen\s+[\"{]?\|")
_MAX = 64


def language_of(program: str) -> str | None:
    return _OF_PROGRAM.get(program)


@lru_cache(maxsize=64)
def script_commands(language: str, code: str) -> tuple[str | None, ...]:
    """The shell line each call of ``code`` (in ``language``) that runs a command runs, None for
    one that runs a command or code only known at run time; ``()`` when it runs none."""
    if language == "tcl":
        return _tcl(code)
    spec = _LANGUAGES[language]
    found: list[str | None] = []
    if not spec.needs or any(name in code for name in spec.needs):
        for pattern, shape in ((spec.shell, "shell"), (spec.exec, "exec")):
            for match in pattern.finditer(code) if pattern is not None else ():
                found.append(_command(spec, shape, _arguments(code, match.end(), spec.lists)))
    if spec.code is not None:
        for match in spec.code.finditer(code):
            arguments = _arguments(code, match.end(), spec.lists)
            if not arguments or _fixed(spec, arguments[0]) is None:
                found.append(None)  # eval(x), require(name): code only known at run time
    return tuple(found[:_MAX])


def _command(spec: _Language, shape: str, arguments: list[str]) -> str | None:
    if not arguments:
        return None
    first = _fixed(spec, arguments[0])
    if shape == "shell" and (len(arguments) == 1 or not spec.listed):
        return first  # system("rm x"): a shell line; exec("rm x", callback), system("ls", intern = TRUE): options after it
    if first is None:
        return None
    if shape == "shell":  # perl's system("rm", "x"), ruby's system("rm", "x"): a program and its arguments
        words = [_fixed(spec, a) for a in arguments[1:]]
    else:  # spawn("rm", ["x"]), system2("rm", c("x"))
        words = _list(spec, arguments[1]) if len(arguments) > 1 else []
    return " ".join([shlex.quote(first), *(shlex.quote(w) if w is not None else f'"$__script_value_{n}"'
                                           for n, w in enumerate(words, 1))])


def _list(spec: _Language, text: str) -> list[str | None]:
    text = text.strip()
    opening, closing = spec.lists[:-1], spec.lists[-1]
    if text.startswith(opening) and text.endswith(closing):
        return [_fixed(spec, item) for item in _arguments(text, len(opening), spec.lists)]
    if text.startswith("{"):  # an options object: no arguments
        return []
    return [None]


def _fixed(spec: _Language, text: str) -> str | None:
    match = spec.literal.match(text)
    if match is None:
        return None
    return next((group for name, group in match.groupdict().items() if name.startswith("text") and group is not None),
                "")


_CLOSE = {"(": ")", "[": "]", "{": "}"}


def _arguments(code: str, start: int, lists: str = "[]") -> list[str]:
    """The top-level arguments of a call whose text starts at ``start`` (after its ``(``, or
    the first argument of a call without one), up to its closing bracket or end of statement."""
    arguments: list[str] = []
    depth = 0
    quote = ""
    begin = i = start
    while i < len(code):
        c = code[i]
        if quote:
            if c == "\\":
                i += 1
            elif c == quote:
                quote = ""
        elif c in "'\"`":
            quote = c
        elif c in "([{":
            depth += 1
        elif c in ")]}":
            if depth == 0:
                break
            depth -= 1
        elif depth == 0 and (c == "," or c in ";\n"):
            arguments.append(code[begin:i])
            if c != ",":
                return [a for a in arguments if a.strip()]
            begin = i + 1
        i += 1
    arguments.append(code[begin:i])
    return [a for a in arguments if a.strip()]


def _tcl(code: str) -> tuple[str | None, ...]:
    """Tcl (expect, tclsh): ``exec rm x``, ``spawn rm x`` run their words; a word with ``$`` or
    ``[`` is only known at run time, as is what ``eval``, ``uplevel``, ``subst`` and ``source``
    run, and a pipe ``open "|cmd"`` opens."""
    found: list[str | None] = []
    for match in _TCL_RUNS.finditer(code):
        kind, rest = match.group(1), match.group(2).strip()
        if kind not in ("exec", "spawn") or not rest or any(c in rest for c in "$[\\{\""):
            found.append(None)
            continue
        words = rest.split()
        while words and words[0].startswith("-"):  # exec -ignorestderr --, spawn -noecho
            if words.pop(0) == "--":
                break
        found.append(" ".join(shlex.quote(w) for w in words) if words else None)
    if _TCL_PIPE_OPEN.search(code):
        found.append(None)
    return tuple(found[:_MAX])


__all__ = ["language_of", "script_commands"]
