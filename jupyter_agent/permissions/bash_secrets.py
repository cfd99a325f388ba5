"""Read-only commands that would print secrets from the environment.

The kernel's environment often holds credentials (a notebook's ``load_dotenv()``, cloud keys),
and a command's output goes to the model.  A command that prints the whole environment
(``env``, ``printenv``, ``set``, ``ps e``, ``jq -n env``) or expands a variable whose name looks like a
credential (``echo $OPENAI_API_KEY``, ``printenv GITHUB_TOKEN``) is therefore not run as
read-only: it asks, unless a rule allows it.  ``${#NAME}`` (a length) and tests
(``[ -n "$API_KEY" ]``) print nothing and stay read-only.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from .bash_words import Word

SECRET_NAME = re.compile(
    r"KEY|TOKEN|SECRET|PASSW|PASSPHRASE|CREDENTIAL|AUTH(?!OR)|COOKIE|PRIVATE|SIGNING|PASS(?:$|_)|"
    r"(?:^|_)DSN$|DATABASE_URL|(?:^|_)URI$|CONN(?:ECTION)?_?STR",
    re.IGNORECASE,
)
_EXPANSION = re.compile(r"\$\{?(#?)([A-Za-z_][A-Za-z0-9_]*)")
# JSON/YAML query tools whose programs can read the environment: jq's env and $ENV, yq's
# env(), strenv() and envsubst (any word that says so: the program text is one of them)
_ENV_QUERIES = frozenset({"jq", "yq", "gojq", "jaq"})
_ENV_QUERY = re.compile(r"\$ENV\b|(?<![\w.$])(?:str)?env\b|envsubst")
_SILENT = frozenset({"test", "[", "true", "false", ":"})  # exit status only
# ps takes these options' values as the next word (a BSD ``e`` there is no flag)
_PS_VALUES = frozenset({"-o", "o", "-O", "O", "--format", "-p", "p", "--pid", "-u", "U", "-U", "-C",
                        "-G", "-g", "-t", "t", "--sort", "k", "--ppid", "-q", "q", "--user", "--group"})


def prints_secrets(program: str, words: Sequence[Word]) -> bool:
    """Would this read-only command print environment variables that may hold credentials?"""
    if program == "env":
        return True  # with nothing to run, env prints the environment
    if program == "printenv":
        names = [w for w in words[1:] if w.text[:1] != "-"]
        return not names or any(not w.static or SECRET_NAME.search(w.text) for w in names)
    if program == "set" and len(words) == 1:
        return True
    if program == "ps" and _ps_environment(words):
        return True
    if program in _ENV_QUERIES and any(_ENV_QUERY.search(w.text) for w in words[1:]):
        return True  # jq -n env, jq '$ENV.API_KEY', yq 'strenv(TOKEN)'
    if program in _SILENT:
        return False
    return any(not w.static and secret_expansion(w.text) is not None for w in words)


def secret_expansion(text: str) -> str | None:
    """The first variable ``text`` expands (``$NAME``, ``${NAME…}``, not ``${#NAME}``) whose name
    looks like a credential's, or None."""
    if "$" not in text:
        return None
    for length, name in _EXPANSION.findall(text):
        if not length and SECRET_NAME.search(name):
            return name
    return None


def _ps_environment(words: Sequence[Word]) -> bool:
    """``ps e``, ``ps auxe``, ``ps eww``: the BSD ``e`` flag prints each process's environment;
    so does macOS's ``ps -E`` (and an ``environ`` column where a ``ps`` has one)."""
    value_next = False
    for word in words[1:]:
        text = word.text
        if "environ" in text.lower():
            return True
        if value_next:
            value_next = False
            continue
        if text in _PS_VALUES:
            value_next = True
        elif (text[:1] != "-" and text.isalpha() and "e" in text) or (  # ps e, ps auxe
            text[:1] == "-" and text[1:2] != "-" and "E" in text[1:] and text[1:].isalpha()  # macOS: ps -E
        ):
            return True
    return False
