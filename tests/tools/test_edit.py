"""Edit on real files: matching rules, literal replacement, format preservation, diffs, staleness."""

from __future__ import annotations

import os
import stat

import pytest

from jupyter_agent.core.file_state import MODIFIED_MESSAGE, NOT_READ_MESSAGE
from jupyter_agent.errors import ToolError
from jupyter_agent.tools._diff import edit_hunks, unified_diff_text
from jupyter_agent.tools._replace import apply_edit


async def _read_then_edit(run, f, **kw):
    await run.ok("Read", file_path=str(f))
    return await run("Edit", file_path=str(f), **kw)


async def test_replaces_once_and_returns_diff_and_snippet(run, tmp_path):
    f = tmp_path / "app.py"
    f.write_text("".join(f"line {i}\n" for i in range(1, 21)) + "def main():\n    return 1\n")
    outcome = await _read_then_edit(run, f, old_string="    return 1", new_string="    return 2\n    # done")
    assert not outcome.is_error
    assert f.read_text().endswith("def main():\n    return 2\n    # done\n")
    text = outcome.content[0]["text"]
    assert "has been updated" in text and "    22\t    return 2" in text and "    23\t    # done" in text
    assert "    18\tline 18" in text and "line 17" not in text  # 4 lines of context
    out = outcome.result.data
    assert out.replacements == 1 and len(out.hunks) == 1
    hunk = out.hunks[0]
    assert (hunk.old_start, hunk.new_start) == (19, 19)
    assert [line for line in hunk.lines if line[0] in "+-"] == ["-    return 1", "+    return 2", "+    # done"]
    assert out.unified_diff.startswith(f"--- {f}\n+++ {f}\n@@ -19,4 +19,5 @@")


