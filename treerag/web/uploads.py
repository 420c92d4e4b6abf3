"""Uploaded files: a safe name, a cheap type check, and a place under the data directory.

Nothing the client sends becomes a path: the file name is reduced to a plain base name and
written under `<data_dir>/uploads/`; names with a path in them are refused.
"""

from __future__ import annotations

import re
import shutil
import unicodedata
from pathlib import Path
from typing import BinaryIO

from treerag import data_layout
from treerag.context import Context

MAX_NAME = 200
_UNSAFE = re.compile(r"[^\w.\- ]+")
TEXT_TYPES = {".txt", ".md", ".markdown", ".json", ".jsonl", ".csv"}
SNIFF_BYTES = 8192


class UploadRefused(ValueError):
    """An upload that is not written; the message is the reason shown to the user."""


def safe_name(name: str) -> str:
    """Reduce a client file name to a safe base name; raise UploadRefused when it has a path."""
    name = unicodedata.normalize("NFC", name or "").strip()
    if not name or "/" in name or "\\" in name or "\x00" in name or name in (".", ".."):
        raise UploadRefused(f"unsafe file name {name!r}: a plain file name is needed")
    cleaned = _UNSAFE.sub("_", name)[:MAX_NAME].strip()
    if not cleaned or cleaned.startswith(".") or not Path(cleaned).suffix:
        raise UploadRefused(f"unsafe file name {name!r}: a plain file name with a type is needed")
    return cleaned


def sniff(name: str, head: bytes) -> None:
    """Refuse content that cannot be what its extension says (checked on the first bytes)."""
    suffix = Path(name).suffix.lower()
    if suffix == ".pdf" and not head.startswith(b"%PDF-"):
        raise UploadRefused(f"{name}: not a PDF (no %PDF- header)")
    if suffix in TEXT_TYPES:
        if b"\x00" in head:
            raise UploadRefused(f"{name}: binary content in a {suffix} file")
        try:
            head.decode("utf-8")
        except UnicodeDecodeError as exc:
            if exc.start < len(head) - 3:  # a character cut at the end of the sample is fine
                raise UploadRefused(f"{name}: not UTF-8 text") from exc


def uploads_dir(ctx: Context) -> Path:
    """The folder uploads go to (created when missing; blocking)."""
    folder = data_layout.uploads_dir(ctx.tenant_path).resolve()
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def save(ctx: Context, name: str, data: BinaryIO) -> Path:
    """Write an upload (already checked) under the uploads folder; return its path (blocking)."""
    folder = uploads_dir(ctx)
    target = (folder / name).resolve()
    if target.parent != folder:  # safe_name makes this impossible; keep the guarantee local
        raise UploadRefused(f"unsafe file name {name!r}")
    data.seek(0)
    with open(target, "wb") as out:
        shutil.copyfileobj(data, out)
    return target


def discard(ctx: Context, paths: list[Path]) -> None:
    """Remove saved uploads that were not ingested, unless a stored document is that file.

    Blocking.
    """
    from treerag.documents.manifest import read_manifest

    stored = set(read_manifest(ctx)["documents"])
    for path in paths:
        if str(path) not in stored:
            path.unlink(missing_ok=True)
