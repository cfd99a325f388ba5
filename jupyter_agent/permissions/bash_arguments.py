"""Bash permissions for what a command's arguments touch when the command is not read-only (it
runs because a rule or the mode allows it): a protected or read-denied path it names, however
spelled (``protected_arguments``); folders a copying program reads whole (``copy_check``); what a
writing program writes (``program_write_check``), checked against Edit rules, hard links and the
protected paths inside folders it removes or rewrites.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Iterator, Sequence
from functools import lru_cache
from typing import cast

from ..core.context import ToolUseContext
from .bash_analysis import CommandInfo
from .bash_awk import AWKS, awk_program
from .bash_commands import DEV_SINKS
from .bash_copies import CONTAINER_PROGRAMS, copied_sources, listed_sources
from .bash_option_writes import NEW_NAME, writes_by_option
from .bash_patterns import embedded_paths, expanded
from .bash_readonly import option_values
from .bash_recursive import follows_links
from .bash_runners import SEDS
from .bash_sed import sed_script
from .bash_stdin import StdinSources
from .bash_verdict import Verdict, new_memo, resolved_once
from .bash_words import RUN_TIME_NAMES, PipeWord, Word, has_run_time_name, make_word, only_listed_files
from .bash_wrappers import MAKES, NOTEBOOK_RUNNERS, PACKAGE_MANAGERS, STDIN_WORDS, TOOLCHAINS, socat_paths
from .bash_writes import AMBIGUOUS_TARGET, RUNTIME_TARGET, WRITING_PROGRAMS, written_targets
from .compiled import PathRules, PathScope, first_match
from .docker_context import build_context, ignore_rules, sent_denied_file
from .file_servers import guesses_folder, served_folders
from .filesystem import (
    EDIT_RULES,
    edit_deny_below,
    edit_deny_in,
    edit_rule_for,
    read_deny_below,
    read_deny_in,
    read_rule_of,
    too_broad,
    write_blocked,
    write_outside,
)
from .formatters import FORMATTERS
from .git_words import options_may_write
from .hard_links import LINKED_WRITE, link_count, path_link_rule
from .inline_code import code_literals, inline_code, is_interpreter, path_like
from .path_programs import copied_onto_path, program_on_path
from .paths import protected_inside, protected_reason_of
from .python_folders import folder_calls_reason
from .python_strings import folded_strings


def protected_arguments(
    info: CommandInfo, cwds: list[str], v: Verdict, scope: PathScope | None = None, line: str = ""
) -> None:
    """A writing command naming a protected path (``rm -rf .git``, ``cp x ~/.bashrc``) always asks;
    so does one naming a file a ``Read`` deny rule covers (``cp .env /tmp``, ``/bin/cat .env``),
    even in bypassPermissions mode and under an allow rule.

    Any argument may be a destination or a source, so every fixed argument is resolved
    (symlinks too), and so is a path inside an option word (``--output=.git/config``,
    ``-t.git/hooks``: for an option cluster every tail, since any letter may take a value) or
    after ``=`` or ``@`` in another word (``dd if=.env``, ``curl -d @.env``, ``-F f=@.env``).
    A pattern (``rm -rf .gi*``, ``cp {.env,a} /tmp``) names what it expands to now; one whose
    files cannot be listed asks when it could name a protected or denied file.

    A file an ``Edit`` deny or ask rule covers asks too (``curl -o locked/x``, ``gzip locked/f``,
    ``mkdir locked/x``): the program may write it; so does a folder such a rule covers any new
    name in (``locked`` under ``Edit(./locked/**)``: ``pip install --target locked``).  For the
    programs whose writes are known (``bash_writes.py``) a deny rule denies instead
    (``program_write_check``).

    With such rules, a word known only at run time asks too (``cp $(echo .env) /tmp``,
    ``F=.env; cp $F /tmp``, ``cp ~+/.env /tmp``, ``cp $X/../.env /tmp``), unless it is one
    variable from the environment that the line ``line`` does not set (``--lr $LR``) — in a
    typed line only (not in ``v.script``'s code): a script's variables may come from its task file
    (``npm_package_config_*``, a justfile's ``export``, a Makefile's, a Taskfile's ``env``); for a
    known writer it asks without any rule (``cp a.txt $(echo .git/config)``: a protected path
    at run time); and so does
    a path the kernel resolves per process (``/proc/self/cwd/.env``, ``/dev/fd/3``).  A hard link
    to a Read-denied file counts as the file.
    """
    edit = scope.edit_rules if scope is not None else ()
    read_deny = scope is not None and bool(scope.read_deny)
    guarded = scope if read_deny or edit else None
    writer = info.innermost[0].literal in WRITING_PROGRAMS  # its operands name what it writes
    option_writer: bool | None = None  # one an option makes write or run something (known when needed)
    if read_deny and info.innermost[0].literal == "curl":
        globbed = curl_globbed_file(info.innermost)
        if globbed is not None:
            v.sticky.append(f"{info.text} names {globbed}, which curl expands itself ({{a,b}}, [a-z]) into "
                            f"names a Read deny rule may cover")
            return
    if _wrapper_named(info, cwds, guarded, v, edit):  # strace -o .git/config true
        return
    if _fed_options(info):  # echo --output=.git/config | xargs git diff
        v.sticky.append(f"{info.text} gets more words from its input (xargs), which may be options that make "
                        "it write a file (a protected one too) or run a program")
        return
    ended = False  # after `--`: no more options
    socat = info.innermost[0].literal == "socat"
    for word in info.innermost[1:]:
        ended = ended or word.literal == "--"
        if word.static and word.glob and not word.text.startswith("-"):
            for cwd in cwds:
                paths = expanded(word, cwd)
                if paths is None:
                    if read_deny or edit or "." in word.text:  # every protected name has a dot
                        v.sticky.append(f"{info.text} names {word.text}, a pattern whose files cannot be "
                                        f"listed before it runs")
                        return
                    continue
                if _named(info, paths, cwd, guarded, v, edit):
                    return
            continue
        value = word.text if word.static and not word.glob else tilde_path(word)  # one fixed path
        if type(word) is PipeWord:  # tee >(sha256sum): a pipe, no file (what runs in it is checked)
            continue
        if not value:
            if not word.static and (v.script and not only_listed_files(word.text)
                                    or not _environment_value(word.text, line)):
                if guarded is not None or writer:
                    where = "a protected path" if guarded is None else "a protected path or a Read or Edit rule"
                    v.sticky.append(f"{info.text} names {word.text}, known only at run time, where {where} may apply")
                    return
                if option_writer is None:
                    option_writer = _options_matter(info.innermost)
                if option_writer and not ended and _may_be_option(word, line):  # X=--output=.git/x; git log "$X"
                    v.sticky.append(f"{info.text} names {word.text}, known only at run time: it may be an option "
                                    f"that makes it write a file (a protected one too) or run a program")
                    return
            continue
        named = _paths_in_word(value)
        if socat:  # socat - OPEN:.env, CREATE:.git/config, PTY,link=.bashrc
            named = [*named, *socat_paths(value)]
        for cwd in cwds:
            if _named(info, named, cwd, guarded, v, edit):
                return
    if read_deny and info.innermost[0].literal in SEDS | AWKS:  # sed 'r .env', awk getline < ".env"
        reads = _script_reads(info.innermost)
        if None in reads:  # getline < f: a file named as it runs may be the denied one
            v.sticky.append(f"{info.text} reads a file its program names at run time, where a Read deny "
                            "rule may apply")
            return
        for cwd in cwds:
            if _named(info, [r for r in reads if r is not None], cwd, scope, v):
                return
    codes = interpreter_codes(info, line)
    if codes:  # python -c "open('.env')": a path its code spells, or builds from literals ('.e' + 'nv')
        literals = code_literals(codes)
        literals += [text for code in codes for text in folded_strings(code) if text not in literals]
        for cwd in cwds:
            why = code_strings_reason(literals, cwd, guarded, v, edit) if literals else None
            if why is None and scope is not None:  # shutil.make_archive('/tmp/a', 'zip', '.')
                why = folder_calls_reason(codes, cwd, scope)
            if why is not None:
                v.sticky.append(f"{info.text} {why}")
                return


@lru_cache(maxsize=8)
def _line_marks(line: str) -> tuple[bool, bool]:
    """Whether ``line`` has a heredoc, a pipe (once per line: a long line runs many interpreters)."""
    return "<<" in line, "|" in line


def interpreter_codes(info: CommandInfo, line: str, stdin: StdinSources | None = None,
                      heredoc: bool = True) -> list[str]:
    """The code the interpreters of ``info`` (``python``, ``uv run python``) may run from the
    line: their command-line code (``-c``, ``-e``), the line itself when it has a heredoc
    (``python - <<'EOF'``: its other strings add checks; not with ``heredoc`` False), the fixed
    text piped into them (``stdin``: the line's, when the caller has it)."""
    interpreters = [form for form in info.forms if form and is_interpreter(form[0].literal)]
    if not interpreters:
        return []
    codes = [code for form in interpreters for code in inline_code(form)]
    has_heredoc, has_pipe = _line_marks(line)
    if has_heredoc:
        if heredoc:
            codes.append(line)
    elif has_pipe and info.forms[0]:  # echo "open('.env')" | python
        stdin = stdin if stdin is not None else StdinSources(line)
        codes.extend(text for text in stdin.of(info.forms[0]) or () if isinstance(text, str))
    return codes


def code_strings_reason(
    literals: list[str], cwd: str, scope: PathScope | None, v: Verdict, edit: PathRules = ()
) -> str | None:
    """Why code whose string ``literals`` (``inline_code.code_literals``) name, from ``cwd``, a
    protected path or a file a Read deny rule covers — or, for those that read as paths, one an
    Edit deny or ask rule covers — must ask in every mode (``python -c "open('.env')"``, a
    notebook cell writing ``.git/config``); None when none does."""
    paths = [text for text in literals if path_like(text)]  # Edit rules cover any new name
    for names, rules in ((literals, ()), (paths, edit)):
        for path in names:
            why = _why_named_once(path, cwd, scope, v, rules)
            if why is not None:
                return f"{why} (a string in its code)"
    return None


def _wrapper_named(info: CommandInfo, cwds: list[str], guarded: PathScope | None, v: Verdict,
                   edit: PathRules) -> bool:
    """The fixed words of the wrappers in front of the innermost command (``strace -o F``,
    ``flock F``, ``daemonize -o F``, ``valgrind --log-file=F``) may name a file they write:
    checked as the command's own arguments are."""
    outer, inner = info.forms[0] if info.forms else (), info.innermost
    cut = len(outer) - len(inner)
    if cut <= 1 or outer[cut:] != inner:
        return False
    for word in outer[1:cut]:
        value = word.literal
        if not value or value[0] == "-" and len(value) == 2:
            continue
        named = _paths_in_word(value)
        for cwd in cwds:
            if _named(info, named, cwd, guarded, v, edit):
                return True
    return False


def _paths_in_word(value: str) -> Iterable[str]:
    """The paths one fixed argument may name: an option's values (``--output=F``, every tail of
    a cluster), a path after ``=``/``@``/``file://`` (``dd if=.env``, ``-Ff=@.env;type=x``,
    ``--x=file://.env``), or the word itself."""
    if value[0] == "-":
        named: Iterable[str] = option_values(value, None)
        if "@" in value or "<" in value or "://" in value:
            named = [*named, *embedded_paths(value[2:] if value[1] != "-" else value.partition("=")[2])]
        return named
    if "=" in value or "@" in value or "://" in value:
        return embedded_paths(value)
    return (value,)


# git commands that copy the hooks of a template folder (GIT_TEMPLATE_DIR) into .git/hooks
_TEMPLATE_COPIERS = frozenset({"init", "clone", "submodule"})


def protected_assignments(info: CommandInfo, cwds: list[str], v: Verdict, scope: PathScope | None = None) -> None:
    """A variable set for the command whose value is a protected path, or a list of paths with
    one (``GIT_CONFIG_GLOBAL=.claude/settings.json git config --global …``,
    ``PIP_LOG=.git/config pip list``, ``HISTFILE=~/.bashrc``): the program may write there, so it
    asks in every mode, as naming that path in an argument does; so does one a Read deny rule or
    an Edit rule covers (``NPM_CONFIG_USERCONFIG=.env npm config list`` prints it).
    ``GIT_TEMPLATE_DIR`` makes ``git init|clone`` copy hooks into ``.git/hooks``, as
    ``--template`` does."""
    words = info.innermost
    edit = scope.edit_rules if scope is not None else ()
    guarded = scope if scope is not None and (scope.read_deny or edit) else None
    for name, value in info.assigned:
        if name == "GIT_TEMPLATE_DIR" and words and words[0].literal == "git" and any(
                w.literal in _TEMPLATE_COPIERS for w in words[1:]):
            v.sticky.append(f"{info.text} copies the hooks of GIT_TEMPLATE_DIR into the repository, which git runs")
            return
        parts = [os.path.expanduser(part) for part in (value or "").split(":") if part]
        for cwd in cwds:
            if _named(info, parts, cwd, guarded, v, edit):
                v.sticky[-1] += f" (the value of {name})"
                return


def _script_reads(words: tuple[Word, ...]) -> list[str | None]:
    """The files a sed or awk program names for reading (``r FILE``, ``getline < FILE``; None:
    one named at run time)."""
    if words[0].literal in SEDS:
        script = sed_script(words[1:])
        return list(script.reads) if script is not None else []
    program = awk_program(words[1:])
    return list(program.reads) if program is not None else []


def _named(
    info: CommandInfo, paths: Iterable[str], cwd: str, scope: PathScope | None, v: Verdict, edit: PathRules = ()
) -> bool:
    """Record why ``info`` must ask if one of ``paths`` (from ``cwd``) is protected or denied
    (by a Read deny rule, or by one of the Edit deny and ask rules ``edit``)."""
    for path in paths:
        why = _why_named_once(path, cwd, scope, v, edit)
        if why is not None:
            v.sticky.append(f"{info.text} {why}")
            return True
    return False


def _why_named_once(path: str, cwd: str, scope: PathScope | None, v: Verdict, edit: PathRules) -> str | None:
    memo = v.memo if v.memo is not None else new_memo(v)
    key = ("named", path, cwd, scope is not None, bool(edit))  # long lines repeat their arguments
    if key not in memo:
        memo[key] = _why_named(path, cwd, scope, v, edit)
    return memo[key]  # type: ignore[return-value]


def _why_named(path: str, cwd: str, scope: PathScope | None, v: Verdict, edit: PathRules) -> str | None:
    resolved = resolved_once(path, cwd, v)
    if resolved is None:
        return None
    reason = protected_reason_of(*resolved)
    if reason is not None:
        return f"touches {reason}"
    if scope is not None and resolved[0].startswith(_PER_PROCESS):
        return f"names {path}, which the kernel resolves for the process that opens it"
    rule = read_rule_of(*resolved, scope) if scope is not None else None
    if rule is not None:
        return f"names {path}, which the rule {rule} denies reading"
    if edit:
        rule = first_match(edit, *resolved)
        if rule is None:  # a folder, now or once made, that the rule closes (locked/** covers any name in it)
            rule = first_match(edit, resolved[0] + _NEW_NAME, resolved[1] + _NEW_NAME)
        if rule is not None:
            return f"names {path}, which the rule {rule} covers: it may write it"
    return None


_NEW_NAME = os.sep + NEW_NAME  # any name a program may create in a folder
_PER_PROCESS = ("/proc/", "/dev/fd/")
_SHELL_PATHS = frozenset({"PWD", "OLDPWD", "HOME", "CDPATH", "DIRSTACK", "BASH_SOURCE", "_"})


def _environment_value(text: str, line: str) -> bool:
    """Is the word ``text`` one variable from the environment (``$LR``, ``"${LR}"``, also as
    an option's value: ``--lr=$LR``), which the line ``line`` does not set?  Its value is the
    user's, not the line's."""
    option, equals, value = text.partition("=")
    if text[:1] == "-" and equals and "/" not in option and "$" not in option:
        text = value  # --lr=$LR: the option name is no path
    inner = text[1:-1] if len(text) > 1 and text[0] == text[-1] == '"' else text
    if inner.startswith("${") and inner.endswith("}"):
        name = inner[2:-1]
    elif inner.startswith("$"):
        name = inner[1:]
    else:
        return False
    if not name or not (name[0].isalpha() or name[0] == "_") or not all(c.isalnum() or c == "_" for c in name):
        return False  # $1, $@, ${x:-…}: set by the line, or more than a name
    return name not in _SHELL_PATHS and name not in RUN_TIME_NAMES and not _mentioned_unexpanded(name, line)


# programs an option makes run another program: make SHELL=…, npm --script-shell=…, ssh
# -oProxyCommand=…, man -P …, sort --compress-program=…, rsync -e …, tar -I …, zip -TT …, find -exec
_PROGRAM_OPTIONS = MAKES | TOOLCHAINS | PACKAGE_MANAGERS | NOTEBOOK_RUNNERS | frozenset(
    {"ssh", "scp", "sftp", "rsync", "man", "sort", "tar", "zip", "unzip", "wget", "find", "fd", "less", "more",
     "gdb", "env", "xargs", "ssh-keygen", "openssl", "git", "docker", "podman", "kubectl", "gh"})


def _fed_options(info: CommandInfo) -> bool:
    """Does xargs hand the command words from its input (``… | xargs git diff``) where an option
    may stand — no ``--`` before them — to a program an option makes write a file or run one?"""
    feed = next((form for form in info.forms if form and form[-1] is STDIN_WORDS), None)
    if feed is None:
        return False
    words = info.innermost
    if "--" in (w.literal for w in words[1:]) or not _options_matter(words):
        return False
    # git status, git add: no option of theirs writes a file or runs one
    return words[0].literal != "git" or options_may_write(words)


def _options_matter(words: tuple[Word, ...]) -> bool:
    """Can an option make the program write a file it names (``git log --output=F``, ``pytest
    --basetemp=D``, ``curl -o F``) or run another program (``_PROGRAM_OPTIONS``)?  python only
    through a module it runs (``-m pytest``): after a script the words are the script's."""
    program = words[0].literal
    if program is None:
        return False
    if program in _PROGRAM_OPTIONS:
        return True
    if not writes_by_option(program):
        return False
    return not program.startswith("python") or (len(words) > 2 and words[1].literal == "-m")


_VARIABLE = re.compile(r"\$\{?([A-Za-z_][A-Za-z0-9_]*)")
_LOOP_WORDS = re.compile(r"\s+in\s+([^;\n]*?)\s*(?:;|\n|\bdo\b)")  # `for NAME in WORDS;`


def _may_be_option(word: Word, line: str) -> bool:
    """Can the run-time word start with ``-``: it begins with an expansion (``"$X"``, ``$(…)``,
    a backquote), and its variable is not the loop variable of ``for NAME in`` words that all
    begin with a fixed character other than ``-`` (``for t in tests/*.py``)."""
    text = word.text.lstrip('"')
    if text[:1] == "`" or text[:2] == "$(":
        return True
    if text[:1] != "$":
        return False
    variable = _VARIABLE.match(text)
    if variable is None:
        return True  # $1, $@, $'…': the line's own
    name = variable.group(1)
    if not _mentioned_unexpanded(name, line):
        return False  # a variable from the environment: the user's value (`$OUT/x`)
    return not _loop_over_fixed_words(name, line)


def _loop_over_fixed_words(name: str, line: str) -> bool:
    """Is every place ``line`` may set ``name`` a ``for NAME in W…`` whose words each begin with
    a fixed character that is no ``-`` and no pattern character (``tests/*.py``, ``a b``)?"""
    loops = 0
    for at in _unexpanded_mentions(name, line):
        match = _LOOP_WORDS.match(line[at + len(name):])
        if _FOR_BEFORE.search(line[:at]) is None or match is None:
            return False  # F=…, read F: set some other way
        words = match.group(1).split()
        if not words or any(w[:1] in "-*?[{$`\"'~\\" for w in words):
            return False  # for F in $(…), for F in *: a value may begin with -
        loops += 1
    return loops > 0


_FOR_BEFORE = re.compile(r"(?:^|[\s;&|(])for\s+$")


def _unexpanded_mentions(name: str, line: str) -> Iterator[int]:
    """Where ``name`` occurs in ``line`` as a word of its own, other than right after ``$`` or
    ``${`` (``F=``, ``for F in``, ``read F``)."""
    start = 0
    while (at := line.find(name, start)) >= 0:
        start = at + 1
        end = at + len(name)
        if (at and (line[at - 1].isalnum() or line[at - 1] == "_")) or (
                end < len(line) and (line[end].isalnum() or line[end] == "_")):
            continue  # part of a longer word
        if line[at - 1:at] == "$" or line[max(0, at - 2):at] == "${":
            continue
        if line[at - 1:at] == "-" and line[max(0, at - 2):at - 1] in ("", " ", "\t"):
            continue  # the option -H: no command sets a variable named so
        yield at


def _mentioned_unexpanded(name: str, line: str) -> bool:
    """Does ``name`` occur in ``line`` other than as an expansion: then the line may set it."""
    return next(_unexpanded_mentions(name, line), None) is not None


def curl_globbed_file(words: tuple[Word, ...]) -> str | None:
    """A local file curl names by its own globbing (``-T '.e[m-o]v'``, ``file:///x/{.env,a}``):
    curl expands ``{…}`` and ``[…]`` in URLs and in ``-T`` files (unless ``-g``), after the shell."""
    upload = False
    for word in words[1:]:
        text = word.text
        if (upload or text.lower().startswith("file:")) and ("{" in text or "[" in text):
            return text
        upload = text in ("-T", "--upload-file") or (
            text[:1] == "-" and text[1:2] != "-" and text.endswith("T") and "T" not in text[1:-1])
        if text[:2] == "-T" and len(text) > 2 and ("{" in text or "[" in text):
            return text[2:]
    return None


def tilde_path(word: Word) -> str | None:
    """A static word with ``~`` expansion only (no glob or brace characters)."""
    tilde_only = word.static and word.text.startswith("~") and not any(c in word.text for c in "*?[{")
    return word.text if tilde_only else None


def copy_check(info: CommandInfo, cwds: list[str], scope: PathScope, v: Verdict) -> None:
    """``tar cf - .`` reads every file below ``.``: a Read deny rule there makes it ask, in
    every mode and under a rule that allows the program (``bash_copies.py``); so do the names
    it takes from a list or standard input (``tar czf - -T -``)."""
    listed = listed_sources(info.innermost)
    if listed is not None:
        v.sticky.append(f"{info.text}: {listed}, where a Read deny rule may apply")
        return
    if info.innermost[0].literal in CONTAINER_PROGRAMS and _build_context_check(info, cwds, scope, v):
        return
    if _compose_config_check(info, cwds, scope, v):
        return
    if info.innermost[0].literal in ("sky", "ray") and _cluster_upload_check(info, cwds, scope, v):
        return
    links = info.innermost[0].literal == "ln"
    for source in copied_sources(info.innermost):
        for cwd in cwds:
            resolved = resolved_once(source, cwd, v)
            if resolved is not None and links and not os.path.isdir(resolved[1]):
                # a denied file's other name: `ln -s ../.env src/x && grep -R KEY src` (the link
                # was not there when the folder was looked at)
                rule = read_rule_of(resolved[0], resolved[1], scope)
                if rule is not None:
                    v.sticky.append(f"{info.text} gives {source}, which the rule {rule} denies reading, "
                                    f"another name")
                    return
            if resolved is None or not os.path.isdir(resolved[1]):
                continue
            rule = read_deny_in(resolved[1], scope, follows_links(info.innermost))
            if rule is not None:
                v.sticky.append(f"{info.text} reads every file below {source}, where the rule {rule} "
                                f"denies reading")
                return


def serve_check(words: Sequence[Word], shown: str, cwds: list[str], scope: PathScope, v: Verdict) -> None:
    """``python -m http.server`` hands every file below its folder to whatever reaches its port
    (``file_servers.py``): a Read deny rule there makes it ask, in every mode, as ``tar cf - .``
    does; a folder only known at run time asks too."""
    folders = served_folders(words)
    if not folders:
        return
    if None in folders:
        v.sticky.append(f"{shown or 'the command'} serves a folder only known at run time to whatever reaches its "
                        f"port, where a Read deny rule may apply")
        return
    for cwd in cwds:
        found = []
        for folder in cast("list[str]", folders):
            resolved = resolved_once(folder, cwd, v)
            if resolved is not None and os.path.isdir(resolved[1]):
                found.append((folder, resolved[1]))
        if not found and guesses_folder(words):  # npx serve -p 3000: the current folder
            found = [(".", os.path.realpath(cwd))]
        for folder, real in found:
            rule = read_deny_below(real, scope)
            if rule is not None:
                v.sticky.append(f"{shown or 'the command'} serves every file below {folder} to whatever reaches its "
                                f"port, where the rule {rule} denies reading")
                return


def _build_context_check(info: CommandInfo, cwds: list[str], scope: PathScope, v: Verdict) -> bool:
    """``docker build .`` sends the folder to the builder (``docker_context``): a file in it a
    Read deny rule covers that ``.dockerignore`` does not leave out asks; True once it did."""
    found = build_context(info.innermost)
    if found is None:
        return False
    context, dockerfile = found
    if context is None:
        v.sticky.append(f"{info.text} builds from a folder only known at run time, where a Read deny rule may apply")
        return True
    for cwd in cwds:
        resolved = resolved_once(context, cwd, v)
        if resolved is None or not os.path.isdir(resolved[1]):
            continue
        rules = ignore_rules(resolved[1], dockerfile, cwd)
        hit = sent_denied_file(resolved[1], rules, lambda real: read_rule_of(real, real, scope))
        if hit == ("", ""):
            v.sticky.append(f"{info.text} sends {context} to the image builder, with too many files to check "
                            f"against the Read deny rules")
            return True
        if hit is not None:
            v.sticky.append(f"{info.text} sends {hit[0]} (the rule {hit[1]} denies reading it) to the image "
                            f"builder, and .dockerignore does not leave it out")
            return True
    return False


def _cluster_upload_check(info: CommandInfo, cwds: list[str], scope: PathScope, v: Verdict) -> bool:
    """``sky launch task.yaml`` / ``ray up cluster.yaml`` send the YAML's ``workdir`` and
    ``file_mounts`` to the cluster: a Read deny rule on a file among them asks (True once it did)."""
    from .cluster_tasks import uploaded_paths  # (it imports script_files, which imports this module)

    for cwd in cwds:
        paths = uploaded_paths(info.innermost, cwd)
        if paths is None:
            v.sticky.append(f"{info.text} sends what a YAML it could not read names, where a Read deny rule may apply")
            return True
        for path in paths:
            real = os.path.realpath(os.path.join(cwd, os.path.expanduser(path)))
            rule = read_deny_in(real, scope, links=True) if os.path.isdir(real) else read_rule_of(real, real, scope)
            if rule is not None:
                v.sticky.append(f"{info.text} sends {path} to the cluster, where the rule {rule} denies reading")
                return True
    return False


def _compose_config_check(info: CommandInfo, cwds: list[str], scope: PathScope, v: Verdict) -> bool:
    """``docker compose config`` prints the configuration with the variables of the project's
    ``.env`` filled in: under a Read deny rule on that ``.env`` it asks (True once it did)."""
    words = [w.literal for w in info.innermost]
    plain = [w for w in words if w is not None and w[:1] != "-"]
    compose = plain[:2] in (["docker", "compose"], ["podman", "compose"]) or plain[:1] in (
        ["docker-compose"], ["podman-compose"])
    if not compose or "config" not in plain:
        return False
    folders: list[str | None] = []  # --project-directory DIR: its .env is read instead
    for i, word in enumerate(words):
        if word is not None and word.startswith("--project-directory"):
            folders.append(word.partition("=")[2] if "=" in word else (words[i + 1] if i + 1 < len(words) else None))
    if None in folders:
        v.sticky.append(f"{info.text} prints the values of a .env file in a folder only known at run time")
        return True
    for cwd in cwds:
        for folder in folders or ["."]:
            env = os.path.normpath(os.path.join(cwd, folder or ".", ".env"))
            rule = read_rule_of(env, os.path.realpath(env), scope)
            if rule is not None:
                v.sticky.append(f"{info.text} prints the values of {env}, which the rule {rule} denies reading")
                return True
    return False


def program_write_check(
    info: CommandInfo, cwds: list[str], scope: PathScope, v: Verdict, context: ToolUseContext,
) -> None:
    """What a writing program writes (``bash_writes.py``): an operand an Edit deny rule covers is
    denied, one an Edit ask rule covers asks; a folder it writes or removes everything below asks
    when a deny rule may match there, or when a protected folder or file is inside it
    (``rm -rf .`` takes ``.git`` along).  A program on PATH it would rewrite, or a file it
    would copy into or make executable in a folder on PATH, asks (``path_programs``).  A file it
    writes outside the working directories asks, as a redirection there does, whatever rule
    allowed the program (``rm -rf ..`` under ``Bash(rm:*)``) — in every mode when
    blockWritesOutsideWorkingDirectories is set, else as bypassPermissions lets it through."""
    edit_deny, edit_ask = bool(scope.edit_deny), bool(scope.edit_ask)
    blocked = scope.rules.context.block_outside_writes  # blockWritesOutsideWorkingDirectories
    program = info.innermost[0].literal
    copier = program in _COPY_LANDERS  # what it lands keeps the executable bit (chmod sets it)
    words = info.innermost
    feed = next((form for form in info.forms if form and form[-1] is STDIN_WORDS), None)
    if feed is not None:  # `… | xargs rm`: the command gets more words from stdin (or xargs -a FILE)
        if len(feed) == 2 and len(words) > 1:  # xargs -I{}: they may replace any of its words
            if written_targets(list(words), cwds[0]) or written_targets(list(feed), cwds[0]):
                v.sticky.append(f"{info.text} writes where xargs puts the words it reads, only known at run "
                                "time (a protected path too: find . | xargs -I{} cp x {})")
                return
        else:
            words = feed  # rm <words from stdin>: a target only known at run time
    for cwd in cwds:
        argv = _argv_now(words, cwd)  # `dd of={a,secret.txt}` is `dd of=a of=secret.txt`
        if argv is None:  # a pattern that cannot be listed: could it name a guarded file?
            if edit_deny or edit_ask or scope.read_deny or any("." in w.text for w in info.innermost[1:] if w.glob):
                v.sticky.append(f"{info.text} has a pattern whose files cannot be listed before it runs")
                return
            # or one outside the working directories (`dd of=~-/x`: the previous folder)
            v.soft.append(f"{info.text} writes what a pattern names, which cannot be listed before it runs")
            continue
        named = {w.text for w in argv}  # protected_arguments checks these names itself
        for word, recursive in written_targets(argv, cwd):
            if word is RUNTIME_TARGET:  # awk's print > f: any file, a protected one too (every mode)
                v.sticky.append(f"{info.text} writes a file its program names at run time")
                return
            if word is AMBIGUOUS_TARGET:
                v.sticky.append(f"{info.text} has an awk program that awks may read another way (a / that "
                                f"may start a regular expression, a bracket expression), so it may run or write "
                                f"anything")
                return
            if word is STDIN_WORDS:  # find . | xargs rm: .git's files among them (as rm $(find .))
                v.sticky.append(f"{info.text} writes the files xargs reads from its input, only known at run "
                                "time, which may be protected ones")
                return
            if not word.static:  # `rm -rf "$dir"`: it may lie outside the working directories
                if (v.script or has_run_time_name(word.text)) and not only_listed_files(word.text):
                    # a task file's value: it may be a protected path
                    v.sticky.append(f"{info.text} writes {word.text}, a path only known at run time (a "
                                    "value of the file it comes from), which may be a protected one")
                    return
                v.soft.append(f"{info.text} writes {word.text}, a path only known at run time")
                continue
            path = word.text
            lands = path not in named  # where a copy lands, a name no argument spells: `cp x.pth site-packages/`
            if (lands or path[:1] not in ("/", "~")) and getattr(cwds, "unknown", False):  # cd "$D" && touch x
                shown = path if path[:1] not in ("/", "~") else os.path.basename(path.rstrip("/")) or path
                v.sticky.append(f"{info.text} writes {shown} in a folder only known at run time (a cd before "
                                "it), which may be a protected one")
                return
            resolved = resolved_once(path, cwd, v)
            if resolved is None:
                continue
            # a program on PATH rewritten in place (`sed -i … .venv/bin/rg`: the next `rg` runs
            # it), or a command made there (`cp run.sh .venv/bin/cat`, `chmod +x`): every mode
            on_path = program_on_path(resolved[1], lexical=resolved[0]) if program != "touch" else None
            on_path = on_path or (copied_onto_path(resolved[1], lexical=resolved[0]) if copier else None)
            if on_path is not None:
                v.sticky.append(f"{info.text}: {on_path}")
                return
            names = link_count(resolved[1]) if program not in _NEW_INODE else 1  # (a folder has one name)
            if names > 1:  # cp x twin.py: it lands in the file under every name (a denied one: denied)
                rule = scope.rule("deny", EDIT_RULES, *resolved) if edit_deny else None
                rule = rule or write_link_rule(resolved[1], scope)
                if rule is not None:
                    v.deny = f"Permission to write {path} ({info.text}) has been denied by the rule {rule}."
                    return
                v.sticky.append(f"{info.text}: {path} {LINKED_WRITE.format(names=names)}")
                return
            # outside the working directories: asked as a redirection there is (blocked: every mode)
            sink = resolved[0] in DEV_SINKS and writes_into_device(words)  # curl -o /dev/null: not rm -f /dev/null
            outside = not blocked and not sink and write_outside(resolved[1], context, scope)
            if not (lands or edit_deny or edit_ask or recursive or scope.read_deny or blocked or outside):
                continue
            reason = protected_reason_of(*resolved) if lands else None
            if reason is not None:
                v.sticky.append(f"{info.text} touches {reason}")
                return
            if blocked and write_blocked(resolved[1], context):
                v.sticky.append(f"{info.text} writes {path}, outside the working directories, where the "
                                "settings block writing (permissions.blockWritesOutsideWorkingDirectories)")
                return
            if outside:
                reason = f"{info.text} writes {path}, outside the working directories"
                v.soft.append(reason)
                if not too_broad(os.path.dirname(resolved[1])):  # rm -rf /usr: not Edit(///**)
                    v.folders[reason] = edit_rule_for(resolved[1], scope)  # what Always allow offers
            if not (edit_deny or edit_ask or recursive or scope.read_deny):
                continue
            rule = scope.rule("deny", EDIT_RULES, *resolved) if edit_deny else None
            rule = rule or write_link_rule(resolved[1], scope)
            if rule is not None:
                v.deny = f"Permission to write {path} ({info.text}) has been denied by the rule {rule}."
                return
            asked = scope.rule("ask", EDIT_RULES, *resolved) if edit_ask else None
            if asked is not None:
                v.sticky.append(f"{info.text} writes {path} (rule {asked})")
                return
            if not recursive:
                continue
            below = None
            if edit_deny:  # (what only removes: what is there now; what writes: any new name)
                below = (edit_deny_in if program in _REMOVERS else edit_deny_below)(resolved[1], scope)
            if below is not None:
                v.sticky.append(f"{info.text} writes or removes what is below {path}, where the rule "
                                f"{below} denies editing")
                return
            # a Read deny blocks writing the file too: `rm -rf .` takes .env along (a formatter
            # rewrites only the layout of the code files it knows: formatters.py)
            below = None
            if scope.read_deny and program not in FORMATTERS:  # (what only removes or changes files there: as they are)
                below = (read_deny_in if program in _EXISTING_ONLY else read_deny_below)(resolved[1], scope)
            if below is not None:
                v.sticky.append(f"{info.text} writes or removes what is below {path}, where the rule "
                                f"{below} denies reading (and so writing)")
                return
            inside = protected_inside(resolved[1], scope.roots) if program not in FORMATTERS else None
            if inside is not None:  # (a formatter skips .git and changes only layout: formatters.py)
                v.sticky.append(f"{info.text} writes or removes what is below {path}, which holds {inside}")
                return


# recursive writers that only remove or change the files already there (no new names): a Read
# deny rule below the folder matters only when a file it denies is there now (``read_deny_in``)
_EXISTING_ONLY = frozenset({"rm", "rmdir", "unlink", "shred", "chmod", "chown", "chgrp", "setfacl", "chattr",
                            "trash", "trash-put"})

_REMOVERS = frozenset({"rm", "rmdir", "unlink", "trash", "trash-put"})
# writers that leave the file's other hard links as they were: a new file renamed over the name,
# the name removed or made anew, or only the metadata changed (formatters change only layout)
_NEW_INODE = _REMOVERS | frozenset(FORMATTERS) | {"mv", "sed", "install", "rsync", "ln", "touch", "mkdir",
                                                  "chmod", "chown", "chgrp", "setfacl", "chattr"}

# programs that open a device named as their output and write into it, leaving the device as it
# is: `curl -o /dev/null`, `dd of=/dev/null`, `echo x | tee /dev/stderr`, `tar cf /dev/null .`,
# `gcc -o /dev/null` (ld and go unlink only a regular file), `script -q /dev/null`,
# `pytest --junitxml=/dev/null`.  Any other removes, renames,
# replaces or changes the device itself (`rm -f /dev/null`, `mv x /dev/null`, `ln -sf`,
# `chmod 600`, `touch`, `sed -i`, `rsync`, `install`: a new file renamed over it), in /dev,
# outside the working directories: asked as any write there
_INTO_DEVICE = frozenset({"tee", "dd", "sort", "curl", "wget", "tar", "git", "ffmpeg", "pandoc", "gcc", "g++", "cc",
                          "c++", "clang", "clang++", "go", "script", "pytest", "py.test", "mypy", "coverage", "xxd",
                          "uniq", "shuf", "iconv", "gpg"})
# cp writes into an existing destination only without them: -p/-a set its mode, owner and times,
# -f/--remove-destination may remove it (/dev/tty cannot be opened without a terminal), -b renames it
_CP_INTO = frozenset({"-v", "--verbose", "--"})
# curl -R sets the file's time to the remote one's (a change to the device, as touch makes)
_CURL_SET_TIME = frozenset({"-R", "--remote-time"})


def writes_into_device(words: Sequence[Word]) -> bool:
    """Whether the command ``words`` (program first) writes into a device it names as output
    (/dev/null, /dev/stderr) and nothing more: the device is not a file, so it is no write
    outside the working directories."""
    program = words[0].literal if words else None
    options = [w.literal for w in words[1:] if (w.literal or "-")[:1] == "-" and w.literal != "-"]
    if program == "cp":
        return all(o in _CP_INTO for o in options)
    if program == "curl":
        return not any(o in _CURL_SET_TIME or (o is not None and o[:2] != "--" and "R" in o) for o in options)
    return program in _INTO_DEVICE


# what they land keeps the executable bit, or chmod sets it, or it is a program they build
_COPY_LANDERS = frozenset({"cp", "mv", "install", "ln", "rsync", "scp", "chmod", "gcc", "g++", "cc", "c++", "clang",
                           "clang++", "go"})


def _argv_now(words: tuple[Word, ...], cwd: str) -> list[Word] | None:
    """``words`` with each static pattern replaced by what it expands to now (``bash_patterns``),
    or None when one cannot be listed exactly."""
    if not any(w.glob for w in words):
        return list(words)
    argv = [words[0]]
    for word in words[1:]:
        if not (word.static and word.glob):
            argv.append(word)
            continue
        paths = expanded(word, cwd)
        if paths is None:
            return None
        argv.extend(make_word(p) for p in paths)
    return argv


def write_link_rule(real: str, scope: PathScope) -> str | None:
    """A shell write lands in the file itself: through a hard link (``ln secret.txt notes``) it
    changes the file an Edit (or Read) deny rule names.  That rule, or None."""
    rules = scope.edit_deny + scope.read_deny
    return path_link_rule(real, scope, rules) if rules else None


__all__ = ["code_strings_reason", "copy_check", "program_write_check", "protected_arguments", "tilde_path", "write_link_rule"]
