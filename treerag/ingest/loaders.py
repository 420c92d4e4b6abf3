"""Load text, markdown, PDF, JSON(L), HTML, Word, PowerPoint, Excel and CSV files into sections."""

from __future__ import annotations

import fnmatch
import json
import logging
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from treerag.json_errors import where_broken
from treerag.text import placeholder_title, record_source, title_like

SUPPORTED = {".txt", ".md", ".markdown", ".pdf", ".json", ".jsonl"}
CONVERTED = {".html", ".htm", ".docx", ".pptx", ".xlsx", ".csv"}
"""Formats turned into text by treerag.ingest.converters."""
SUPPORTED |= CONVERTED


class LoadError(Exception):
    """A file could not be loaded; the message says why (it is skipped, the rest goes in)."""


@dataclass
class Section:
    """A piece of a file to be split: its text plus what locates it (heading path, page, record)."""

    source: str
    title: str
    text: str
    kind: str
    meta: dict[str, Any] = field(default_factory=dict)


@dataclass
class JsonFields:
    """Which keys of a JSON record hold its text, title and id."""

    text: str = "text"
    title: str = "title"
    id: str = "id"


def unsupported_reason(path: Path) -> str:
    """Why a file of an unknown format is not ingested, and what is."""
    kinds = " ".join(sorted(SUPPORTED))
    return (
        f"{path}: unsupported format {path.suffix.lower() or '(no extension)'} (ingested: {kinds})"
    )


def discover(
    roots: Sequence[Path],
    include: Sequence[str] = (),
    exclude: Sequence[str] = (),
    unsupported: list[Path] | None = None,
) -> list[Path]:
    """List supported files under the roots (files or folders), filtered by glob patterns.

    Files of other formats that the patterns keep are appended to `unsupported`, so the
    caller can say why each was left out; hidden files and folders (.git, .venv) are never
    documents and are not listed.
    """
    found: list[Path] = []
    for root in roots:
        if not root.exists():
            raise FileNotFoundError(f"{root}: no such file or folder")
        candidates = [root] if root.is_file() else sorted(p for p in root.rglob("*") if p.is_file())
        for path in candidates:
            rel = path.name if root.is_file() else path.relative_to(root).as_posix()
            if include and not any(fnmatch.fnmatch(rel, g) for g in include):
                continue
            if any(fnmatch.fnmatch(rel, g) for g in exclude):
                continue
            if not root.is_file() and any(part.startswith(".") for part in Path(rel).parts):
                continue
            if path.suffix.lower() not in SUPPORTED:
                if unsupported is not None:
                    unsupported.append(path.resolve())
                continue
            found.append(path.resolve())
    return found


def load(
    path: Path, json_fields: JsonFields | None = None, problems: list[str] | None = None
) -> list[Section]:
    """Load one file into sections; raise LoadError for unreadable, binary or empty files.

    A JSONL file keeps its good records: each line that is not a record is left out and said
    in `problems` ("file:line: invalid JSON (…)"); the file fails only when no line is good.
    """
    suffix = path.suffix.lower()
    source = path.as_posix()
    if suffix == ".pdf":
        sections = list(_load_pdf(path, source))
    elif suffix in (".json", ".jsonl"):
        bad: list[str] = [] if problems is None else problems
        sections = list(_load_json(path, source, json_fields or JsonFields(), bad))
        if not sections and bad:
            raise LoadError(bad[0])
    elif suffix in CONVERTED:
        sections = _load_converted(path, source, suffix)
    else:
        text = _read_text(path)
        kind = "text" if suffix == ".txt" else "markdown"
        sections = [Section(source, _title_of(text, kind) or path.stem, text, kind)]
    sections = [s for s in sections if s.text.strip()]
    if not sections:
        raise LoadError(f"{path}: empty (no text to index)")
    return sections


TITLE_LINE_CHARS = 80
"""A plain-text file's first line is its title when it stands alone (a blank line after it,
prose after that), is at most this long and holds no sentence end: "The Sella River"."""
_SENTENCE_END = tuple(".!?;:,。！？；：，")


def _title_of(text: str, kind: str) -> str:
    """A document's own title, "" when it has none.

    The first level-one heading of a markdown text, else the first line of any text when it
    reads as a title: a line that stands alone (`TITLE_LINE_CHARS`), or a short line right
    above the prose (`title_like`: narrow, no closing punctuation: "Wrenfold Academy" over
    "Wrenfold Academy is a school…"), the line the reader takes for the title line too
    (`treerag.reasoning.chunk_reading.title_line`); a hard-wrapped paragraph's lines are long.
    """
    if kind == "markdown":
        for line in text.splitlines():
            if line.startswith("# "):
                return line[2:].strip()
    paragraphs = [p.strip() for p in re.split(r"\n\s*\n", text.strip()) if p.strip()]
    if not paragraphs:
        return ""
    lines = paragraphs[0].splitlines()
    first = lines[0].lstrip("#").strip()
    if len(lines) > 1:
        return first if title_like(first) else ""
    if (
        len(paragraphs) > 1
        and first
        and len(first) <= TITLE_LINE_CHARS
        and not first.endswith(_SENTENCE_END)
        and not re.search(r"[.!?。！？]\s", first)
    ):
        return first
    return ""


