"""Bash permissions: the files a command line touches (redirects, read arguments, protected paths).

Redirections are writes (Edit rules, protected paths, working directories); ``< file``,
``source file`` and the file arguments of read-only commands are reads (Read deny rules, working
directories); a recursive search asks when a Read deny rule may match below a folder it walks;
any fixed argument of a writing command that lands on a protected path asks.  Every relative
path is checked from every folder the line may ``cd`` to.
"""

from __future__ import annotations

import os

from ..core.context import ToolUseContext
from ..core.permission_types import PermissionAsk, PermissionDeny, PermissionResult
from .archive_guard import ARCHIVE_PROGRAMS, archive_guard
from .bash_analysis import Analysis, CommandInfo
from .bash_arguments import (
    copy_check,
    program_write_check,
    protected_arguments,
    serve_check,
    tilde_path,
    write_link_rule,
)
from .bash_chdir import CHDIR_PROGRAMS, working_folders
from .bash_commands import DEV_SOURCES
from .bash_copies import COPYING_PROGRAMS, copied_sources
from .bash_credentials import PROGRAMS as CREDENTIAL_PROGRAMS
from .bash_credentials import printed_credential, rule_names
from .bash_db_shells import DB_SHELLS, script_problem
from .bash_extra_forms import FOUND_PATHS, commands_it_runs, exec_commands, search_part
from .bash_git import git_read_checks
from .bash_option_writes import NEW_NAME, writes_by_option
from .bash_patterns import expanded
from .bash_readonly import ReadOnlyCheck, check_read_only, option_arguments
from .bash_recursive import RECURSIVE_PROGRAMS, follows_links, walked_folders
from .bash_rules import form_text
from .bash_runners import PYTHONS, RUNNER_PROGRAMS
from .bash_verdict import Verdict, new_memo, resolved_once
from .bash_words import PipeWord, Word, make_word
from .bash_writes import WRITING_PROGRAMS, written_targets
from .compiled import READ_RULES, PathScope
from .copy_guard import COPY_PROGRAMS, copy_guard
from .dotenv_loaders import LOADER_PROGRAMS as DOTENV_LOADERS
from .dotenv_loaders import loaded_env_files, upward_copies
from .download_guard import COMMAND_CLIENTS, DOWNLOADERS, command_client_reason, download_guard
from .file_servers import is_file_server
from .filesystem import (
    SYSTEM_INFO,
    read_deny_in,
    read_rule_of,
    too_broad,
    write_blocked,
    write_verdict,
)
from .git_contents import shows_contents
from .git_guards import git_guards
from .git_staging import staging_reason
from .hard_links import LINKED_WRITE, link_count
from .hg_hooks import HGS, hg_program_setting
from .implicit_writes import PROGRAMS as IMPLICIT_WRITERS
from .implicit_writes import implicit_protected_write
from .patch_guard import patch_guard
from .paths import BadPath, ResolvedPath, local_path, per_process_link, relative_below, resolve_below
from .remote_copy_guard import REMOTE_COPY_PROGRAMS, remote_copy_guard
from .vcs_updates import VCS_UPDATERS, update_reason
from .verdicts import SAFETY, sticky_ask

TOOL_NAME = "Bash"
_NOT_READ_ONLY = ReadOnlyCheck(False)


