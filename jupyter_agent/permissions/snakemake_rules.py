"""The shell commands Snakemake's rules run.

``snakemake [TARGET…]`` finds its ``Snakefile`` (``-s FILE``; else ``Snakefile``, ``snakefile``,
``workflow/Snakefile`` or ``workflow/snakefile`` in the current folder), and the files it
``include:``\\ s (relative to the including file), and runs the rules the targets need.  Which
those are is the DAG of the files on disk, so each rule's commands are ones it *may* run: a Bash
deny rule matching them asks instead of denying — unless the line names that rule as a target.
A rule's ``shell:`` string (implicitly concatenated strings; ``{input}``, ``{params.x}`` … are
words only known at run time, ``{{``/``}}`` are braces) runs with bash in the working directory
(``-d DIR``, else the ``workdir:`` the Snakefile sets, else the current folder — as a real
Snakemake showed, both relative to where it runs); a ``script:`` ending in ``.sh`` runs with bash
(its path relative to the Snakefile); a ``notebook:``'s cells are read as IPython reads them.
``run:`` blocks and other scripts are Python or another language: programs.  A ``wrapper:`` (code
from the wrapper repository), a ``shell:`` that is not plain strings (an f-string, an
expression), ``module``/``use rule`` and a Snakefile that cannot be read are code only known at
run time.  ``-n``, ``--list``, ``--dag``, ``--lint`` and the like run nothing.
"""

from __future__ import annotations

import ast
import io
import os
import re
import shlex
import tokenize

from .bash_analysis import CommandInfo
from .bash_words import Word, run_time_word
from .notebook_runs import _notebooks, _text
from .script_files import NotKnown, Script, not_there, parsed_file, per_form, scripts_of_forms, templated

SNAKEMAKES = frozenset({"snakemake"})
_NAMES = ("Snakefile", "snakefile", "workflow/Snakefile", "workflow/snakefile")
_NO_RUN = frozenset({"-n", "--dry-run", "--dryrun", "-l", "--list", "--list-rules", "--list-target-rules", "--lt",
                     "-S", "--summary", "-D", "--detailed-summary", "--dag", "--d3dag", "--rulegraph", "--filegraph",
                     "--lint", "-v", "--version", "-h", "--help", "--archive", "--export-cwl", "--containerize",
                     "--print-compilation", "--list-changes", "--lc", "--list-input-changes", "--li",
                     "--list-params-changes", "--lp", "--list-code-changes", "--list-version-changes", "--lv",
                     "--list-untracked", "--lu", "--unlock", "--cleanup-metadata", "--cleanup-shadow",
                     "--generate-unit-tests", "--compile-wrappers"})
_DELETES = frozenset({"--delete-all-output", "--delete-temp-output"})
_DIRECTIVES = frozenset({"input", "output", "params", "log", "benchmark", "threads", "resources", "priority",
                         "message", "shell", "script", "notebook", "run", "wrapper", "cwl", "conda", "container",
                         "singularity", "envmodules", "shadow", "group", "cache", "default_target", "handover",
                         "localrule", "retries", "name", "wildcard_constraints", "template_engine", "pathvars"})
_FIELD = re.compile(r"\{[^{}]*\}")
_RUNTIME = run_time_word("SNAKEMAKE_VALUE")
_MAX_FILES = 32


def snakemake_scripts(info: CommandInfo, cwds: list[str], memo: dict[tuple[object, ...], object]) -> list[Script]:
    """The commands the ``snakemake`` of this command may run."""
    return scripts_of_forms(info, cwds, memo, SNAKEMAKES, _READ, per_folder=True)


def _of_form(form: tuple[Word, ...], cwd: str, cwd_unknown: bool) -> list[Script]:
    snakefile = folder = None
    targets: set[str] = set()
    words = form[1:]
    i = 0
    while i < len(words):
        text = words[i].literal
        if text is None:  # (the value of -s/-d is read with its option, below)
            i += 1
            continue  # a target, or an option's value, only known at run time: every rule may run
        option, eq, value = text.partition("=")
        if option in _NO_RUN:
            return []
        if option in _DELETES:
            raise NotKnown(f"snakemake {option} deletes the outputs its rules name")
        if option in ("-s", "--snakefile", "-d", "--directory"):
            if not eq:
                following = words[i + 1].literal if i + 1 < len(words) else None
                if following is None:
                    raise NotKnown(f"snakemake {option} has a value only known at run time")
                value, i = following, i + 1
            if option in ("-s", "--snakefile"):
                snakefile = value
            else:
                folder = value
        elif not text.startswith("-"):
            targets.add(text)
        i += 1
    if cwd_unknown:
        raise NotKnown("snakemake runs in a folder only known at run time")
    if snakefile is not None:
        path = os.path.realpath(os.path.join(cwd, os.path.expanduser(snakefile)))
        if not os.path.isfile(path):
            return [Script(snakefile, path, missing=True)]
    else:
        found = [os.path.join(cwd, n) for n in _NAMES if os.path.isfile(os.path.join(cwd, n))]
        if not found:
            return not_there(cwd, ("Snakefile",))
        path = os.path.realpath(found[0])
    workflow = _Workflow()
    workflow.read(path)
    workdir = folder if folder is not None else workflow.workdir
    where = os.path.realpath(os.path.join(cwd, os.path.expanduser(workdir))) if workdir else cwd
    out: list[Script] = []
    for name, file, kind, value in workflow.rules:
        shown = f"snakemake's rule {name} of {file}"
        certain = name in targets
        if kind == "unknown":
            out.append(Script(shown, None, value))
        elif kind == "shell":
            out.append(Script(shown, file, code=value, cwd=where, certain=certain))
        elif kind == "notebook":
            out += [Script(shown, s.path, why=s.why, missing=s.missing, code=s.code, cwd=where, certain=certain)
                    for s in _notebooks(Word(text=value), os.path.dirname(file), False, where, parent_is_cwd=False)]
    return out


