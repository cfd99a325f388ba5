"""Read of an image file: one image content block, downscaled when it is too large for the API."""

from __future__ import annotations

import base64
import io
from dataclasses import dataclass

from ..core.result import ContentBlock, image_block, text_block
from ..errors import ToolError

IMAGE_SUFFIXES = {".png": "image/png", ".jpg": "image/jpeg", ".jpeg": "image/jpeg",
                  ".gif": "image/gif", ".webp": "image/webp"}
MAX_EDGE = 2000  # pixels on the long side
MAX_BYTES = 3_750_000  # raw bytes, so the base64 stays under the API's 5 MB per image


@dataclass(frozen=True)
class ImageOutput:
    """An image as the model will see it (possibly downscaled)."""

    file_path: str
    media_type: str
    data: bytes
    original_size: tuple[int, int] | None
    size: tuple[int, int] | None

    def to_content(self) -> list[ContentBlock]:
        blocks: list[ContentBlock] = [image_block(self.media_type, base64.b64encode(self.data).decode())]
        if self.original_size and self.size and self.original_size != self.size:
            w, h = self.original_size
            blocks.append(text_block(f"(image downscaled from {w}x{h} to {self.size[0]}x{self.size[1]})"))
        return blocks


def is_image_path(name: str) -> bool:
    return any(name.lower().endswith(s) for s in IMAGE_SUFFIXES)


def media_type_for(name: str) -> str:
    lower = name.lower()
    return next(mt for s, mt in IMAGE_SUFFIXES.items() if lower.endswith(s))


def prepare_image(file_path: str, data: bytes, media_type: str) -> ImageOutput:
    """Keep small images as they are; shrink big ones (long edge, then bytes) with Pillow."""
    from PIL import Image, UnidentifiedImageError

    try:
        img = Image.open(io.BytesIO(data))
        size = img.size
    except (UnidentifiedImageError, OSError, ValueError) as exc:
        raise ToolError(f"{file_path} is not a readable image ({exc}).") from None
    if len(data) <= MAX_BYTES and max(size) <= MAX_EDGE:
        return ImageOutput(file_path, media_type, data, size, size)
    return _shrink(file_path, img, size)


def _shrink(file_path: str, img, original: tuple[int, int]) -> ImageOutput:
    from PIL import Image

    img.seek(0)  # first frame of an animation
    img = img.convert("RGBA" if img.mode in ("RGBA", "LA", "P") else "RGB")
    edge = MAX_EDGE
    while True:
        scale = min(1.0, edge / max(img.size))
        resized = img.resize((max(1, int(img.width * scale)), max(1, int(img.height * scale))),
                             Image.Resampling.LANCZOS) if scale < 1 else img
        buf = io.BytesIO()
        if resized.mode == "RGBA":
            resized.save(buf, "PNG", optimize=True)
            media = "image/png"
        else:
            resized.save(buf, "JPEG", quality=85)
            media = "image/jpeg"
        if buf.tell() <= MAX_BYTES or edge <= 200:
            return ImageOutput(file_path, media, buf.getvalue(), original, resized.size)
        edge = int(edge * 0.7)
