"""The classification layer's fast paths give exactly the general path's answers.

``analyze_uncached`` classifies most commands inline (one form, no wrapper) instead of through
``_classify``; read-only specs, Bash patterns and form texts use precomputed shortcuts.  Each
shortcut is checked here against the general code or a plain restatement of the rule it
replaces, on a generated corpus of command lines (wrappers, shells, git, sed, find, cd, env,
quoting, globs, substitutions) plus hand-picked cases.
"""

from __future__ import annotations

import random
import re
import shlex
import threading

import pytest

from jupyter_agent.permissions import bash_readonly as ro
from jupyter_agent.permissions.bash_analysis import (
    Analysis,
    CommandInfo,
    _classify,
    _extra_forms,
    _may_have_extra_forms,
    analyze_uncached,
)
from jupyter_agent.permissions.bash_parse import parse_command
from jupyter_agent.permissions.bash_recursive import walked_folders
from jupyter_agent.permissions.bash_rules import (
    command_text,
    compile_bash_pattern,
    form_text,
    known_text,
    render,
)
from jupyter_agent.permissions.bash_words import Word
from jupyter_agent.permissions.bash_wrappers import _CODE_RUNNERS, WRAPPERS, Unwrapped, _code_runner

PROGRAMS = sorted(ro.SPECS) + sorted(WRAPPERS) + sorted(_CODE_RUNNERS) + [
    "git", "sed", "find", "fd", "cd", "pushd", "popd", "/bin/rm", "/usr/bin/git", "rm", "python", "npm",
    "$X", "c'a't", "./x.sh", "source", ".", "export", "xargs", "env",
]
ARGS = [
    "x", "src", "'a b'", "''", "\"$HOME\"", "$f", "*.py", "~/x", "{a,b}", ".env", "/etc/passwd", "1,20p",
    "s/a/b/", "-exec", "rm", "{}", "\\;", "+", "HEAD~1", "main", "list", "show", "push", "status", "log",
    "diff", "config", "branch", "stash", "worktree", "'echo hi'", "'rm -rf /'", "FOO=1", "PATH=/x", "5",
    "$(pwd)", "sh", "bash", "true", "git", "cat", "'tab\there'", "$'a\\tb'", "é", "'q\"uote'", "a\\ b",
]


def _options() -> list[str]:
    found: set[str] = set()
    for spec in [*ro.SPECS.values(), *ro.GIT_SPECS.values()]:
        found |= set(spec.unsafe) | set(spec.only_options or ())
    for wrapper in WRAPPERS.values():
        found |= set(wrapper.arg_options) | set(wrapper.flags or ())
    extra = ["-n", "-la", "-rn", "--", "-", "-c", "-e", "-i", "--out=x", "--output=f", "-n5", "-I{}",
             "-oL", "-5", "-10", "+5", "-C", "-p", "-v", "-V", "--get", "--list", "--exp", "-sv", "--no-pager"]
    return sorted(found) + extra


def _corpus(n: int = 2500, seed: int = 3) -> list[str]:
    rnd = random.Random(seed)
    options = _options()
    lines = [
        "git status", "git -C sub --no-pager log -n 3", "git stash list", "git branch -a && git remote -v",
        "sed -n '1,40p' a.py", "sed -i s/a/b/ a.py", "find . -name '*.py' | xargs wc -l",
        "find . -exec sh -c 'rm x' \\;", "timeout 60 pytest -q 2>&1 | tail -30", "env FOO=1 python a.py",
        "cd src && ls", "cd -P x", "pushd", "popd", "command -v ls", "sudo rm -rf /", "bash -c 'rm x'",
        "FOO=1 ls", "PATH=/x ls", "x=1", "[ -f a ] && cat a", "[[ $a -eq 1 ]]", "echo \"$(date)\"",
        "ls | sort | uniq -c", "/bin/rm -rf x", "xargs", "nice -n5 cat x", "watch -n 1 'ls'",
    ]
    for _ in range(n):
        parts = []
        for _ in range(rnd.randint(1, 3)):
            words = []
            if rnd.random() < 0.1:
                words.append(rnd.choice(["FOO=1", "PATH=/x", "GIT_DIR=x", "A=$B"]))
            words.append(rnd.choice(PROGRAMS))
            for _ in range(rnd.randint(0, 6)):
                roll = rnd.random()
                words.append(rnd.choice(options) if roll < 0.4 else rnd.choice(PROGRAMS) if roll < 0.55
                             else rnd.choice(ARGS))
            parts.append(" ".join(words))
        lines.append(rnd.choice([" && ", " | ", "; ", " || "]).join(parts))
    return lines