_READ = per_form("the rules snakemake runs", _of_form)


class _Workflow:
    """The rules of a Snakefile and the files it includes: ``(name, file, kind, value)``, kind
    ``shell`` (value: the shell code), ``notebook`` (its path) or ``unknown`` (why)."""

    def __init__(self) -> None:
        self.rules: list[tuple[str, str, str, str]] = []
        self.workdir: str | None = None
        self.files = 0

    def read(self, path: str) -> None:
        self.files += 1
        if self.files > _MAX_FILES:
            raise NotKnown("the Snakefile includes too many files to follow")
        loaded, why = parsed_file(path, _text)
        if loaded is None:
            raise NotKnown(f"{path} could not be read ({why or 'no such file'})")
        try:
            tokens = list(tokenize.generate_tokens(io.StringIO(str(loaded)).readline))
        except (tokenize.TokenError, SyntaxError, IndentationError) as exc:
            raise NotKnown(f"{path} could not be read as a Snakefile ({type(exc).__name__})") from None
        lines = _logical_lines(tokens)
        rule: _Rule | None = None
        anonymous = 0
        for j, (indent, line) in enumerate(lines):
            words = [t.string for t in line[:3]]
            if rule is not None and indent <= rule.indent:
                self._close(rule)
                rule = None
            if (words[:1] in (["rule"], ["checkpoint"]) and line[-1].string == ":"
                    and len(line) <= 3):
                anonymous += 1
                rule = _Rule(words[1] if len(line) == 3 else str(anonymous), path, indent)
            elif words[:1] in (["module"], ["use"]) and len(line) > 1 and line[1].type == tokenize.NAME:
                raise NotKnown(f"{path} uses a module's rules (code from elsewhere)")
            elif rule is None and words[:2] in (["include", ":"], ["workdir", ":"]):
                value = _strings(line[2:] + _block(lines, j))
                if value is None:
                    raise NotKnown(f"{path}: an {words[0]} is not a plain string")
                if words[0] == "include":
                    self.read(os.path.realpath(os.path.join(os.path.dirname(path), value)))
                else:
                    self.workdir = value
            elif rule is not None and len(words) > 1 and words[0] in _DIRECTIVES and words[1] == ":":
                rule.directives[words[0]] = line[2:] + _block(lines, j)
        if rule is not None:
            self._close(rule)

    def _close(self, rule: _Rule) -> None:
        fields: dict[str, tuple[list[str], dict[str, str]] | None] = {
            name: _files(rule.directives[name]) for name in ("input", "output", "log") if name in rule.directives}
        for name in ("shell", "script", "notebook", "wrapper", "cwl", "template_engine"):
            if name in rule.directives:
                self._directive(rule, name, rule.directives[name], fields)

    def _directive(self, rule: _Rule, name: str, tokens: list[tokenize.TokenInfo],
                   fields: dict[str, tuple[list[str], dict[str, str]] | None]) -> None:
        entry = (rule.name, rule.file)
        if name in ("wrapper", "cwl", "template_engine"):
            self.rules.append((*entry, "unknown", f"its {name} runs code from elsewhere"))
            return
        value = _strings(tokens)
        if value is None:
            self.rules.append((*entry, "unknown", f"its {name} is an expression, not a string"))
        elif name == "shell":
            self.rules.append((*entry, "shell", _shell_code(value, fields)))
        else:
            target = os.path.realpath(os.path.join(os.path.dirname(rule.file), value))
            if name == "notebook":
                self.rules.append((*entry, "notebook", target))
            elif target.endswith(".sh"):
                self.rules.append((*entry, "shell", f"bash {shlex.quote(target)}"))


