"""Programs that write protected paths though no argument names them.

``pre-commit install`` writes ``.git/hooks/pre-commit``; ``nbstripout --install`` and ``nbdime
config-git --enable`` set programs in ``.git/config`` that git runs on every diff and commit;
``conda init`` edits ``~/.bashrc``; ``pip config set``, ``npm config set``, ``conda config
--set`` rewrite ``~/.config/pip/pip.conf``, ``~/.npmrc``, ``~/.condarc``; ``wandb login`` writes
``~/.netrc``; ``jupyter server --generate-config`` and ``ipython profile create`` write
``~/.jupyter`` and ``~/.ipython``, whose start-up files the next kernel runs; ``jupyter kernelspec
install`` a command Jupyter runs for every kernel of that name; ``direnv allow`` trusts an
``.envrc`` the user's shell then runs.  A rule that
allows the program, and bypassPermissions, allow the program, not a protected path changing
unseen: each of these asks in every mode.

The table lists a program, the words that must follow it (subcommands), and the options of
which one must be present (none: always); the form matches after options the program takes
before its subcommand are skipped only where listed.  Runners are seen through by the caller
(``npx husky init``, ``python -m nbstripout --install``).
"""

from __future__ import annotations

from collections.abc import Sequence

from .bash_subcommands import BARE, TWO_MORE, SubcommandTable
from .bash_words import Word
from .git_words import git_global_options

# (program, subcommand words, any of these options or conditions (empty: none needed), what it
# writes); `aws configure` alone prompts, then writes; `poetry config KEY` reads, KEY VALUE sets
# Jupyter's applications, also run as jupyter-APP (jupyter-lab …)
_JUPYTER_APPS = ("lab", "notebook", "server", "nbconvert", "console", "qtconsole", "execute", "kernel", "nbclassic",
                 "dejavu", "trust", "troubleshoot", "migrate", "labhub", "events", "book")
