"""Bash permissions: a whole command line is allowed only if every part of it is.

Per simple command (after env assignments and wrappers are stripped): a ``Bash(...)`` deny rule
on any form denies the line; an ask rule asks (sticky); ``sudo``/``bash -c``/``eval``/``$cmd``
always ask; otherwise an allow rule or the read-only set lets it run.  The files a line touches
are checked in ``bash_paths.py``.  ``cd``/``pushd`` outside the working directories ask.  In
acceptEdits the plain filesystem commands on files inside them run (``bash_accept_edits.py``).
Anything the analyzer does not understand asks.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import stat
from collections.abc import Iterable, Sequence
from dataclasses import replace
from functools import lru_cache
from typing import cast

from ..core.context import ToolUseContext
from ..core.permission_types import (
    PermissionAllow,
    PermissionDeny,
    PermissionResult,
    PermissionUpdate,
)
from .ansible_playbooks import PLAYBOOK_RUNNERS, playbook_scripts
from .bash_accept_edits import FILESYSTEM_COMMANDS, accept_edits_allows
from .bash_analysis import MODELED_PROGRAMS, Analysis, CommandInfo, analyze
from .bash_arguments import interpreter_codes, protected_arguments, protected_assignments, tilde_path
from .bash_evaluated import DECLARES, HISTFILE_CHANGE, HOME_CHANGE, line_change
from .bash_extra_forms import commands_it_runs
from .bash_heredoc import heredoc_bodies
from .bash_paths import NAMES_ONLY, path_checks
from .bash_readonly import ReadOnlyCheck, check_read_only
from .bash_rule_skips import git_alias_rule, skipping_match
from .bash_rules import form_text
from .bash_runner_table import RUNNERS as RUNNER_TABLE
from .bash_runners import UNKNOWN_PROGRAM
from .bash_specs import SPECS
from .bash_stdin import StdinSources
from .bash_suggest import suggested_rule
from .bash_verdict import Verdict, new_memo, resolved_once
from .bash_words import Word
from .bash_wrappers import dangerous_env
from .bash_writes import WRITING_PROGRAMS
from .batch_jobs import BATCH_SUBMITTERS, batch_scripts
from .book_builds import BOOK_BUILDERS, book_scripts
from .cargo_config import CARGOS, cargo_config_scripts
from .cargo_make_tasks import CARGO_MAKES, cargo_make_scripts
from .cluster_tasks import CLUSTER_LAUNCHERS, cluster_scripts
from .code_files import code_files, file_strings_why, may_run_code_files, notebook_strings
from .code_imports import loaded_by_code, notebook_loaded
from .compiled import CompiledRules, PathScope, compiled_rules
from .compose_services import COMPOSES, compose_scripts
from .composer_scripts import COMPOSERS, composer_scripts
from .deno_tasks import DENOS, deno_scripts
from .direnv_envrc import DIRENVS, direnv_scripts
from .disguised_programs import disguised_as, disguised_forms
from .dvc_stages import DVCS, dvc_scripts
from .filesystem import ACCEPT_EDITS_MODES, read_rule_of
from .git_hooks import GITS, git_hook_scripts
from .hatch_envs import HATCHES, hatch_scripts
from .hg_hooks import HGS, hg_scripts
from .inline_code import code_literals, is_interpreter, path_like
from .just_recipes import JUST, just_scripts
from .lefthook_hooks import LEFTHOOKS, lefthook_scripts
from .local_bins import HINT as LOCAL_BIN_HINT
from .local_bins import LOCAL_BIN_RUNNERS, local_bin_forms, local_bin_scripts
from .make_recipes import MAKES, make_scripts
from .mise_tasks import MISES, mise_scripts
from .mlflow_projects import MLFLOWS, mlflow_scripts
from .nbdev_tests import NBDEVS, nbdev_scripts
from .ninja_builds import NINJAS, ninja_scripts
from .notebook_runs import NOTEBOOK_RUNNERS, notebook_scripts
from .package_scripts import MANAGERS, MONOREPOS, monorepo_scripts, package_scripts
from .path_programs import relative_program, relative_search_path
from .path_values import PathEffects, path_effects
from .paths import BadPath, protected_reason_of, resolve_below
from .permission_thread import decide_off_loop
from .pipenv_scripts import PIPENVS, pipenv_scripts
from .pixi_tasks import PIXIS, pixi_scripts
from .precommit_hooks import PRE_COMMITS, precommit_scripts
from .procfile_runs import PROCFILE_RUNNERS, procfile_scripts
from .pyproject_scripts import RUNNERS, pyproject_scripts
from .python_commands import CodeFile, python_commands
from .python_envs import startup_files
from .python_folders import folder_calls_reason
from .python_strings import folded_strings
from .quarto_docs import QUARTOS, quarto_scripts
from .r_packages import R_PROGRAMS, r_package_scripts
from .script_commands import language_of, script_commands
from .script_files import (
    MAX_DEPTH,
    POSIX_SHELLS,
    SOURCE,
    Script,
    interpreter_name,
    line_may_change,
    may_put_in,
    may_run_scripts,
    parsed_file,
    read_script,
    run_before,
    scripts_run,
)
from .snakemake_rules import SNAKEMAKES, snakemake_scripts
from .sourced_effects import (
    BASH_BUILTINS,
    CD_SETTINGS,
    SourcedEffects,
    defined_functions,
    own_shell_unknown,
    sourced_effects,
)
from .taskfile_tasks import TASKS, taskfile_scripts
from .tox_commands import TOXES, tox_scripts
from .verdicts import RULE, SAFETY, new_ask, new_update, sticky_ask
from .workflow_engines import WORKFLOW_ENGINES, workflow_scripts

_ALLOWED = PermissionAllow(reason="every part is allowed or read-only")
# the programs that run the commands of a file they find, and the readers that give those commands
_COLLECTORS = ((LOCAL_BIN_RUNNERS, local_bin_scripts), (MANAGERS, package_scripts), (MAKES, make_scripts),
               (RUNNERS, pyproject_scripts), (JUST, just_scripts),
               (GITS, git_hook_scripts), (PRE_COMMITS, precommit_scripts), (TOXES, tox_scripts),
               (TASKS, taskfile_scripts), (LEFTHOOKS, lefthook_scripts),
               (NOTEBOOK_RUNNERS, notebook_scripts), (DVCS, dvc_scripts),
               (PIXIS, pixi_scripts), (QUARTOS, quarto_scripts),
               (BOOK_BUILDERS, book_scripts), (MLFLOWS, mlflow_scripts),
               (NBDEVS, nbdev_scripts), (SNAKEMAKES, snakemake_scripts), (MISES, mise_scripts),
               (DENOS, deno_scripts), (HATCHES, hatch_scripts), (PIPENVS, pipenv_scripts),
               (DIRENVS, direnv_scripts), (COMPOSES, compose_scripts), (NINJAS, ninja_scripts),
               (PROCFILE_RUNNERS, procfile_scripts), (MONOREPOS, monorepo_scripts),
               (COMPOSERS, composer_scripts), (CARGO_MAKES, cargo_make_scripts),
               (CARGOS, cargo_config_scripts), (WORKFLOW_ENGINES, workflow_scripts),
               (CLUSTER_LAUNCHERS, cluster_scripts), (PLAYBOOK_RUNNERS, playbook_scripts),
               (BATCH_SUBMITTERS, batch_scripts), (HGS, hg_scripts), (R_PROGRAMS, r_package_scripts))
# programs whose commands come from a file: _script_checks reads them (and any program run by path)
_SCRIPT_RUNNERS = POSIX_SHELLS | SOURCE | frozenset().union(*(runners for runners, _collect in _COLLECTORS))


def check_bash_permission(command: str, context: ToolUseContext | None) -> PermissionResult:
    """Allow / deny / ask for a whole command line (see the module docstring).  A check that
    fails on some input asks, in every mode: it may have been about to deny."""
    try:
        return _check(command, context)
    except Exception as exc:  # fail closed, keep the session going
        return sticky_ask(f"The permission check of this command failed ({type(exc).__name__}: {exc}); "
                          f"approve it only if you have read it.", SAFETY, "the check failed")


def _check(command: str, context: ToolUseContext | None) -> PermissionResult:
    analysis = analyze(command)
    verdict = Verdict()
    if context is None:
        rules, scope = None, None
        cwds = _cwds(analysis, os.path.realpath(os.getcwd()), command)
    else:
        rules = compiled_rules(context.permission_context)
        scope = rules.scope_of(context.cwd)
        cwds = _cwds(analysis, scope.real_cwd, command)
        if rules.deny_any is not None or rules.ask_any is not None:
            verdict.cwds = tuple(cwds)
            ruled = analysis.ruled
            if "PATH" in command:  # export PATH="$HOME/.local/bin:$PATH" && tool: the programs in what PATH gets
                line = Script(shown="the line", path=None, code=command)
                ruled = _path_followed(analysis, command, line, cwds, scope, context, rules, verdict, 0, None)
            _rule_checks(ruled, rules, verdict, command)
            if verdict.deny:
                return PermissionDeny(verdict.deny)
        if rules.rule_programs or rules.rule_program_starts or scope.read_deny:  # python tool.py: its strings
            _code_file_checks(analysis.commands, cwds, rules, scope, verdict, command)
        if rules.rule_programs and not verdict.deny and ("/" in command or LOCAL_BIN_HINT.search(command)):
            _disguise_checks(analysis.ruled, cwds, rules, verdict)  # ./bin/ls x, bin/ls a link to /bin/rm; npx ls
        path_checks(analysis, cwds, scope, context, verdict)
        _line_change_checks(analysis, scope, verdict)  # shopt -s dotglob, GLOBIGNORE=x, hash -p
        runs = _argument_runs(analysis.commands)  # bear -- make: the Makefile's recipes may run
        # bash clean.sh: its commands too
        if not verdict.deny and (runs or may_run_scripts(analysis, _SCRIPT_RUNNERS)):
            _script_checks(analysis, cwds, scope, context, rules, verdict, 0, runs)
        if verdict.deny:
            return PermissionDeny(verdict.deny)
    if analysis.problems:
        verdict.soft.extend(f"it could not be fully analyzed: {p}" for p in analysis.problems)
        if rules is not None and (rules.deny_any is not None or rules.ask_any is not None):
            # unread text may run what a deny or ask rule names: no mode may wave that through
            verdict.sticky.append(f"it could not be fully analyzed ({analysis.problems[0]}), so a "
                                  f"deny or ask rule may match what it runs")
        elif rules is not None:  # nor a write to .git/ or .claude/, which bypassPermissions still asks about
            verdict.sticky.append(f"it could not be fully analyzed ({analysis.problems[0]}), so it may "
                                  f"change a protected path")
    for info in analysis.commands:
        if not info.read_only.read_only or info.ask_reason or info.cd_kind:
            _command_checks(info, rules, cwds, scope, verdict, command, context)
    if rules is not None and relative_search_path():  # PATH=:/usr/bin: ls may be ./ls
        _relative_program_checks(analysis, cwds, rules, verdict)
    return _result(command, verdict, analysis)


def _relative_program_checks(analysis: Analysis, cwds: list[str], rules: CompiledRules, v: Verdict) -> None:
    """With a relative folder on PATH (``""``, ``.``), a read-only command is read-only only when
    bash finds its program in a fixed folder first: ``./ls`` is a file of the working folder.
    Otherwise it needs a rule of its own, or approval."""
    places: list[str | None] = list(dict.fromkeys(cwds))
    if getattr(cwds, "unknown", False):
        places.append(None)
    for info in analysis.commands:
        if not info.read_only.read_only or info.ask_reason or info.cd_kind:
            continue  # (checked by _command_checks)
        for form in info.forms:
            program = form[0].literal if form else None
            if program is None or "/" in program or program in BASH_BUILTINS:
                continue
            found = next(filter(None, (relative_program(program, place) for place in places)), None)
            if found is not None and not _allowed(rules, info.text):
                _needs_approval(v, f"{info.text} needs approval: PATH has a folder relative to where commands "
                                   f"run, so {program} is {found}", info.innermost)
                break


async def check_bash_permission_async(command: str, context: ToolUseContext | None) -> PermissionResult:
    """``check_bash_permission`` for the tools, made in the permission thread so that the files
    it reads never hold up the kernel's loop; when it needed something only a subprocess can tell
    (git's history, ``git_history.py``), that is found out on the loop and the line is decided
    again (``permission_thread``)."""
    return await decide_off_loop(lambda: check_bash_permission(command, context), check_timed_out)


def check_timed_out(seconds: float) -> PermissionResult:
    """The answer to a check that took too long: ask, in every mode (it may have been about to
    deny)."""
    return sticky_ask(f"The permission check of this command did not finish within {seconds:g} s (a file it "
                      f"reads may hang); approve it only if you have read it.", SAFETY, "the check timed out")


def is_read_only_command(command: str, context: ToolUseContext | None = None) -> bool:
    """True only when every part of ``command`` is proven read-only (fail closed)."""
    analysis = analyze(command)
    if analysis.problems or any(r.write for r in analysis.redirects):
        return False
    changes_dir = False
    for info in analysis.commands:
        if info.ask_reason:
            return False
        if info.cd_kind:
            changes_dir = True
        elif not info.read_only.read_only:
            return False
    if not changes_dir:
        return True
    if context is None:
        return False  # a cd is inside the working directories only when there are some
    scope = compiled_rules(context.permission_context).scope_of(context.cwd)
    cwds = _cwds(analysis, scope.real_cwd, command)
    return all(_cd_inside(info, cwds, scope) for info in analysis.commands if info.cd_kind)


def _line_change_checks(analysis: Analysis, scope: PathScope, v: Verdict) -> None:
    """A command that changes what the rest of its line means, which the analysis reads as bash
    does by default.  ``hash -p /bin/rm ls`` (``ls`` then runs rm) and ``set -k`` (``cmd NAME=V``
    sets a variable) ask in every mode.  ``shopt -s dotglob``/``globstar``/``nocaseglob`` and
    setting ``GLOBIGNORE`` change what patterns match (``cat *`` takes ``.env``, ``cp x */config``
    writes ``.git/config``): with a pattern in the line, that asks in every mode when a Read deny
    rule exists or the pattern is an argument of a command that is not read-only, or a write's
    target; a read-only listing (``shopt -s globstar; ls **/*.py``) is an ordinary question."""
    change = None
    for info in analysis.commands:
        if info.ask_reason:
            change = line_change(info.forms, info.assigned)
            if change is not None:
                break
    if change is not None:
        _changed_line_checks(analysis, change, scope, v)
        return
    if len(analysis.commands) > 1:  # eval "$(cat x.sh)"; cat * > out: x.sh may set HOME or dotglob first
        for info in analysis.commands:
            if own_shell_unknown(info):  # (a folder only known at run time after it: _cwds)
                why = f"{info.text} runs code only known at run time in the line's own shell, which may set"
                before = len(v.sticky)
                _changed_line_checks(analysis, (f"{why} HOME", HOME_CHANGE), scope, v)
                if len(v.sticky) == before:
                    _changed_line_checks(analysis, (f"{why} how patterns match", True), scope, v)
                return


def _changed_line_checks(analysis: Analysis, change: tuple[str, bool | str], scope: PathScope, v: Verdict) -> None:
    """What ``change`` (``line_change``'s answer, or a sourced script's) means for the line."""
    why, patterns = change
    if not patterns:
        v.sticky.append(why)
        return
    if patterns == HOME_CHANGE:
        if _leads_home(analysis):
            v.sticky.append(why)
        return
    if patterns == HISTFILE_CHANGE:
        if any(form and form[0].literal == "history" for info in analysis.commands for form in info.forms):
            v.sticky.append(why)
        return
    writes = any(r.write and _has_pattern(r.target) for r in analysis.redirects)
    reads = any(not r.write and _has_pattern(r.target) for r in analysis.redirects)
    for info in analysis.commands:
        if any(_has_pattern(w) for form in info.forms for w in form):
            writes = writes or not info.read_only.read_only
            reads = reads or not info.innermost or info.innermost[0].literal not in NAMES_ONLY
    if writes or reads and scope.read_deny:
        v.sticky.append(f"{why}, and the line has patterns the analysis matched as bash does by default")


def _leads_home(analysis: Analysis) -> bool:
    """Whether a word of the line expands ``~`` or a ``cd`` has no folder (both lead to $HOME)."""
    for info in analysis.commands:
        if info.cd_kind == "cd" and info.cd_target is None:
            return True
        if any(w.glob and "~" in w.text for form in info.forms for w in form):
            return True
    return any(r.target.glob and "~" in r.target.text for r in analysis.redirects)


def _has_pattern(word: Word) -> bool:
    return word.glob and any(c in word.text for c in "*?[")


def _rule_checks(commands: list[CommandInfo], rules: CompiledRules, v: Verdict, line: str = "",
                 arguments: bool = True) -> None:
    """Deny and ask rules on every form; one combined regex first skips forms no rule matches
    (``line``: the text of the commands, where an interpreter's input may be)."""
    deny_any, ask_any = rules.deny_any, rules.ask_any
    for info in commands:
        for text, known, complete in info.form_texts:
            if deny_any is not None and (not complete or deny_any.fullmatch(text)):
                for rule, pattern in rules.bash_deny:
                    if pattern.matches(text):
                        v.deny = f"Permission to run {text!r} has been denied by the rule {rule}."
                        return
                    if not complete and pattern.may_match(known):
                        v.sticky.append(f"{text!r} may match the deny rule {rule}")
            if ask_any is not None and (not complete or ask_any.fullmatch(text)):
                for rule, pattern in rules.bash_ask:
                    if pattern.matches(text) or (not complete and pattern.may_match(known)):
                        v.sticky.append(f"{text!r} matches the ask rule {rule}")
    if rules.skip_programs:
        _skipping_checks(commands, rules, v)
    if arguments and (rules.rule_programs or rules.rule_program_starts):
        _argument_commands(commands, rules, v, line)


def _disguise_checks(commands: list[CommandInfo], cwds: list[str], rules: CompiledRules, v: Verdict) -> None:
    """A program given as a path that is a program a deny or ask rule names, under another name
    (``./bin/ls x`` with ``bin/ls`` a link to, or a copy of, ``/bin/rm``): the rules meet it as
    that program (``disguised_programs.py``)."""
    for info in commands:
        forms = info.forms
        if any(form and form[0].literal in LOCAL_BIN_RUNNERS for form in forms):  # npx ls: node_modules/.bin/ls
            forms = (*forms, *local_bin_forms(info, cwds))
        if not any(form and "/" in (form[0].literal or "") for form in forms):
            continue
        for form, given in disguised_forms(forms, cwds, rules.rule_programs):
            text = form_text(form)[0]
            why = f"{given} is {form[0].text}: a link to it or a copy of it"
            for rule, pattern in rules.bash_deny:
                if pattern.matches(text):
                    v.deny = f"Permission to run {text!r} has been denied by the rule {rule} ({why})."
                    return
            v.sticky.extend(f"{text!r} matches the ask rule {rule} ({why})" for rule, pattern in rules.bash_ask
                            if pattern.matches(text))


# programs whose arguments are never a command they run, besides the read-only ones and those the
# analysis reads itself (MODELED_PROGRAMS, RUNNER_TABLE): what writes files, version control and
# package managers (`git rm x`, `hg rm`, `apt-get install curl`), manuals and process tools
_DATA_ARGUMENTS = WRITING_PROGRAMS | _SCRIPT_RUNNERS | frozenset({
    "git", "hg", "svn", "bzr", "jj", "fossil", "man", "info", "whatis", "apropos", "tldr", "help", "kill",
    "killall", "pkill", "pidof", "apt", "apt-get", "apt-cache", "dpkg", "dnf", "yum", "rpm", "brew", "port",
    "pacman", "apk", "snap", "pip", "pip3", "conda", "mamba", "micromamba", "gem", "go", "cargo", "rustup",
    "nix-env", "systemctl", "service", "journalctl", "alias", "unalias", "complete", "compgen", "hash",
    "type", "which", "command", "builtin", "enable", "declare", "typeset", "export", "unset", "local",
    "readonly"})


def _argument_commands(commands: list[CommandInfo], rules: CompiledRules, v: Verdict, line: str) -> None:
    """A program the analysis does not know may run its arguments (``tool rm x``, as ``nice rm
    x`` does; ``tool -c 'rm x'`` or ``tool --run='rm x'``, as ``sh -c`` does): where a word among
    them is the program a deny or ask rule names and the words from there match it, or a word is
    shell code (or an option's value is) whose commands a rule names, it asks in every mode
    (``Bash(rm:*)`` denied, ``Bash(*)`` allowed: ``krenew -- rm x`` ran rm before krenew was
    known).  So does a variable's value that is such code (``DIFFPROG='rm x' pacdiff``, ``export
    X='rm x'``): a program reads its command from the environment.  What fails closed here is only
    an ask."""
    whole, starts = rules.rule_programs, rules.rule_program_starts
    stdin = StdinSources(line) if "|" in line or "<<" in line else None
    line_read = False  # the line's strings, for the interpreters it runs
    bodies: list[str] | None = None  # the line's heredocs, read when an interpreter needs them
    if any(info.set_values for info in commands):  # X='rm x'; export X (or set -a first): in the environment
        exported = _exported_names(commands)
        for info in commands:
            for variable, text in info.set_values:
                if (exported is None or variable in exported) and _rule_code(text, rules, v, f"the value of {variable}"):
                    return
    for info in commands:
        for name, value in info.assigned:
            if value and _rule_code(value, rules, v, f"the value of {name}"):
                return
        for form in info.forms:
            program = form[0].literal if form else None
            if program is None:  # (a program only known at run time too)
                continue
            name = program.rpartition("/")[2]
            if name in _ASSIGNING:
                if any(w.literal and _rule_code(_assigned(w.literal), rules, v, f"the value {name} sets")
                       for w in form[1:]):
                    return
                continue
            interpreter = is_interpreter(name)
            # the code it runs (-c CODE, what is piped in); a string of it: python -c 'os.system("rm x")',
            # subprocess.run(["rm", "x"]), python <<'EOF'
            codes = interpreter_codes(info, line, stdin, heredoc=False) if interpreter else []
            strings: list[str] = []
            if interpreter:
                # python <<'EOF' …, echo 'os.system(…)' > t.py && python t.py (the line may write the
                # script): the line's strings, looked at once
                if not line_read and ("<<" in line or len(commands) > 1):
                    line_read = True
                    strings = code_literals([line], bare=False, words=False)
                strings += code_literals(codes, bare=False, words=False)
            if strings and _rule_strings(strings, rules, v, f"a string of {name}'s code"):
                return
            language = "python" if name.startswith(_PYTHON_NAMES) else language_of(name) if interpreter else None
            if language is not None:  # os.system('r' + 'm x'), os.system(input()), perl -e 'system("r"."m x")'
                read = list(codes)
                if "<<" in line:  # python - <<'EOF' …, cat > t.py <<'EOF' … python t.py: the code it reads
                    if bodies is None:
                        bodies = heredoc_bodies(line)  # (once: a line may run many interpreters)
                    read += bodies
                if strings and (len(commands) > 1 or "<<" in line):  # echo '…' > t.py && python t.py
                    read += [t for t in strings if "(" in t or " " in t]
                if language == "python":
                    why = python_command_reason(read, rules, f"{name}'s code", v.cwds)
                else:
                    lines = [found for code in dict.fromkeys(read) for found in script_commands(language, code)]
                    why = _command_lines_reason(lines, rules, f"{name}'s code")
                if why is not None:
                    v.sticky.append(why)
                    return
            if not _may_run_arguments(name, form):
                continue
            if stdin is not None and not interpreter:  # echo 'rm x' | some-tool (timeout 5 some-tool <<EOF)
                texts = stdin.of(info.forms[0]) or ()
                if any(isinstance(t, str) and _rule_code(t, rules, v, f"what {name} reads") for t in texts):
                    return
            if len(form) < 2:
                continue
            if len(commands) > 1 and _reads_written(form, commands, line, rules, v, name):
                return
            for k in range(1, len(form)):
                word = form[k].literal
                if word is None or word in codes:
                    continue
                base = word.rpartition("/")[2]  # some-tool /bin/rm x
                if not (base in whole or (starts and base.startswith(starts))):
                    if _rule_code(_assigned(word), rules, v, f"an argument of {name}"):
                        return
                    continue
                text = f"{base} {form_text(form[k + 1:])[0]}" if k + 1 < len(form) else base
                for rule, pattern in (*rules.bash_deny, *rules.bash_ask):
                    if pattern.matches(text):
                        v.sticky.append(f"{name} may run {text!r} (a command among its arguments), which the rule "
                                        f"{rule} names")
                        return


def _code_file_checks(commands: list[CommandInfo], cwds: list[str], rules: CompiledRules, scope: PathScope,
                      v: Verdict, line: str = "") -> None:
    """A string of a code file the line runs (``python tool.py``'s ``subprocess.run(["rm", "x"])``,
    ``invoke``'s ``tasks.py``: ``c.run("rm -rf build")``) that is a command a deny or ask rule
    names asks, as such a string of ``python -c CODE`` does (``code_files.py``); so does one of a
    project module Python code of the line imports (``python - <<'EOF'`` + ``import helpers``)."""
    # each file once (its forms /usr/bin/python3 x.py, python3 x.py and python x.py name one file)
    memo = v.memo if v.memo is not None else new_memo(v)
    folders = list(dict.fromkeys(cwds))
    files: dict[str, str] = {}
    # PYTHONPATH=lib python tool.py (or set anywhere in the line): its folders are looked in too
    paths = tuple(folder for info in commands for name, value in (*info.assigned, *info.set_values)
                  if name == "PYTHONPATH" and value for folder in value.split(":") if folder)
    stdin: StdinSources | None = None
    codes: set[str] = set()
    for info in commands:
        forms = info.forms
        if any(form and form[0].literal in LOCAL_BIN_RUNNERS for form in forms):  # uv run tool: .venv/bin/tool
            forms = (*forms, *local_bin_forms(info, folders))
        for form in forms:
            program = form[0].literal if form else None
            if program is not None and program.rpartition("/")[2].startswith(_STARTS_PYTHON):
                # what its environments run at every start-up: .pth lines, sitecustomize.py
                jupyter = program.rpartition("/")[2].startswith(_JUPYTER_NAMES)
                key = ("startup", program if "/" in program else "", jupyter, *folders)
                if key not in memo:
                    memo[key] = [(path, cwd) for cwd in folders
                                 for path in startup_files(cwd, program if "/" in program else None, jupyter)]
                files.update(cast("list[tuple[str, str]]", memo[key]))
            if program is not None and program.rpartition("/")[2].startswith(("python", "ipython")):
                if stdin is None and "|" in line:
                    stdin = StdinSources(line)  # (once: a long line runs many)
                code = "\n".join(interpreter_codes(info, line, stdin))  # -c CODE, a heredoc, what is piped in
                if "import" in code and code not in codes:
                    codes.add(code)
                    files.update((path, cwd) for cwd in folders for path in loaded_by_code(code, cwd, memo, paths))
            # a program no table knows may be a console script of the project (mycli: pkg/cli.py)
            if program is None or not (may_run_code_files(program) or (
                    info.cd_kind is None and program not in _SHELL_BUILTINS and _may_run_arguments(program, form))):
                continue
            key = ("code files", tuple(w.literal for w in form), paths, *folders)  # a long line repeats commands
            if key not in memo:
                memo[key] = [(path, cwd) for cwd in folders for path in code_files(form, cwd, memo, paths)]
            files.update(cast("list[tuple[str, str]]", memo[key]))
    found = code_files_reason(files, rules, scope, v)
    if found is not None:
        v.sticky.append(f"{found[1]}, which the line runs, {found[2]}")


def code_files_reason(files: dict[str, str], rules: CompiledRules, scope: PathScope | None,
                      v: Verdict) -> tuple[str, str, str] | None:
    """Why one of the code files ``files`` (path -> the folder it runs from) asks: a string of it
    is a command a deny or ask rule names, or (``scope`` with Read deny rules) names a file such a
    rule covers (``open(".env")``, from the folder it runs in or its own) — ``python -c`` with
    that string asks too.  (path, the path as shown, why), or None."""
    def shown(path: str, cwd: str) -> str:
        return os.path.relpath(path, cwd) if path.startswith(cwd + os.sep) else path

    if rules.rule_programs or rules.rule_program_starts:
        for path, cwd in files.items():
            found = code_file_reason(path, rules)
            if found is not None:
                return path, shown(path, cwd), found
    if scope is None or not scope.read_deny:
        return None
    tried: set[str] = set()
    for path, cwd in files.items():
        strings, why = file_strings_why(path)
        if why:
            return path, shown(path, cwd), f"could not be read ({why}), so the files it reads are not known"
        for text in strings:
            if len(text) > 200 or "\n" in text or not path_like(text):
                continue
            for base in dict.fromkeys((cwd, os.path.dirname(path))):
                where = os.path.normpath(os.path.join(base, os.path.expanduser(text)))
                if where in tried:
                    continue
                tried.add(where)
                rule = scope.read_denied(where, where)
                if rule is None and os.path.lexists(where):  # another name of it: a link
                    resolved = resolved_once(where, base, v)
                    rule = read_rule_of(*resolved, scope) if resolved else None
                if rule is not None:
                    return path, shown(path, cwd), f"names {text} in a string, which the rule {rule} denies reading"
    for path, cwd in files.items():  # os.listdir('.') + open(f), shutil.make_archive(…, '.'): what it lists
        if path.endswith(_LISTING_CODE):
            code, _ = parsed_file(path, code_text, _MAX_PYTHON)
            found_why = folder_calls_reason([code], cwd, scope) if code else None
            if found_why is not None:
                return path, shown(path, cwd), found_why
    return None


_MAX_PYTHON = 4 * 1024 * 1024
_LISTING_CODE = (".py", ".js", ".mjs", ".cjs", ".ts", ".mts", ".cts", ".R", ".r")  # read by python_folders


def code_text(data: bytes) -> str:
    """A code file's text (for ``parsed_file``, which keeps it per version of the file)."""
    return data.decode("utf-8", "replace")


def _notebook_imports(path: str, shown: str, cwds: list[str], rules: CompiledRules, scope: PathScope,
                      v: Verdict) -> None:
    """A string of a project module a notebook's cells import (its kernel runs in the notebook's
    folder, or the line's) that is a command a deny or ask rule names, or names a file a Read
    deny rule covers, asks."""
    memo: dict[tuple[object, ...], object] = {}
    for cwd in dict.fromkeys(cwds):
        found = code_files_reason({module: cwd for module in notebook_loaded(path, cwd, memo)}, rules, scope, v)
        if found is not None:
            v.sticky.append(f"{shown} imports {found[1]}, {found[2]}")
            return


# programs that start Python (a console script's #! names it): the environment's start-up code runs
_STARTS_PYTHON = ("python", "ipython", "pypy", "pytest", "py.test", "jupyter", "pip", "papermill", "voila")
_JUPYTER_NAMES = ("ipython", "jupyter", "papermill", "voila")  # (they load etc/jupyter and etc/ipython too)
# what the shell runs itself (no console script of a project is named so)
_SHELL_BUILTINS = BASH_BUILTINS | {"[["}


def code_file_reason(path: str, rules: CompiledRules) -> str | None:
    """Why the code file at ``path`` asks under ``rules`` (the end of a sentence: ``a string of
    which may be shell code a program runs, 'rm -rf x': …``, or that it could not be read), or
    None: worked out once per version of the file and rule set (a project's modules are read by
    many decisions)."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    hits = rules.file_hits
    key = (path, st.st_ino, st.st_mtime_ns, st.st_size)
    if key not in hits:
        if len(hits) >= _MAX_FILE_HITS:
            hits.clear()
        strings, why = file_strings_why(path)
        sub = Verdict()
        _rule_strings(strings, rules, sub, "")
        hits[key] = (f"a string of which{sub.sticky[0]}" if sub.sticky
                     else f"could not be read ({why}), so what it runs is not known" if why else None)
    return hits[key]


_MAX_FILE_HITS = 4_096


def _may_run_arguments(name: str, form: tuple[Word, ...]) -> bool:
    """Whether ``name`` (the program of ``form``) is one no table knows, which may run its
    arguments as a command (``python tool.py rm x``: the script's arguments count)."""
    known = name in _DATA_ARGUMENTS or name in MODELED_PROGRAMS or name in RUNNER_TABLE or name in SPECS
    return not known or (len(form) > 2 and is_interpreter(name))


# what an unknown program may run among its arguments whose files give its commands (``bear -- make``
# runs the Makefile's recipes): the shells and the task runners; not ``source`` (``.`` is a folder)
_ARGUMENT_RUNNERS = _SCRIPT_RUNNERS - SOURCE


def _argument_runs(commands: list[CommandInfo]) -> list[tuple[CommandInfo, CommandInfo]]:
    """(command, the command from a runner among its arguments) for the programs no table knows
    whose arguments name a shell or a task runner: ``bear -- make``, ``colormake``'s wrappers,
    ``some-tool bash x.sh``.  What that runner runs may run: a deny rule matching it asks."""
    found = []
    for info in commands:
        for form in info.forms:
            program = form[0].literal if len(form) > 1 else None
            if program is None or not _may_run_arguments(name := program.rpartition("/")[2], form):
                continue
            for k in range(1, len(form)):
                if form[k].literal in _ARGUMENT_RUNNERS and form[k].literal != name:
                    words = form[k:]
                    found.append((info, CommandInfo((words,), words, _NOT_READ_ONLY, nested=info.nested)))
                    break
    return found


# the builtins whose NAME=VALUE arguments set variables (export's reach the programs the line runs)
_ASSIGNING = frozenset({"export", "declare", "typeset", "local", "readonly"})
# what may separate a command's name from the rest of shell code, a quick look before parsing it
# (quotes and backslashes go: r""m and \rm are rm)
_CODE_BREAKS = str.maketrans({**{c: " " for c in ";&|()`<>{}!$=\n\t"}, **{c: None for c in "'\"\\"}})


def _reads_written(form: tuple[Word, ...], commands: list[CommandInfo], line: str, rules: CompiledRules,
                   v: Verdict, name: str) -> bool:
    """A file the line writes that ``form``'s program (one no table knows) is given: what was
    written there may be its commands (``printf 'rm x' > c.txt && tool -f c.txt``, ``cat > c.txt
    <<'EOF'``): the line's strings and the text its commands read on standard input are held to
    the rules as the program's own arguments are."""
    written = _written_files(line)
    if not written or not any(w.literal and os.path.normpath(_assigned(w.literal)) in written for w in form[1:]):
        return False
    texts: list[str | Word] = list(code_literals([line], bare=False, words=False))
    if "<<" in line or "|" in line:
        stdin = StdinSources(line)
        texts += [t for info in commands if info.forms for t in stdin.of(info.forms[0]) or ()]
    return any(isinstance(t, str) and _rule_code(t, rules, v, f"a file the line writes for {name}") for t in texts)


@lru_cache(maxsize=32)  # (asked once per program no table knows: once per line)
def _written_files(line: str) -> frozenset[str]:
    """The files the line writes by redirection or ``tee`` (as written, normalized)."""
    analysis = analyze(line)
    files = {r.target.literal for r in analysis.redirects if r.write and r.target.literal}
    files.update(w.literal for info in analysis.commands for form in info.forms[:1]
                 if form and form[0].literal == "tee" for w in form[1:] if w.literal and w.literal[:1] != "-")
    return frozenset(os.path.normpath(f) for f in files if f)


def string_command_reason(strings: Iterable[str], context: ToolUseContext, where: str) -> str | None:
    """Why one of ``strings`` (a cell's string literals) asks: it is a command a deny or ask rule
    names (``os.system("rm -rf x")`` under ``Bash(rm:*)``), as a string of a script run from Bash
    is; None when none is, or no such rule names a program."""
    rules = compiled_rules(context.permission_context)
    if not (rules.rule_programs or rules.rule_program_starts):
        return None
    v = Verdict()
    return v.sticky[0] if _rule_strings(strings, rules, v, where) else None


_PYTHON_NAMES = ("python", "ipython", "pypy")
# a call that may run a program or code (python_commands.py): other code is not parsed here
_RUNS_HINT = re.compile(r"system|popen|subprocess|exec|spawn|eval|compile|getoutput|import|getattr|CDLL|cdll|magic|"
                        r"run_cell|sh\.|dlopen|LoadLibrary")


def python_command_reason(codes: Iterable[str], rules: CompiledRules, where: str, cwds: Sequence[str] = (),
                          depth: int = 0) -> str | None:
    """Why Python code asks: a command one of its calls runs is one a deny or ask rule names
    (``os.system('r' + 'm x')`` under ``Bash(rm:*)``, also through ``exec`` of code it computes
    or of a file it names, read from ``cwds``), or a command it runs is only known at run time
    (``os.system(input())``, ``subprocess.run(['sh', '-c', cmd])``) while such rules name programs,
    as ``$cmd x`` does in Bash (``python_commands.py``); None when neither."""
    lines = [found for code in dict.fromkeys(codes) if _RUNS_HINT.search(code) is not None
             for found in python_commands(code)]
    return _command_lines_reason(lines, rules, where, cwds, depth)


def _command_lines_reason(lines: Iterable[str | None], rules: CompiledRules, where: str, cwds: Sequence[str] = (),
                          depth: int = 0) -> str | None:
    """Why code that runs the shell ``lines`` (None: a command only known at run time; a
    ``CodeFile``: a file it runs as Python) asks under ``rules``; None when it need not."""
    for line in lines:
        sub = Verdict()
        if isinstance(line, CodeFile):
            found = ("the folder it is read from is not known here" if not cwds
                     else _exec_file_reason(line, rules, cwds, depth) if depth < MAX_DEPTH
                     else "it runs code in code too deeply to follow")
            if found is not None:
                return f"{where} runs the code of {line}: {found}"
            continue
        if line is None:
            _rule_checks([_UNKNOWN_CODE], rules, sub)
            found = sub.deny or (sub.sticky[0] if sub.sticky else None)
            if found is not None:
                return f"{where} runs a command only known at run time, so {found}"
            continue
        inner = analyze(line)
        _rule_checks(inner.ruled, rules, sub, line)
        found = sub.deny or (sub.sticky[0] if sub.sticky else None)
        if found is None and inner.problems:
            found = f"it could not be fully analyzed ({inner.problems[0]}), so a deny or ask rule may match it"
        if found is not None:
            return f"{where} runs {line!r}: {found}"
    return None


def _exec_file_reason(name: str, rules: CompiledRules, cwds: Sequence[str], depth: int) -> str | None:
    """Why the file ``name`` (from one of ``cwds``), which Python code runs as code, asks: its
    strings or its calls (``python_command_reason``); once per version of the file and rule set."""
    for cwd in dict.fromkeys(cwds):
        path = os.path.join(cwd, os.path.expanduser(name))
        try:
            st = os.stat(path)
        except (OSError, ValueError):
            continue
        if not stat.S_ISREG(st.st_mode):
            return "is not a regular file, so what it runs is not known"
        key = (f"exec:{path}", st.st_ino, st.st_mtime_ns, st.st_size)  # (beside code_file_reason's path keys)
        hits = rules.file_hits
        if key not in hits:
            if len(hits) >= _MAX_FILE_HITS:
                hits.clear()
            text, why = parsed_file(path, code_text)  # (bounded; a named pipe is never waited on)
            if text is None:
                hits[key] = f"could not be read ({why}), so what it runs is not known" if why else None
            else:
                strings = [*code_literals([text], bare=False, words=False), *folded_strings(text)]
                sub = Verdict()
                if _rule_strings(strings, rules, sub, "a string of it"):
                    hits[key] = sub.sticky[0]
                else:
                    hits[key] = python_command_reason([text], rules, "its code", [cwd, os.path.dirname(path)],
                                                      depth + 1)
        if hits[key] is not None:
            return cast("str", hits[key])
    return None


def _exported_names(commands: list[CommandInfo]) -> set[str] | None:
    """The names the line exports without a value (``export X``, ``declare -x X``), or None when
    it exports every variable it sets (``set -a``, ``set -o allexport``)."""
    names: set[str] = set()
    for info in commands:
        for form in info.forms:
            words = [w.literal for w in form]
            if not words or words[0] not in ("export", "declare", "typeset", "set"):
                continue
            options = [w for w in words[1:] if w and w[:1] in "-+"]
            if words[0] == "set":
                if any(o[:1] == "-" and "a" in o[1:] and o[:2] != "--" for o in options) or (
                        "allexport" in words and "-o" in words):
                    return None
                continue
            if words[0] != "export" and not any(o[:1] == "-" and "x" in o for o in options):
                continue
            names.update(w for w in words[1:] if w and w[:1] not in "-+" and "=" not in w)
    return names


def _assigned(word: str) -> str:
    """The part of an argument that may be a command: an option's or a variable's value
    (``--run=rm x``, ``X=rm x``), else the whole word."""
    head, eq, value = word.partition("=")
    if eq and (head[:1] == "-" or head.isidentifier()):
        return value
    return word


def _rule_strings(strings: Iterable[str], rules: CompiledRules, v: Verdict, where: str) -> bool:
    """Whether one of the strings of some code is a command a deny or ask rule names (asked in
    ``v``, the first one only): ``_rule_code`` of each, as code's strings are read (not strict)."""
    return any(_rule_code(text, rules, v, where, strict=False) for text in strings)


def _rule_code(code: str, rules: CompiledRules, v: Verdict, where: str, strict: bool = True) -> bool:
    """``code`` (one word's text) read as shell code, when a word of it is the program a deny or
    ask rule begins with: a rule matching one of its commands, or (``strict``: a word a program
    takes, not a string of code, which is often prose) code that does not parse or an unknown
    program of it naming such a command, asks (``v.sticky``).  True when it does."""
    whole, starts = rules.rule_programs, rules.rule_program_starts
    tokens = [t.rpartition("/")[2] for t in code.translate(_CODE_BREAKS).split()]  # /bin/rm: rm
    if not any(t in whole or (starts and t.startswith(starts)) for t in tokens):
        return False
    inner = analyze(code)
    sub = Verdict()
    _rule_checks(inner.ruled, rules, sub, code, arguments=strict)
    found = sub.deny or (sub.sticky[0] if sub.sticky else None)
    if found is None and inner.problems and strict:
        found = f"it could not be fully analyzed ({inner.problems[0]})"
    if found is None:
        return False
    v.sticky.append(f"{where} may be shell code a program runs, {code!r}: {found}")
    return True


def _skipping_checks(commands: list[CommandInfo], rules: CompiledRules, v: Verdict) -> None:
    """Deny and ask rules again with options skipped (``docker --context x rm c``)."""
    programs = rules.skip_programs
    for info in commands:
        forms = info.forms
        if len(forms) == 1 and (not forms[0] or forms[0][0].text not in programs):
            continue  # the common case: one form, a program no such rule names
        for k, form in enumerate(forms):
            if not form or form[0].text not in programs:
                continue
            text = info.form_texts[k][0]
            hit = skipping_match(form, rules.deny_skips)
            if hit is not None:
                rule, certain = hit
                if certain:
                    v.deny = f"Permission to run {text!r} has been denied by the rule {rule} (options skipped)."
                    return
                v.sticky.append(f"{text!r} may match the deny rule {rule}")
            hit = skipping_match(form, rules.ask_skips)
            if hit is not None:
                v.sticky.append(f"{text!r} matches the ask rule {hit[0]} (options skipped)")
            rule = git_alias_rule(form, rules.deny_skips) or git_alias_rule(form, rules.ask_skips)
            if rule is not None:
                v.sticky.append(f"{text!r} runs no git command this analyzer knows: an alias from git's "
                                f"settings may run what {rule} names")


def _command_checks(
    info: CommandInfo, rules: CompiledRules | None, cwds: list[str], scope: PathScope | None, v: Verdict,
    line: str = "", context: ToolUseContext | None = None,
) -> None:
    read_only = info.read_only.read_only
    if info.assigned:
        protected_assignments(info, cwds, v, scope)  # GIT_CONFIG_GLOBAL=.claude/settings.json git config …
    if read_only and not info.ask_reason and not info.cd_kind:
        return  # the common case: nothing to add (its paths were checked in _path_checks)
    if not read_only and not info.cd_kind:
        protected_arguments(info, cwds, v, scope, line)
    text = info.text
    if info.ask_reason:
        v.soft.append(f"{text or 'the command'}: {info.ask_reason}")
        return
    if info.cd_kind:
        if not _cd_inside(info, cwds, scope):
            v.soft.append(f"{text} changes to a directory outside the working directories")
        return
    if info.innermost and rules is not None and _allowed(rules, text):
        if info.innermost[0].literal in _RUNS_OTHERS:
            _run_checks(info.innermost, rules, v)
        return
    if (context is not None and scope is not None and scope.rules.context.mode in ACCEPT_EDITS_MODES
            and info.innermost and info.innermost[0].literal in FILESYSTEM_COMMANDS
            and accept_edits_allows(info, cwds, scope, context)):
        return  # mkdir / touch / cp / mv / rm of files inside the working directories
    _needs_approval(v, f"{text} needs approval", info.innermost)


def _needs_approval(v: Verdict, why: str, words: tuple[Word, ...]) -> None:
    """An ordinary question (an allow rule or the mode may lift it), with the rule Always allow
    offers for ``words``."""
    v.soft.append(why)
    rule = suggested_rule(words)
    if rule is not None and rule not in v.prefixes:
        v.prefixes.append(rule)


_RUNS_OTHERS = frozenset({"find", "fd", "git"})


def _run_checks(words: tuple[Word, ...], rules: CompiledRules, v: Verdict) -> None:
    """A rule allowing ``find`` (or ``fd``) allows searching, and one allowing ``git`` allows
    git, not every program ``find -exec`` or ``git bisect run`` runs: each command they run must
    be read-only or allowed by a rule of its own, as after ``xargs`` (``find . -exec curl … ;``
    and ``git bisect run curl …`` under ``Bash(find:*)``/``Bash(git:*)`` ask).  Shell code git
    takes (``rebase -x '…'``) is analyzed as commands of the line already."""
    for form in commands_it_runs(words):
        text = form_text(form)[0]
        if _allowed(rules, text) or check_read_only(form).read_only:
            continue
        _needs_approval(v, f"{text} (run by {words[0].text}) needs approval", form)


def _allowed(rules: CompiledRules, text: str) -> bool:
    allow_any = rules.allow_any
    if allow_any is None or not allow_any.fullmatch(text):
        return False
    return any(p.matches(text) for _r, p in rules.bash_allow)


def _script_checks(
    analysis: Analysis, cwds: list[str], scope: PathScope, context: ToolUseContext, rules: CompiledRules,
    v: Verdict, depth: int, runs: list[tuple[CommandInfo, CommandInfo]] | None = None,
) -> None:
    """The commands of the shell scripts the line runs from files (``script_files.py``) meet the
    deny and ask rules and the safety checks of ``_check``; what they would need approval for does
    not count (what lets the line run the script covers it).  A script whose text is not known is
    code only known at run time: a deny or ask rule may match it."""
    memo = v.memo if v.memo is not None else new_memo(v)
    # (the command, the command whose scripts are looked for, whether they surely run)
    todo = [(info, info, True) for info in analysis.commands]
    todo += [(info, run, False) for info, run in runs or ()]
    for info, runner, certain in todo:
        programs = {form[0].literal for form in runner.forms if form}
        found = scripts_run(runner, cwds)
        shell_files = set(found)  # bash x.sh, source x.sh, sh < x.sh: shell code, whatever the runner
        for runners, collect in _COLLECTORS:
            if not programs.isdisjoint(runners):
                found += collect(runner, cwds, memo)
        if not certain:  # some-tool make: make may run (a deny rule matching a recipe asks)
            found = [replace(script, certain=False) for script in found]
            shell_files = {replace(script, certain=False) for script in shell_files}
        # each once: `cd sub && npm test` finds the same package.json from both folders
        for script in dict.fromkeys(found):
            text, why = None, script.why
            if script.ask_if_changed and not scope.inside(script.path or "/"):
                continue  # a git configuration file outside the working directories: the user's
            if script.path is not None:
                # the line that runs the script: any program that may write it counts; inside a script,
                # or for a file in a protected folder (.git/hooks/pre-commit, which a write naming it
                # asks about anyway), only a command naming it (a script's commands are seldom all known writers)
                everything = depth == 0 and protected_reason_of(script.path, script.path) is None
                changed = line_may_change(analysis, info, script.path, cwds, everything=everything, memo=memo)
                ask = script.ask_if_changed if changed else script.ask
                if ask:  # a git configuration file an edit may change
                    v.sticky.append(ask)
                if changed:
                    why = f"the line may change {script.shown} before it runs"
                elif script.missing:
                    continue  # no such file: the shell fails without running anything
                elif script.code is not None:
                    text = script.code
                else:
                    text, why = read_script(script.path)
            elif script.code is not None:  # ipython -c CODE: code with no file
                text = script.code
            if text is not None and depth >= MAX_DEPTH:
                text, why = None, "scripts run scripts too deeply to follow"
            elif text is not None:
                text = script.prelude + text  # bash -O dotglob x.sh: as shopt -s dotglob, then x.sh
            if text is None:
                _unknown_script(script, why, rules, v, scope if script in shell_files else None)
            else:
                _checks_of_script(text, script, cwds, scope, context, rules, v, depth, (analysis, info))
            if script.sourced and len(analysis.commands) > 1:  # . x.sh; cp y ~/z: in x.sh's shell
                _sourced_change_checks(analysis, script, text, info, cwds, scope, context, rules, v)
            if v.deny:
                return


def _sourced_change_checks(analysis: Analysis, script: Script, text: str | None, info: CommandInfo,
                           cwds: list[str], scope: PathScope, context: ToolUseContext, rules: CompiledRules,
                           v: Verdict) -> None:
    """A script the line sources (``. x.sh``) runs in the line's own shell: its ``cd /etc``,
    ``HOME=/etc``, ``shopt -s dotglob``, ``set -k``, ``PATH=…`` and functions still hold for the
    commands after it, which the analysis read with the shell as it was (``sourced_effects``).
    When a command of the line names the script (``echo 'cd /etc' > x.sh; . x.sh``) what it
    changes is not known."""
    lead = f"{script.shown}, which the line sources,"
    if script.path is not None and line_may_change(analysis, info, script.path, cwds, everything=False):
        v.sticky.append(f"{lead} may be changed by the line first, and may change the folder or what words "
                        "mean for the commands after it")
        return
    if text is None and script.path is not None and not script.missing:
        text = read_script(script.path)[0]  # (only the line's programs may change it: what they may do anyway)
    if text is None:
        if not script.missing:
            v.sticky.append(f"{lead} is not known, and may change the folder or what words mean for the commands "
                            "after it")
        return
    effects = sourced_effects(text, cwds, analysis, info)
    if effects.unknown:
        v.sticky.append(f"{lead} may change the folder or what words mean for the commands after it: "
                        f"{effects.unknown}")
        return
    if effects.cd:
        v.sticky.append(f"{lead} changes the folder ({effects.cd}) for the commands after it, which the "
                        "analysis read from the folder the line starts in")
        return
    if effects.cd_settings and any(c.cd_kind for c in analysis.commands):
        v.sticky.append(f"{lead} may change where a cd of the line leads ({', '.join(CD_SETTINGS)})")
        return
    for why, kind in effects.changes:
        before = len(v.sticky)
        _changed_line_checks(analysis, (f"{lead} {why}", kind), scope, v)
        if len(v.sticky) > before:
            return
    if effects.own_code:  # as eval "$X" in the line itself: HOME, patterns, and the folder after it
        why = f"{lead} runs {effects.own_code}, code only known at run time in the line's own shell, which may set"
        before = len(v.sticky)
        _changed_line_checks(analysis, (f"{why} HOME", HOME_CHANGE), scope, v)
        if len(v.sticky) == before:
            _changed_line_checks(analysis, (f"{why} how patterns match", True), scope, v)
        if len(v.sticky) > before:
            return
        _paths_after_sourcing(analysis, info, cwds, scope, context, v)
        if v.deny or len(v.sticky) > before:
            return
    if effects.programs or effects.functions:
        gained = _path_gain_only(text) if effects.programs else None
        if gained is not None and any(may_put_in(analysis, folder, cwds, info, last_too=False,
                                                 functions=frozenset(effects.functions)) for folder in gained):
            gained = None  # the line may put a program there first
        _programs_after_sourcing(_commands_after(analysis, info)[0], effects, lead, rules, v, gained)


def _paths_after_sourcing(analysis: Analysis, runner: CommandInfo, cwds: list[str], scope: PathScope,
                          context: ToolUseContext, v: Verdict) -> None:
    """The commands after a sourced script that runs code only known at run time (``eval
    "$(cat x)"``, which may ``cd .git``) run in a folder only known at run time: their paths are
    checked again from there, as after ``eval "$X"`` in the line itself."""
    later, in_order = _commands_after(analysis, runner)
    if not later and (in_order or not analysis.redirects):
        return  # (in a line run in order, the redirections then belong to it or to commands before it)
    moved = _Cwds(dict.fromkeys(cwds))
    moved.from_base, moved.unknown, moved.cdpath = {}, True, False
    path_checks(Analysis(later, analysis.redirects), moved, scope, context, v)


def _commands_after(analysis: Analysis, runner: CommandInfo) -> tuple[list[CommandInfo], bool]:
    """The commands of the line but ``runner`` that may run after it, and whether the line runs
    in a known order (else: all of them)."""
    before = run_before(analysis, runner)
    earlier = {id(c) for c in before.commands} if before is not None else set()
    return [c for c in analysis.commands if c is not runner and id(c) not in earlier], before is not None


def _path_gain_only(text: str) -> tuple[str, ...] | None:
    """The folders a sourced script puts on PATH when that is all it does to which program a
    name runs (``path_values.py``: a venv's activate script), else None."""
    effects = _path_effects_now(text)
    if effects is None:
        return None
    for command in analyze(text).ruled:
        program = command.innermost[0].literal if command.innermost else None
        if program == "enable" or (any(_unknown_form(form) for form in command.forms)
                                   and not _sets_path_only(command, effects.restored)):
            return None
    return effects.gained


def _gained_program(name: str | None, gained: tuple[str, ...]) -> bool:
    """Whether the command name ``name`` may find a program in one of the ``gained`` folders
    other than the one it finds now."""
    if name is None or "/" in name:
        return name is None
    return any(_new_program(os.path.join(folder, name), name) for folder in gained)


def _new_program(path: str, name: str) -> bool:
    """Whether ``path`` is a program (a regular file one may run) other than the one the
    command name ``name`` finds on PATH now."""
    try:
        if not stat.S_ISREG(os.stat(path).st_mode) or not os.access(path, os.X_OK):
            return False
    except OSError:
        return False
    before = shutil.which(name)
    return before is None or os.path.realpath(before) != os.path.realpath(path)


def _path_effects_now(text: str) -> PathEffects | None:
    """``path_effects`` of ``text`` in the kernel's environment (the PATH it starts with among it)."""
    return path_effects(text, tuple(os.environ.items()))


def _programs_after_sourcing(later: list[CommandInfo], effects: SourcedEffects, lead: str, rules: CompiledRules,
                             v: Verdict, gained: tuple[str, ...] | None = None) -> None:
    """``source .venv/bin/activate && ls``: the script set PATH (or LD_PRELOAD, PAGER …), so
    ``ls`` may be ``.venv/bin/ls``; or it defined a function ``ls``.  A later command is then
    not read-only by its name: it needs an allow rule of its own, or approval.  Builtins do not
    depend on PATH (a function or ``enable`` may still replace them)."""
    for info in later:
        if not info.read_only.read_only or info.ask_reason or info.cd_kind:
            continue  # (what is not read-only meets the allow rules anyway: _command_checks)
        programs = [form[0].literal for form in info.forms if form]
        why = None
        named = [p for p in programs if p in effects.functions]
        if named:
            why = f"defines a function or alias {named[0]}, which runs instead of the program"
        elif effects.programs and any((p is None or effects.builtins_too or p not in BASH_BUILTINS)
                                      and (gained is None or _gained_program(p, gained)) for p in programs):
            # (a venv's bin first on PATH: ls is still /usr/bin/ls when the venv holds no ls)
            why = f"{effects.programs}, so which program {info.text} runs is only known at run time"
        if why is None or _allowed(rules, info.text):
            continue
        _needs_approval(v, f"{info.text} needs approval: {lead} {why}", info.innermost)


_NOT_READ_ONLY = ReadOnlyCheck(False)
_UNKNOWN_CODE = CommandInfo(((UNKNOWN_PROGRAM,),), (), _NOT_READ_ONLY)


def _unknown_script(script: Script, why: str, rules: CompiledRules, v: Verdict, scope: PathScope | None = None
                    ) -> None:
    """A script whose commands are not known: a deny or ask rule may match them, and (``scope``: a
    shell script, ``bash /dev/stdin``, ``source "$F"``) a Read or Edit deny rule may apply to them."""
    file_rules = (scope.read_deny or scope.edit_deny) if scope is not None else ()
    if file_rules:
        v.sticky.append(f"it runs {script.shown}, whose commands are not known ({why}), where the rule "
                        f"{file_rules[0][0]} may apply")
    if rules.deny_any is None and rules.ask_any is None:
        return
    sub = Verdict()
    _rule_checks([_UNKNOWN_CODE], rules, sub)
    v.sticky.extend(f"it runs {script.shown}, whose commands are not known ({why}), so {s}" for s in sub.sticky)


def _checks_of_script(
    text: str, script: Script, cwds: list[str], scope: PathScope, context: ToolUseContext,
    rules: CompiledRules, v: Verdict, depth: int, outer: tuple[Analysis, CommandInfo],
) -> None:
    inner = analyze(text)
    if script.bin_folders:  # "lint": "tidy src" runs node_modules/.bin/tidy: that file too
        inner = _with_bin_programs(inner, script.bin_folders)
    if script.remote or script.rules_only:  # another machine's commands, a kernel's argv: the deny and ask rules only
        _remote_script_checks(inner, script, rules, v)
        return
    if depth == 0:  # the approval card says what the script runs (bash clean.sh: rm -rf build, …)
        texts = [c.text for c in inner.commands if c.innermost and not c.nested and not c.read_only.read_only]
        if texts:  # what may change something, first ones first
            more = f" and {len(texts) - 4} more" if len(texts) > 4 else ""
            v.notes.append(f"{script.shown} runs {'; '.join(t[:120] for t in texts[:4])}{more}")
    if script.cwd is not None:  # a package's script runs in the package's folder
        cwds = [script.cwd]
    # echo 'rm x' >> self.sh: bash reads a script file as it runs it (sh -c has a package script
    # whole, and `.`/`source` read the file whole before running it)
    if (script.code is None and script.path is not None and not script.sourced
            and line_may_change(inner, None, script.path, cwds, everything=False)):
        _unknown_script(script, "it may change itself while it runs", rules, v)
        return
    sub = Verdict()
    sub.script = True
    sub.cwds = tuple(cwds)
    rule_checked = rules.deny_any is not None or rules.ask_any is not None
    for cwd in dict.fromkeys(cwds):  # the script runs where the command does; its cds are its own
        inner_cwds = _cwds(inner, cwd, text, getattr(cwds, "unknown", False))
        if rule_checked and cwd == cwds[0]:
            _rule_checks(_path_followed(inner, text, script, cwds, scope, context, rules, sub, depth, outer), rules,
                         sub, text)
        programs = bool(rules.rule_programs or rules.rule_program_starts)
        if not sub.deny and (programs or scope.read_deny):  # "clean": "node clean.js"
            _code_file_checks(inner.commands, inner_cwds, rules, scope, sub, text)
            if rules.rule_programs and not sub.deny:
                _disguise_checks(inner.ruled, inner_cwds, rules, sub)
            # the notebook's Python: os.system("rm x") in a cell nbconvert --execute runs, or in a
            # module of the project a cell imports
            if (cwd == cwds[0] and script.path and script.path.lower().endswith((".ipynb", ".ipy", ".qmd", ".rmd"))
                    and not (programs and _rule_strings(notebook_strings(script.path), rules, sub,
                                                        f"a string of {script.shown}'s code"))):
                _notebook_imports(script.path, script.shown, [*inner_cwds, os.path.dirname(script.path)], rules,
                                  scope, sub)
        if not sub.deny:
            path_checks(inner, inner_cwds, scope, context, sub)
            _line_change_checks(inner, scope, sub)  # shopt -s dotglob in the script
        for cmd in inner.commands:
            if sub.deny:
                break
            if cmd.assigned:
                protected_assignments(cmd, inner_cwds, sub, scope)
            if not cmd.read_only.read_only and not cmd.cd_kind:
                protected_arguments(cmd, inner_cwds, sub, scope, text)
        if not sub.deny:
            runs = _argument_runs(inner.commands)
            _script_checks(inner, inner_cwds, scope, context, rules, sub, depth + 1, runs)
        if sub.deny:
            break
    _fold_script_verdict(inner, script, rule_checked, sub, v)


def _with_bin_programs(inner: Analysis, folders: tuple[str, ...]) -> Analysis:
    """``inner`` with a form more for each command whose program, a bare name, is a file of one
    of ``folders`` (first on PATH): that file as the program, for the checks of a program run by
    its path (its commands, its strings, what program it is)."""
    commands: list[CommandInfo] = []
    changed = False
    for info in inner.commands:
        extra: list[tuple[Word, ...]] = []
        for form in info.forms:
            program = form[0].literal if form else None
            if program and "/" not in program and program not in BASH_BUILTINS:
                path = next((os.path.join(f, program) for f in folders if os.path.isfile(os.path.join(f, program))),
                            None)
                if path is not None:
                    extra.append((Word(path), *form[1:]))
        if extra:
            changed = True
            info = replace(info, forms=(*info.forms, *extra), _form_texts=None, _text=None)
        commands.append(info)
    return replace(inner, commands=commands) if changed else inner


def _path_followed(inner: Analysis, text: str, script: Script, cwds: list[str], scope: PathScope,
                   context: ToolUseContext, rules: CompiledRules, v: Verdict, depth: int,
                   outer: tuple[Analysis, CommandInfo] | None) -> list[CommandInfo]:
    """The script's commands for the deny and ask rules.  One that only sets PATH is a program
    only known at run time (a later ``ls`` may be any program), unless what PATH gets can be
    told (``path_values.py``: a venv's activate script puts its ``bin`` first): then the
    programs in those folders meet the rules instead (``_gained_checks``)."""
    ruled = inner.ruled
    if "PATH" not in text or not any(_sets_path_only(info, frozenset()) for info in ruled):
        return ruled
    effects = _path_effects_now(text)
    if effects is None:
        return ruled
    setters = [info for info in ruled if _sets_path_only(info, effects.restored)]
    _gained_checks(effects.gained, script, text, inner, outer, cwds, scope, context, rules, v, depth)
    without = {id(info) for info in setters}
    return [info if id(info) not in without else _without_unknown(info) for info in ruled]


def _sets_path_only(info: CommandInfo, restored: frozenset[str]) -> bool:
    """``PATH=…``, ``export PATH=…``, ``unset PATH``: a command whose only program only known at
    run time is what PATH then finds (no other variable that changes what runs, but those
    ``restored``, which only get back the value they had)."""
    if not any(_unknown_form(form) for form in info.forms):
        return False
    words = info.innermost
    program = words[0].literal if words else None
    if words and program not in DECLARES and program != "unset":
        return False
    names = {name for name, _value in info.assigned}
    for word in words[1:]:
        text = word.literal
        if text is None:  # export PATH="$HOME/bin:$PATH": a value only known at run time, a fixed name
            name, equals, _value = word.text.partition("=")
            if not (equals and name.isidentifier() and name.isascii()):
                return False
            names.add(name)
        elif text[:1] != "-":
            names.add(text.partition("=")[0])
    dangerous = {name for name in names if dangerous_env(name)}
    return bool(dangerous) and dangerous <= {"PATH"} | restored


def _without_unknown(info: CommandInfo) -> CommandInfo:
    forms = tuple(form for form in info.forms if not _unknown_form(form))
    index = next((k for k, form in enumerate(forms) if form is info.innermost), -1)
    return replace(info, forms=forms, inner_index=index, _form_texts=None, _text=None)


def _unknown_form(form: tuple[Word, ...]) -> bool:
    return len(form) == 1 and form[0] is UNKNOWN_PROGRAM


_MAX_GAINED_ENTRIES = 256  # a folder put on PATH with more programs than this: not looked through


def _gained_checks(gained: tuple[str, ...], script: Script, text: str, inner: Analysis,
                   outer: tuple[Analysis, CommandInfo] | None, cwds: list[str], scope: PathScope,
                   context: ToolUseContext, rules: CompiledRules, v: Verdict, depth: int) -> None:
    """The programs in the folders a script puts on PATH, which a later command name may run:
    one that is a program a deny or ask rule names under another name (a link to ``rm`` named
    ``ls``), or a script that runs what a rule names, asks; so does a folder the line may
    write a program into before it runs.  ``outer``: the line that runs the script and the
    command that does; None when ``inner`` is the line itself."""
    defined = defined_functions(text)
    for folder in gained:
        where = f"{script.shown} puts {folder} on PATH"
        unknown = replace(script, shown=f"a program in {folder}")
        # the script's own commands, or the line's besides the one that runs the script and the
        # last (what a command after them finds there is what they wrote); the line itself: not
        # its last either
        if may_put_in(inner, folder, cwds, None, last_too=outer is not None, functions=defined) or (
                outer is not None and may_put_in(outer[0], folder, cwds, outer[1], last_too=False, functions=defined)):
            _unknown_script(unknown, f"{where}, and the line may put one there", rules, v)
            continue
        try:
            if os.stat(folder).st_mode & stat.S_IWOTH:  # /tmp: anyone may put a program there at any time
                _unknown_script(unknown, f"{where}, which anyone may write", rules, v)
                continue
            with os.scandir(folder) as listing:
                entries = [e for _, e in zip(range(_MAX_GAINED_ENTRIES + 1), listing, strict=False)]
        except OSError:
            continue  # not there: nothing to find in it
        if len(entries) > _MAX_GAINED_ENTRIES:
            _unknown_script(unknown, f"{where}, which holds too many programs to look through", rules, v)
            continue
        for entry in entries:
            v.sticky.extend(f"{where}, where {finding}" for finding in _gained_program_findings(
                entry, cwds, scope, context, rules, depth))


def _gained_program_findings(entry: os.DirEntry[str], cwds: list[str], scope: PathScope, context: ToolUseContext,
                             rules: CompiledRules, depth: int) -> tuple[str, ...]:
    """What the deny and ask rules find in the program ``entry`` of a folder put on PATH: it is
    a program they name under another name, or a script whose commands or strings they name
    (read as its ``#!`` interpreter reads it; no ``#!``: bash).  Each file version once."""
    path = entry.path
    if not _new_program(path, entry.name):  # the same program as without the folder: nothing new
        return ()
    try:
        info = os.stat(path)
    except OSError:
        return ()
    key = (path, info.st_ino, info.st_mtime_ns, info.st_size, cwds[0] if cwds else "")
    if key in rules.program_hits:
        return rules.program_hits[key]
    found: tuple[str, ...] = ()
    name = disguised_as(path, rules.rule_programs)
    if name is not None and name != entry.name:
        found = (f"{entry.name} is {name} (a link to it or a copy of it): a later {entry.name} runs {name}, "
                 "which a deny or ask rule names",)
    elif (interpreter := _script_interpreter(path)) is not None:
        line = f"{interpreter} {shlex.quote(path)}"
        analysis = analyze(line)
        sub = Verdict()
        _code_file_checks(analysis.commands, cwds, rules, scope, sub, line)
        if not sub.deny:
            _script_checks(analysis, cwds, scope, context, rules, sub, depth + 1)
        found = tuple(f"{entry.name} may run a command a deny rule names: {s}" for s in [sub.deny] if s) + tuple(
            f"{entry.name}: {s}" for s in sub.sticky)
    rules.program_hits[key] = found
    return found


def _script_interpreter(path: str) -> str | None:
    """What runs the file at ``path`` as a script: its ``#!`` interpreter's name (``python3``,
    ``bash``), bash without one; None for a built program."""
    try:
        with open(path, "rb") as handle:
            head = handle.read(256)
    except OSError:
        return None
    if head.startswith(b"\x7fELF"):
        return None
    if not head.startswith(b"#!"):
        return "bash"  # (execve fails with ENOEXEC: bash runs it as a script)
    words = head[2:].split(b"\n", 1)[0].decode("utf-8", "replace").split()
    name = interpreter_name(words)
    return name if name and all(c.isalnum() or c in "._+-" for c in name) else "bash"


def _remote_script_checks(inner: Analysis, script: Script, rules: CompiledRules, v: Verdict) -> None:
    """The commands of code run on another machine (``sky launch task.yaml``'s ``run``) meet the
    deny and ask rules; their paths and files are that machine's."""
    if rules.deny_any is None and rules.ask_any is None:
        return
    sub = Verdict()
    _rule_checks(inner.ruled, rules, sub)
    _fold_script_verdict(inner, script, True, sub, v)


def _fold_script_verdict(inner: Analysis, script: Script, rule_checked: bool, sub: Verdict, v: Verdict) -> None:
    """What the script's checks found (``sub``), as the line's: a deny of a script that may not run
    (make's pattern rules, conditionals) asks; unread text asks under a deny or ask rule."""
    if inner.problems and rule_checked:
        sub.sticky.append(f"it could not be fully analyzed ({inner.problems[0]}), so a deny or ask rule may "
                          f"match what it runs")
    if sub.deny and not script.certain:
        v.sticky.append(f"{script.shown} may run a command a deny rule names: {sub.deny}")
    elif sub.deny:
        v.deny = f"{sub.deny.rstrip('.')} (a command of {script.shown}, which the line runs)."
    v.sticky.extend(f"{script.shown} (which it runs): {s}" for s in sub.sticky)


class _Cwds(list[str]):
    """The folders a relative path may be resolved against; the first is the real cwd.

    Remembers where each ``cd`` leads from there (for this decision only).
    """

    __slots__ = ("from_base", "unknown", "cdpath")
    from_base: dict[int, str | None]  # id(cd info) -> where it leads from the real cwd
    unknown: bool  # a cd leads to a folder only known at run time
    cdpath: bool  # the line sets CDPATH or cdable_vars

    def cd_path(self, info: CommandInfo, cwd: str) -> str | None:
        if cwd == self[0] and id(info) in self.from_base:
            return self.from_base[id(info)]
        return _cd_path(info, cwd, self.cdpath)


def _cwds(analysis: Analysis, base: str, line: str, unknown: bool = False) -> list[str]:
    """Every directory a relative path in this line may be resolved against (``base``: the real
    cwd; ``line``: the command line, which may set ``CDPATH``; ``unknown``: ``base`` itself is
    only known at run time, as for a script run after ``cd "$D"``)."""
    for info in analysis.commands:
        if info.cd_kind is not None or own_shell_unknown(info):
            break
    else:
        if not unknown:
            return [base]
    cwds = _Cwds((base,))
    cwds.from_base = {}
    # a cd to a folder only known at run time (`cd "$D"`, `cd -`, popd), or code the line's shell
    # runs that may cd anywhere (`eval "$(cat x.sh)"`)
    cwds.unknown = unknown or any(own_shell_unknown(info) for info in analysis.commands)
    # `CDPATH=~; cd .ssh` goes to ~/.ssh (the session's own CDPATH is dropped); with cdable_vars
    # `cd HOME` goes to $HOME
    cwds.cdpath = "CDPATH" in line or "cdable_vars" in line
    for info in analysis.commands:
        if info.cd_kind != "cd" and info.cd_kind != "pushd":
            cwds.unknown = cwds.unknown or info.cd_kind == "popd"
            continue
        cwds.from_base[id(info)] = _cd_path(info, base, cwds.cdpath)
        # and from each folder an earlier cd led to (`cd /root && cd .ssh`), where the folder
        # it leads to exists (else that cd fails, unless the line made it: not followed)
        for cwd in [base, *(c for c in cwds[1:] if os.path.isdir(c))]:
            target = _cd_path(info, cwd, cwds.cdpath) if cwd != base else cwds.from_base[id(info)]
            if target is None:
                cwds.unknown = True
            elif target not in cwds and (cwd == base or os.path.isdir(target)):
                if len(cwds) >= _MAX_CWDS:  # a long line of cds: where it ends up is not followed
                    cwds.unknown = True
                    break
                cwds.append(target)
    return cwds


_MAX_CWDS = 32


def _cd_path(info: CommandInfo, cwd: str, cdpath: bool = False) -> str | None:
    """The real folder ``cd``/``pushd`` changes to from the real folder ``cwd``; None when only
    known at run time (``cdpath``: the line sets CDPATH, which a name not starting with ``/``,
    ``~``, ``./`` or ``../`` is looked up in: ``cd .ssh`` too)."""
    if info.cd_kind not in ("cd", "pushd"):
        return None
    if info.cd_target is None:
        return os.path.realpath(os.path.expanduser("~"))
    text = info.cd_target.literal or tilde_path(info.cd_target)  # cd ~/.ssh: home's
    if text is None or text == "-" or text[:1] in "+-":  # cd -: the previous folder; pushd +1: the stack's
        return None
    if cdpath and not (text[:1] in "/~" or text in (".", "..") or text.startswith(("./", "../"))):
        return None
    try:
        return resolve_below(text, cwd)[1]
    except BadPath:
        return None


def _cd_inside(info: CommandInfo, cwds: list[str], scope: PathScope | None) -> bool:
    if scope is None or info.cd_kind == "popd":
        return False
    target = info.cd_target
    if target is not None and target.literal is None:
        return False
    for cwd in cwds:
        path = cwds.cd_path(info, cwd) if isinstance(cwds, _Cwds) else _cd_path(info, cwd)
        if path is None or not scope.inside(path):
            return False
    return True


def _result(command: str, v: Verdict, analysis: Analysis) -> PermissionResult:
    notes = f" ({'; '.join(v.notes[:2])})" if v.notes else ""
    if v.sticky:
        return sticky_ask(f"Run {command!r}? " + "; ".join(v.sticky[:3]) + notes, RULE, v.sticky[0])
    if not v.soft:
        return _ALLOWED
    suggestions: tuple[PermissionUpdate, ...] = ()
    if v.prefixes and all(s.endswith("needs approval") for s in v.soft):
        rules = tuple([f"Bash({p})" for p in v.prefixes])
        suggestions = (new_update(rules, "localSettings"),)
    elif v.folders and all(s in v.folders for s in v.soft):  # only writes outside: allow the folder
        suggestions = (new_update(tuple(dict.fromkeys(v.folders.values())), "session"),)
    return new_ask(f"Run {command!r}? " + "; ".join(v.soft[:3]) + notes, suggestions)


__all__ = ["check_bash_permission", "check_timed_out", "is_read_only_command"]
