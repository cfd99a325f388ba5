"""Read through the real pipeline (schema → validation → permissions → call) on real files."""

from __future__ import annotations

import asyncio
import io
import os
import tracemalloc

import pytest
from PIL import Image

from jupyter_agent.core.file_state import PARTIAL_READ_MESSAGE
from jupyter_agent.core.orchestration import ToolUseRequest, run_tool_use
from jupyter_agent.tools.read import ReadTool


def _lines(n: int, prefix: str = "line") -> str:
    return "".join(f"{prefix} {i}\n" for i in range(1, n + 1))


async def test_text_is_numbered_like_cat_n(run, tmp_path):
    f = tmp_path / "a.py"
    f.write_text("import os\n\tindented\n")
    text = await run.ok("Read", file_path=str(f))
    assert text == "     1\timport os\n     2\t\tindented"


async def test_default_limit_is_2000_lines_with_a_partial_view_note(run, tmp_path):
    f = tmp_path / "big.txt"
    f.write_text(_lines(2500))
    text = await run.ok("Read", file_path=str(f))
    assert "  2000\tline 2000" in text and "line 2001" not in text
    assert "Partial view" in text and "offset=2001" in text
    state = run.context.read_file_state.get(f)
    assert state.partial


async def test_offset_and_limit_page_through_the_file(run, tmp_path):
    f = tmp_path / "big.txt"
    f.write_text(_lines(100))
    text = await run.ok("Read", file_path=str(f), offset=50, limit=3)
    assert text.splitlines()[:3] == ["    50\tline 50", "    51\tline 51", "    52\tline 52"]
    assert "offset=53" in text
    last = await run.ok("Read", file_path=str(f), offset=99, limit=10)
    assert last == "    99\tline 99\n   100\tline 100"
    past = await run.ok("Read", file_path=str(f), offset=500)
    assert "shorter than that" in past


async def test_whole_file_over_budget_returns_a_partial_first_page(run, tmp_path):
    f = tmp_path / "wide.txt"
    f.write_text(("x" * 1500 + "\n") * 1000)  # 1.5 MB, far over the per-call budget
    text = await run.ok("Read", file_path=str(f))
    assert "Partial view" in text and "size budget" in text
    assert len(text) < 120_000
    assert run.context.read_file_state.get(f).partial


async def test_long_lines_are_cut_with_a_marker(run, tmp_path):
    f = tmp_path / "min.js"
    f.write_text("short\n" + "y" * 10_000 + "\nend\n")
    text = await run.ok("Read", file_path=str(f))
    line2 = text.splitlines()[1]
    assert line2.startswith("     2\t" + "y" * 2000) and "line cut" in line2
    assert "y" * 2001 not in text and text.splitlines()[2] == "     3\tend"


async def test_huge_line_is_streamed_not_loaded(run, tmp_path):
    f = tmp_path / "huge.txt"
    with open(f, "wb") as fh:
        fh.write(b"first\n")
        for _ in range(64):
            fh.write(b"z" * (1 << 20))  # one 64 MB line
        fh.write(b"\nafter\n")
    tracemalloc.start()
    try:
        text = await run.ok("Read", file_path=str(f), offset=2, limit=2)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert "line cut" in text and "     3\tafter" in text.splitlines()
    assert peak < 16 * (1 << 20), peak


async def test_one_gigabyte_sparse_file_read_with_offset_without_loading_it(run, tmp_path):
    f = tmp_path / "sparse.log"  # lines 1-10000, then line 10001 = a 1 GB hole, then 2 lines
    head = _lines(10_000).encode()  # > 64 KB of text before the hole (binary sniffing looks at 64 KB)
    tail = b"\ntail 1\ntail 2\n"
    with open(f, "wb") as fh:
        fh.write(head)
        fh.truncate(1 << 30)  # a 1 GB hole: line 11 is a gigabyte of NULs
        fh.seek((1 << 30) - len(tail))
        fh.write(tail)
    assert f.stat().st_size == 1 << 30
    tracemalloc.start()
    try:
        start = await run.ok("Read", file_path=str(f), offset=3, limit=2)
        end = await run.ok("Read", file_path=str(f), offset=10_002, limit=5)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert start.splitlines()[:2] == ["     3\tline 3", "     4\tline 4"]
    assert end == " 10002\ttail 1\n 10003\ttail 2"
    assert peak < 32 * (1 << 20), peak
    state = run.context.read_file_state.get(f)
    assert state.partial and state.content_hash is None and state.size == 1 << 30


async def test_binary_file_is_refused_not_decoded(run, tmp_path):
    f = tmp_path / "blob.bin"
    f.write_bytes(b"\x7fELF\x02\x01\x01\x00" + bytes(range(256)) * 4)
    text = await run.error("Read", file_path=str(f))
    assert "binary" in text and "\ufffd" not in text
    assert f not in run.context.read_file_state


