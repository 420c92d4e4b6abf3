"""A chunk's source: `<file>` for a whole file, `<file>#<record>` for a JSON/JSONL record."""

from __future__ import annotations

import re
from pathlib import PurePath

from treerag.text.script import han_count

SHORT_LINE = 40
"""A line narrower than this (CJK characters count 2) without closing punctuation reads as a
title: a record's or a file's title line above its text; a hard-wrapped paragraph's lines
are long."""
_CLOSING = tuple(".!?;:。！？；：”\"'")

RECORD_MARK = "#"
"""What separates a record's file from its id in a source."""


def title_like(line: str) -> bool:
    """Whether one line reads as a title (`SHORT_LINE`): "Wrenfold Academy", "# 周怀远"."""
    line = line.lstrip("#").strip()
    width = len(line) + han_count(line)
    return bool(line) and width < SHORT_LINE and not line.endswith(_CLOSING)


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
    """A chunk's title when its document has one of its own, else "".

    A record's `placeholder_title` is none, and neither is the stem of a file named by an
    identifier (`identifier`): "他" in "b7111315ca0cdbe4.txt" or "IMG_2034.md" refers to
    someone its text names, while "marta_velik.md" is titled by its subject's name.
    """
    if any(title == placeholder_title(f, r) for f, r in _splits(source)):
        return ""
    if title == PurePath(source_file(source)).stem and identifier(title):
        return ""
    return title


_ID_WORD = re.compile(r"(?=\w*\d)\w*_\w*|(?=[a-z]*\d)(?=\d*[a-z])[a-z\d]{8,}|\d{6,}", re.IGNORECASE)
"""A word of a file's identifier: digits joined by underscores ("eval_bc79217d", "IMG_2034";
not "marta_velik", a name), a hash (letters and digits, eight or more: "b7111315ca0cdbe4")
or a long number; not a short code such as "C919" or "MU5735", which names an aircraft or a
flight."""


def identifier(name: str) -> bool:
    """Whether a file's name is an identifier, not a title: every word a code (`_ID_WORD`)."""
    words = name.split()
    return bool(words) and all(_ID_WORD.fullmatch(w) for w in words)


def shown_title(title: str, source: str) -> str:
    """The title a citation shows: the document's own, else a record's `placeholder_title`."""
    if title or RECORD_MARK not in source:
        return title
    file, record = source.rsplit(RECORD_MARK, 1)  # a record id seldom holds "#"; a path may
    return placeholder_title(file, record)