def path_checks(
    analysis: Analysis, cwds: list[str], scope: PathScope, context: ToolUseContext, v: Verdict
) -> None:
    for redirect in analysis.redirects:
        if redirect.write:
            _write_check(redirect.target, cwds, scope, context, v)
        else:
            _read_check(redirect.target, cwds, scope, v)
    recursive = bool(scope.read_deny)  # without Read deny rules a recursive search finds nothing
    moved: set[int] = set()  # the commands whose paths were read in another folder
    for info in analysis.commands:  # env -C DIR cmd: cmd's relative paths are DIR's
        if len(info.forms) > 1 and info.forms[0] and info.forms[0][0].literal in _WRAPPER_FOLDERS:
            if _moved_checks(info, cwds, scope, context, v):
                moved.add(id(info))
            if v.deny:
                return
    if recursive and getattr(cwds, "unknown", False) and any(info.cd_kind is None for info in analysis.commands):
        v.sticky.append("it runs commands after a cd to a folder only known at run time, where a Read deny "
                        "rule may apply to what they read")  # cd "$HOME/.ssh" && cat id_rsa
    for info in analysis.commands:
        inner = info.innermost
        program = inner[0].literal if inner else None
        if len(inner) > 1 and program in ("source", "."):
            _read_check(inner[1], cwds, scope, v)  # `source .env` reads it
        if recursive and info.forms and info.forms[0] and info.forms[0][0].literal in _ENV_DIRS:
            _env_dir_check(info.forms[0], cwds, scope, v)  # envdir . env: every file of . a variable
        if program in _GUARDED or (program in PYTHONS and len(inner) > 2 and inner[1].literal == "-m"):
            _unspelled_checks(program, inner, analysis, cwds, scope, v)
            if v.deny:
                return
        if info.unknown_code and (recursive or scope.edit_deny):  # curl … | sh, eval "$X" under Read(./.env)
            rule = (scope.read_deny or scope.edit_deny)[0][0]
            v.sticky.append(f"{info.text or 'the command'} runs shell code only known at run time, where the rule "
                            f"{rule} may apply")
        read_only = info.read_only
        if not read_only.read_only:
            _hidden_effect_checks(info, scope, recursive, v)  # pre-commit install, gh auth token, sqlite3 ".shell"
            if recursive:  # dotenv list, pipenv run env: the .env it loads (dotenv_loaders.py)
                _dotenv_check(info, cwds, scope, v)
                if v.deny:
                    return
            if recursive and program == "git":  # git add -A, git stash -u: untracked files into the repository
                _staging_check(inner, cwds, scope, v)
            if recursive and program == "git" and shows_contents(inner):
                # allowed by a rule, not read-only (`git -c x=y log -p`, `git archive HEAD`):
                # what it prints or exports is checked all the same
                _git_check(inner, cwds, scope, v)
                if v.deny:
                    return
            elif recursive and program in COPYING_PROGRAMS:  # tar cf - ., cp -r . /tmp/x
                copy_check(info, cwds, scope, v)
            elif recursive and program in RECURSIVE_PROGRAMS:  # allowed by a rule: ag KEY, gitleaks detect
                _recursive_check(info, cwds, scope, v)
            if program in COPYING_PROGRAMS and program not in ("find", "fd", "fdfind", "ln"):  # cp /etc/passwd . reads outside
                # (a link's target is no read: ln -s only names it, copy_check asks for what is below)
                # tar cf ARCHIVE: the archive is no source (the others leave their destination out)
                written = {w.text for w, _ in written_targets(list(inner), cwds[0])} if program == "tar" else set()
                for source in copied_sources(inner):
                    if source not in written:
                        _read_check(make_word(source), cwds, scope, v)
                if v.deny:
                    return
            runs = commands_it_runs(inner)
            _update_check((inner, *runs), cwds, v)  # svn update, hg pull -u, npx degit x/y .
            if recursive:  # python -m http.server, npx serve: every file below the folder, to any client
                for form in (inner, *runs):
                    if form and is_file_server((form[0].literal or "").rpartition("/")[2]):
                        serve_check(form, info.text, cwds, scope, v)
            if program in WRITING_PROGRAMS or writes_by_option(program):  # rm locked/f, cp a.txt locked/, rm -rf .
                program_write_check(info, cwds, scope, v, context)
                if v.deny:
                    return
            for run in _writers_it_runs(inner, runs):  # find -exec cp {} /tmp/ ;, git bisect run rm -rf x
                program_write_check(run, cwds, scope, v, context)
                if v.deny:
                    return
            for run in _commands_in_a_word(inner, runs):  # rsync -e 'touch .bashrc', --password-command 'cat .env'
                protected_arguments(run, cwds, v, scope)
                if v.deny:
                    return
            if program in CHDIR_PROGRAMS:  # git -C /tmp reset --hard, make -C ../other: a cd in one word
                _working_folder_check(info, cwds, scope, v)
            if program in ("find", "fd"):  # allowed by a rule: `-exec cat /etc/passwd ;`, `find /etc -exec …`
                _search_check(info, cwds, scope, v)
                if v.deny:
                    return
            continue
        if id(info) not in moved:  # `env -C sub cat ../a.py` reads a.py, not ../a.py
            for word in read_only.paths:
                _read_check(word, cwds, scope, v, program in NAMES_ONLY)
        if v.deny:
            return
        if recursive and program in RECURSIVE_PROGRAMS:  # walked_folders() walks no other program
            _recursive_check(info, cwds, scope, v)
        elif recursive and program == "git":  # git show HEAD:.env, git grep
            _git_check(inner, cwds, scope, v)
            if v.deny:
                return


