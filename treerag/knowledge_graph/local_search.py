"""GraphRAG-style local search context: entities, relationships, sources, reports (seed 05)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from treerag.knowledge_graph.communities import CommunityIndex, Summarizer, world_communities
from treerag.knowledge_graph.model import Edge, attributes_text
from treerag.knowledge_graph.tables import TableSection, render_table
from treerag.knowledge_graph.world import World


@dataclass(frozen=True)
class LocalSearchConfig:
    """How many records to consider and each section's token budget."""

    top_k_entities: int = 10
    top_k_relationships: int = 10
    """Out-of-network relationships kept per selected entity (GraphRAG's top_k_relationships)."""
    entity_tokens: int = 1000
    relationship_tokens: int = 1500
    text_unit_tokens: int = 3000
    community_tokens: int = 1000
    path_tokens: int = 500
    min_community_size: int = 2
    """Smaller communities only repeat their single entity and are left out."""
    column_delimiter: str = "|"
    include_communities: bool = True


@dataclass(frozen=True)
class LocalContext:
    """The context block for an answer prompt and the tables it was made of."""

    text: str
    sections: dict[str, TableSection] = field(default_factory=dict)
    entities: list[tuple[str, float]] = field(default_factory=list)
    """The selected (entity id, score) pairs the context was built around."""

    @property
    def tokens(self) -> int:
        """Return the tokens used by all sections."""
        return sum(s.tokens for s in self.sections.values())


def select_entities(world: World, query: str | np.ndarray, k: int) -> list[tuple[str, float]]:
    """Return the k entities most similar to the query, as (id, score) (seed 05 step 1)."""
    return [(r.id, r.score) for r in world.search_entities(query, k)]


def _entity_rows(world: World, ids: Sequence[str]) -> list[tuple[str, list[object]]]:
    rows: list[tuple[str, list[object]]] = []
    for n, entity_id in enumerate(ids, 1):
        e = world.get_entity(entity_id)
        if e is not None:
            about = e.description or attributes_text(e.attributes, " / ")
            rows.append((e.id, [n, e.label, e.type, about, world.degree(e.id)]))
    return rows


def rank_relationships(world: World, ids: Sequence[str], per_entity: int) -> list[Edge]:
    """Rank edges touching the selection (seed 05 step 3).

    In-network edges (both ends selected) come first, by importance; then edges leaving the
    selection, by how many selected entities their outside end links to, then importance.
    """
    selected = set(ids)
    inside: dict[str, Edge] = {}
    outside: dict[str, Edge] = {}
    for entity_id in ids:
        for _, edge, _ in world.get_related_edges(entity_id) or []:
            both = edge.source in selected and edge.target in selected
            (inside if both else outside).setdefault(edge.id, edge)
    links: Counter[str] = Counter()
    for edge in outside.values():
        other = edge.target if edge.source in selected else edge.source
        links[other] += 1

    def seq(e: Edge) -> int:
        return world.edge_seq(e.id)

    first = sorted(inside.values(), key=lambda e: (-e.importance, seq(e)))
    rest = sorted(
        outside.values(),
        key=lambda e: (
            -links[e.target if e.source in selected else e.source],
            -e.importance,
            seq(e),
        ),
    )
    return first + rest[: per_entity * len(ids)]


def rank_text_units(world: World, ids: Sequence[str]) -> list[str]:
    """Rank chunks of the selected entities (seed 05 step 4).

    By the entity's rank, then by how many of that entity's relationships cite the chunk.
    """
    keyed: dict[str, tuple[int, int]] = {}
    for order, entity_id in enumerate(ids):
        entity = world.get_entity(entity_id)
        if entity is None:
            continue
        cited: Counter[str] = Counter()
        for _, edge, _ in world.get_related_edges(entity_id) or []:
            cited.update(edge.chunk_ids)
        for chunk_id in entity.chunk_ids:
            if world.get_chunk(chunk_id) is not None and chunk_id not in keyed:
                keyed[chunk_id] = (order, -cited[chunk_id])
    return sorted(keyed, key=lambda c: keyed[c])


