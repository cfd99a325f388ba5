"""Commands that print a credential: ``gh auth token``, ``git credential fill``, ``gcloud auth
print-access-token``, ``kubectl config view --raw``, ``security find-generic-password -w`` …

What they print goes into the conversation (and to the model's provider).  A rule such as
``Bash(gh:*)`` or ``Bash(git:*)`` allows the program, not handing over the keys it keeps: these
ask in every mode unless an allow rule names the subcommand itself (``Bash(gh auth token)``).
Reading such files is for ``Read`` deny rules; printing the environment is ``bash_secrets``.
"""

from __future__ import annotations

from collections.abc import Sequence

from .bash_subcommands import SECRET_OPERAND, SubcommandTable
from .bash_words import Word
from .rules import parse_rule_or_none

_ANY = frozenset[str]()
_OPERAND = frozenset({SECRET_OPERAND})  # aws configure get aws_secret_access_key
# (program, subcommand words, any of these options or conditions (empty: none needed), what it prints)
_TABLE = SubcommandTable((
    ("gh", ("auth", "token"), _ANY, "a GitHub token"),
    ("gh", ("auth", "status"), frozenset({"-t", "--show-token"}), "a GitHub token"),
    ("glab", ("auth", "status"), frozenset({"-t", "--show-token"}), "a GitLab token"),
    ("glab", ("config", "get"), _OPERAND, "a GitLab token"),
    ("aws", ("configure", "get"), _OPERAND, "an AWS key"),
    ("aws", ("configure", "export-credentials"), _ANY, "AWS credentials"),
    ("aws", ("sts", "get-session-token"), _ANY, "AWS credentials"),
    ("aws", ("sts", "assume-role"), _ANY, "AWS credentials"),
    ("aws", ("sts", "get-federation-token"), _ANY, "AWS credentials"),
    ("aws", ("ecr", "get-login-password"), _ANY, "a registry password"),
    ("aws", ("codeartifact", "get-authorization-token"), _ANY, "a package registry token"),
    ("aws", ("secretsmanager", "get-secret-value"), _ANY, "a stored secret"),
    ("aws", ("ssm", "get-parameter"), frozenset({"--with-decryption"}), "a stored secret"),
    ("gcloud", ("auth", "print-access-token"), _ANY, "a Google Cloud token"),
    ("gcloud", ("auth", "print-identity-token"), _ANY, "a Google Cloud token"),
    ("gcloud", ("auth", "application-default", "print-access-token"), _ANY, "a Google Cloud token"),
    ("gcloud", ("secrets", "versions", "access"), _ANY, "a stored secret"),
    ("az", ("account", "get-access-token"), _ANY, "an Azure token"),
    ("az", ("keyvault", "secret", "show"), _ANY, "a stored secret"),
    ("az", ("keyvault", "secret", "download"), _ANY, "a stored secret"),
    ("kubectl", ("config", "view"), frozenset({"--raw"}), "cluster credentials"),
    ("kubectl", ("create", "token"), _ANY, "a cluster token"),
    ("kubectl", ("get", "secret"), _ANY, "a cluster secret"),
    ("kubectl", ("get", "secrets"), _ANY, "cluster secrets"),
    ("security", ("find-generic-password",), frozenset({"-w", "-g"}), "a keychain password"),
    ("security", ("find-internet-password",), frozenset({"-w", "-g"}), "a keychain password"),
    ("security", ("dump-keychain",), _ANY, "the keychain"),
    ("secret-tool", ("lookup",), _ANY, "a stored secret"),
    ("secret-tool", ("search",), _ANY, "stored secrets"),
    ("pass", ("show",), _ANY, "a stored password"),
    ("gopass", ("show",), _ANY, "a stored password"),
    ("op", ("read",), _ANY, "a 1Password secret"),
    ("op", ("item", "get"), _ANY, "a 1Password item"),
    ("op", ("inject",), _ANY, "1Password secrets"),
    ("bw", ("get",), _ANY, "a Bitwarden secret"),
    ("lpass", ("show",), _ANY, "a LastPass secret"),
    ("vault", ("kv", "get"), _ANY, "a Vault secret"),
    ("vault", ("read",), _ANY, "a Vault secret"),
    ("vault", ("print", "token"), _ANY, "a Vault token"),
    ("vault", ("token", "create"), _ANY, "a Vault token"),
    ("doppler", ("secrets",), _ANY, "Doppler secrets"),
    ("infisical", ("secrets",), _ANY, "Infisical secrets"),
    ("infisical", ("export",), _ANY, "Infisical secrets"),
    ("npm", ("config", "get"), _OPERAND, "a registry token"),
    ("npm", ("token", "create"), _ANY, "a registry token"),
    ("heroku", ("auth:token",), _ANY, "a Heroku token"),
    ("databricks", ("auth", "token"), _ANY, "a Databricks token"),
    ("keyring", ("get",), _ANY, "a stored password"),
    ("sops", ("decrypt",), _ANY, "decrypted secrets"),  # sops -d: printed_credential
))
# (docker-credential-<helper> is matched by its prefix in printed_credential)
PROGRAMS = _TABLE.programs | {"git"}


def printed_credential(words: Sequence[Word]) -> tuple[tuple[str, ...], str] | None:
    """``(the words that name it, what it prints)`` when ``words`` (program first) prints a
    credential; None otherwise."""
    program = words[0].literal if words else None
    if program is None:
        return None
    plain = [w.literal for w in words[1:] if w.literal is not None and w.literal[:1] != "-"]
    if program == "git" and plain and plain[0].startswith("credential"):  # fill, credential-store get …
        return ("git", plain[0]), "a stored git credential"
    if program.startswith("docker-credential-") and plain[:1] == ["get"]:
        return (program, "get"), "a registry credential"
    if program == "sops" and plain[:1] != ["decrypt"]:  # sops -d F prints it (not into --output F)
        texts = [w.literal for w in words[1:]]
        if any(t in ("-d", "--decrypt") for t in texts) and not any(
                t is not None and t.partition("=")[0] == "--output" for t in texts):
            return ("sops", "-d"), "decrypted secrets"
    return _TABLE.match(program, words[1:])


def rule_names(rule: str, key: tuple[str, ...]) -> bool:
    """Does the ``Bash(…)`` rule ``rule`` spell out all of ``key`` (``Bash(gh auth token)``,
    not ``Bash(gh:*)``)?"""
    parsed = parse_rule_or_none(rule)
    content = (parsed.content if parsed is not None else None) or ""
    for suffix in (":*", " *", "*"):
        content = content.removesuffix(suffix)
    return tuple(content.split()[:len(key)]) == key


__all__ = ["PROGRAMS", "printed_credential", "rule_names"]
