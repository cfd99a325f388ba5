"""Other version control systems and scaffolders writing files from a history or template nobody
listed (``vcs_updates.py``): in bypassPermissions under ``Bash(*)`` each of these ran, and may
bring a ``.claude/settings.json``, a ``.vscode/tasks.json`` or a ``.mcp.json`` (``git pull``
brought one: ``test_git_worktree.py`` shows it with real git).  They ask in every mode."""

from __future__ import annotations

import pytest

from jupyter_agent.permissions.bash_words import make_word
from jupyter_agent.permissions.vcs_updates import update_reason
from tests.permissions.conftest import verdict_name
from tests.permissions.tools import decide_bash, make_ctx

ASKS = ["svn update", "svn up -r 12", "svn switch ^/branches/x", "svn merge ^/trunk", "svn checkout https://x/r .", "svn co https://x/src",
        "hg pull -u", "hg pull --update", "hg pull --rebase", "hg update", "hg up tip", "hg merge", "hg unshelve",
        "hg -R . update default", "bzr pull", "brz update", "fossil update", "fossil open ../repo.fossil",
        "darcs pull -a", "jj new main", "jj edit @-", "jj rebase -d main", "repo sync", "yadm pull",
        "yadm checkout -- ~", "chezmoi apply", "chezmoi update", "degit user/repo .", "npx degit user/repo .",
        "npx -y tiged user/repo .", "pnpm dlx degit x/y src", "copier copy gh:x/y .", "copier update",
        "uvx copier copy gh:x/y .", "cookiecutter gh:x/y -f", "svn $X", "/usr/bin/svn update"]
RUNS = ["svn status", "svn log -l 5", "svn diff", "svn info", "hg pull", "hg log", "hg status", "hg diff",
        "bzr log", "fossil timeline", "jj log", "jj status", "jj git fetch", "yadm status", "yadm diff",
        "chezmoi diff", "chezmoi status", "svn checkout https://x/r", "svn co https://x/r new", "degit user/repo newdir", "copier copy gh:x/y newdir",
        "cookiecutter gh:x/y", "repo status"]


@pytest.fixture
def project(tmp_path):
    root = tmp_path / "proj"
    (root / "src").mkdir(parents=True)
    return root


@pytest.mark.parametrize("command", ASKS)
@pytest.mark.parametrize("mode", ["default", "bypassPermissions"])
async def test_writing_an_unlisted_revision_or_template_asks(project, command, mode):
    ctx = make_ctx(project, allow=("Bash(*)",), mode=mode)
    assert verdict_name(await decide_bash(ctx, command)) == "ask", command


@pytest.mark.parametrize("command", RUNS)
async def test_reading_fetching_into_the_repository_or_a_new_folder_runs(project, command):
    ctx = make_ctx(project, allow=("Bash(*)",), mode="bypassPermissions")
    assert verdict_name(await decide_bash(ctx, command)) == "allow", command


def test_the_reason_names_what_may_change(project):
    why = update_reason([make_word(w) for w in ["hg", "pull", "-u"]], str(project))
    assert why is not None and "hg pull -u" in why and ".claude/" in why
    assert update_reason([make_word(w) for w in ["hg", "pull"]], str(project)) is None