_GUARDED = ARCHIVE_PROGRAMS | COPY_PROGRAMS | REMOTE_COPY_PROGRAMS | DOWNLOADERS | COMMAND_CLIENTS | HGS | {"git", "patch"}


def _update_check(forms: tuple[tuple[Word, ...], ...], cwds: list[str], v: Verdict) -> None:
    """Another revision's or a template's files written into the working copy (vcs_updates.py)."""
    for form in forms:
        if form and (form[0].literal or "").rpartition("/")[2] in VCS_UPDATERS:
            for cwd in cwds:
                why = update_reason(form, cwd)
                if why is not None:
                    v.sticky.append(why)
                    return


def _unspelled_checks(
    program: str | None, inner: tuple[Word, ...], analysis: Analysis, cwds: list[str], scope: PathScope, v: Verdict
) -> None:
    """What a command would run or write that its words do not spell."""
    if program == "git":  # settings, planted repositories, patch targets (git_guards.py)
        git_guards(inner, cwds, scope, v)
    elif program in HGS:  # hg --config hooks.x=CMD (hg_hooks.py)
        setting = hg_program_setting(inner)
        if setting is not None:
            v.sticky.append(setting)
    elif program == "patch":  # the files its patch names (patch_guard.py)
        patch_guard(inner, [r.target for r in analysis.redirects if not r.write], cwds, scope, v)
    elif program in DOWNLOADERS:  # the files URLs or the server name (wget x/.mcp.json)
        download_guard(inner, cwds, scope, v)
    elif program in COPY_PROGRAMS:  # what a copied folder holds (cp -r src/. out/)
        copy_guard(inner, cwds, scope, v)
    elif program in REMOTE_COPY_PROGRAMS:  # what lands from a container or a bucket (docker cp c:/x .)
        remote_copy_guard(inner, cwds, scope, v)
    elif program in COMMAND_CLIENTS:  # sftp, ftp, lftp: the commands come from a script, never from a person
        v.sticky.append(command_client_reason(program))
    else:  # the members an extraction writes (tar, unzip, 7z, python -m tarfile|zipfile)
        archive_guard(inner, cwds, scope, v)


def _writers_it_runs(inner: tuple[Word, ...], runs: list[tuple[Word, ...]]) -> list[CommandInfo]:
    """The known writers a command runs (``find -exec``/``fd -x``, ``git bisect run``, a runner
    such as ``uv run``), each as a command of its own for ``program_write_check``: a rule that
    allows them writes where they write, not anywhere.  A path ``find`` found (``{}``) lies below
    what it searches, so that is written as by ``find … -delete`` (everything below it).  ``runs``:
    ``commands_it_runs(inner)``."""
    program = inner[0].literal
    found: list[CommandInfo] = []
    for form in runs:
        name = form[0].literal
        if not (name in WRITING_PROGRAMS or writes_by_option(name)):
            continue
        text = form_text(form)[0]
        if any(w.text in FOUND_PATHS for w in form):
            starts = search_part(inner)[1:] if program == "find" else (Word("."), *search_part(inner)[1:])
            found.append(_as_command((Word("find"), *starts, Word("-delete")), text))  # below where it searches
            form = tuple(w for w in form if w.text not in FOUND_PATHS)
        found.append(_as_command(form, text))
    return found


def _commands_in_a_word(inner: tuple[Word, ...], runs: list[tuple[Word, ...]]) -> list[CommandInfo]:
    """The command lines a runner takes as one word (``rsync -e 'touch .bashrc'``, ``rclone
    --password-command 'cat .env'``), each as a command of its own for ``protected_arguments``:
    the words of the line itself were checked already."""
    if len(inner) < 2 or inner[0].literal not in RUNNER_PROGRAMS:
        return []
    return [_as_command(form, form_text(form)[0]) for form in runs
            if any(w not in inner for w in form) and form[0].static]


