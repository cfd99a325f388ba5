"""The classification layer's shortcuts, part two: read-only checks and recursive folders.

Each shortcut is compared with a plain restatement of its rule (option sets, git) or with the
general code (plain specs, ``walked_folders`` without ``cwd_is_real``) on the corpus of
``test_classify_speedups``.
"""

from __future__ import annotations

import pytest

from jupyter_agent.permissions import bash_readonly as ro
from jupyter_agent.permissions.bash_recursive import walked_folders
from jupyter_agent.permissions.bash_words import Word
from tests.permissions.test_classify_speedups import CORPUS, _options, _words_of


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
        if flag not in ro.GIT_GLOBAL_FLAGS:
            return ro.ReadOnlyCheck(False)
        i += 1
    if i >= len(args) or args[i].literal is None:
        return ro.ReadOnlyCheck(False)
    sub, rest = args[i].literal or "", args[i + 1:]
    if sub == "config" and not (rest and rest[0].literal in ro.GIT_SUB_SUB["config"]):
        spec = ro.GIT_SPECS["config"]  # --get NAME, --list; else one NAME alone is a get
        if not ro._check(spec, rest).read_only:
            spec = ro.GIT_CONFIG_GET
    elif sub in ro.GIT_SUB_SUB:
        spec = ro.GIT_SUB_SUB[sub].get(rest[0].literal or "") if rest else None
        rest = rest[1:]
    else:
        spec = ro.GIT_SPECS.get(sub)
    if spec is None or not ro._check(spec, rest).read_only:
        return ro.ReadOnlyCheck(False)
    return ro.ReadOnlyCheck(True, (*paths, *ro._check(spec, rest).paths))


def test_git_walk_without_copies_matches_the_reference():
    lines = [line for line in CORPUS if "git" in line] + [
        "git -C sub status", "git -C $d status", "git --no-pager -P log", "git --version", "git --help x",
        "git -c a=b log", "git stash show x", "git stash $x", "git worktree list", "git", "git -C",
        "git $sub", "git config --get user.name", "git config user.name x", "git diff --out=x",
        "git stash show --output=x", "git stash list --ext-diff", "git stash show -p sub", "git worktree list -v",
        "git worktree list x", "git config user.name", "git config get user.name", "git config list -z",
        "git config get", "git config --local a.b c",
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