_TABLE = SubcommandTable((
    ("pre-commit", ("install",), frozenset(), ".git/hooks/ (git runs them)"),
    ("pre-commit", ("uninstall",), frozenset(), ".git/hooks/"),
    ("pre-commit", ("init-templatedir",), frozenset(), "a hooks template git copies into new repositories"),
    ("pre-commit", ("autoupdate",), frozenset(), ".pre-commit-config.yaml (the commands it runs)"),
    ("pre-commit", ("migrate-config",), frozenset(), ".pre-commit-config.yaml (the commands it runs)"),
    ("lefthook", ("install",), frozenset(), ".git/hooks/ (git runs them)"),
    ("lefthook", ("add",), frozenset(), ".git/hooks/ (git runs them)"),
    ("husky", (), frozenset(), ".husky/ and git's core.hooksPath (git runs them)"),
    # simple-git-hooks (and yorkie, husky 0.x's fork) write the hooks package.json names into
    # .git/hooks; git-hooks (the Go tool) sets core.hooksPath
    ("simple-git-hooks", (), frozenset(), ".git/hooks/ (git runs them)"),
    ("yorkie", (), frozenset(), ".git/hooks/ (git runs them)"),
    ("git-hooks", ("install",), frozenset(), ".git/hooks/ (git runs them)"),
    ("git-hooks", ("uninstall",), frozenset(), ".git/hooks/"),
    ("overcommit", (), frozenset({"--install", "--uninstall"}), ".git/hooks/ (git runs them)"),
    ("dvc", ("install",), frozenset(), ".git/hooks/ (git runs them)"),
    ("git-lfs", ("install",), frozenset(), "git's hooks and ~/.gitconfig"),
    ("git-lfs", ("uninstall",), frozenset(), "git's hooks and ~/.gitconfig"),
    ("git-lfs", ("update",), frozenset(), ".git/hooks/ (git runs them)"),
    # git maintenance start|register: a crontab entry, systemd timers or launchd agents that run
    # git on a schedule, and maintenance.repo in ~/.gitconfig
    *(("git-maintenance", (sub,), frozenset(), "your crontab or systemd timers and ~/.gitconfig")
      for sub in ("start", "stop", "register", "unregister")),
    ("git-secrets", (), frozenset({"--install", "--register-aws", "--add", "--add-provider"}), "git's hooks and settings"),
    ("nbstripout", (), frozenset({"--install", "--uninstall"}), ".git/config (a filter git runs) and .gitattributes"),
    ("nbdime", ("config-git",), frozenset({"--enable", "--disable"}), "git's settings (drivers git runs)"),
    ("git-nbdiffdriver", ("config",), frozenset({"--enable", "--disable"}), "git's settings (a driver git runs)"),
    ("git-nbmergedriver", ("config",), frozenset({"--enable", "--disable"}), "git's settings (a driver git runs)"),
    ("git-nbdifftool", ("config",), frozenset({"--enable", "--disable"}), "git's settings (a tool git runs)"),
    ("git-nbmergetool", ("config",), frozenset({"--enable", "--disable"}), "git's settings (a tool git runs)"),
    ("conda", ("init",), frozenset(), "your shell's start-up files (~/.bashrc …)"),
    ("mamba", ("init",), frozenset(), "your shell's start-up files (~/.bashrc …)"),
    ("micromamba", ("shell", "init"), frozenset(), "your shell's start-up files (~/.bashrc …)"),
    ("conda", ("config",), frozenset({"--set", "--add", "--append", "--prepend", "--remove", "--remove-key",
                                      "--write-default"}), "~/.condarc (where packages come from)"),
    ("mamba", ("config",), frozenset({"--set", "--add", "--append", "--prepend", "--remove", "--remove-key"}),
     "~/.condarc (where packages come from)"),
    ("pipx", ("ensurepath",), frozenset(), "your shell's start-up files"),
    ("uv", ("tool", "update-shell"), frozenset(), "your shell's start-up files"),
    ("pip", ("config", "set"), frozenset(), "pip's configuration (~/.config/pip, where packages come from)"),
    ("pip", ("config", "unset"), frozenset(), "pip's configuration (~/.config/pip)"),
    ("pip", ("config", "edit"), frozenset(), "pip's configuration (~/.config/pip)"),
    ("pip3", ("config", "set"), frozenset(), "pip's configuration (~/.config/pip, where packages come from)"),
    ("npm", ("config", "set"), frozenset(), "~/.npmrc (where packages come from, scripts it runs)"),
    ("npm", ("config", "delete"), frozenset(), "~/.npmrc"),
    ("npm", ("config", "edit"), frozenset(), "~/.npmrc"),
    ("npm", ("set",), frozenset(), "~/.npmrc (where packages come from, scripts it runs)"),
    ("npm", ("login",), frozenset(), "~/.npmrc (a token)"),
    ("npm", ("adduser",), frozenset(), "~/.npmrc (a token)"),
    ("yarn", ("config", "set"), frozenset(), "~/.yarnrc (where packages come from)"),
    ("pnpm", ("config", "set"), frozenset(), "~/.npmrc (where packages come from)"),
    ("poetry", ("config",), frozenset({"--unset", TWO_MORE}), "poetry's configuration (~/.config/pypoetry)"),
    ("gh", ("auth", "setup-git"), frozenset(), "~/.gitconfig (a credential helper git runs)"),
    ("gh", ("auth", "login"), frozenset(), "~/.config/gh (a token) and git's settings"),
    ("gh", ("config", "set"), frozenset(), "~/.config/gh"),
    ("gh", ("alias", "set"), frozenset(), "~/.config/gh (an alias may run shell code)"),
    ("aws", ("configure",), frozenset({BARE}), "~/.aws (credentials, programs it runs)"),
    ("aws", ("configure", "set"), frozenset(), "~/.aws (credentials, programs it runs)"),
    ("aws", ("configure", "import"), frozenset(), "~/.aws (credentials)"),
    ("aws", ("configure", "sso"), frozenset(), "~/.aws (credentials)"),
    ("gcloud", ("config", "set"), frozenset(), "~/.config/gcloud"),
    ("gcloud", ("auth", "login"), frozenset(), "~/.config/gcloud (credentials)"),
    ("docker", ("login",), frozenset(), "~/.docker/config.json (credentials, helpers it runs)"),
    ("docker", ("context", "use"), frozenset(), "~/.docker/config.json (which daemon it talks to)"),
    *(("kubectl", ("config", sub), frozenset(), "~/.kube/config (which cluster, programs it runs)")
      for sub in ("set", "set-cluster", "set-context", "set-credentials", "use-context", "use", "unset",
                  "delete-cluster", "delete-context", "delete-user", "rename-context")),
    ("wandb", ("login",), frozenset(), "~/.netrc (a key)"),
    ("huggingface-cli", ("login",), frozenset(), "a token and git's credential helper"),
    ("jupyter", ("notebook", "password"), frozenset(), "~/.jupyter (its configuration)"),
    ("jupyter", ("server", "password"), frozenset(), "~/.jupyter (its configuration)"),
    # every Jupyter application's --generate-config (jupyter lab, console, qtconsole …, jupyter-lab)
    *((program, (), frozenset({"--generate-config"}), "~/.jupyter (its configuration, which it runs)")
      for program in ("jupyter", *(f"jupyter-{app}" for app in _JUPYTER_APPS))),
    ("jupyter", ("migrate",), frozenset(), "~/.jupyter (its configuration, which it runs)"),
    ("jupyter", ("lab", "workspaces", "import"), frozenset(), "~/.jupyter/lab/workspaces (JupyterLab's layouts)"),
    ("ipython", ("profile", "create"), frozenset(), "~/.ipython (start-up files every kernel runs)"),
    ("ipython", ("kernel", "install"), frozenset(), "a kernelspec (the command Jupyter runs to start the kernel)"),
    # what Jupyter runs: a kernelspec's command (every kernel started from it), the extensions
    # JupyterLab's page and the server load
    *((program, (*first, sub), frozenset(), what)
      for program, first in (("jupyter", ("kernelspec",)), ("jupyter-kernelspec", ()))
      for sub, what in (("install", "a kernelspec (the command Jupyter runs to start the kernel)"),
                        ("uninstall", "a kernelspec (a kernel the notebooks use)"),
                        ("remove", "a kernelspec (a kernel the notebooks use)"))),
    ("ipykernel", ("install",), frozenset(), "a kernelspec (the command Jupyter runs to start the kernel)"),
    *((program, (*first, sub), frozenset(), "JupyterLab's extensions (code its page or server runs)")
      for program, first in (("jupyter", ("labextension",)), ("jupyter-labextension", ()))
      for sub in ("install", "uninstall", "link", "unlink", "develop", "enable", "disable", "lock", "unlock")),
    *(("jupyter", (app, "extension", sub), frozenset(), "the Jupyter server's extensions (code it runs)")
      for app in ("server", "serverextension") for sub in ("enable", "disable")),
    *(("jupyter", ("nbextension", sub), frozenset(), "the notebook's extensions (code its page runs)")
      for sub in ("install", "enable", "disable", "uninstall")),
    ("jupyter", ("lab", "build"), frozenset(), "JupyterLab's application folder (code its page runs)"),
    *((program, first, frozenset(), "Jupyter's notebook signatures (a trusted notebook's HTML and JavaScript "
                                    "outputs run when it is opened)")
      for program, first in (("jupyter", ("trust",)), ("jupyter-trust", ()))),
    ("jupyter", ("lab", "clean"), frozenset(), "JupyterLab's application folder"),
    # the .envrc direnv then runs in your shell on every cd into the folder
    *(("direnv", (sub,), frozenset(), "direnv's trust list (your shell then runs the folder's .envrc)")
      for sub in ("allow", "permit", "grant")),
    ("mise", ("trust",), frozenset(), "mise's trust list (it then runs the folder's mise.toml: env scripts, hooks)"),
    ("code", (), frozenset({"--install-extension", "--uninstall-extension"}), "~/.vscode/extensions (code the editor runs)"),
    ("conda", ("env", "config", "vars", "set"), frozenset(), "the environment's variables (set on every activation)"),
    ("ipython", (), frozenset({"--init"}), "~/.ipython (start-up files every kernel runs)"),
    # nbdev: `git config --local include.path ../.gitconfig` and the filter and merge drivers
    # that file names (nbdev 1 also a pre-commit hook)
    ("nbdev_install_hooks", (), frozenset(), ".git/config (filters and drivers git runs)"),
    ("nbdev_install_git_hooks", (), frozenset(), ".git/config and .git/hooks/ (git runs them)"),
    ("ggshield", ("install",), frozenset(), "git's hooks (git runs them)"),
    ("nbautoexport", ("install",), frozenset(), "~/.jupyter (a post-save hook the server runs)"),
    ("nbdime", ("extensions",), frozenset({"--enable", "--disable"}), "Jupyter's extensions (code it runs)"),
    ("hf", ("auth", "login"), frozenset(), "a token and git's credential helper"),
    ("kaggle", ("config", "set"), frozenset(), "~/.kaggle (where it reads credentials)"),
    # ssh-keygen -R HOST removes a host key from ~/.ssh/known_hosts (-H hashes it in place)
    ("ssh-keygen", (), frozenset({"-R", "-H"}), "~/.ssh/known_hosts (which hosts ssh trusts)"),
    *(("launchctl", (sub,), frozenset(), "launchd's agents (programs started at login)")
      for sub in ("load", "bootstrap", "enable", "submit", "unload", "bootout", "disable")),
    # services started at boot or login run what their unit files say
    *(("systemctl", (sub,), frozenset(), "systemd's unit files (services started at boot or login)")
      for sub in ("enable", "link", "edit", "preset", "add-wants", "add-requires", "set-property", "revert",
                  "mask", "unmask", "set-default")),
))
# `crontab FILE`, `crontab -e`, `crontab -r`, or a crontab from standard input: the commands
# cron runs; only listing (-l) and the version (-V) write nothing
_CRONTAB_READS = frozenset({"-l", "-V"})
PROGRAMS = _TABLE.programs | {"git", "crontab", "fcrontab"}
_GIT_PROGRAMS = frozenset(p[4:] for p in _TABLE.programs if p.startswith("git-"))  # git lfs, git secrets


def implicit_protected_write(words: Sequence[Word]) -> str | None:
    """Why ``words`` (program first, wrappers removed) writes a protected path no argument
    names, or None."""
    program = words[0].literal if words else None
    if program == "git":  # git lfs install, git -C x maintenance start
        _options, at = git_global_options(words)
        if at < len(words) and words[at].literal in _GIT_PROGRAMS:
            program, words = f"git-{words[at].literal}", words[at:]
    if program is None:
        return None
    if program in ("crontab", "fcrontab"):
        if any(w.literal in _CRONTAB_READS for w in words[1:]) and None not in (w.literal for w in words[1:]):
            return None
        return f"{program} writes your crontab (commands cron runs), a protected path"
    found = _TABLE.match(program, words[1:])
    if found is None:
        return None
    name = " ".join(found[0])
    if words[0].literal != program:  # git lfs install: as it was written
        name = "git " + name[len("git-"):]
    return f"{name} writes {found[1]}, a protected path"


__all__ = ["PROGRAMS", "implicit_protected_write"]
