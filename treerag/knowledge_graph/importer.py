"""Validate records from files and apply them to a world all at once, or not at all."""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from pydantic import ValidationError

from treerag.knowledge_graph.build import edge_id_for, entity_id_for
from treerag.knowledge_graph.errors import ImportRecordError, RecordProblem
from treerag.knowledge_graph.io import (
    MAX_PROBLEMS,
    ChunkRecord,
    EdgeRecord,
    EntityRecord,
    RawRecord,
    attributes_payload,
    kind_of,
    read_records,
    validation_message,
)
from treerag.knowledge_graph.model import Edge, Entity, TextUnit, attributes_from_dict
from treerag.knowledge_graph.text import normalize_name
from treerag.knowledge_graph.world import World


@dataclass
class ImportReport:
    """Counts of what an import added or replaced."""

    entities: int = 0
    edges: int = 0
    chunks: int = 0


@dataclass
class _Plan:
    world: World
    now: float
    problems: list[RecordProblem] = field(default_factory=list)
    entities: dict[str, tuple[Entity, RawRecord]] = field(default_factory=dict)
    names: dict[str, str] = field(default_factory=dict)
    edges: dict[str, tuple[Edge, RawRecord]] = field(default_factory=dict)
    chunks: dict[str, tuple[TextUnit, RawRecord]] = field(default_factory=dict)

    def fail(self, record: RawRecord, message: str) -> None:
        self.problems.append(RecordProblem(record.path, record.line, message))

    def resolve(self, ref: str) -> str | None:
        """Return the id of the entity a reference names (by id first, then by name)."""
        if ref in self.entities or self.world.has_entity(ref):
            return ref
        by_name = self.names.get(normalize_name(ref))
        if by_name is not None:
            return by_name
        found = self.world.find_entity(ref)
        return found.id if found is not None else None


def _entity(plan: _Plan, record: RawRecord, rec: EntityRecord) -> None:
    entity = Entity(
        id=rec.id or "pending",
        name=rec.name,
        type=rec.type,
        description=rec.description,
        attributes=attributes_from_dict(attributes_payload(rec.attributes)),
        importance=rec.importance,
        chunk_ids=rec.chunk_ids,
        metadata={**rec.extras(), **rec.metadata},
        created_at=plan.now if rec.created_at is None else rec.created_at,
        last_accessed_at=rec.last_accessed_at,
    )
    key = normalize_name(entity.label)
    if not rec.id:
        existing = plan.world.find_entity(entity.label)
        entity.id = plan.names.get(key) or (
            existing.id if existing else entity_id_for(entity.label)
        )
    if entity.id in plan.entities:
        first = plan.entities[entity.id][1]
        plan.fail(
            record, f"entity {entity.id!r} ({entity.label!r}) already given on line {first.line}"
        )
        return
    plan.entities[entity.id] = (entity, record)
    plan.names.setdefault(key, entity.id)


def _edge(plan: _Plan, record: RawRecord, rec: EdgeRecord) -> None:
    ends = []
    for role, ref in (("source", rec.source), ("target", rec.target)):
        ident = plan.resolve(ref)
        if ident is None:
            plan.fail(record, f"edge {role} {ref!r} names no known entity (by id or name)")
            return
        ends.append(ident)
    ident = rec.id or edge_id_for(ends[0], ends[1], rec.type, rec.relation)
    if ident in plan.edges:
        plan.fail(record, f"edge {ident!r} already given on line {plan.edges[ident][1].line}")
        return
    edge = Edge(
        id=ident,
        source=ends[0],
        target=ends[1],
        type=rec.type,
        relation=rec.relation,
        description=rec.description,
        attributes=attributes_from_dict(attributes_payload(rec.attributes)),
        importance=rec.importance,
        chunk_ids=rec.chunk_ids,
        metadata={**rec.extras(), **rec.metadata},
        created_at=plan.now if rec.created_at is None else rec.created_at,
    )
    plan.edges[ident] = (edge, record)


def _chunk(plan: _Plan, record: RawRecord, rec: ChunkRecord) -> None:
    if rec.id in plan.chunks:
        plan.fail(record, f"chunk {rec.id!r} already given on line {plan.chunks[rec.id][1].line}")
        return
    unit = TextUnit(
        id=rec.id,
        text=rec.text,
        title=rec.title,
        importance=rec.importance,
        created_at=plan.now if rec.created_at is None else rec.created_at,
        metadata={**rec.extras(), **rec.metadata},
    )
    plan.chunks[rec.id] = (unit, record)


_MODELS: dict[str, type[EntityRecord] | type[EdgeRecord] | type[ChunkRecord]] = {
    "entity": EntityRecord,
    "edge": EdgeRecord,
    "chunk": ChunkRecord,
}


def _parse(plan: _Plan, records: Sequence[RawRecord], wanted: str) -> None:
    for record in records:
        try:
            kind = kind_of(record)
        except ValueError as exc:
            if wanted == "entity":  # report shape problems once, in the first pass
                plan.fail(record, str(exc))
            continue
        if kind != wanted:
            continue
        try:
            rec = _MODELS[kind].model_validate(record.data)
        except ValidationError as exc:
            plan.fail(record, validation_message(kind, exc))
            continue
        if isinstance(rec, EntityRecord):
            _entity(plan, record, rec)
        elif isinstance(rec, EdgeRecord):
            _edge(plan, record, rec)
        elif isinstance(rec, ChunkRecord):
            _chunk(plan, record, rec)


def import_files(world: World, paths: Sequence[str | Path]) -> ImportReport:
    """Import entities, edges and chunks; on any bad record raise and change nothing.

    Records with an id already in the world replace it; entities without an id merge with
    the entity of the same normalized name. Edges may name their ends by id or by name.
    """
    records = [r for p in paths for r in read_records(p)]
    plan = _Plan(world, time.time())
    # Entities first, so edges anywhere in the input can refer to them.
    for kind in ("entity", "chunk", "edge"):
        _parse(plan, records, kind)
    if plan.problems:
        extra = max(0, len(plan.problems) - MAX_PROBLEMS)
        raise ImportRecordError(plan.problems[:MAX_PROBLEMS], more=extra)
    world.add_chunks(u for u, _ in plan.chunks.values())
    world.upsert_entities([e for e, _ in plan.entities.values()])
    world.upsert_edges([e for e, _ in plan.edges.values()])
    return ImportReport(len(plan.entities), len(plan.edges), len(plan.chunks))


def read_chunks(path: str | Path) -> list[TextUnit]:
    """Read chunks ({"id", "text", "title"?}) from a JSONL or JSON file."""
    plan = _Plan(World(), time.time())
    records = read_records(path)
    for record in records:
        try:
            rec = ChunkRecord.model_validate(record.data)
        except ValidationError as exc:
            plan.fail(record, validation_message("chunk", exc))
            continue
        _chunk(plan, record, rec)
    if plan.problems:
        extra = max(0, len(plan.problems) - MAX_PROBLEMS)
        raise ImportRecordError(plan.problems[:MAX_PROBLEMS], more=extra)
    return [u for u, _ in plan.chunks.values()]
