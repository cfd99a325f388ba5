"""cleanupPeriodDays: sessions idle longer than the period are removed at session start."""

from __future__ import annotations

import json
import os
import time

import pytest

from jupyter_agent.agent.cleanup import cleanup_old_sessions
from jupyter_agent.errors import AgentConfigError
from jupyter_agent.permissions.settings import load_settings

DAY = 86400
NOW = time.time()


def _age(path, days: float) -> None:
    stamp = NOW - days * DAY
    os.utime(path, (stamp, stamp), follow_symlinks=False)


def _session(folder, session_id: str, days: float, inner_days: float | None = None):
    """A transcript and a session folder (with a saved output), all ``days`` old."""
    folder.mkdir(parents=True, exist_ok=True)
    transcript = folder / f"{session_id}.jsonl"
    transcript.write_text('{"type": "user"}\n')
    data = folder / session_id / "tool-results"
    data.mkdir(parents=True)
    (data / "out.txt").write_text("big output")
    _age(data / "out.txt", days if inner_days is None else inner_days)
    _age(data, days)
    _age(folder / session_id, days)
    _age(transcript, days)


def test_removes_idle_sessions_and_nothing_else(tmp_path):
    sessions = tmp_path / "sessions"
    _session(sessions, "20260101-120000-aaaaaaaa", 40)                  # idle: removed
    _session(sessions, "20260102-120000-bbbbbbbb", 40, inner_days=1)    # wrote a file yesterday: kept
    _session(sessions, "20260103-120000-cccccccc", 5)                   # recent: kept
    _session(sessions, "20260104-120000-dddddddd", 90)                  # the running session: kept
    (sessions / "20260105-120000-eeeeeeee.jsonl").write_text("{}\n")  # a transcript alone
    _age(sessions / "20260105-120000-eeeeeeee.jsonl", 31)
    (sessions / "notes.txt").write_text("mine")                        # not a session: never touched
    _age(sessions / "notes.txt", 400)
    removed = cleanup_old_sessions([sessions], 30, keep="20260104-120000-dddddddd", now=NOW)
    assert sorted(removed) == ["20260101-120000-aaaaaaaa", "20260105-120000-eeeeeeee"]
    left = sorted(p.name for p in sessions.iterdir())
    assert left == ["20260102-120000-bbbbbbbb", "20260102-120000-bbbbbbbb.jsonl",
                    "20260103-120000-cccccccc", "20260103-120000-cccccccc.jsonl",
                    "20260104-120000-dddddddd", "20260104-120000-dddddddd.jsonl", "notes.txt"]


def test_zero_keeps_everything_and_links_are_removed_as_links(tmp_path):
    sessions = tmp_path / "sessions"
    _session(sessions, "20260101-120000-aaaaaaaa", 400)
    assert cleanup_old_sessions([sessions], 0, keep="", now=NOW) == []
    outside = tmp_path / "precious"
    outside.mkdir()
    (outside / "keep.txt").write_text("x")
    link = sessions / "20260101-130000-ffffffff"
    os.symlink(outside, link)
    _age(link, 400)
    removed = cleanup_old_sessions([sessions, tmp_path / "missing"], 30, keep="", now=NOW)
    assert sorted(removed) == ["20260101-120000-aaaaaaaa", "20260101-130000-ffffffff"]
    assert not os.path.lexists(link) and (outside / "keep.txt").read_text() == "x"


def _settings(project, data, name="settings.json"):
    (project / ".claude").mkdir(parents=True, exist_ok=True)
    (project / ".claude" / name).write_text(json.dumps(data))


def test_setting_is_read_with_precedence_and_checked(tmp_path):
    home = tmp_path / "home"
    assert load_settings(tmp_path, home=home).cleanup_period_days is None
    _settings(home, {"cleanupPeriodDays": 90})
    _settings(tmp_path, {"cleanupPeriodDays": 14})
    assert load_settings(tmp_path, home=home).cleanup_period_days == 14
    _settings(tmp_path, {"cleanupPeriodDays": 0}, "settings.local.json")
    assert load_settings(tmp_path, home=home).cleanup_period_days == 0
    for bad in (-1, "30", True, 1.5):
        _settings(tmp_path, {"cleanupPeriodDays": bad}, "settings.local.json")
        with pytest.raises(AgentConfigError, match="cleanupPeriodDays"):
            load_settings(tmp_path, home=home)


async def test_a_new_session_cleans_up_in_the_background(make_session, tmp_path):
    sessions = tmp_path / "sessions"
    _session(sessions, "20260101-120000-aaaaaaaa", 10)
    _session(sessions, "20250101-120000-bbbbbbbb", 40)
    session, _ = make_session()  # no setting: 30 days
    session._cleanup.join(10)
    assert not (sessions / "20250101-120000-bbbbbbbb").exists()
    assert (sessions / "20260101-120000-aaaaaaaa.jsonl").exists()
    _settings(tmp_path, {"cleanupPeriodDays": 7})
    second, _ = make_session()
    second._cleanup.join(10)
    assert not (sessions / "20260101-120000-aaaaaaaa").exists()
    _settings(tmp_path, {"cleanupPeriodDays": 0})
    _session(sessions, "20240101-120000-cccccccc", 900)
    third, _ = make_session()
    assert third._cleanup is None and (sessions / "20240101-120000-cccccccc.jsonl").exists()
