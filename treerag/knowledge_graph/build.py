"""Build a world from chunks through an Extractor, merging entities by normalized name."""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from typing import TypeVar

from treerag.knowledge_graph.extract import CO_OCCURS, Extractor
from treerag.knowledge_graph.model import AttributeValue, Edge, Entity, TextUnit
from treerag.knowledge_graph.schemas import ExtractedRelation, ExtractionResult
from treerag.knowledge_graph.text import normalize_name
from treerag.knowledge_graph.world import World

R = TypeVar("R", Entity, Edge)


def entity_id_for(name: str) -> str:
    """Return the deterministic id of an entity with this name (same name, same id)."""
    return (
        "ent-" + hashlib.sha1(normalize_name(name).encode(), usedforsecurity=False).hexdigest()[:16]
    )


def edge_id_for(source: str, target: str, edge_type: str, relation: str) -> str:
    """Return the deterministic id of an edge; co-occurrence ignores direction and phrase.

    Two names a sentence gives together are one edge whatever words joined them in each
    chunk ("joined", "of"): the chunks add up as evidence, each chunk's phrase is kept as a
    `relation` attribute value.
    """
    if edge_type == CO_OCCURS:
        source, target = sorted((source, target))
        relation = ""
    key = f"{source}\0{target}\0{edge_type}\0{normalize_name(relation)}"
    return "rel-" + hashlib.sha1(key.encode(), usedforsecurity=False).hexdigest()[:16]


@dataclass
class BuildReport:
    """Counts of what a build added or updated."""

    chunks: int = 0
    entities_added: int = 0
    entities_updated: int = 0
    edges_added: int = 0
    edges_updated: int = 0
    skipped_relations: list[str] = field(default_factory=list)
    """Relations naming an entity the extractor did not list (kept out of the graph)."""


def _add_value(attrs: dict[str, list[AttributeValue]], key: str, value: str, when: str) -> None:
    if value and all(v.value != value for v in attrs.get(key, [])):
        attrs.setdefault(key, []).append(AttributeValue(value, when))


class _Merger:
    """Accumulates extraction results into merged entity and edge records."""

    def __init__(self, world: World, extractor: str) -> None:
        self.world = world
        self.extractor = extractor
        self.entities: dict[str, Entity] = {}
        self.edges: dict[str, Edge] = {}

    def entity(self, name: str, kind: str, description: str, chunk_id: str) -> Entity:
        key = normalize_name(name)
        entity = self.entities.get(key)
        if entity is None:
            existing = self.world.find_entity(name)
            entity = _copy(existing) if existing is not None else None
            if entity is None:
                entity = Entity(
                    name=name.strip(), type=kind, importance=0.0, id=entity_id_for(name)
                )
                entity.metadata["extractor"] = self.extractor
            self.entities[key] = entity
        if entity.type == "entity" and kind != "entity":
            entity.type = kind
        _add_value(entity.attributes, "description", description, f"chunk {chunk_id}")
        if description and not entity.description:
            entity.description = description
        if chunk_id not in entity.chunk_ids:
            entity.chunk_ids.append(chunk_id)
        # More chunks mentioning an entity, more important it is (capped at 1).
        entity.importance = min(1.0, max(entity.importance, 0.3 + 0.1 * len(entity.chunk_ids)))
        return entity

    def relation(self, rel: ExtractedRelation, src: Entity, dst: Entity, chunk_id: str) -> None:
        edge_id = edge_id_for(src.id, dst.id, rel.type, rel.relation)
        edge = self.edges.get(edge_id)
        if edge is None:
            existing = self.world.get_edge(edge_id)
            edge = _copy(existing) if existing is not None else self._new_edge(rel, src, dst)
            self.edges[edge_id] = edge
        if chunk_id in edge.chunk_ids:
            return  # this chunk's evidence is already counted
        if edge.chunk_ids and edge.type == CO_OCCURS:
            # Co-occurrences in several chunks add up like independent evidence (noisy-or).
            edge.importance = 1 - (1 - edge.importance) * (1 - rel.importance)
        elif edge.chunk_ids:
            edge.importance = max(edge.importance, rel.importance)
        edge.chunk_ids.append(chunk_id)
        _add_value(edge.attributes, "description", rel.description, f"chunk {chunk_id}")
        _add_value(edge.attributes, "relation", rel.relation, f"chunk {chunk_id}")

    def _new_edge(self, rel: ExtractedRelation, src: Entity, dst: Entity) -> Edge:
        edge = Edge(
            source=src.id,
            target=dst.id,
            type=rel.type,
            relation=rel.relation,
            description=rel.description,
            importance=rel.importance,
            id=edge_id_for(src.id, dst.id, rel.type, rel.relation),
        )
        edge.metadata["extractor"] = self.extractor
        return edge


def _copy(record: R) -> R:
    """A copy of a world entity or edge whose lists and dicts the builder may change."""
    return replace(
        record,
        attributes={k: list(v) for k, v in record.attributes.items()},
        chunk_ids=list(record.chunk_ids),
        metadata=dict(record.metadata),
    )


def add_extraction(
    merger: _Merger, chunk: TextUnit, result: ExtractionResult, report: BuildReport
) -> None:
    """Merge one chunk's extraction into the pending records."""
    local: dict[str, Entity] = {}
    for item in result.entities:
        local[normalize_name(item.name)] = merger.entity(
            item.name, item.type, item.description, chunk.id
        )
    for rel in result.relations:
        src, dst = local.get(normalize_name(rel.source)), local.get(normalize_name(rel.target))
        if src is None or dst is None:
            report.skipped_relations.append(f"{chunk.id}: {rel.source} → {rel.target}")
            continue
        merger.relation(rel, src, dst, chunk.id)


def build_from_chunks(
    world: World, chunks: Iterable[TextUnit], extractor: Extractor
) -> BuildReport:
    """Extract every chunk, merge entities by normalized name and edges by (ends, type, relation).

    Chunks are stored as text units and stay linked to the entities they mention. All
    vectors are computed in one batch per kind at the end.
    """
    chunk_list: Sequence[TextUnit] = list(chunks)
    report = BuildReport(chunks=len(chunk_list))
    merger = _Merger(world, extractor.name)
    for chunk in chunk_list:
        add_extraction(merger, chunk, extractor.extract(chunk), report)
    world.add_chunks(chunk_list)
    entities = list(merger.entities.values())
    report.entities_updated = sum(1 for e in entities if world.has_entity(e.id))
    report.entities_added = len(entities) - report.entities_updated
    world.upsert_entities(entities)
    edges = list(merger.edges.values())
    report.edges_updated = sum(1 for e in edges if world.get_edge(e.id) is not None)
    report.edges_added = len(edges) - report.edges_updated
    world.upsert_edges(edges)
    return report
