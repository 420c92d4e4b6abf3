"""Data model of seed 03 §二: keywords, infos and the links between them."""

from __future__ import annotations

import copy
import secrets
import threading
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from enum import StrEnum
from typing import Any

from treerag.keyword_tree.errors import InvalidInputError

Record = dict[str, Any]
"""One stored JSONL line, decoded: the on-disk shape of a node, info or link version."""


class Relation(StrEnum):
    """How an info relates to a keyword."""

    PRIMARY = "PRIMARY"
    """The info is mainly about the keyword."""
    RELATED = "RELATED"
    """The info mentions or touches the keyword."""


RELATION_RANK = {Relation.PRIMARY.value: 2, Relation.RELATED.value: 1}
"""Which relation wins when two links to the same pair meet (merges)."""


@dataclass(slots=True)
class KeywordNode:
    """A keyword in the tree; `level` and `children` are derived from the parent links."""

    id: str
    name: str
    aliases: list[str]
    normalized: list[str]
    level: int
    parent_id: str | None
    children: list[str]
    description: str
    metadata: dict[str, Any]
    version: int
    created_at: str
    updated_at: str


@dataclass(slots=True)
class Info:
    """A piece of information (a chunk, a note, a fact) that keywords point to."""

    id: str
    content: str
    source: str
    metadata: dict[str, Any]
    version: int
    created_at: str
    updated_at: str


@dataclass(slots=True)
class InfoKeywordLink:
    """A many-to-many link between an info and a keyword."""

    info_id: str
    keyword_id: str
    relation: str
    created_by: str
    created_at: str


@dataclass(slots=True)
class InfoHit:
    """An info as seen from a keyword: the info plus the relation of the link."""

    info: Info
    relation: str
    linked_by: str = ""


@dataclass(slots=True)
class KeywordHit:
    """A keyword as seen from an info: the node plus the relation of the link."""

    keyword: KeywordNode
    relation: str
    linked_by: str = ""


@dataclass(slots=True)
class Page:
    """One page of infos under a keyword."""

    items: list[InfoHit]
    total: int
    page: int
    size: int
    extra: dict[str, Any] = field(default_factory=dict)


def parse_relation(value: str | Relation) -> str:
    """Return the canonical relation string, raising on unknown values."""
    text = str(value.value if isinstance(value, Relation) else value).upper()
    if text not in RELATION_RANK:
        raise InvalidInputError(f"unknown relation {value!r}; use one of {sorted(RELATION_RANK)}")
    return text


def node_from_record(rec: Record, *, level: int, children: list[str]) -> KeywordNode:
    """Build a public KeywordNode from a stored record (copies the mutable parts)."""
    return KeywordNode(
        id=rec["id"],
        name=rec["name"],
        aliases=list(rec["aliases"]),
        normalized=list(rec["normalized"]),
        level=level,
        parent_id=rec["parent_id"],
        children=list(children),
        description=rec["description"],
        metadata=copy.deepcopy(rec["metadata"]),
        version=rec["version"],
        created_at=rec["created_at"],
        updated_at=rec["updated_at"],
    )


def info_from_record(rec: Record) -> Info:
    """Build a public Info from a stored record."""
    return Info(
        id=rec["id"],
        content=rec["content"],
        source=rec["source"],
        metadata=copy.deepcopy(rec["metadata"]),
        version=rec["version"],
        created_at=rec["created_at"],
        updated_at=rec["updated_at"],
    )


def link_from_record(rec: Record) -> InfoKeywordLink:
    """Build a public InfoKeywordLink from a stored record."""
    return InfoKeywordLink(
        info_id=rec["info_id"],
        keyword_id=rec["keyword_id"],
        relation=rec["relation"],
        created_by=rec["created_by"],
        created_at=rec["created_at"],
    )


class _Clock:
    """Strictly increasing UTC timestamps, so creation order survives equal clock readings."""

    def __init__(self) -> None:
        self._last = datetime.min.replace(tzinfo=UTC)
        self._lock = threading.Lock()

    def now(self) -> str:
        with self._lock:
            now = datetime.now(UTC)
            if now <= self._last:
                now = self._last + timedelta(microseconds=1)
            self._last = now
            return now.isoformat(timespec="microseconds")


_CLOCK = _Clock()


def now_iso() -> str:
    """Return the current UTC time in ISO 8601, never equal to a previous call's."""
    return _CLOCK.now()


def new_id(prefix: str) -> str:
    """Return a fresh random id such as ``kw_3f9a0c1b2d4e5f60``."""
    return f"{prefix}_{secrets.token_hex(8)}"
