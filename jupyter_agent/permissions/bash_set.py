"""``set`` as a read-only command: only options that change error handling, tracing or globbing."""

from __future__ import annotations

from collections.abc import Sequence

from .bash_words import Word

# `set` options that only change error handling, tracing or globbing.  Not -k / -o keyword: then
# `cat LD_PRELOAD=x.so f` puts LD_PRELOAD in cat's environment; not -o posix; not -H / -o histexpand
# / -o history: then even `bash -c` expands `qa !!:1` to the words of an earlier line.
_SET_LETTERS = frozenset("abefhmnptuvxBCEPT")
_SET_O_NAMES = frozenset(
    {"allexport", "braceexpand", "emacs", "errexit", "errtrace", "functrace", "hashall",
     "ignoreeof", "interactive-comments", "monitor", "noclobber", "noexec", "noglob", "nolog",
     "notify", "nounset", "onecmd", "physical", "pipefail", "privileged", "verbose", "vi", "xtrace"}
)


def set_is_read_only(args: Sequence[Word]) -> bool:
    """``set -euo pipefail``, ``set -x``, ``set -- a b``: read-only; ``set -k`` and unknown options are not."""
    expect_name = False
    for word in args:
        value = word.literal
        if value is None:
            return False  # `set $opts` may turn on anything
        if expect_name:
            if value not in _SET_O_NAMES:
                return False
            expect_name = False
        elif value in ("--", "-") or value[:1] not in ("-", "+"):
            return True  # positional parameters from here on
        else:
            letters = value[1:]
            if not set(letters.replace("o", "")) <= _SET_LETTERS:
                return False
            expect_name = "o" in letters
    return True
