"""Reading saved transcripts for %agent --sessions / --resume without replaying them."""

from __future__ import annotations

import json
import os

from jupyter_agent.agent.saved_sessions import read_saved_session, saved_sessions
from jupyter_agent.magics.reports import sessions_text


def _write(path, entries, torn: str = "") -> None:
    path.write_text("".join(json.dumps(e) + "\n" for e in entries) + torn, encoding="utf-8")


def _session(prompts, reply="Done.", cost=0.01, notebook=None):
    out = [{"type": "session", "session_id": "x", "model": "claude-test", "notebook": notebook}]
    for i, p in enumerate(prompts):
        out.append({"type": "turn", "phase": "start", "turn_id": f"t{i}", "prompt": p})
        out.append({"type": "message", "message": {"role": "user", "content": [{"type": "text", "text": p}]}})
        out.append({"type": "message", "message": {"role": "assistant", "content": [
            {"type": "thinking", "thinking": "hmm"}, {"type": "text", "text": reply}]}})
        out.append({"type": "usage", "usage": {}, "cost_usd": cost})
    return out


def test_a_transcript_gives_its_typed_prompts_cost_and_last_reply(tmp_path):
    path = tmp_path / "20261202-1-aa.jsonl"
    reminder = "<system-reminder>\nThe user is working in the notebook a.ipynb.\n</system-reminder>\n\n"
    _write(path, _session([reminder + "load the csv", "plot column b"], reply="Here is the plot."),
           torn='{"type": "usage", "cost_')
    saved = read_saved_session(path)
    assert saved.id == "20261202-1-aa" and saved.model == "claude-test"
    assert saved.prompts == ["load the csv", "plot column b"]
    assert saved.first_prompt == "load the csv" and saved.last_prompt == "plot column b"
    assert abs(saved.cost_usd - 0.02) < 1e-9 and saved.last_reply == "Here is the plot."


def test_the_listing_is_newest_first_without_empty_sessions(tmp_path, monkeypatch):
    old, new, empty = tmp_path / "s-1.jsonl", tmp_path / "s-2.jsonl", tmp_path / "s-3.jsonl"
    _write(old, _session(["first question"], notebook="/w/proj/analysis.ipynb"))
    _write(new, _session(["a " * 80 + "long question", "second"]))
    _write(empty, [{"type": "session", "session_id": "s-3"}])
    os.utime(old, (1000, 1000))
    os.utime(new, (1000 + 7200, 1000 + 7200))
    os.utime(empty, (1000 + 9000, 1000 + 9000))
    assert [s.id for s in saved_sessions(tmp_path)] == ["s-2", "s-1"]
    assert [s.id for s in saved_sessions(tmp_path, limit=1)] == ["s-2"]
    text = sessions_text(tmp_path, current="s-1", now=1000 + 7200 + 30).splitlines()
    assert text[1].split() == ["s-2", "just", "now", "2", "prompts", "$0.0200"]
    assert text[2].startswith("      first: “a a a") and text[2].endswith("…”") and len(text[2]) < 110
    assert text[3] == "      last:  “second”"
    assert text[4].split()[:4] == ["s-1", "2", "h", "ago"] and text[4].endswith("analysis.ipynb  ← this kernel's session")
    assert text[-1].startswith("Continue one with %agent --resume=ID")
    home = tmp_path / "home"
    (home / "s").mkdir(parents=True)
    _write(home / "s" / "h.jsonl", _session(["q"]))
    monkeypatch.setenv("HOME", str(home))
    assert sessions_text(home / "s", None).startswith("Saved sessions, newest first (~/s):")
    assert saved_sessions(tmp_path / "missing") == []


def test_cost_groups_thousands():
    from types import SimpleNamespace

    from jupyter_agent.agent.events import Usage
    from jupyter_agent.magics.reports import cost_text

    session = SimpleNamespace(id="s", config=SimpleNamespace(model="m"), cost_usd=0.5,
                              usage=Usage(1234, 56, 19807, 1000000))
    assert "input 1,234 · output 56 · cache read 19,807 · cache write 1,000,000 tokens" in cost_text(session)


async def test_a_real_session_is_read_back_with_its_notebook(make_session, server, tmp_path):
    from jupyter_agent.testing import reply, text

    server.push(reply(text("Loaded.")))
    session, _ = make_session(notebook_path=tmp_path / "analysis.ipynb")
    await session.submit("<system-reminder>\nctx\n</system-reminder>\n\nload the data")
    saved = read_saved_session(session.transcript_path)
    assert saved.notebook == str(tmp_path / "analysis.ipynb") and saved.prompts == ["load the data"]
    assert saved.last_reply == "Loaded." and saved.cost_usd > 0


def test_rewound_turns_are_not_counted(tmp_path):
    """After %agent --rewind the listing still said 2 prompts, the last one the rewound turn's."""
    path = tmp_path / "s.jsonl"
    entries = _session(["load the csv"], reply="Loaded.") + _session(["drop the table"], reply="Dropped.")[1:]
    entries[-4]["turn_id"] = "t1"  # the second turn's start
    entries.append({"type": "rewind", "message_count": 2, "tail_blocks": None, "turn_ids": ["t1"]})
    _write(path, entries)
    saved = read_saved_session(path)
    assert saved.prompts == ["load the csv"] and saved.last_reply == "Loaded."
    assert abs(saved.cost_usd - 0.02) < 1e-9  # what was spent stays spent