CORPUS = _corpus()


def _general_analysis(command: str, depth: int = 0, nested: bool = False) -> Analysis:
    """``analyze_uncached`` with every command through the general ``_classify``."""
    parsed = parse_command(command)
    out = Analysis(redirects=list(parsed.redirects), problems=list(parsed.problems))
    for cmd in parsed.commands:
        info, scripts = _classify(cmd, nested)
        out.commands.append(info)
        for script in scripts:
            if depth >= 4:
                out.problems.append("shell code nested too deeply")
                continue
            inner = _general_analysis(script, depth + 1, nested=True)
            out.commands.extend(inner.commands)
            out.redirects.extend(inner.redirects)
            out.problems.extend(inner.problems)
    return out


def _expected_texts(info: CommandInfo) -> tuple[tuple[tuple[str, str, bool], ...], str]:
    """Form texts the slow way: every word rendered on its own."""
    texts = []
    for form in info.forms:
        fixed = []
        for word in form:
            if word.literal is None:
                break
            fixed.append(render(word))
        texts.append((" ".join(render(w) for w in form), " ".join(fixed), len(fixed) == len(form)))
    return tuple(texts), " ".join(render(w) for w in info.innermost)


def test_corpus_reaches_every_path():
    kinds = {"inline": 0, "general": 0, "scripts": 0, "cd": 0, "extra forms": 0, "read-only paths": 0}
    for line in CORPUS:
        for info in analyze_uncached(line).commands:
            kinds["extra forms"] += len(info.forms) > 1 and info.forms[1] is not info.innermost
            kinds["cd"] += info.cd_kind is not None
            kinds["read-only paths"] += bool(info.read_only.paths)
            kinds["general" if info.inner_index != 0 else "inline"] += 1
            kinds["scripts"] += info.nested
    assert all(count > 20 for count in kinds.values()), kinds


def test_fast_paths_classify_like_the_general_path():
    for line in CORPUS:
        fast, general = analyze_uncached(line), _general_analysis(line)
        assert fast == general, line
        for a, b in zip(fast.commands, general.commands, strict=True):
            assert a.form_texts == b.form_texts and a.text == b.text, line
            assert (a.form_texts, a.text) == _expected_texts(a), line


def test_text_before_form_texts_and_hand_built_infos():
    for line in CORPUS[:400]:
        for info in analyze_uncached(line).commands:
            text = info.text  # computed first this time
            assert (info.form_texts, text) == _expected_texts(info), line
    words = (Word("git"), Word("log"))
    odd = CommandInfo(((Word("x"),),), words, ro.ReadOnlyCheck(False), inner_index=0)  # index not innermost
    assert odd.text == "git log" and odd.form_texts == (("x", "x", True),)
    assert CommandInfo((), (), ro.ReadOnlyCheck(True)).text == ""


@pytest.mark.parametrize("text", [
    "", "a b", "tab\there", "nl\nx", "q'uote", 'd"q', "back\\slash", "nbsp\xa0x", "em\u2003space", "\x1cfs",
    "ctl\x01", "é", "plain", "-la", "~/x", "\u3000", "x\x85y",
])
def test_form_text_quotes_exactly_like_word_rendered(text):
    words = (Word("cmd"), Word(text), Word(text, static=False), Word(text, glob=True), Word("end"))
    for form in (words, words[:2], words[1:2], words[2:], words[:1] + words[3:]):
        assert form_text(form) == (command_text(form), *known_text(form))
        assert form_text(form)[0] == " ".join(w.rendered for w in form)
        fixed = []
        for w in form:
            if w.literal is None:
                break
            fixed.append(w.rendered)
        assert form_text(form)[1:] == (" ".join(fixed), len(fixed) == len(form))
    assert render(Word(text)) == (shlex.quote(text) if text == "" or re.search(r"[\s'\"\\]", text) else text)


def test_every_blank_but_space_is_unprintable():
    """form_text's quick test relies on this: ``isprintable`` catches every blank but " "."""
    blanks = [chr(c) for c in range(0x110000) if re.fullmatch(r"\s", chr(c))]
    assert " " in blanks and "\t" in blanks and "\xa0" in blanks
    assert [b for b in blanks if b.isprintable()] == [" "]