def rank_communities(index: CommunityIndex, ids: Sequence[str], min_size: int) -> list[str]:
    """Rank communities by how many selected entities they hold, then rank (seed 05 step 2)."""
    matches = Counter(index.by_entity[e] for e in ids if e in index.by_entity)
    found = [index.get(c) for c in matches]
    kept = [c for c in found if c is not None and len(c.entity_ids) >= min_size]
    kept.sort(key=lambda c: (-matches[c.id], -c.rank, c.id))
    return [c.id for c in kept]


def build_local_context(
    world: World,
    selected: Sequence[tuple[str, float]],
    *,
    config: LocalSearchConfig | None = None,
    communities: CommunityIndex | None = None,
    paths: Sequence[tuple[str, float]] = (),
) -> LocalContext:
    """Render the context tables for selected entities, each within its own token budget."""
    cfg = config or LocalSearchConfig()
    ids = [e for e, _ in selected if world.has_entity(e)][: cfg.top_k_entities]
    d = cfg.column_delimiter
    sections: dict[str, TableSection] = {}
    if communities is not None:
        ranked = [
            communities.get(c) for c in rank_communities(communities, ids, cfg.min_community_size)
        ]
        rows = [(c.id, [n, c.title, c.summary]) for n, c in enumerate(ranked, 1) if c is not None]
        sections["Reports"] = render_table(
            "Reports", ["id", "title", "content"], rows, cfg.community_tokens, delimiter=d
        )
    sections["Entities"] = render_table(
        "Entities",
        ["id", "entity", "type", "description", "number of relationships"],
        _entity_rows(world, ids),
        cfg.entity_tokens,
        delimiter=d,
    )
    sections["Relationships"] = _relationship_table(world, ids, cfg)
    if paths:
        rows_p = [(text, [text, f"{score:.2f}"]) for text, score in paths]
        sections["Paths"] = render_table(
            "Paths", ["path", "score"], rows_p, cfg.path_tokens, delimiter=d
        )
    sections["Sources"] = _source_table(world, ids, cfg)
    text = "\n\n".join(s.text for s in sections.values() if s.text)
    return LocalContext(text, sections, [(e, s) for e, s in selected if e in set(ids)])


def _relationship_table(world: World, ids: Sequence[str], cfg: LocalSearchConfig) -> TableSection:
    rows = []
    for n, edge in enumerate(rank_relationships(world, ids, cfg.top_k_relationships), 1):
        src, dst = world.get_entity(edge.source), world.get_entity(edge.target)
        assert src is not None and dst is not None
        about = edge.description or attributes_text(edge.attributes, " / ")
        cells = [n, src.label, edge.label, dst.label, about, f"{edge.importance:.2f}"]
        rows.append((edge.id, cells))
    header = ["id", "source", "relation", "target", "description", "importance"]
    return render_table(
        "Relationships", header, rows, cfg.relationship_tokens, delimiter=cfg.column_delimiter
    )


def _source_table(world: World, ids: Sequence[str], cfg: LocalSearchConfig) -> TableSection:
    rows = []
    for n, chunk_id in enumerate(rank_text_units(world, ids), 1):
        chunk = world.get_chunk(chunk_id)
        assert chunk is not None
        rows.append((chunk.id, [n, chunk.title, chunk.text]))
    return render_table(
        "Sources",
        ["id", "title", "text"],
        rows,
        cfg.text_unit_tokens,
        delimiter=cfg.column_delimiter,
        truncate_last=True,
    )


def local_search(
    world: World,
    query: str | np.ndarray,
    *,
    config: LocalSearchConfig | None = None,
    summarizer: Summarizer | None = None,
) -> LocalContext:
    """Build the local-search context for a query: top entities by vector similarity first."""
    cfg = config or LocalSearchConfig()
    selected = select_entities(world, query, cfg.top_k_entities)
    communities = world_communities(world, summarizer) if cfg.include_communities else None
    return build_local_context(world, selected, config=cfg, communities=communities)
