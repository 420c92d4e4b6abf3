"""Reading the world model: lookups, iteration, neighbourhoods and derived-value caches."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any, TypeVar

import networkx as nx

from treerag.knowledge_graph.model import Edge, Entity, TextUnit
from treerag.knowledge_graph.text import normalize_name

T = TypeVar("T")


class WorldReads:
    """The read side of `World`; world.py owns the state's layout, construction and writes."""

    graph: nx.MultiDiGraph
    version: int
    _edge_ends: dict[str, tuple[str, str]]
    _edge_seq: dict[str, int]
    _chunks: dict[str, TextUnit]
    _names: dict[str, str]
    _cache: dict[str, tuple[int, Any]]

    def __len__(self) -> int:
        return self.graph.number_of_nodes()

    @property
    def num_edges(self) -> int:
        """Return the number of edges."""
        return len(self._edge_ends)

    def __repr__(self) -> str:
        return f"World({len(self)} entities, {self.num_edges} edges, {len(self._chunks)} chunks)"

    def has_entity(self, entity_id: str) -> bool:
        """Return whether an entity with this id exists."""
        return entity_id in self.graph

    def get_entity(self, entity_id: str) -> Entity | None:
        """Return the entity with this id, or None."""
        data = self.graph.nodes.get(entity_id)
        return None if data is None else data["entity"]

    def get_edge(self, edge_id: str) -> Edge | None:
        """Return the edge with this id, or None, in O(1)."""
        ends = self._edge_ends.get(edge_id)
        if ends is None:
            return None
        # Straight through the adjacency dicts: no scan over edges.
        edge: Edge = self.graph[ends[0]][ends[1]][edge_id]["edge"]
        return edge

    def get_chunk(self, chunk_id: str) -> TextUnit | None:
        """Return the text unit with this id, or None."""
        return self._chunks.get(chunk_id)

    def entities(self) -> Iterator[Entity]:
        """Yield entities in insertion order."""
        for _, data in self.graph.nodes(data="entity"):
            yield data

    def edges(self) -> Iterator[Edge]:
        """Yield edges in insertion order."""
        for edge_id in self._edge_seq:
            edge = self.get_edge(edge_id)
            assert edge is not None
            yield edge

    def chunks(self) -> Iterator[TextUnit]:
        """Yield text units in insertion order."""
        yield from self._chunks.values()

    def edge_seq(self, edge_id: str) -> int:
        """Return the insertion rank of an edge (ties in rankings are broken by it)."""
        return self._edge_seq[edge_id]

    def find_entity(self, name: str) -> Entity | None:
        """Return the first entity whose name normalizes like ``name``, or None."""
        entity_id = self._names.get(normalize_name(name))
        return None if entity_id is None else self.get_entity(entity_id)

    def degree(self, entity_id: str) -> int:
        """Return the number of edges touching an entity (a self-loop counts once)."""
        related = self.get_related_edges(entity_id)
        return 0 if related is None else len(related)

    def get_related_edges(self, entity_id: str) -> list[tuple[Entity, Edge, Entity]] | None:
        """Return (start, edge, end) for every edge touching the entity; None if it is unknown.

        Out-edges come first, then in-edges; a self-loop appears once.
        """
        if entity_id not in self.graph:
            return None
        seen: set[str] = set()
        out: list[tuple[Entity, Edge, Entity]] = []
        edge_lists = (
            self.graph.out_edges(entity_id, keys=True, data="edge"),
            self.graph.in_edges(entity_id, keys=True, data="edge"),
        )
        for edge_list in edge_lists:
            for u, v, key, edge in edge_list:
                if key in seen:
                    continue
                seen.add(key)
                out.append((self.graph.nodes[u]["entity"], edge, self.graph.nodes[v]["entity"]))
        return out

    def get_edges_between(self, from_id: str, to_id: str) -> list[Edge] | None:
        """Return the edges from one entity to another; None if either is unknown."""
        if from_id not in self.graph or to_id not in self.graph:
            return None
        data = self.graph.get_edge_data(from_id, to_id, default={})
        return [d["edge"] for d in data.values()]

    def chunk_entities(self, chunk_id: str) -> list[str]:
        """Return the ids of entities linked to a text unit."""
        index = self.cached("chunk_entities", self._build_chunk_entities)
        return index.get(chunk_id, [])

    def _build_chunk_entities(self) -> dict[str, list[str]]:
        index: dict[str, list[str]] = {}
        for entity in self.entities():
            for chunk_id in entity.chunk_ids:
                index.setdefault(chunk_id, []).append(entity.id)
        return index

    def cached(self, key: str, build: Callable[[], T]) -> T:
        """Return a value derived from the world, rebuilt when the world has changed."""
        hit = self._cache.get(key)
        if hit is not None and hit[0] == self.version:
            return hit[1]
        value = build()
        self._cache[key] = (self.version, value)
        return value

    def peek_cached(self, key: str) -> Any | None:
        """Return a derived value if it was built for the current version, else None."""
        hit = self._cache.get(key)
        return hit[1] if hit is not None and hit[0] == self.version else None

    def put_cached(self, key: str, value: Any) -> None:
        """Store a derived value for the current version (used when loading saved caches)."""
        self._cache[key] = (self.version, value)