class _Rule:
    def __init__(self, name: str, file: str, indent: int) -> None:
        self.name, self.file, self.indent = name, file, indent
        self.directives: dict[str, list[tokenize.TokenInfo]] = {}


# functions that mark a file and give it back (temp("x") is "x")
_MARKERS = frozenset({"temp", "protected", "directory", "touch", "ancient", "pipe", "ensure", "local", "service",
                      "update", "before_update", "storage"})


def _files(tokens: list[tokenize.TokenInfo]) -> tuple[list[str], dict[str, str]] | None:
    """The files of an ``input:``/``output:``/``log:`` directive: positional and named; None
    when one is not a plain string (an expression, ``expand(…)``, a function)."""
    positional: list[str] = []
    named: dict[str, str] = {}
    items: list[list[tokenize.TokenInfo]] = [[]]
    depth = 0
    for token in tokens:
        if token.string in "([{" and token.type == tokenize.OP:
            depth += 1
        elif token.string in ")]}" and token.type == tokenize.OP:
            depth -= 1
        if token.string == "," and depth == 0:
            items.append([])
        else:
            items[-1].append(token)
    for item in (i for i in items if i):
        key = None
        if len(item) > 2 and item[0].type == tokenize.NAME and item[1].string == "=":
            key, item = item[0].string, item[2:]
        if len(item) == 4 and item[0].string in _MARKERS and item[1].string == "(" and item[3].string == ")":
            item = [item[2]]
        value = _strings(item)
        if value is None:
            return None
        if key is None:
            positional.append(value)
        else:
            named[key] = value
    return positional + list(named.values()), named


def _logical_lines(tokens: list[tokenize.TokenInfo]) -> list[tuple[int, list[tokenize.TokenInfo]]]:
    """The file's logical lines: ``(indent column, tokens)``, comments and blank lines left out."""
    out: list[tuple[int, list[tokenize.TokenInfo]]] = []
    current: list[tokenize.TokenInfo] = []
    skip = {tokenize.COMMENT, tokenize.NL, tokenize.INDENT, tokenize.DEDENT, tokenize.ENCODING, tokenize.ENDMARKER}
    for token in tokens:
        if token.type == tokenize.NEWLINE:
            if current:
                out.append((current[0].start[1], current))
            current = []
        elif token.type not in skip:
            current.append(token)
    if current:
        out.append((current[0].start[1], current))
    return out


def _block(lines: list[tuple[int, list[tokenize.TokenInfo]]], j: int) -> list[tokenize.TokenInfo]:
    """The tokens of the lines indented below line ``j`` (a directive's value on the next lines)."""
    indent = lines[j][0]
    out: list[tokenize.TokenInfo] = []
    k = j + 1
    while k < len(lines) and lines[k][0] > indent:
        out += lines[k][1]
        k += 1
    return out


def _strings(tokens: list[tokenize.TokenInfo]) -> str | None:
    """The value of plain string literals, implicitly concatenated; None for anything else."""
    if not tokens or any(t.type != tokenize.STRING for t in tokens):
        return None
    parts = []
    for token in tokens:
        if re.match(r"(?i)[rbu]*f", token.string):
            return None  # an f-string: a Python expression
        try:
            value = ast.literal_eval(token.string)
        except (ValueError, SyntaxError):
            return None
        if not isinstance(value, str):
            return None
        parts.append(value)
    return "".join(parts)


def _shell_code(command: str, fields: dict[str, tuple[list[str], dict[str, str]] | None]) -> str:
    """Snakemake's format fields: a rule's own plain file names (``{output}``, ``{input[0]}``,
    ``{log.x}``) as they are, any other field (``{params.x}``, ``{wildcards.s}``, a name with a
    wildcard) a word only known at run time; ``{{``/``}}`` as braces."""
    protected = command.replace("{{", "\ue001").replace("}}", "\ue002")

    def value(match: re.Match[str]) -> str:
        field = re.fullmatch(r"\{(input|output|log)(?:\[(\d+)\]|\.(\w+))?\}", match.group(0))
        known = fields.get(field.group(1)) if field else None
        if field is None or known is None:
            return _RUNTIME
        everything, named = known
        index, name = field.group(2), field.group(3)
        if index is not None:
            names = [everything[int(index)]] if int(index) < len(everything) else []
        elif name is not None:
            names = [named[name]] if name in named else []
        else:
            names = everything
        if not names or not all(re.fullmatch(r"[\w./+-]+", n) for n in names):
            return _RUNTIME  # a wildcard, a blank …: only known at run time
        return " ".join(names)

    code = templated(protected, _FIELD, value)
    return code.replace("\ue001", "{").replace("\ue002", "}")


__all__ = ["SNAKEMAKES", "snakemake_scripts"]