def _as_command(form: tuple[Word, ...], text: str) -> CommandInfo:
    """``form`` as a command of the line, named ``text`` in what it asks."""
    return CommandInfo((form,), form, _NOT_READ_ONLY, inner_index=0, _text=text)


def _working_folder_check(info: CommandInfo, cwds: list[str], scope: PathScope, v: Verdict) -> None:
    """A folder an option moves the program to (``bash_chdir``) is checked like a ``cd`` target:
    outside the working directories, or only known at run time, it asks."""
    asks = v.sticky if scope.rules.context.block_outside_writes else v.soft
    for folder in working_folders(info.innermost):
        path = folder.literal if folder.literal is not None else tilde_path(folder)  # fixed, or `~/x`
        if path is None:
            asks.append(f"{info.text} works in {folder.text}, a folder only known at run time")
            continue
        for cwd in cwds:
            resolved = resolved_once(os.path.expanduser(path), cwd, v)
            if resolved is None or not scope.inside(resolved[1]):
                asks.append(f"{info.text} works in {folder.text}, outside the working directories")
                return


def _search_check(info: CommandInfo, cwds: list[str], scope: PathScope, v: Verdict) -> None:
    """``find``/``fd`` that is not read-only (``-exec``, ``-delete``, ``-fprint``) still reads:
    a folder it searches outside the working directories asks, as ``find /etc -name x`` does,
    and so does each file the read-only commands it runs name (those the rule allowing the
    program lets it run; ``bash.py`` asks for the others)."""
    searched = check_read_only(search_part(info.innermost))
    for word in searched.paths:  # `find /etc -exec …`: its operands, as `find /etc -name x` reads them
        _read_check(word, cwds, scope, v)
    for form in exec_commands(info.innermost):
        for word in check_read_only(form).paths:
            if word.text not in FOUND_PATHS:  # what it finds is below the folders checked above
                _read_check(word, cwds, scope, v)


def _git_check(words: tuple[Word, ...], cwds: list[str], scope: PathScope, v: Verdict) -> None:
    texts = [w.text for w in words]
    contents = shows_contents(words)
    if "grep" not in texts and not any(":" in t for t in texts) and not contents:
        return  # no REV:path, no grep, no patch or blob printed: nothing to check (most git lines)
    for cwd in cwds:
        deny, ask = git_read_checks(words, cwd, scope, contents)
        if deny is not None:
            v.deny = deny
            return
        if ask is not None:
            v.sticky.append(ask)


def _hidden_effect_checks(info: CommandInfo, scope: PathScope, read_deny: bool, v: Verdict) -> None:
    """What a program does that its words do not spell — a protected path it writes
    (``implicit_writes``), a credential it prints (``bash_credentials``; unless an allow rule
    spells that subcommand), a database script that runs, writes or reads (``bash_db_shells``) —
    for each form of the command: the program itself and what a runner or ``find -exec`` runs
    (``npx husky init``, ``uv run gh auth token``), ``/usr/bin/conda`` read as ``conda``."""
    for form, (text, _known, _complete) in zip(info.forms, info.form_texts, strict=True):
        program = form[0].literal if form else None
        if program is None:
            continue
        why = implicit_protected_write(form) if program in IMPLICIT_WRITERS else None
        if why is None and program in DB_SHELLS:
            why = script_problem(form, True, read_deny)
        if why is None and (program in CREDENTIAL_PROGRAMS or program.startswith("docker-credential-")):
            printed = printed_credential(form)
            if printed is not None and not any(rule_names(rule, printed[0]) and pattern.matches(text)
                                               for rule, pattern in scope.rules.bash_allow):
                why = f"{' '.join(printed[0])} prints {printed[1]} into the conversation"
        if why is not None:
            v.sticky.append(why)
            return


# wrappers that run their command in another folder: (one-letter option, long option)
_WRAPPER_FOLDERS = {"env": ("C", "--chdir"), "sudo": ("D", "--chdir"), "nsenter": ("w", "--wd"),
                    "unshare": ("", "--wd")}