def _read_text(path: Path) -> str:
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise LoadError(f"{path}: cannot read ({exc.strerror or exc})") from exc
    if b"\x00" in raw[:8192]:
        raise LoadError(f"{path}: looks binary (NUL bytes), not text")
    for encoding in ("utf-8-sig", "gb18030"):
        try:
            return raw.decode(encoding)
        except UnicodeDecodeError:
            continue
    raise LoadError(f"{path}: not UTF-8 or GB18030 text")


def _load_converted(path: Path, source: str, suffix: str) -> list[Section]:
    from treerag.ingest import converters

    try:
        if suffix in (".html", ".htm"):
            title, pieces = converters.html(path, _read_text(path))
        elif suffix == ".csv":
            title, pieces = converters.csv_text(path, _read_text(path))
        else:
            title, pieces = getattr(converters, suffix[1:])(path)
    except LoadError:
        raise
    except Exception as exc:  # each library raises its own errors for a damaged file
        raise LoadError(
            f"{path}: not a readable {suffix} file ({type(exc).__name__}: {exc})"
        ) from exc
    kind = "markdown" if suffix == ".docx" else "text"
    return [Section(source, title, text, kind, meta) for text, meta in pieces]


class _NamedFile(logging.Filter):
    """Put the file's path before a library's log line about it."""

    def __init__(self, path: Path):
        super().__init__()
        self.path = path

    def filter(self, record: logging.LogRecord) -> bool:
        if record.name.startswith("pypdf") and not str(record.msg).startswith(str(self.path)):
            record.msg, record.args = f"{self.path}: {record.getMessage()}", ()
        return True


def _load_pdf(path: Path, source: str) -> Iterator[Section]:
    from pypdf import PdfReader
    from pypdf.errors import PdfReadError

    # pypdf's warnings ("EOF marker not found") name no file: the handlers that print them
    # (the root's, or logging's last resort when none is set) put the path first meanwhile.
    named = _NamedFile(path)
    handlers = [h for h in [*logging.getLogger().handlers, logging.lastResort] if h is not None]
    for handler in handlers:
        handler.addFilter(named)
    try:
        reader = PdfReader(str(path))
        pages = [(i + 1, page.extract_text() or "") for i, page in enumerate(reader.pages)]
    except (PdfReadError, OSError, ValueError, KeyError, TypeError) as exc:
        raise LoadError(f"{path}: not a readable PDF ({exc})") from exc
    finally:
        for handler in handlers:
            handler.removeFilter(named)
    title = path.stem
    meta_title = getattr(reader.metadata, "title", None) if reader.metadata else None
    if meta_title:
        title = str(meta_title)
    for number, text in pages:
        yield Section(source, title, text, "text", {"page": number})


def _load_json(path: Path, source: str, keys: JsonFields, problems: list[str]) -> Iterator[Section]:
    text = _read_text(path)
    if path.suffix.lower() == ".jsonl":
        records = []
        for lineno, line in enumerate(text.splitlines(), 1):
            if not line.strip():
                continue
            try:
                records.append((lineno, json.loads(line)))
            except json.JSONDecodeError as exc:
                # One broken line costs its record, not the file's others.
                problems.append(f"{path}:{lineno}: invalid JSON ({where_broken(exc, lineno - 1)})")
    else:
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise LoadError(f"{path}:{exc.lineno}: invalid JSON ({where_broken(exc)})") from exc
        items = data if isinstance(data, list) else [data]
        records = [(i + 1, r) for i, r in enumerate(items)]
    for where, record in records:
        if not isinstance(record, dict) or not isinstance(record.get(keys.text), str):
            raise LoadError(
                f"{path}: record {where} has no string field {keys.text!r} "
                "(choose the field with --json-text)"
            )
        rid = str(record.get(keys.id, where))
        title = str(record.get(keys.title) or placeholder_title(source, rid))
        extra = {
            k: v
            for k, v in record.items()
            if k not in (keys.text, keys.title, keys.id) and isinstance(v, (str, int, float, bool))
        }
        text = record[keys.text]
        if record.get(keys.title) and not text.lstrip().startswith(title):
            # A record's title is often the only place its subject is named: index it too.
            text = f"{title}\n{text}"
        yield Section(record_source(source, rid), title, text, "text", {"record_id": rid, **extra})
