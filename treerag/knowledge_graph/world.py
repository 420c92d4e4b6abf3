"""The world model: entities and edges on a networkx MultiDiGraph with vector search (seed 01)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any, Literal

import networkx as nx
import numpy as np

from treerag.knowledge_graph.embedding import Embed, embed_checked, embedder_id, normalize_rows
from treerag.knowledge_graph.errors import DuplicateIdError, EmbeddingError, MissingEntityError
from treerag.knowledge_graph.model import (
    Edge,
    Entity,
    SearchResult,
    SearchResultEdge,
    SearchResultEntity,
    TextUnit,
    edge_text,
    entity_text,
)
from treerag.knowledge_graph.text import normalize_name
from treerag.knowledge_graph.vectors import NumpyVectorIndex, VectorIndex
from treerag.knowledge_graph.world_reads import WorldReads

Kind = Literal["entity", "edge"]


class World(WorldReads):
    """Entities, edges and text units, kept in a MultiDiGraph, with their vectors in an index.

    Entities are nodes (``graph.nodes[id]["entity"]``), edges are keyed multi-edges
    (``graph[u][v][edge_id]["edge"]``). An edge-id map makes ``get_edge`` O(1). Vectors come
    from the injected ``embed`` function; without one, vector search is unavailable and the
    path expansion scores every node as having no vector.
    """

    def __init__(
        self,
        embed: Embed | None = None,
        *,
        index: VectorIndex | None = None,
        embed_id: str | None = None,
    ) -> None:
        self.graph: nx.MultiDiGraph = nx.MultiDiGraph()
        self.embed = embed
        self.embed_id = embed_id or (embedder_id(embed) if embed is not None else "")
        self.index: VectorIndex = index if index is not None else NumpyVectorIndex()
        self._edge_ends: dict[str, tuple[str, str]] = {}
        self._edge_seq: dict[str, int] = {}
        self._chunks: dict[str, TextUnit] = {}
        self._names: dict[str, str] = {}
        self._cache: dict[str, tuple[int, Any]] = {}
        self.version = 0
        """Incremented on every change; caches built from the world compare it."""
        self.vectors_recomputed = 0
        """Vectors computed while loading (missing, or made by another embedder)."""

    # --- writing ---------------------------------------------------------------------------

    def add_entity(self, entity: Entity, vector: np.ndarray | None = None) -> Entity:
        """Add an entity; raise DuplicateIdError if its id exists."""
        self.add_entities([entity], None if vector is None else np.asarray(vector)[None, :])
        return entity

    def add_entities(self, entities: Sequence[Entity], vectors: np.ndarray | None = None) -> None:
        """Add entities in one batch (one embed call); nothing is added if any id is taken."""
        ids = [e.id for e in entities]
        clash = next((i for i in ids if i in self.graph), None) or _first_repeat(ids)
        if clash is not None:
            raise DuplicateIdError(f"entity id {clash!r} already exists")
        self.upsert_entities(entities, vectors)

    def upsert_entities(
        self, entities: Sequence[Entity], vectors: np.ndarray | None = None
    ) -> None:
        """Add entities or replace those with the same id (their vectors are recomputed)."""
        if not entities:
            return
        rows = self._vectors(vectors, [entity_text(e) for e in entities])
        for entity in entities:
            old = self.get_entity(entity.id)
            if old is not None and self._names.get(normalize_name(old.label)) == old.id:
                del self._names[normalize_name(old.label)]
            self.graph.add_node(entity.id, entity=entity)
            self._names.setdefault(normalize_name(entity.label), entity.id)
        self._store_vectors([e.id for e in entities], rows, "entity")
        self.version += 1

    def add_edge(self, edge: Edge, vector: np.ndarray | None = None) -> Edge:
        """Add an edge; raise MissingEntityError or DuplicateIdError."""
        self.add_edges([edge], None if vector is None else np.asarray(vector)[None, :])
        return edge

    def add_edges(self, edges: Sequence[Edge], vectors: np.ndarray | None = None) -> None:
        """Add edges in one batch; nothing is added if any is invalid."""
        ids = [e.id for e in edges]
        clash = next((i for i in ids if i in self._edge_ends), None) or _first_repeat(ids)
        if clash is not None:
            raise DuplicateIdError(f"edge id {clash!r} already exists")
        self.upsert_edges(edges, vectors)

    def upsert_edges(self, edges: Sequence[Edge], vectors: np.ndarray | None = None) -> None:
        """Add edges or replace those with the same id; endpoints must exist."""
        if not edges:
            return
        for edge in edges:
            for role, end in (("source", edge.source), ("target", edge.target)):
                if end not in self.graph:
                    raise MissingEntityError(
                        f"edge {edge.id!r}: {role} entity {end!r} does not exist"
                    )
        texts = [edge_text(e, self._label(e.source), self._label(e.target)) for e in edges]
        rows = self._vectors(vectors, texts)
        for edge in edges:
            old = self._edge_ends.get(edge.id)
            if old is not None:
                self.graph.remove_edge(old[0], old[1], key=edge.id)
            self.graph.add_edge(edge.source, edge.target, key=edge.id, edge=edge)
            self._edge_ends[edge.id] = (edge.source, edge.target)
            self._edge_seq.setdefault(edge.id, len(self._edge_seq))
        self._store_vectors([e.id for e in edges], rows, "edge")
        self.version += 1

    def add_chunks(self, chunks: Iterable[TextUnit]) -> None:
        """Add text units or replace those with the same id."""
        for chunk in chunks:
            self._chunks[chunk.id] = chunk
        self.version += 1

    def forget_chunks(self, chunk_ids: Iterable[str]) -> tuple[int, int]:
        """Remove text units and every trace of them; return (units, entities) removed.

        Entities keep their other chunks; an entity whose every chunk is gone goes, with its
        edges and vectors (it was extracted from those chunks only). Entities that never had
        chunks (an imported graph) are not touched.
        """
        doomed = set(chunk_ids)
        units = [i for i in doomed if self._chunks.pop(i, None) is not None]
        orphans: list[str] = []
        for node_id, data in self.graph.nodes(data=True):
            entity: Entity = data["entity"]
            if doomed.intersection(entity.chunk_ids):
                entity.chunk_ids = [c for c in entity.chunk_ids if c not in doomed]
                if not entity.chunk_ids:
                    orphans.append(node_id)
        edge_ids = [k for u, v, k in self.graph.edges(orphans, keys=True)]
        edge_ids += [k for u, v, k in self.graph.in_edges(orphans, keys=True)]
        for node_id in orphans:
            label = normalize_name(self.graph.nodes[node_id]["entity"].label)
            if self._names.get(label) == node_id:
                del self._names[label]
            self.graph.remove_node(node_id)  # removes its edges too
        for edge_id in edge_ids:
            self._edge_ends.pop(edge_id, None)
            self._edge_seq.pop(edge_id, None)
        if orphans or edge_ids:
            self.index.delete([*orphans, *set(edge_ids)])
        if units or orphans:
            self.version += 1
        return len(units), len(orphans)

    def restore(
        self, entities: Sequence[Entity], edges: Sequence[Edge], chunks: Iterable[TextUnit]
    ) -> None:
        """Add records whose vectors the index already holds (used when loading); no checks."""
        for entity in entities:
            self.graph.add_node(entity.id, entity=entity)
            self._names.setdefault(normalize_name(entity.label), entity.id)
        for edge in edges:
            self.graph.add_edge(edge.source, edge.target, key=edge.id, edge=edge)
            self._edge_ends[edge.id] = (edge.source, edge.target)
            self._edge_seq.setdefault(edge.id, len(self._edge_seq))
        self.add_chunks(chunks)

    def _label(self, entity_id: str) -> str:
        return self.graph.nodes[entity_id]["entity"].label

    def _vectors(self, given: np.ndarray | None, texts: list[str]) -> np.ndarray | None:
        if given is not None:
            rows = normalize_rows(given)
            if rows.shape[0] != len(texts):
                raise EmbeddingError(f"got {rows.shape[0]} vectors for {len(texts)} items")
            return rows
        return embed_checked(self.embed, texts) if self.embed is not None else None

    def _store_vectors(self, ids: list[str], rows: np.ndarray | None, kind: Kind) -> None:
        if rows is not None:
            self.index.upsert(ids, rows, [kind] * len(ids))

    # --- vectors and search ----------------------------------------------------------------

    def embed_query(self, text: str) -> np.ndarray:
        """Embed a query with the world's embed function."""
        if self.embed is None:
            raise EmbeddingError("this world has no embed function; pass embed= to World/load")
        return embed_checked(self.embed, [text])[0]

    def entity_vector(self, entity_id: str) -> np.ndarray | None:
        """Return an entity's unit vector, or None when it has none (or an all-zero one)."""
        found, rows = self.index.fetch([entity_id])
        if not found or not np.any(rows[0]):
            return None
        return rows[0]

    def search(
        self, query: str | np.ndarray, limit: int = 5, kind: Kind | None = None
    ) -> list[SearchResult]:
        """Return the entities and edges most similar to a query text or vector."""
        vector = self.embed_query(query) if isinstance(query, str) else np.asarray(query)
        results: list[SearchResult] = []
        for ident, score in self.index.search(vector, limit, kind):
            entity = self.get_entity(ident)
            edge = self.get_edge(ident) if entity is None else None
            if entity is not None:
                results.append(SearchResultEntity.of(entity, score))
            elif edge is not None:  # ids of deleted records may linger in an external index
                results.append(SearchResultEdge.of(edge, score))
        return results

    def search_entities(self, query: str | np.ndarray, k: int = 10) -> list[SearchResultEntity]:
        """Return the k entities most similar to a query text or vector."""
        return [r for r in self.search(query, k, "entity") if isinstance(r, SearchResultEntity)]

    # --- rendering and files ---------------------------------------------------------------

    def to_mermaid(self, max_entities: int | None = None) -> str:
        """Return a Mermaid flowchart of the world (optionally of its first entities only)."""
        from treerag.knowledge_graph.mermaid import world_to_mermaid

        return world_to_mermaid(self, max_entities)

    def save(self, directory: str | Path) -> None:
        """Write the world to a directory; each file is replaced atomically."""
        from treerag.knowledge_graph.storage import save_world

        save_world(self, directory)

    @classmethod
    def load(
        cls,
        directory: str | Path,
        embed: Embed | None = None,
        *,
        index: VectorIndex | None = None,
        embed_id: str | None = None,
    ) -> World:
        """Read a world written by save(); re-embed what the index lacks or a new embedder needs."""
        from treerag.knowledge_graph.storage import load_world

        return load_world(directory, embed, index=index, embed_id=embed_id)


def _first_repeat(ids: Sequence[str]) -> str | None:
    seen: set[str] = set()
    for ident in ids:
        if ident in seen:
            return ident
        seen.add(ident)
    return None
