"""A chunk's source: `<file>` for a whole file, `<file>#<record>` for a JSON/JSONL record."""

from __future__ import annotations

from pathlib import PurePath

RECORD_MARK = "#"
"""What separates a record's file from its id in a source."""


def record_source(file: str, record: str) -> str:
    """The source of record `record` of file `file`: `<file>#<record>`."""
    return f"{file}{RECORD_MARK}{record}"


def source_file(source: str) -> str:
    """The file a source comes from: the part before the first `#` (all of it when none).

    File paths are stored without `#`; a record id may hold one, so the split is at the first.
    """
    return source.split(RECORD_MARK, 1)[0]


def source_record(source: str, file_prefix: str = "") -> str:
    """The record id of a source `<file>#<id>` (the whole source when it names no record).

    With `file_prefix` (the file's path as stored) the prefix is removed exactly, so ids and
    paths may themselves contain `#`; otherwise the part after the first `#` is the id.
    """
    if file_prefix and source.startswith(file_prefix + RECORD_MARK):
        return source[len(file_prefix) + 1 :]
    return source.split(RECORD_MARK, 1)[1] if RECORD_MARK in source else source


def placeholder_title(file: str, record: str) -> str:
    """The title a record without one is given: `<file stem> <record>`, for lists and citations.

    It names no subject: a reader that takes a document's title for what its sentences are
    about (`own_title`) must not read "She was born…" as about "corpus 17".
    """
    return f"{PurePath(file).stem} {record}"


def _splits(source: str) -> list[tuple[str, str]]:
    """Every (file, record) a source `<file>#<record>` can be read as: either may hold `#`."""
    return [(source[:i], source[i + 1 :]) for i, ch in enumerate(source) if ch == RECORD_MARK]


def own_title(title: str, source: str) -> str:
    """A chunk's title when its document has one of its own, "" for a `placeholder_title`."""
    if any(title == placeholder_title(f, r) for f, r in _splits(source)):
        return ""
    return title


def shown_title(title: str, source: str) -> str:
    """The title a citation shows: the document's own, else a record's `placeholder_title`."""
    if title or RECORD_MARK not in source:
        return title
    file, record = source.rsplit(RECORD_MARK, 1)  # a record id seldom holds "#"; a path may
    return placeholder_title(file, record)