async def test_fifo_is_refused_without_blocking(run, tmp_path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    text = await asyncio.wait_for(run.error("Read", file_path=str(fifo)), timeout=30)
    assert "FIFO" in text


async def test_directory_and_missing_file_give_clear_errors(run, tmp_path):
    assert "is a directory" in await run.error("Read", file_path=str(tmp_path))
    assert "does not exist" in await run.error("Read", file_path=str(tmp_path / "nope.txt"))


@pytest.mark.parametrize(
    ("data", "expected", "note"),
    [
        ("héllo\nwörld\n".encode("utf-8-sig"), ["héllo", "wörld"], "utf-8 with BOM"),
        ("héllo\r\nwörld\r\n".encode("utf-16"), ["héllo", "wörld"], "utf-16-le with BOM, CRLF"),
        ("Café crème, naïve\ndéjà vu\n".encode("cp1252"), ["Café crème, naïve", "déjà vu"], "cp1252"),
        ("Привет, как дела? Это текст.\n".encode("cp1251"), ["Привет, как дела? Это текст."], "cp1251"),
        (b"a\r\nb\r\n", ["a", "b"], None),
    ],
)
async def test_encodings_are_decoded_exactly(run, tmp_path, data, expected, note):
    f = tmp_path / "enc.txt"
    f.write_bytes(data)
    text = await run.ok("Read", file_path=str(f))
    shown = [line.split("\t", 1)[1] for line in text.split("\n\n(")[0].splitlines()]
    assert shown == expected
    assert "\ufffd" not in text and "\r" not in text and "\ufeff" not in text
    if note and not note.startswith("utf-8"):
        assert note in text


async def test_undecodable_text_further_in_is_an_error_not_replacement_chars(run, tmp_path):
    f = tmp_path / "mixed.txt"
    f.write_bytes(b"ascii line\n" * 10_000 + b"caf\xe9 \xff\xfe\n")  # valid UTF-8 start, bad later
    text = await run.error("Read", file_path=str(f), offset=10_001)
    assert "not valid utf-8" in text and "\ufffd" not in text


async def test_empty_file(run, tmp_path):
    f = tmp_path / "empty.txt"
    f.write_text("")
    assert "exists but is empty" in await run.ok("Read", file_path=str(f))


async def test_repeated_read_of_unchanged_file_is_short(run, tmp_path):
    f = tmp_path / "a.txt"
    f.write_text("abc\n")
    assert "abc" in await run.ok("Read", file_path=str(f))
    assert "unchanged since last read" in await run.ok("Read", file_path=str(f))
    assert "abc" in await run.ok("Read", file_path=str(f), offset=1, limit=5)  # another range
    st = f.stat()
    f.write_text("xyz\n")  # same size, same mtime: only the hash tells
    os.utime(f, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert "xyz" in await run.ok("Read", file_path=str(f))


async def test_full_read_allows_write_partial_read_does_not(run, tmp_path):
    f = tmp_path / "a.txt"
    f.write_text(_lines(10))
    await run.ok("Read", file_path=str(f), offset=2, limit=2)
    assert run.context.read_file_state.check_writable(f, f.read_bytes()) == PARTIAL_READ_MESSAGE
    await run.ok("Read", file_path=str(f))
    assert run.context.read_file_state.check_writable(f, f.read_bytes()) is None


async def test_relative_path_is_taken_from_cwd(run, tmp_path):
    (tmp_path / "rel.txt").write_text("relative\n")
    assert "relative" in await run.ok("Read", file_path="rel.txt")


def _png(w: int, h: int) -> bytes:
    img = Image.new("RGB", (w, h), (0, 128, 255))
    buf = io.BytesIO()
    img.save(buf, "PNG")
    return buf.getvalue()


async def test_image_becomes_an_image_block(run, tmp_path):
    f = tmp_path / "pic.png"
    f.write_bytes(_png(40, 30))
    outcome = await run("Read", file_path=str(f))
    assert not outcome.is_error
    [block] = outcome.content
    assert block["type"] == "image" and block["source"]["media_type"] == "image/png"
    assert f in run.context.read_file_state


async def test_large_image_is_downscaled(run, tmp_path):
    f = tmp_path / "huge.png"
    f.write_bytes(_png(4000, 3000))  # over the 2,000 px edge limit
    outcome = await run("Read", file_path=str(f))
    import base64

    image = next(b for b in outcome.content if b["type"] == "image")
    data = base64.b64decode(image["source"]["data"])
    assert max(Image.open(io.BytesIO(data)).size) <= 2000 and len(data) <= 3_750_000
    assert "downscaled from 4000x3000" in outcome.content[-1]["text"]


async def test_corrupt_image_is_a_clear_error(run, tmp_path):
    f = tmp_path / "bad.jpg"
    f.write_bytes(b"not a jpeg at all")
    assert "not a readable image" in await run.error("Read", file_path=str(f))


async def test_notebook_is_read_cell_by_cell(run, tmp_path):
    import nbformat

    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell("print(1)", id="c1")]
    f = tmp_path / "n.ipynb"
    nbformat.write(nb, str(f))
    text = await run.ok("Read", file_path=str(f))
    assert '<cell id="c1" type="code">\nprint(1)\n</cell>' in text
    assert run.context.read_file_state.get(f).cell_hashes is not None


@pytest.mark.parametrize(
    ("input", "fragment"),
    [
        ({"file_path": "x", "offset": -1}, "offset"),
        ({"file_path": "x", "limit": 0}, "limit"),
        ({"offset": 1}, "file_path"),
        ({"file_path": 12}, "file_path"),
        ({"file_path": "a.txt", "pages": "1-2"}, "PDF files only"),
        ({"file_path": "a.pdf", "pages": "two"}, "Invalid pages"),
        ({"file_path": "a\x00b"}, "NUL"),
    ],
)
async def test_malformed_input_is_an_error_result(run, input, fragment):
    outcome = await run("Read", **input)
    text = outcome.content[0]["text"]
    assert outcome.is_error and fragment in text


async def test_reading_outside_the_working_directory_asks(tmp_path, reject):
    from jupyter_agent.core.context import ToolUseContext, ToolUseOptions

    inside = tmp_path / "proj"
    inside.mkdir()
    outside = tmp_path / "secret.txt"
    outside.write_text("s3cret\n")
    ctx = ToolUseContext(options=ToolUseOptions(tools=(ReadTool(),)), cwd=inside, session_dir=tmp_path / "s")
    outcome = await run_tool_use(ToolUseRequest("t1", "Read", {"file_path": str(outside)}), ctx, reject)
    assert outcome.is_error and "s3cret" not in str(outcome.content)
    assert reject.asks and reject.asks[0][0] == "Read"


def test_schema_uses_claude_code_names():
    schema = ReadTool().input_json_schema()
    assert set(schema["properties"]) == {"file_path", "offset", "limit", "pages"}
    assert schema["required"] == ["file_path"]


async def test_partial_look_after_a_full_read_keeps_the_full_read(run, tmp_path):
    f = tmp_path / "a.txt"
    f.write_text(_lines(50))
    await run.ok("Read", file_path=str(f))
    await run.ok("Read", file_path=str(f), offset=10, limit=3)
    assert not run.context.read_file_state.get(f).partial
    await run.ok("Write", file_path=str(f), content="replaced\n")
    assert f.read_text() == "replaced\n"


def test_image_over_the_byte_limit_is_recompressed():
    from jupyter_agent.tools.read_image import MAX_BYTES, prepare_image

    buf = io.BytesIO()
    Image.frombytes("RGB", (1500, 1000), os.urandom(1500 * 1000 * 3)).save(buf, "PNG")
    assert len(buf.getvalue()) > MAX_BYTES
    out = prepare_image("noise.png", buf.getvalue(), "image/png")
    assert len(out.data) <= MAX_BYTES and out.original_size == (1500, 1000)
    assert Image.open(io.BytesIO(out.data)).size == out.size


async def test_file_tools_are_registered_with_their_prompts():
    from jupyter_agent.core.context import ToolUseOptions
    from jupyter_agent.core.registry import TOOL_TARGETS, RegistryConfig, get_all_base_tools

    names = ("Read", "Write", "Edit", "Glob", "Grep")
    tools = get_all_base_tools(RegistryConfig(), targets={n: TOOL_TARGETS[n] for n in names})
    assert [t.name for t in tools] == ["Glob", "Grep", "Read", "Edit", "Write"]  # the seed's order
    for tool in tools:
        api = await tool.to_api_tool(ToolUseOptions())
        assert len(api["description"]) > 200 and api["input_schema"]["type"] == "object"
    by_name = {t.name: t for t in tools}
    for writer in ("Write", "Edit"):
        inp = by_name[writer].input_schema.model_validate(
            {"file_path": "/x", "content": "", "old_string": "a", "new_string": "b"})
        assert not by_name[writer].is_read_only(inp) and not by_name[writer].is_concurrency_safe(inp)
        assert by_name[writer].render_tool_use_message(inp) == f"{writer} /x"


async def test_multibyte_character_across_the_sniffing_boundary_stays_utf8(run, tmp_path):
    f = tmp_path / "wide.txt"
    f.write_text("a" + ("é" * 30 + "\n") * 1500)  # 92 KB; byte 65,536 falls inside an "é"
    assert f.read_bytes()[65535:65537] == "é".encode()
    text = await run.ok("Read", file_path=str(f))
    assert "encoded as" not in text and text.splitlines()[-1] == "  1500\t" + "é" * 30
