"""WebFetch's content side: HTML → Markdown, PDF → text, text as is, images as image blocks."""

from __future__ import annotations

import base64
import io
import re
from dataclasses import dataclass

import charset_normalizer
from bs4 import BeautifulSoup
from markdownify import MarkdownConverter

from ..core.result import ImageBlockParam, image_block

IMAGE_TYPES = ("image/png", "image/jpeg", "image/gif", "image/webp")
MAX_IMAGE_BYTES = 5 * 1024 * 1024
_TEXT_TYPES = ("application/json", "application/xml", "application/javascript", "application/x-yaml")
_STRIP_TAGS = ["script", "style", "noscript", "template", "svg", "iframe"]


class UnsupportedContent(Exception):
    """The response is of a kind WebFetch cannot read; the text is for the model."""


@dataclass(frozen=True)
class PageContent:
    """What a fetched page became: text for the small model, or an image for the main model."""

    kind: str  # "markdown" | "text" | "pdf" | "image"
    text: str = ""
    image: ImageBlockParam | None = None

    @property
    def size(self) -> int:
        if self.image is not None:
            return len(self.image["source"].get("data", ""))  # type: ignore[union-attr]
        return len(self.text)


def media_type(content_type: str) -> str:
    return content_type.split(";", 1)[0].strip().lower()


def charset_of(content_type: str) -> str | None:
    match = re.search(r"charset=([\w.:-]+)", content_type, re.IGNORECASE)
    return match.group(1) if match else None


def decode_text(body: bytes, content_type: str) -> str:
    declared = charset_of(content_type)
    if declared:
        try:
            return body.decode(declared)
        except (LookupError, UnicodeDecodeError):
            pass
    try:
        return body.decode("utf-8")
    except UnicodeDecodeError:
        best = charset_normalizer.from_bytes(body).best()
        return str(best) if best is not None else body.decode("utf-8", errors="replace")


def html_to_markdown(html: str) -> str:
    """Readable Markdown: scripts and styles dropped, runs of blank lines collapsed."""
    soup = BeautifulSoup(html, "html.parser")
    for tag in soup.find_all(_STRIP_TAGS):
        tag.decompose()
    markdown = MarkdownConverter(heading_style="ATX", bullets="-").convert_soup(soup)
    markdown = re.sub(r"[ \t]+\n", "\n", markdown)
    return re.sub(r"\n{3,}", "\n\n", markdown).strip()


def pdf_to_text(body: bytes) -> str:
    from pypdf import PdfReader
    from pypdf.errors import PdfReadError

    try:
        reader = PdfReader(io.BytesIO(body))
        pages = [page.extract_text() or "" for page in reader.pages]
    except (PdfReadError, ValueError, KeyError) as exc:
        raise UnsupportedContent(f"The PDF could not be read: {exc}") from exc
    return "\n\n".join(f"--- Page {i} ---\n{text.strip()}" for i, text in enumerate(pages, 1)).strip()


def _looks_like_html(body: bytes) -> bool:
    head = body[:512].lstrip().lower()
    return head.startswith((b"<!doctype html", b"<html")) or b"<html" in head


def convert(body: bytes, content_type: str) -> PageContent:
    """Turn a response body into page content by its media type (sniffing HTML if unlabeled)."""
    kind = media_type(content_type)
    if kind in ("text/html", "application/xhtml+xml") or (not kind and _looks_like_html(body)):
        return PageContent("markdown", html_to_markdown(decode_text(body, content_type)))
    if kind == "application/pdf" or body.startswith(b"%PDF-"):
        return PageContent("pdf", pdf_to_text(body))
    if kind in IMAGE_TYPES:
        if len(body) > MAX_IMAGE_BYTES:
            raise UnsupportedContent(
                f"The image is too large ({len(body):,} bytes; at most {MAX_IMAGE_BYTES:,} are accepted)."
            )
        return PageContent("image", image=image_block(kind, base64.b64encode(body).decode("ascii")))
    if kind.startswith("text/") or kind in _TEXT_TYPES or kind.endswith(("+json", "+xml")) or not kind:
        return PageContent("text", decode_text(body, content_type))
    raise UnsupportedContent(
        f"Unsupported content type {kind!r}: WebFetch reads HTML, text, JSON, PDF and images."
    )
