"""Text encodings of files: detect (BOM, UTF-8, legacy), refuse binary, decode strictly, re-encode.

A file's format (encoding, BOM, line endings) is detected once and kept on write, so a CRLF
UTF-16 file edited by the agent stays a CRLF UTF-16 file.  Decoding is always strict: a legacy
file is never turned into replacement characters.
"""

from __future__ import annotations

import codecs
from dataclasses import dataclass

from ..errors import ToolError

SNIFF_BYTES = 64 * 1024

_BOMS: tuple[tuple[bytes, str], ...] = (
    (codecs.BOM_UTF32_LE, "utf-32-le"),  # before UTF-16 LE: it starts with the same two bytes
    (codecs.BOM_UTF32_BE, "utf-32-be"),
    (codecs.BOM_UTF8, "utf-8"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)
WIDE_ENCODINGS = frozenset({"utf-16-le", "utf-16-be", "utf-32-le", "utf-32-be"})


class BinaryFileError(ToolError):
    """The file is not text in any encoding we can prove."""


@dataclass(frozen=True)
class TextFormat:
    """How a text file is stored on disk."""

    encoding: str = "utf-8"
    bom: bytes = b""
    newline: str = "\n"

    @property
    def ascii_newlines(self) -> bool:
        """True when a newline is the single byte 0x0A and never part of another character."""
        return self.encoding not in WIDE_ENCODINGS

    @property
    def label(self) -> str:
        name = self.encoding + (" with BOM" if self.bom else "")
        return name + (", CRLF line endings" if self.newline == "\r\n" else "")

    def decode(self, data: bytes) -> str:
        """The text of a whole file's bytes (BOM removed); strict."""
        body = data[len(self.bom):] if self.bom and data.startswith(self.bom) else data
        try:
            return body.decode(self.encoding)
        except UnicodeDecodeError as exc:
            raise ToolError(
                f"The file cannot be decoded as {self.encoding} (byte {exc.start + len(self.bom)}). "
                "It may be binary or use mixed encodings; edit it with Bash tools instead."
            ) from None

    def encode(self, text: str) -> bytes:
        """Bytes to write for ``text`` (already using this format's line endings); strict."""
        try:
            return self.bom + text.encode(self.encoding)
        except UnicodeEncodeError as exc:
            bad = text[exc.start:exc.end]
            raise ToolError(
                f"The file is encoded as {self.encoding}, which cannot represent {bad!r}. "
                "Use characters that exist in that encoding (or convert the file with Bash first)."
            ) from None


def detect_format(sample: bytes, *, whole: bool) -> TextFormat:
    """The format of a file from its first bytes (``whole``: ``sample`` is the entire file)."""
    for bom, encoding in _BOMS:
        if sample.startswith(bom):
            fmt = TextFormat(encoding, bom)
            text = _decode_sample(sample[len(bom):], encoding, whole)
            if text is None:
                raise BinaryFileError("The file starts with a Unicode BOM but is not valid text.")
            return TextFormat(fmt.encoding, fmt.bom, _newline_of(text))
    if b"\x00" in sample:
        raise BinaryFileError(_binary_message())
    text = _decode_sample(sample, "utf-8", whole)
    if text is not None:
        return TextFormat("utf-8", b"", _newline_of(text))
    encoding = _guess_legacy(sample)
    text = _decode_sample(sample, encoding, whole) if encoding else None
    if text is None or not _looks_like_text(text):
        raise BinaryFileError(_binary_message())
    return TextFormat(encoding, b"", _newline_of(text))  # type: ignore[arg-type]


def _binary_message() -> str:
    return ("This looks like a binary file (or text in an encoding that cannot be detected); "
            "it was not decoded. Use Bash tools (e.g. `file`, `xxd | head`) to inspect it.")


def _decode_sample(data: bytes, encoding: str, whole: bool) -> str | None:
    try:
        return codecs.getincrementaldecoder(encoding)("strict").decode(data, final=whole)
    except (UnicodeDecodeError, LookupError):
        return None


# Among equally plausible guesses, the most common encodings win (short samples are ambiguous).
_PREFERRED = ("cp1252", "cp1251", "cp932", "gb18030", "big5", "euc_kr", "euc_jp", "iso8859_15",
              "cp1250", "koi8_r", "cp1253", "cp1254", "cp1255", "cp1256", "cp1257", "cp874")


def _guess_legacy(sample: bytes) -> str | None:
    """The legacy encoding that decodes ``sample`` most plausibly (charset-normalizer's ranking)."""
    from charset_normalizer import from_bytes

    results = list(from_bytes(sample))
    if not results:
        return None
    low = min(m.chaos for m in results)
    pool = [m for m in results if m.chaos <= low + 0.01]
    top = max(m.coherence for m in pool)
    pool = [m for m in pool if m.coherence >= top - 0.01]
    names = [_codec_name(m.encoding) for m in pool]
    texts = {str(m) for m in pool}
    for pref in _PREFERRED:
        if pref in names or _decode_sample(sample, pref, True) in texts:
            return pref
    return next((n for n in names if n), None)


def _codec_name(name: str) -> str | None:
    try:
        return codecs.lookup(name).name.replace("-", "_")
    except LookupError:
        return None


def _looks_like_text(text: str) -> bool:
    controls = sum(1 for c in text if ord(c) < 32 and c not in "\t\n\r\f\v\x1b")
    return controls <= max(1, len(text) // 100)


def _newline_of(text: str) -> str:
    crlf = text.count("\r\n")
    return "\r\n" if crlf and crlf >= text.count("\n") - crlf else "\n"
