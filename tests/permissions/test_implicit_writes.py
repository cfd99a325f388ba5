"""Programs that write protected paths no argument names (``implicit_writes.py``) ask in every
mode, also under a rule that allows them and when a runner runs them.  (The table follows each
tool's documentation; none of these tools is installed here to run.)"""

from __future__ import annotations

import pytest

from jupyter_agent.permissions.bash_words import Word
from jupyter_agent.permissions.implicit_writes import implicit_protected_write
from tests.permissions.conftest import verdict_name
from tests.permissions.tools import decide_bash, make_ctx

RULES = ("Bash(pre-commit:*)", "Bash(nbstripout:*)", "Bash(nbdime:*)", "Bash(git:*)", "Bash(npx:*)",
         "Bash(conda:*)", "Bash(pip:*)", "Bash(python:*)", "Bash(jupyter:*)", "Bash(uvx:*)", "Bash(dvc:*)",
         "Bash(wandb:*)", "Bash(ipython:*)", "Bash(npm:*)", "Bash(gh:*)", "Bash(aws:*)", "Bash(kubectl:*)",
         "Bash(poetry:*)", "Bash(jupyter-kernelspec:*)", "Bash(direnv:*)", "Bash(code:*)",
         "Bash(nbdev_install_hooks:*)", "Bash(ggshield:*)", "Bash(nbautoexport:*)", "Bash(crontab:*)",
         "Bash(systemctl:*)", "Bash(hf:*)", "Bash(kaggle:*)", "Bash(ssh-keygen:*)", "Bash(launchctl:*)",
         "Bash(jupyter-lab:*)", "Bash(mise:*)")
ASK = [
    "pre-commit install", "pre-commit install --hook-type pre-push", "pre-commit autoupdate", "nbstripout --install",
    "nbstripout --install --global", "nbdime config-git --enable", "git lfs install", "npx husky init",
    "npx simple-git-hooks", "yorkie", "git-hooks install", "pnpm exec simple-git-hooks",  # session 50
    "dvc install", "conda init bash", "conda config --set channel_priority strict", "pip config set global.index-url x",
    "python -m nbstripout --install", "uvx pre-commit install", "jupyter notebook --generate-config",
    "jupyter server password", "ipython profile create", "wandb login", "npm config set registry x",
    "gh auth setup-git", "aws configure", "aws configure set region x", "kubectl config use-context prod",
    "poetry config virtualenvs.in-project true", "poetry config --unset repositories.x",
    # what Jupyter runs: kernelspecs, extensions; direnv's trust; editor extensions; conda env vars
    "jupyter kernelspec install /tmp/k", "jupyter-kernelspec install --user /tmp/k", "python -m ipykernel install --user",
    "jupyter labextension install x", "jupyter lab build", "jupyter server extension enable x",
    "direnv allow", "code --install-extension x", "conda env config vars set X=1", "jupyter trust nb.ipynb",
    # session 28: git's settings and hooks, Jupyter's config, persistence (cron, systemd units)
    "nbdev_install_hooks", "git secrets --install", "git secrets --register-aws", "ggshield install -m local",
    "nbautoexport install", "nbdime extensions --enable", "crontab jobs.txt", "crontab -e", "crontab -r", "crontab",
    "crontab $FILE", "systemctl --user enable backup.timer", "systemctl --user link /tmp/x.service",
    "hf auth login", "kaggle config set -n path -v /tmp", "git maintenance start", "git -C . maintenance register",
    "git -C . lfs install", "ssh-keygen -R github.com", "ssh-keygen -H -f ~/.ssh/known_hosts",
    "launchctl load ~/Library/LaunchAgents/x.plist", "launchctl bootstrap gui/501 x.plist",
    # session 29: every Jupyter application's --generate-config, its dash form, migrate, workspaces
    "jupyter console --generate-config", "jupyter qtconsole --generate-config", "jupyter-lab --generate-config",
    "jupyter migrate", "jupyter lab workspaces import w.json", "ipython kernel install --user --name x",
    "nbstripout --inst", "nbdime extensions --enab",  # argparse takes a long option's beginning
    "mise trust",
]
RUN = [
    "pre-commit run --all-files", "nbstripout a.ipynb", "nbdime diff a.ipynb b.ipynb", "git lfs pull",
    "conda config --show", "conda install numpy", "pip config list", "jupyter lab", "dvc repro", "npm config get registry",
    "gh pr list", "aws configure get region", "aws configure list", "kubectl config view",
    "kubectl config get-contexts", "poetry config --list", "poetry config virtualenvs.in-project",
    "jupyter kernelspec list", "jupyter labextension list", "direnv status", "code .", "conda env config vars list",
    "git secrets --scan", "ggshield secret scan path src", "nbautoexport export nb.ipynb", "crontab -l",
    "crontab -u bob -l", "systemctl --user status backup.timer", "hf download gpt2", "kaggle datasets list",
    "git maintenance run", "ssh-keygen -l -f key.pub", "ssh-keygen -F github.com", "launchctl list",
    "jupyter lab workspaces export", "jupyter console --help",
]


@pytest.mark.parametrize("command", ASK)
@pytest.mark.parametrize("mode", ["default", "bypassPermissions"])
async def test_implicit_protected_writes_ask(world, command, mode):
    ctx = make_ctx(world.project, allow=RULES, mode=mode)
    assert verdict_name(await decide_bash(ctx, command)) == "ask", command


@pytest.mark.parametrize("command", RUN)
async def test_other_forms_run_under_their_rule(world, command):
    ctx = make_ctx(world.project, allow=RULES)
    assert verdict_name(await decide_bash(ctx, command)) == "allow", command


def test_a_word_known_at_run_time_may_be_the_option():
    words = [Word("nbstripout"), Word("$OPT", static=False)]
    assert implicit_protected_write(words) is not None
    assert implicit_protected_write([Word("nbstripout"), Word("a.ipynb")]) is None


@pytest.mark.parametrize("command", ["/usr/bin/conda init bash", "uv run pre-commit install",
                                     "find . -maxdepth 0 -exec pre-commit install ;",
                                     "uv run sqlite3 x.db '.shell rm -rf y'"])
async def test_every_form_of_the_command_is_checked(world, command):
    ctx = make_ctx(world.project, allow=(*RULES, "Bash(uv:*)", "Bash(find:*)", "Bash(sqlite3:*)"),
                   mode="bypassPermissions")
    assert verdict_name(await decide_bash(ctx, command)) == "ask", command