def _moved_checks(
    info: CommandInfo, cwds: list[str], scope: PathScope, context: ToolUseContext, v: Verdict
) -> bool:
    """``env -C DIR CMD`` (``sudo -D``, ``nsenter --wd``, ``unshare --wd``): CMD's relative paths
    lie in DIR, so its reads and writes are checked there too (True: they were, or asked about);
    a DIR only known at run time is a folder that may be a protected one, or outside."""
    letter, long = _WRAPPER_FOLDERS[info.forms[0][0].literal or ""]
    outer, inner = info.forms[0], info.forms[1]
    found = option_arguments(list(outer[1:len(outer) - len(inner)]), letter, long)  # its own options only
    if not found:
        return False
    folder = found[-1]
    path = folder.literal if folder.literal is not None else tilde_path(folder)
    read_only = info.read_only.read_only
    if path is None:
        if not read_only or scope.read_deny:
            v.sticky.append(f"{outer[0].text} runs {info.text} in {folder.text}, a folder only known at run "
                            "time, which may be a protected one")
        else:  # what it reads there may be outside the working directories
            v.soft.append(f"{outer[0].text} runs {info.text} in {folder.text}, a folder only known at run time")
        return True
    moved = []
    for cwd in cwds:
        resolved = resolved_once(path, cwd, v)
        if resolved is not None and resolved[1] not in moved:
            moved.append(resolved[1])
    if not moved:
        v.sticky.append(f"{outer[0].text} runs {info.text} in {folder.text}, which is not a folder path")
        return True
    if read_only:
        # the folder itself is read: `env -C /tmp ls` lists it, as `cd /tmp && ls` would
        _read_check(folder, cwds, scope, v, names_only=True)
        for word in info.read_only.paths:
            _read_check(word, moved, scope, v)
        return True
    protected_arguments(info, moved, v, scope)
    program = info.innermost[0].literal if info.innermost else None
    if not v.deny and (program in WRITING_PROGRAMS or writes_by_option(program)):
        program_write_check(info, moved, scope, v, context)
    return True


def _dotenv_check(info: CommandInfo, cwds: list[str], scope: PathScope, v: Verdict) -> None:
    """A ``.env`` a program (or what a runner runs) loads though no word names it: printed
    (``dotenv list``), it is read as ``cat .env`` is; handed to what it runs (``pipenv run
    CMD``), it asks when a Read deny rule covers it."""
    for form in info.forms:
        program = form[0].literal if form else None
        found = loaded_env_files(form) if program in DOTENV_LOADERS else None
        if found is None:
            continue
        files, prints = found
        for word in files:
            if prints:
                _read_check(word, cwds, scope, v)
                if v.deny:
                    return
                continue
            if not word.static:
                v.sticky.append(f"{info.text} loads {word.text}, a file only known at run time, into the "
                                "environment of what it runs")
                return
            for cwd in cwds:
                for path in (word.text, *upward_copies(program or "", word.text, cwd)):
                    resolved = resolved_once(path, cwd, v)
                    rule = read_rule_of(*resolved, scope) if resolved is not None else None
                    if rule is not None:
                        v.sticky.append(f"{info.text} loads the values of {path}, which the rule {rule} denies "
                                        "reading, into the environment of what it runs")
                        return


# programs that make every file of a folder a variable of what they run (its first line the value)
_ENV_DIRS = frozenset({"envdir", "s6-envdir", "chpst"})


def _env_dir_check(form: tuple[Word, ...], cwds: list[str], scope: PathScope, v: Verdict) -> None:
    """``envdir DIR CMD``, ``s6-envdir [-I…] DIR CMD``, ``chpst -e DIR CMD``: the files of DIR are
    read into the environment (``envdir . env`` prints ``.env``'s first line), so a Read deny rule
    that may match in DIR asks, as a recursive read does."""
    args = form[1:]
    if form[0].literal == "chpst":
        at = next((k for k, w in enumerate(args) if (w.literal or "").startswith("-e")), None)
        if at is None:
            return
        value = (args[at].literal or "")[2:]  # -eDIR, or -e DIR
        folder = make_word(value) if value else (args[at + 1] if at + 1 < len(args) else None)
    else:
        folder = next((w for w in args if (w.literal or "x")[:1] != "-"), None)
    if folder is None:
        return
    if folder.literal is None:
        v.sticky.append(f"{form[0].text} reads every file of {folder.text}, a folder only known at run time, and "
                        f"the rule {scope.read_deny[0][0]} denies reading some files")
        return
    for cwd in cwds:
        try:
            real = resolve_below(folder.literal, cwd)[1]
        except BadPath as exc:
            v.deny = str(exc)
            return
        rule = read_deny_in(real, scope, links=True)  # (it opens each file: a link leads on)
        if rule is not None:
            v.sticky.append(f"{form[0].text} reads every file of {folder.literal} into the environment, where "
                            f"the rule {rule} denies reading")
            return


