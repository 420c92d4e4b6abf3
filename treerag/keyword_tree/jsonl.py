"""Low-level JSONL reading and writing: fast bulk parsing, per-line fallback, durable appends."""

from __future__ import annotations

import gc
import os
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import orjson

from treerag.keyword_tree.errors import InvalidInputError
from treerag.keyword_tree.models import Record


@dataclass(slots=True)
class LoadIssue:
    """A problem found while loading (a corrupt line, a truncated write, a repaired file)."""

    path: str
    line: int
    message: str

    def __str__(self) -> str:
        where = f"{self.path}:{self.line}" if self.line else self.path
        return f"{where}: {self.message}"


def dumps(value: Any) -> bytes:
    """Encode one value as compact JSON, with a clear error for unsupported metadata."""
    try:
        return orjson.dumps(value)
    except TypeError as exc:
        raise InvalidInputError(f"value is not JSON-serializable: {exc}") from exc


def dump_lines(records: list[Record]) -> bytes:
    """Encode records as JSONL (one line each, newline-terminated)."""
    return b"".join(orjson.dumps(rec) + b"\n" for rec in records)


def write_all(fd: int, data: bytes) -> None:
    """Write every byte of data to fd (os.write may write less than asked)."""
    view = memoryview(data)
    while view:
        written = os.write(fd, view)
        view = view[written:]


def read_range(path: str, start: int, end: int) -> bytes:
    """Return bytes [start, end) of a file."""
    if end <= start:
        return b""
    with open(path, "rb") as fh:
        fh.seek(start)
        return fh.read(end - start)


def parse_bulk(data: bytes) -> list[Any] | None:
    """Parse a JSONL block in one C call; return None when any line is not valid JSON."""
    lines = [line for line in data.split(b"\n") if line.strip()]
    if not lines:
        return []
    try:
        return orjson.loads(b"[" + b",".join(lines) + b"]")
    except orjson.JSONDecodeError:
        return None


def iter_lines(data: bytes, base_offset: int = 0) -> Iterator[tuple[int, int, bytes]]:
    """Yield (line number from 1, byte offset, line) for every newline-terminated line."""
    pos = 0
    number = 0
    size = len(data)
    while pos < size:
        nl = data.find(b"\n", pos)
        if nl < 0:
            return  # a torn last line is not a line yet
        number += 1
        yield number, base_offset + pos, data[pos:nl]
        pos = nl + 1


def parse_lines(
    data: bytes, path: str, required: tuple[str, ...], base_offset: int = 0, first_line: int = 1
) -> tuple[list[tuple[int, Record]], list[LoadIssue]]:
    """Parse line by line, keeping (offset, record) pairs and reporting corrupt lines.

    Args:
        data: The bytes to parse (whole lines).
        path: The file name to report.
        required: Keys every record must have.
        base_offset: File offset of data[0].
        first_line: Line number of the first line in data.
    """
    out: list[tuple[int, Record]] = []
    issues: list[LoadIssue] = []
    for number, offset, line in iter_lines(data, base_offset):
        if not line.strip():
            continue
        lineno = first_line + number - 1
        try:
            rec = orjson.loads(line)
        except orjson.JSONDecodeError as exc:
            issues.append(LoadIssue(path, lineno, f"not valid JSON ({exc}); line skipped"))
            continue
        if not isinstance(rec, dict) or any(key not in rec for key in required):
            missing = [key for key in required if not isinstance(rec, dict) or key not in rec]
            issues.append(LoadIssue(path, lineno, f"record lacks {missing}; line skipped"))
            continue
        out.append((offset, rec))
    return out, issues


def line_number_at(path: str, offset: int) -> int:
    """Return the 1-based line number of the line starting at offset."""
    with open(path, "rb") as fh:
        return fh.read(offset).count(b"\n") + 1


def read_line_at(fd: int, offset: int) -> bytes:
    """Read the newline-terminated line that starts at offset (without the newline)."""
    chunk = 4096
    buf = b""
    while True:
        part = os.pread(fd, chunk, offset + len(buf))
        if not part:
            return buf
        nl = part.find(b"\n")
        if nl >= 0:
            return buf + part[:nl]
        buf += part
        chunk *= 2


def last_lines(fd: int, size: int, max_lines: int) -> list[tuple[int, bytes]]:
    """Return up to max_lines complete lines before size, last first, as (offset, line)."""
    found: list[tuple[int, bytes]] = []
    chunk = 8192
    while True:
        start = max(0, size - chunk)
        data = os.pread(fd, size - start, start)
        end = data.rfind(b"\n")
        found = []
        while end >= 0 and len(found) < max_lines:
            begin = data.rfind(b"\n", 0, end) + 1
            if begin == 0 and start > 0:
                break  # the line may begin before this chunk: read more
            found.append((start + begin, data[begin:end]))
            end = begin - 1
        if len(found) >= max_lines or start == 0:
            return found
        chunk *= 4


@contextmanager
def gc_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector while building millions of small objects.

    Each collection would scan everything allocated so far, which on 600k records costs
    more than the parsing itself; the loaded structures hold no cycles to find.
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()
