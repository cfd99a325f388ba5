"""Read of PDFs: text per page, page ranges, the 20-page limit."""

from __future__ import annotations

import pytest

from jupyter_agent.tools.read_pdf import parse_pages


def make_pdf(page_texts: list[str]) -> bytes:
    """A small valid PDF with one line of Helvetica text per page (built by hand, no PDF library)."""
    objects: list[bytes] = []
    n = len(page_texts)
    kids = " ".join(f"{3 + 2 * i} 0 R" for i in range(n))
    objects.append(b"<< /Type /Catalog /Pages 2 0 R >>")
    objects.append(f"<< /Type /Pages /Kids [{kids}] /Count {n} >>".encode())
    font_id = 3 + 2 * n
    for i, text in enumerate(page_texts):
        stream = f"BT /F1 12 Tf 72 720 Td ({text}) Tj ET".encode()
        objects.append(f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents {4 + 2 * i} 0 R "
                       f"/Resources << /Font << /F1 {font_id} 0 R >> >> >>".encode())
        objects.append(b"<< /Length %d >>\nstream\n" % len(stream) + stream + b"\nendstream")
    objects.append(b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>")
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % number + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    for off in offsets:
        out += b"%010d 00000 n \n" % off
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, xref)
    return bytes(out)


async def test_short_pdf_returns_text_of_every_page(run, tmp_path):
    f = tmp_path / "doc.pdf"
    f.write_bytes(make_pdf(["Hello first page", "Second page here"]))
    text = await run.ok("Read", file_path=str(f))
    assert "2 pages" in text
    assert "--- Page 1 ---\nHello first page" in text and "--- Page 2 ---\nSecond page here" in text
    assert f in run.context.read_file_state


async def test_page_range(run, tmp_path):
    f = tmp_path / "doc.pdf"
    f.write_bytes(make_pdf([f"Text of page {i}" for i in range(1, 31)]))
    text = await run.ok("Read", file_path=str(f), pages="3-5")
    assert "Text of page 3" in text and "Text of page 5" in text
    assert "Text of page 2" not in text and "Text of page 6" not in text
    assert "showing pages 3-5" in text


async def test_big_pdf_without_pages_and_too_many_pages_are_refused(run, tmp_path):
    f = tmp_path / "doc.pdf"
    f.write_bytes(make_pdf([f"p{i}" for i in range(1, 31)]))
    assert 'pages: "1-20"' in await run.error("Read", file_path=str(f))
    assert "at most 20" in await run.error("Read", file_path=str(f), pages="1-25")
    assert "has 30 pages" in await run.error("Read", file_path=str(f), pages="40-41")


async def test_broken_pdf_is_a_clear_error(run, tmp_path):
    f = tmp_path / "bad.pdf"
    f.write_bytes(b"%PDF-1.4 but then garbage")
    assert "not a readable PDF" in await run.error("Read", file_path=str(f))


@pytest.mark.parametrize(
    ("spec", "pages"),
    [("3", [3]), ("1-5", [1, 2, 3, 4, 5]), (" 2 - 3 ", [2, 3]), ("1-2,7", [1, 2, 7]), ("4,4", [4])],
)
def test_parse_pages(spec, pages):
    assert parse_pages(spec) == pages


@pytest.mark.parametrize("spec", ["", "a", "0", "5-3", "1-", "-2", "1..3", "1-99999999"])
def test_parse_pages_rejects(spec):
    with pytest.raises(ValueError):
        parse_pages(spec)