def _staging_check(words: tuple[Word, ...], cwds: list[str], scope: PathScope, v: Verdict) -> None:
    for cwd in cwds:
        reason = staging_reason(words, cwd, scope)
        if reason is not None:
            v.sticky.append(reason)
            return


def _recursive_check(info: CommandInfo, cwds: list[str], scope: PathScope, v: Verdict) -> None:
    """``grep -r KEY .`` reads every file below ``.``: a Read deny rule there makes it ask."""
    memo = v.memo if v.memo is not None else new_memo(v)
    for cwd in cwds:
        key = ("walked", info.innermost, cwd)
        folders = memo.get(key)
        if folders is None:
            folders = memo[key] = walked_folders(info.innermost, cwd, cwd_is_real=True)
        for folder in folders:  # type: ignore[attr-defined]
            rule = read_deny_in(folder, scope, follows_links(info.innermost))
            if rule is not None:
                v.sticky.append(f"it searches {folder}, where the rule {rule} denies reading")
                return


def _write_check(target: Word, cwds: list[str], scope: PathScope, context: ToolUseContext, v: Verdict) -> None:
    literal = target.literal
    if literal is None and (target.text == "~" or target.text[:2] == "~/") and tilde_path(target) is not None:
        literal = os.path.expanduser(target.text)  # > ~/x: home's, as arguments are (HOME=… asks before)
    if literal is None:
        if type(target) is PipeWord:  # > >(gzip > a.gz): a pipe, and gzip's own write is checked
            return
        v.sticky.append(f"it writes to {target.text}, a file name only known at run time")
        return
    if literal[:1] != "/" and getattr(cwds, "unknown", False):
        v.sticky.append(f"it writes to {literal} in a folder only known at run time (a cd before it), which "
                        "may be a protected one")
        return
    for cwd in cwds:
        if not v.first_time(literal, cwd, True):
            continue
        if per_process_link(os.path.normpath(os.path.join(cwd, literal))):  # > /proc/self/cwd/.git/config
            v.sticky.append(f"it writes to {literal}, which the kernel resolves for the process that opens it")
            continue
        result = write_result(literal, cwd, scope, context)
        if isinstance(result, PermissionDeny):
            v.deny = result.message
            return
        if isinstance(result, PermissionAsk):
            (v.sticky if result.reason else v.soft).append(f"it writes to {literal}: {result.message}")


def write_result(literal: str, cwd: str, scope: PathScope, context: ToolUseContext) -> PermissionResult:
    """``check_write_permission`` of ``cwd/literal`` for a shell write (a redirect target is never
    ``~``-expanded): also refused through a hard link to a denied file."""
    joined = literal if literal[:1] == "/" else ("" if cwd == "/" else cwd) + "/" + literal
    try:
        local_path(joined)
    except BadPath as exc:
        return PermissionDeny(str(exc))
    if literal[:1] == "/":
        resolved = ResolvedPath(os.path.normpath(literal), os.path.realpath(literal))
    else:
        resolved = ResolvedPath(*relative_below(literal, cwd))
    verdict = write_verdict(TOOL_NAME, joined, resolved, context, scope)
    if not isinstance(verdict, PermissionDeny):
        rule = write_link_rule(resolved.real, scope)
        if rule is not None:
            return PermissionDeny(f"Permission to write {literal} has been denied by the rule {rule} "
                                  f"(it is another name of the file the rule names).")
        if write_blocked(resolved.real, context):  # asked in every mode, as reads under the read block
            return sticky_ask("outside the working directories, where the settings block writing "
                              "(permissions.blockWritesOutsideWorkingDirectories)", SAFETY,
                              "blockWritesOutsideWorkingDirectories")
        names = link_count(resolved.real)
        if names > 1 and not (isinstance(verdict, PermissionAsk) and verdict.reason):
            return sticky_ask(f"{literal} {LINKED_WRITE.format(names=names)}", SAFETY, "hard link")
    return verdict