def _option_ok_reference(spec: ro.Spec, option: str) -> bool:
    """The option rule, stated directly on ``spec.unsafe`` (no precomputed sets)."""
    name = option.split("=", 1)[0]
    if spec.only_options is not None:
        return name in spec.only_options
    if spec.single_dash_long or name.startswith("--"):
        if name in spec.unsafe:
            return False
        if name.startswith("--"):
            return not any(u.startswith(name) for u in spec.unsafe if u.startswith("--"))
        return True
    letters = name[1:]
    return letters.isdigit() or not any(f"-{ch}" in spec.unsafe for ch in letters)


def test_precomputed_option_sets_decide_like_the_unsafe_list():
    options = _options() + ["-" + c for c in "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"]
    options += ["--o", "--ou", "--re", "--pre", "--ext", "--t", "-rz", "-zr", "-12", "-=x", "--=", "-x=1"]
    for spec in [*ro.SPECS.values(), *ro.GIT_SPECS.values()]:
        assert spec.plain == (not spec.unsafe and spec.max_positional is None and spec.only_options is None
                              and spec.dynamic_ok and not spec.requires_any)
        for option in options:
            assert ro._option_ok(spec, option) == _option_ok_reference(spec, option), (spec, option)


def _words_of(line: str) -> list[tuple[Word, ...]]:
    return [cmd.words for cmd in parse_command(line).commands if cmd.words]


def test_plain_specs_collect_the_same_paths_as_the_general_check():
    for line in CORPUS:
        for words in _words_of(line):
            spec = ro.SPECS.get(words[0].literal or "")
            if spec is not None and spec.plain:
                assert ro._plain(spec, words) == ro._check(spec, words[1:]), line


def _git_reference(args: list[Word]) -> ro.ReadOnlyCheck:
    """git's read-only rule on the argument list, stated with ``literal`` throughout."""
    i, paths = 0, []
    while i < len(args) and (args[i].literal or "").startswith("-"):
        flag = args[i].literal or ""
        if flag == "-C" and i + 1 < len(args) and args[i + 1].literal is not None:
            paths.append(args[i + 1])
            i += 2
            continue
        if flag in ("--version", "--help") and i == len(args) - 1:
            return ro.ReadOnlyCheck(True)
        if flag not in ro._GIT_GLOBAL_FLAGS:
            return ro.ReadOnlyCheck(False)
        i += 1
    if i >= len(args) or args[i].literal is None:
        return ro.ReadOnlyCheck(False)
    sub, rest = args[i].literal or "", args[i + 1:]
    if sub in ro._GIT_SUB_SUB:
        ok = bool(rest) and rest[0].literal in ro._GIT_SUB_SUB[sub]
        return ro.ReadOnlyCheck(ok and all(w.literal is not None for w in rest[1:]))
    spec = ro.GIT_SPECS.get(sub)
    if spec is None or not ro._check(spec, rest).read_only:
        return ro.ReadOnlyCheck(False)
    return ro.ReadOnlyCheck(True, (*paths, *ro._check(spec, rest).paths))


def test_git_walk_without_copies_matches_the_reference():
    lines = [line for line in CORPUS if "git" in line] + [
        "git -C sub status", "git -C $d status", "git --no-pager -P log", "git --version", "git --help x",
        "git -c a=b log", "git stash show x", "git stash $x", "git worktree list", "git", "git -C",
        "git $sub", "git config --get user.name", "git config user.name x", "git diff --out=x",
    ]
    for line in lines:
        for words in _words_of(line):
            if words[0].literal == "git":
                assert ro.check_read_only(words) == _git_reference(list(words[1:])), line


def test_read_only_fast_constructor():
    paths = (Word("a"), Word("b"))
    assert ro.reads(paths) == ro.ReadOnlyCheck(True, paths)
    assert hash(ro.reads(paths)) == hash(ro.ReadOnlyCheck(True, paths))
    assert ro.reads(()) == ro.ReadOnlyCheck(True)
    with pytest.raises(AttributeError):
        ro.reads(paths).read_only = False  # type: ignore[misc]


def test_extra_forms_skip_and_code_runner_guard():
    for line in CORPUS:
        for words in _words_of(line):
            if not _may_have_extra_forms(words):
                assert _extra_forms(words) == [], line
    for name in {w.literal for line in CORPUS for ws in _words_of(line) for w in ws[:1]} - {None}:
        if name not in _CODE_RUNNERS:
            assert not _code_runner(name, (Word(name), Word("-v"), Word("-c"), Word("x")), Unwrapped([()]))


def _matches_reference(head: str, prefix: bool, regex: re.Pattern[str] | None, text: str) -> bool:
    if regex is not None:
        return regex.fullmatch(text) is not None
    return text == head or text.startswith(head + " ") if prefix else text == head


