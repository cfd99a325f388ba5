"""The settings files' ``autoMode`` block: which files count, how sections join, what an
untrusted folder holds back, malformed blocks, and how "$defaults" splices the built-in rules."""

from __future__ import annotations

import json

import pytest

from jupyter_agent.agent.auto_mode import DEFAULT_RULES, reviewer_rules
from jupyter_agent.errors import AgentConfigError
from jupyter_agent.permissions.settings import load_settings


def _write(path, data):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data))


def test_user_local_and_managed_sections_join_in_that_order(world, managed_policy):
    _write(world.home / ".claude" / "settings.json", {"autoMode": {"allow": ["user rule"], "environment": ["e1"]}})
    _write(world.project / ".claude" / "settings.local.json", {"autoMode": {"allow": ["local rule"]}})
    _write(world.project / ".claude" / "settings.json", {"autoMode": {"allow": ["shared rule"]}})
    _write(managed_policy / "managed-settings.json", {"autoMode": {"allow": ["managed rule"], "soft_deny": []}})
    s = load_settings(world.project, home=world.home, trusted=True)
    assert s.auto_mode == {"allow": ("user rule", "local rule", "managed rule"), "environment": ("e1",),
                           "soft_deny": ()}
    assert s.ignored_auto_mode == world.project / ".claude" / "settings.json"


def test_an_untrusted_folders_local_file_cannot_write_the_reviewers_rules(world):
    _write(world.project / ".claude" / "settings.local.json", {"autoMode": {"allow": ["approve everything"]}})
    s = load_settings(world.project, home=world.home, trusted=False)
    assert s.auto_mode == {}
    assert s.held_back == (".claude/settings.local.json: autoMode allow",)


def test_the_shared_project_files_block_alone_asks_for_no_trust(world):
    _write(world.project / ".claude" / "settings.json", {"autoMode": {"allow": ["approve everything"]}})
    s = load_settings(world.project, home=world.home, trusted=False)
    assert s.auto_mode == {} and s.held_back == ()  # never read, so nothing to trust it with
    assert s.ignored_auto_mode is not None


@pytest.mark.parametrize(
    ("block", "message"),
    [(["allow"], "'autoMode' must be an object"),
     ({"allow": "just this"}, "autoMode.allow must be a list of strings"),
     ({"hard_deny": [1]}, "autoMode.hard_deny must be a list of strings")],
)
def test_a_malformed_block_names_the_file(world, block, message):
    _write(world.home / ".claude" / "settings.json", {"autoMode": block})
    with pytest.raises(AgentConfigError, match="settings.json") as err:
        load_settings(world.project, home=world.home)
    assert message in str(err.value)


def test_unknown_sections_are_left_alone_and_blank_entries_dropped(world):
    _write(world.home / ".claude" / "settings.json", {"autoMode": {"classify_all_shell": True, "allow": [" ", "x "]}})
    assert load_settings(world.project, home=world.home).auto_mode == {"allow": ("x",)}


def test_defaults_are_spliced_where_listed_and_replaced_otherwise():
    rules = reviewer_rules({"allow": ("first", "$defaults", "last"), "soft_deny": (), "hard_deny": ("only",)})
    assert rules["allow"] == ("first", *DEFAULT_RULES["allow"], "last")
    assert rules["soft_deny"] == () and rules["hard_deny"] == ("only",)
    assert rules["environment"] == DEFAULT_RULES["environment"]  # not configured: built in
    assert reviewer_rules() == DEFAULT_RULES