# read-only programs that show a file's name and metadata, never what is in it
NAMES_ONLY = frozenset({"ls", "dir", "vdir", "stat", "du", "realpath", "readlink", "tree", "find", "fd",
                         "namei", "lsattr", "getfacl"})


def _read_check(word: Word, cwds: list[str], scope: PathScope, v: Verdict, names_only: bool = False) -> None:
    if not word.static:  # `cat $f`, `xargs cat`: the file is only known at run time
        if type(word) is PipeWord:  # diff <(sort a) <(sort b): pipes the sorts (checked) write
            return
        if scope.read_deny and not names_only:  # `f=.env; cat $f` under Read(./.env), in every mode
            v.sticky.append(f"it reads {word.text}, a file only known at run time, and the rule "
                            f"{scope.read_deny[0][0]} denies reading some files")
        else:
            v.soft.append(f"it reads {word.text}, a file only known at run time")
        return
    text = word.text
    for cwd in cwds:
        if not v.first_time(text, cwd, False):
            continue
        for path in (text,) if not word.glob else _expand(word, cwd, v, scope, names_only):
            try:
                lexical, real = resolve_below(path, cwd)
            except BadPath as exc:
                v.deny = str(exc)
                return
            if per_process_link(lexical):  # cat /proc/self/cwd/.env: the command's folder, not ours
                reason = f"it reads {path}, which the kernel resolves for the process that opens it"
                (v.sticky if scope.read_deny else v.soft).append(reason)
                continue
            rule = read_rule_of(lexical, real, scope)
            if rule is not None:
                v.deny = f"Permission to read {path} has been denied by the rule {rule}."
                return
            if not scope.inside(real) and real not in DEV_SOURCES and lexical != "/dev/stdin":
                reason = f"it reads {path}, outside the working directories"
                if scope.rules.context.block_outside_reads:
                    v.sticky.append(reason)  # asked in every mode, whatever Read allow rule says
                elif real not in SYSTEM_INFO and not _read_allowed(real, scope):  # Read(//usr/share/**) lifts it
                    v.soft.append(reason)
                    rule = read_rule_for(real)
                    if rule is not None:
                        v.folders[reason] = rule  # what Always allow offers


def _read_allowed(real: str, scope: PathScope) -> bool:
    """Does a Read allow rule cover ``real`` — for a folder, what is in it (``ls /usr/share``
    under ``Read(//usr/share/**)``)?"""
    if scope.rule("allow", READ_RULES, real, real) is not None:
        return True
    inside = os.path.join(real, NEW_NAME)
    return os.path.isdir(real) and scope.rule("allow", READ_RULES, inside, inside) is not None


def read_rule_for(real: str) -> str | None:
    """The ``Read(…)`` rule offered for reading ``real`` outside the working directories: the
    folder itself or the file's folder; never the root or the home folder as a whole."""
    folder = real if os.path.isdir(real) else os.path.dirname(real)
    return None if too_broad(folder) else f"Read(/{folder}/**)"


def _expand(word: Word, cwd: str, v: Verdict, scope: PathScope, names_only: bool) -> list[str]:
    """The paths a word names: braces and globs expanded like bash would, right now.  A pattern
    that cannot be listed (``.[[:alpha:]]nv``, ``.[^x]nv``) may name a file a Read deny rule
    covers: then it asks in every mode, as a file only known at run time does."""
    if word.static and not word.glob:
        return [word.text]
    if not word.static:
        return []  # the program accepts any argument; the value is unknown (checked by cwd)
    paths = expanded(word, cwd)
    if paths is None:
        reason = f"{word.text} is a pattern whose files cannot be listed exactly before it runs"
        if scope.read_deny and not names_only:  # it may name a denied file: every mode
            v.sticky.append(f"{reason}, and the rule {scope.read_deny[0][0]} denies reading some files")
        else:
            v.soft.append(reason)
        return []
    return paths
