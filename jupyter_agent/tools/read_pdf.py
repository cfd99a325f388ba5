"""Read of a PDF: extracted text per page, at most ``MAX_PAGES`` pages per call."""

from __future__ import annotations

import io
import re
from dataclasses import dataclass

from ..core.result import ContentBlock, text_block
from ..errors import ToolError

MAX_PAGES = 20
_RANGE = re.compile(r"^\s*(\d+)\s*(?:-\s*(\d+)\s*)?$")


@dataclass(frozen=True)
class PdfOutput:
    """Text of some pages of a PDF."""

    file_path: str
    total_pages: int
    pages: tuple[tuple[int, str], ...]  # (1-based page number, text)

    def to_content(self) -> list[ContentBlock]:
        parts = [f"PDF {self.file_path}: {self.total_pages} pages; showing "
                 f"{_describe([n for n, _ in self.pages])}."]
        for number, text in self.pages:
            body = text.strip() or "(no extractable text on this page: it may be a scanned image)"
            parts.append(f"--- Page {number} ---\n{body}")
        return [text_block("\n\n".join(parts))]


def parse_pages(spec: str) -> list[int]:
    """``"3"``, ``"1-5"`` or ``"1-3,7"`` → sorted page numbers (1-based); ValueError with a hint."""
    pages: set[int] = set()
    for part in spec.split(","):
        m = _RANGE.match(part)
        if not m:
            raise ValueError(f'Invalid pages "{spec}". Use a page number or range like "3", "1-5" or "1-3,7".')
        start, end = int(m.group(1)), int(m.group(2) or m.group(1))
        if start < 1 or end < start:
            raise ValueError(f'Invalid page range "{part.strip()}": pages start at 1 and ranges go upward.')
        if end - start >= 10_000:
            raise ValueError(f'Page range "{part.strip()}" is too large; read at most {MAX_PAGES} pages.')
        pages.update(range(start, end + 1))
    return sorted(pages)


def read_pdf(file_path: str, data: bytes, pages_spec: str | None) -> PdfOutput:
    """Text of the requested pages (all pages when the PDF is short enough)."""
    from pypdf import PdfReader
    from pypdf.errors import PdfReadError

    try:
        reader = PdfReader(io.BytesIO(data))
        total = len(reader.pages)
    except (PdfReadError, ValueError, OSError, KeyError) as exc:
        raise ToolError(f"{file_path} is not a readable PDF ({exc}).") from None
    if pages_spec is None:
        if total > MAX_PAGES:
            raise ToolError(f"This PDF has {total} pages, too many to read at once. "
                            f'Pass pages (e.g. pages: "1-{MAX_PAGES}") to read at most {MAX_PAGES} pages per call.')
        wanted = list(range(1, total + 1))
    else:
        wanted = parse_pages(pages_spec)
        if len(wanted) > MAX_PAGES:
            raise ToolError(f"Too many pages requested ({len(wanted)}); read at most {MAX_PAGES} per call.")
        if wanted and wanted[0] > total:
            raise ToolError(f"Page {wanted[0]} does not exist: this PDF has {total} pages.")
        wanted = [n for n in wanted if n <= total]
    try:
        return PdfOutput(file_path, total, tuple((n, reader.pages[n - 1].extract_text() or "") for n in wanted))
    except Exception as exc:  # pypdf raises many kinds on broken page content
        raise ToolError(f"Could not extract text from {file_path}: {exc}") from None


def _describe(numbers: list[int]) -> str:
    if not numbers:
        return "no pages"
    if numbers == list(range(numbers[0], numbers[-1] + 1)):
        return f"page {numbers[0]}" if len(numbers) == 1 else f"pages {numbers[0]}-{numbers[-1]}"
    return "pages " + ", ".join(map(str, numbers))
