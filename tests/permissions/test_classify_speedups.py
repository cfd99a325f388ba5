"""The classification layer's fast paths give exactly the general path's answers.

``analyze_uncached`` classifies most commands inline (one form, no wrapper) instead of through
``_classify``; read-only specs, Bash patterns and form texts use precomputed shortcuts.  Each
shortcut is checked against the general code or a plain restatement of the rule it replaces,
on a generated corpus of command lines (wrappers, shells, git, sed, find, cd, env, quoting,
globs, substitutions) plus hand-picked cases; read-only checks and recursive folders are in
``test_classify_speedups_readonly.py``.
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
    analyze_uncached,
)
from jupyter_agent.permissions.bash_extra_forms import extra_forms as _extra_forms
from jupyter_agent.permissions.bash_extra_forms import may_have_extra_forms as _may_have_extra_forms
from jupyter_agent.permissions.bash_parse import Redirect, parse_command
from jupyter_agent.permissions.bash_rules import (
    command_text,
    compile_bash_pattern,
    form_text,
    known_text,
    render,
)
from jupyter_agent.permissions.bash_runners import UNKNOWN_PROGRAM
from jupyter_agent.permissions.bash_words import Word
from jupyter_agent.permissions.bash_wrappers import _CODE_RUNNERS, WRAPPERS, Unwrapped, _code_runner

PROGRAMS = sorted(ro.SPECS) + sorted(WRAPPERS) + sorted(_CODE_RUNNERS) + [
    "git", "sed", "find", "fd", "cd", "pushd", "popd", "/bin/rm", "/usr/bin/git", "rm", "python", "npm",
    "$X", "c'a't", "./x.sh", "source", ".", "export", "xargs", "env",
    # runners and subcommand spellings (bash_runners.py, bash_synonyms.py)
    "uv", "npx", "docker", "kubectl", "python3", "tar", "ssh", "rsync", "poetry", "conda",
]
ARGS = [
    "x", "src", "'a b'", "''", "\"$HOME\"", "$f", "*.py", "~/x", "{a,b}", ".env", "/etc/passwd", "1,20p",
    "s/a/b/", "-exec", "rm", "{}", "\\;", "+", "HEAD~1", "main", "list", "show", "push", "status", "log",
    "diff", "config", "branch", "stash", "worktree", "'echo hi'", "'rm -rf /'", "FOO=1", "PATH=/x", "5",
    "$(pwd)", "sh", "bash", "true", "git", "cat", "'tab\there'", "$'a\\tb'", "é", "'q\"uote'", "a\\ b",
    "run", "exec", "-m", "pip", "pub", "container", "rebase", "-x", "'1e ls'", "--to-command=ls", "-e",
    "ProxyCommand=ls", "-o", "--", "s/a/b/e",
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
        "wc --files0-from=list a", "du --fil=x -s", "sha256sum -c sums", "md5sum -bc s x", "wc -- --files0-from=x",
        "cksum --check s", "jq -f prog.jq a.json", "find -files0-from l -name x",
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
        info, scripts, reads, remote = _classify(cmd, nested)
        out.commands.append(info)
        out.redirects.extend([Redirect(word, False) for word in reads])
        for script in scripts:
            if depth >= 4:
                out.problems.append("shell code nested too deeply")
                continue
            inner = _general_analysis(script, depth + 1, nested=True)
            out.commands.extend(inner.commands)
            out.redirects.extend(inner.redirects)
            out.problems.extend(inner.problems)
            out.remote.extend(inner.remote)
        for code in remote:  # ssh host CMD: rules only
            if depth >= 4:
                out.remote.append(CommandInfo(((UNKNOWN_PROGRAM,),), (), ro.ReadOnlyCheck(False), nested=True))
                continue
            inner = _general_analysis(code, depth + 1, nested=True)
            if inner.problems:
                out.remote.append(CommandInfo(((UNKNOWN_PROGRAM,),), (), ro.ReadOnlyCheck(False), nested=True))
            out.remote.extend(inner.commands)
            out.remote.extend(inner.remote)
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


def _words_of(line: str) -> list[tuple[Word, ...]]:
    return [cmd.words for cmd in parse_command(line).commands if cmd.words]


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