def _may_match_reference(head: str, prefix: bool, regex: re.Pattern[str] | None, known: str) -> bool:
    known, head = known.rstrip(), head.rstrip()
    if not known:
        return True
    return head.startswith(known) or (known + " ").startswith(head + " ") or (
        (regex is not None or prefix) and known.startswith(head)
    )


def test_bash_patterns_match_like_the_plain_rule():
    rules = ["git log:*", "ls *", "git * main", "rm -rf /:*", "npm run test:*", "*", "a*b *", "make",
             "git 'log --x'", "echo  hi :*", "curl:*", "x *y", "git log", " ls ", "ls  :*", "*:*"]
    texts = {"", " ", "git", "git log", "git logx", "git log -n 3", "git 'log --x'", "ls", "ls  ", "lsof",
             "rm -rf /", "rm -rf /x", "echo  hi", "echo  hi there", "a b", "ab x", "x y", "x zy", "make"}
    for line in CORPUS[:600]:
        for info in analyze_uncached(line).commands:
            for text, known, _complete in info.form_texts:
                texts |= {text, known, known + " "}
    for rule in rules:
        p = compile_bash_pattern(rule)
        for text in texts:
            assert p.matches(text) is _matches_reference(p.head, p.prefix, p.regex, text), (rule, text)
            assert p.may_match(text) == _may_match_reference(p.head, p.prefix, p.regex, text), (rule, text)


def test_walked_folders_from_a_real_cwd_equal_the_general_way(tmp_path):
    root = tmp_path.resolve()
    for d in ("src/deep", "tests", "other/inner"):
        (root / d).mkdir(parents=True)
    (root / "a.py").write_text("x")
    (root / "src" / "b.py").write_text("x")
    (root / "to_other").symlink_to(root / "other")
    (root / "src" / "up").symlink_to(root / "other" / "inner")
    (root / "file_link").symlink_to(root / "a.py")
    (root / "dangling").symlink_to(root / "missing")
    (root / "loop").symlink_to(root / "loop")
    operands = ["src", "src/", "./src", "src/./deep", "src//deep", "src/deep/", "tests", "a.py", "a.py/x",
                "a.py/.", "missing", "missing/x", ".", "./", "", "..", "src/..", "to_other", "to_other/inner",
                "src/up", "src/up/..", "file_link", "dangling", "loop", "loop/x", str(root / "src"), "/",
                "~", "~/x", "x:y", "src/b.py", "src/deep/../b.py"]
    for program in ("grep -r", "rg", "diff -r", "grep -n"):
        for first in operands:
            for second in ("", "src", "missing", "a.py", "to_other"):
                texts = [*program.split(), "KEY", first] + ([second] if second else [])
                words = tuple(Word(text) for text in texts)  # first may be "" (an empty operand)
                for cwd in (str(root), str(root / "src"), "/"):
                    general = walked_folders(words, cwd)
                    assert walked_folders(words, cwd, cwd_is_real=True) == general, (words, cwd)
    assert walked_folders((Word("rg"), Word("x"), Word("src")), str(root), cwd_is_real=True) == [str(root / "src")]
    assert walked_folders((Word("rg"), Word("x")), str(root), cwd_is_real=True) == [str(root)]
    assert walked_folders((Word("rg"), Word("x"), Word("to_other")), str(root), cwd_is_real=True) == [
        str(root / "other")]
    assert walked_folders((Word("cat"), Word("src")), str(root), cwd_is_real=True) == []


def test_lazy_texts_shared_across_threads_are_never_missing():
    """Analyses are cached and shared: threads racing on the lazy texts all see whole values."""
    lines = CORPUS[:300]
    expected = [[_expected_texts(info) for info in analyze_uncached(line).commands] for line in lines]
    for _round in range(3):
        infos = [analyze_uncached(line).commands for line in lines]
        barrier = threading.Barrier(4)
        seen: list[list[object]] = [[] for _ in range(4)]

        def read(slot: int, infos=infos, barrier=barrier, seen=seen) -> None:
            barrier.wait()
            for commands in infos:
                for info in commands:  # half the threads ask for text first
                    pair = (info.text, info.form_texts) if slot % 2 else (info.form_texts, info.text)
                    seen[slot].append(pair if slot % 2 else pair[::-1])

        threads = [threading.Thread(target=read, args=(i,)) for i in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        flat = [(texts, text) for commands in expected for texts, text in commands]
        for slot in range(4):
            assert [(texts, text) for text, texts in seen[slot]] == flat