async def test_requires_read_and_unchanged_file(run, tmp_path):
    f = tmp_path / "a.txt"
    f.write_text("alpha beta\n")
    assert await run.error("Edit", file_path=str(f), old_string="alpha", new_string="gamma") == NOT_READ_MESSAGE
    await run.ok("Read", file_path=str(f))
    st = f.stat()
    f.write_text("alpha BETA\n")
    os.utime(f, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert await run.error("Edit", file_path=str(f), old_string="alpha", new_string="gamma") == MODIFIED_MESSAGE
    assert f.read_text() == "alpha BETA\n"


async def test_partial_read_is_enough_for_edit(run, tmp_path):
    f = tmp_path / "a.txt"
    f.write_text("".join(f"row {i}\n" for i in range(1, 3000)))
    await run.ok("Read", file_path=str(f), offset=2500, limit=5)
    await run.ok("Edit", file_path=str(f), old_string="row 2501\n", new_string="ROW\n")
    assert "ROW\nrow 2502\n" in f.read_text()


async def test_consecutive_edits_need_no_new_read(run, tmp_path):
    f = tmp_path / "a.txt"
    f.write_text("a b c\n")
    await _read_then_edit(run, f, old_string="a", new_string="A")
    await run.ok("Edit", file_path=str(f), old_string="b", new_string="B")
    assert f.read_text() == "A B c\n"


async def test_match_errors_say_what_to_do(run, tmp_path):
    f = tmp_path / "a.txt"
    f.write_text("x = 1\nx = 1\n")
    await run.ok("Read", file_path=str(f))
    many = await run.error("Edit", file_path=str(f), old_string="x = 1", new_string="x = 2")
    assert "Found 2 matches" in many and "replace_all" in many
    none = await run.error("Edit", file_path=str(f), old_string="y = 1", new_string="y = 2")
    assert "not found" in none and "Read the file again" in none
    same = await run.error("Edit", file_path=str(f), old_string="x", new_string="x")
    assert "exactly the same" in same
    assert f.read_text() == "x = 1\nx = 1\n"


async def test_replace_all(run, tmp_path):
    f = tmp_path / "a.py"
    f.write_text("foo(1)\nbar\nfoo(2)\n" + "pad\n" * 30 + "foo(3)\n")
    outcome = await _read_then_edit(run, f, old_string="foo", new_string="baz", replace_all=True)
    assert "All 3 occurrences" in outcome.content[0]["text"]
    assert "foo" not in f.read_text() and f.read_text().count("baz") == 3
    assert len(outcome.result.data.hunks) == 2  # two regions far apart


@pytest.mark.parametrize("new", ["$1", r"\1", r"\g<0>", r"\n", "$&"])
async def test_replacement_text_is_literal(run, tmp_path, new):
    f = tmp_path / "a.txt"
    f.write_text("value = (old)\n")
    await _read_then_edit(run, f, old_string="(old)", new_string=new)
    assert f.read_text() == f"value = {new}\n"


async def test_crlf_file_edited_with_lf_strings_stays_crlf(run, tmp_path):
    f = tmp_path / "win.txt"
    f.write_bytes(b"first\r\nsecond\r\nthird\r\n")
    outcome = await _read_then_edit(run, f, old_string="first\nsecond", new_string="one\ntwo\nextra")
    assert not outcome.is_error, outcome.content
    assert f.read_bytes() == b"one\r\ntwo\r\nextra\r\nthird\r\n"


async def test_bom_utf16_and_legacy_encoding_round_trip(run, tmp_path):
    cases = [
        ("bom.txt", "héllo wörld\n".encode("utf-8-sig"), "wörld", "Welt", "héllo Welt\n".encode("utf-8-sig")),
        ("u16.txt", "héllo\r\nwörld\r\n".encode("utf-16"), "wörld", "Welt", "héllo\r\nWelt\r\n".encode("utf-16")),
        ("cp.txt", "Café crème\nnaïve\n".encode("cp1252"), "naïve", "déjà", "Café crème\ndéjà\n".encode("cp1252")),
    ]
    for name, before, old, new, after in cases:
        f = tmp_path / name
        f.write_bytes(before)
        outcome = await _read_then_edit(run, f, old_string=old, new_string=new)
        assert not outcome.is_error, outcome.content
        assert f.read_bytes() == after, name


async def test_missing_trailing_newline_mode_and_symlink_are_kept(run, tmp_path):
    target = tmp_path / "real.cfg"
    target.write_text("key = 1")  # no trailing newline
    os.chmod(target, 0o640)
    link = tmp_path / "link.cfg"
    link.symlink_to(target)
    await _read_then_edit(run, link, old_string="1", new_string="2")
    assert target.read_text() == "key = 2" and link.is_symlink()
    assert stat.S_IMODE(target.stat().st_mode) == 0o640


async def test_notebooks_are_sent_to_notebook_edit(run, tmp_path):
    text = await run.error("Edit", file_path=str(tmp_path / "n.ipynb"), old_string="a", new_string="b")
    assert "NotebookEdit" in text


async def test_missing_file(run, tmp_path):
    f = tmp_path / "new.txt"
    assert "does not exist" in await run.error("Edit", file_path=str(f), old_string="a", new_string="b")
    await run.ok("Edit", file_path=str(f), old_string="", new_string="created\n")
    assert f.read_text() == "created\n"


async def test_empty_old_string_on_a_non_empty_file_is_an_error(run, tmp_path):
    f = tmp_path / "a.txt"
    f.write_text("content\n")
    await run.ok("Read", file_path=str(f))
    assert "old_string is empty" in await run.error("Edit", file_path=str(f), old_string="", new_string="x")


async def test_binary_file_is_not_edited(run, tmp_path):
    f = tmp_path / "a.bin"
    f.write_bytes(b"\x00\x01binary")
    run.context.read_file_state.record_read(f, f.read_bytes())  # even if it was "read"
    assert "binary" in await run.error("Edit", file_path=str(f), old_string="binary", new_string="text")
    assert f.read_bytes() == b"\x00\x01binary"


async def test_malformed_input(run, tmp_path):
    assert "old_string" in await run.error("Edit", file_path=str(tmp_path / "a"), new_string="x")
    assert "replace_all" in await run.error("Edit", file_path="a", old_string="a", new_string="b", replace_all="maybe")


@pytest.mark.parametrize(
    ("text", "old", "new", "replace_all", "expected"),
    [
        ("a b a", "b", "c", False, "a c a"),
        ("a b a", "a", "x", True, "x b x"),
        ("aaa", "aa", "b", True, "ba"),  # non-overlapping, left to right
        ("l1\r\nl2\r\n", "l1\nl2", "L", False, "L\r\n"),  # LF strings in a CRLF file
        ("l1\nl2\n", "l1\r\nl2", "L1\r\nL2", False, "L1\nL2\n"),  # CRLF strings in an LF file
        ("a\r\nb\nc\r\n", "b\nc", "B\nC", False, "a\r\nB\nC\r\n"),  # mixed file: literal first
    ],
)
def test_apply_edit_table(text, old, new, replace_all, expected):
    assert apply_edit(text, old, new, replace_all=replace_all).text == expected


@pytest.mark.parametrize(("old", "new", "fragment"), [("zz", "y", "not found"), ("a", "y", "Found 2"), ("", "y", "empty")])
def test_apply_edit_errors(old, new, fragment):
    with pytest.raises(ToolError, match=fragment):
        apply_edit("a a", old, new, replace_all=False)


def test_edit_hunks_on_a_large_text_only_diff_the_regions():
    old = "".join(f"line {i}\n" for i in range(200_000))
    starts = [old.index("line 100000\n")]
    new = old.replace("line 100000\n", "changed\n")
    hunks = edit_hunks(old, new, starts, len("line 100000\n"), len("changed\n"))
    assert len(hunks) == 1 and hunks[0].old_start == 99998
    assert unified_diff_text("f", hunks).splitlines()[2:] == [
        "@@ -99998,7 +99998,7 @@", " line 99997", " line 99998", " line 99999",
        "-line 100000", "+changed", " line 100001", " line 100002", " line 100003",
    ]


async def test_legacy_bytes_after_a_long_ascii_start_are_detected_on_the_whole_file(run, tmp_path):
    f = tmp_path / "late.txt"
    body = b"plain ascii line\n" * 5000 + "Café crème brûlée\n".encode("cp1252")  # > 64 KB before é
    f.write_bytes(body)
    run.context.read_file_state.record_read(f, body)
    await run.ok("Edit", file_path=str(f), old_string="brûlée", new_string="glacée")
    assert f.read_bytes() == body.replace("brûlée".encode("cp1252"), "glacée".encode("cp1252"))


async def test_untouched_bytes_stay_identical(run, tmp_path):
    f = tmp_path / "mixed.txt"
    body = b"tabs\there\r\ntrailing spaces   \nunicode \xe2\x9c\x93\n\n\nend"
    f.write_bytes(body)
    await _read_then_edit(run, f, old_string="end", new_string="END")
    assert f.read_bytes() == body[:-3] + b"END"
