"""Read records from JSON/JSONL files: record schemas, line numbers, kind detection."""

from __future__ import annotations

import bisect
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from treerag.json_errors import where_broken
from treerag.knowledge_graph.errors import ImportRecordError, RecordProblem

KINDS = {"entities": "entity", "edges": "edge", "chunks": "chunk"}
MAX_PROBLEMS = 20


class AttributeRecord(BaseModel):
    """One attribute value with the time it holds, in words."""

    value: str
    timestamp_desc: str = ""


class _Record(BaseModel):
    """Common base: unknown fields are allowed and kept."""

    model_config = ConfigDict(extra="allow")

    def extras(self) -> dict[str, Any]:
        """Return fields the schema does not know (kept as metadata)."""
        return {k: v for k, v in (self.model_extra or {}).items() if k not in ("kind", "format")}


class EntityRecord(_Record):
    """An entity line: a ``name`` (or an ``id`` plus a name attribute); no id merges by name."""

    id: str | None = None
    name: str = ""
    type: str = "entity"
    description: str = ""
    attributes: dict[str, list[AttributeRecord] | str] = Field(default_factory=dict)
    importance: float = Field(default=0.5, ge=0.0, le=1.0)
    chunk_ids: list[str] = Field(default_factory=list)
    metadata: dict[str, Any] = Field(default_factory=dict)
    created_at: float | None = None
    last_accessed_at: float | None = None

    @model_validator(mode="after")
    def _named(self) -> EntityRecord:
        if not self.name.strip() and not self.id:
            raise ValueError("give a non-empty 'name' (or an 'id')")
        return self


class EdgeRecord(_Record):
    """An edge line: ``source`` and ``target`` name entities by id or by name."""

    id: str | None = None
    source: str = Field(min_length=1)
    target: str = Field(min_length=1)
    type: str = "default"
    relation: str = ""
    description: str = ""
    attributes: dict[str, list[AttributeRecord] | str] = Field(default_factory=dict)
    importance: float = Field(default=0.5, ge=0.0, le=1.0)
    chunk_ids: list[str] = Field(default_factory=list)
    metadata: dict[str, Any] = Field(default_factory=dict)
    created_at: float | None = None


class ChunkRecord(_Record):
    """A chunk line: ``id`` and ``text`` are required."""

    id: str = Field(min_length=1)
    text: str
    title: str = ""
    importance: float = Field(default=0.5, ge=0.0, le=1.0)
    created_at: float | None = None
    metadata: dict[str, Any] = Field(default_factory=dict)


@dataclass(frozen=True)
class RawRecord:
    """One JSON object read from a file, with where it was."""

    path: str
    line: int
    kind: str | None
    data: Any


def _line_finder(text: str) -> Any:
    starts = [0] + [i + 1 for i, c in enumerate(text) if c == "\n"]
    return lambda pos: bisect.bisect_right(starts, pos)


def _skip(text: str, i: int) -> int:
    while i < len(text) and text[i] in " \t\r\n":
        i += 1
    return i


def _array(
    text: str, i: int, kind: str | None, path: str, line: Any
) -> tuple[list[RawRecord], int]:
    """Read the array starting at text[i]; return its records and the index after it."""
    decoder = json.JSONDecoder()
    out: list[RawRecord] = []
    i = _skip(text, i + 1)
    while i < len(text) and text[i] != "]":
        value, end = decoder.raw_decode(text, i)
        out.append(RawRecord(path, line(i), kind, value))
        i = _skip(text, end)
        if i < len(text) and text[i] == ",":
            i = _skip(text, i + 1)
    return out, i + 1


def _json_records(text: str, path: str) -> list[RawRecord]:
    """Return the records of a JSON array, or of an object's entities/edges/chunks arrays."""
    line = _line_finder(text)
    decoder = json.JSONDecoder()
    i = _skip(text, 0)
    if text.startswith("[", i):
        return _array(text, i, None, path, line)[0]
    if not text.startswith("{", i):
        raise ImportRecordError([RecordProblem(path, line(i), "expected a JSON object or array")])
    out: list[RawRecord] = []
    i = _skip(text, i + 1)
    while i < len(text) and text[i] != "}":
        key, i = decoder.raw_decode(text, i)
        i = _skip(text, _skip(text, i) + 1)  # past the colon
        if key in KINDS and text.startswith("[", i):
            records, i = _array(text, i, KINDS[key], path, line)
            out += records
        else:
            _, i = decoder.raw_decode(text, i)
        i = _skip(text, i)
        if i < len(text) and text[i] == ",":
            i = _skip(text, i + 1)
    return out


def read_records(path: str | Path) -> list[RawRecord]:
    """Read every record of a .json file, or of a JSONL file (one object per line)."""
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ImportRecordError([RecordProblem(str(p), 0, f"cannot read: {exc}")]) from None
    if p.suffix.lower() == ".json":
        try:
            return _json_records(text, str(p))
        except json.JSONDecodeError as exc:
            problem = RecordProblem(str(p), exc.lineno, f"invalid JSON: {where_broken(exc)}")
            raise ImportRecordError([problem]) from None
    out, problems = [], []
    for number, raw in enumerate(text.splitlines(), 1):
        if not raw.strip():
            continue
        try:
            out.append(RawRecord(str(p), number, None, json.loads(raw)))
        except json.JSONDecodeError as exc:
            problems.append(
                RecordProblem(str(p), number, f"invalid JSON: {where_broken(exc, number - 1)}")
            )
    if problems:
        raise ImportRecordError(problems[:MAX_PROBLEMS], more=max(0, len(problems) - MAX_PROBLEMS))
    return out


def kind_of(record: RawRecord) -> str:
    """Return a record's kind: given by its array or 'kind' field, else guessed from fields."""
    if record.kind:
        return record.kind
    data = record.data
    if not isinstance(data, dict):
        raise ValueError("a record must be a JSON object")
    kind = data.get("kind")
    if kind in ("entity", "edge", "chunk"):
        return str(kind)
    if kind is not None:
        raise ValueError(f"unknown kind {kind!r}; use entity, edge or chunk")
    if "source" in data or "target" in data:
        return "edge"
    if "name" in data:
        return "entity"
    if "text" in data:
        return "chunk"
    raise ValueError("cannot tell the record's kind: give 'kind' or name/source+target/text")


def validation_message(kind: str, exc: ValidationError) -> str:
    """Return the first validation error as one readable sentence."""
    first = exc.errors()[0]
    where = ".".join(str(p) for p in first["loc"]) or "record"
    return f"{kind} record: field '{where}': {first['msg']}"


def attributes_payload(attributes: dict[str, list[AttributeRecord] | str]) -> dict[str, Any]:
    """Return validated attributes in the plain-dict form model.attributes_from_dict takes."""
    return {
        k: v if isinstance(v, str) else [a.model_dump() for a in v] for k, v in attributes.items()
    }
