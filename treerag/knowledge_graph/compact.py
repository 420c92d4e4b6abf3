"""Array form of a world for the vectorised expansion: CSR adjacency, vectors, memories."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from treerag.knowledge_graph.config import ExpansionConfig
from treerag.knowledge_graph.memories import MemoryMap

if TYPE_CHECKING:
    from treerag.knowledge_graph.world import World


@dataclass(frozen=True)
class Adjacency:
    """Neighbour lists in CSR form, each list sorted best edge first.

    Slots ``offsets[n]:offsets[n+1]`` hold node n's edges, ordered by weight, then
    importance, then insertion (seed 04 §3.3 step 2.1).
    """

    offsets: np.ndarray
    edge: np.ndarray
    nbr: np.ndarray
    forward: np.ndarray
    weight: np.ndarray


@dataclass(frozen=True)
class CompiledMemories:
    """Node → memory positions in CSR form plus the memories' scoring fields."""

    offsets: np.ndarray
    ids: np.ndarray
    importance: np.ndarray
    created_at: np.ndarray
    last_accessed_at: np.ndarray
    """NaN where never accessed."""


class CompactGraph:
    """Entities as integer nodes, edges as arrays, vectors as one matrix."""

    def __init__(
        self,
        node_ids: list[str],
        vectors: np.ndarray,
        edge_ids: list[str],
        edge_src: np.ndarray,
        edge_dst: np.ndarray,
        edge_importance: np.ndarray,
        edge_types: list[str],
    ) -> None:
        self.node_ids = node_ids
        self.node_index = {n: i for i, n in enumerate(node_ids)}
        self.vectors = vectors
        self.has_vector = np.any(vectors != 0, axis=1) if vectors.size else np.zeros(0, bool)
        if len(self.has_vector) != len(node_ids):
            self.has_vector = np.zeros(len(node_ids), dtype=bool)
        self.edge_ids = edge_ids
        self.edge_src = edge_src
        self.edge_dst = edge_dst
        self.edge_importance = edge_importance
        self.type_names = sorted(set(edge_types))
        code = {t: i for i, t in enumerate(self.type_names)}
        self.edge_type_code = np.array([code[t] for t in edge_types], dtype=np.int32)
        self._adjacency: dict[tuple[object, ...], Adjacency] = {}
        self._memories: dict[int, tuple[MemoryMap, CompiledMemories]] = {}

    @property
    def num_nodes(self) -> int:
        """Return the number of nodes."""
        return len(self.node_ids)

    @classmethod
    def from_world(cls, world: World) -> CompactGraph:
        """Build the arrays from a world (vectors are read from its index)."""
        node_ids = list(world.graph.nodes)
        found, rows = world.index.fetch(node_ids)
        dim = rows.shape[1] if rows.size else 1
        vectors = np.zeros((len(node_ids), dim), dtype=np.float32)
        if found:
            index = {n: i for i, n in enumerate(node_ids)}
            vectors[[index[n] for n in found]] = rows
        edges = list(world.edges())
        position = {n: i for i, n in enumerate(node_ids)}
        return cls(
            node_ids,
            vectors,
            [e.id for e in edges],
            np.array([position[e.source] for e in edges], dtype=np.int32),
            np.array([position[e.target] for e in edges], dtype=np.int32),
            np.array([e.importance for e in edges], dtype=np.float64),
            [e.type for e in edges],
        )

    def edge_weights(self, config: ExpansionConfig) -> np.ndarray:
        """Return importance × type weight per edge (seed 04 §4.2)."""
        table = np.array([config.type_weight(t) for t in self.type_names], dtype=np.float64)
        if not len(self.edge_ids):
            return np.zeros(0, dtype=np.float64)
        weights: np.ndarray = self.edge_importance * table[self.edge_type_code]
        return weights

    def adjacency(self, config: ExpansionConfig) -> Adjacency:
        """Return the sorted neighbour lists for the config's direction and type weights."""
        key = (config.directed, config.weights_key())
        adj = self._adjacency.get(key)
        if adj is None:
            adj = self._build_adjacency(self.edge_weights(config), config.directed)
            self._adjacency[key] = adj
        return adj

    def _build_adjacency(self, weight: np.ndarray, directed: bool) -> Adjacency:
        n_edges = len(self.edge_ids)
        edge = np.arange(n_edges, dtype=np.int32)
        owner, nbr = self.edge_src, self.edge_dst
        forward = np.ones(n_edges, dtype=bool)
        if not directed:
            # Walking an edge backwards; a self-loop is listed once.
            back = self.edge_src != self.edge_dst
            edge = np.concatenate([edge, edge[back]])
            owner = np.concatenate([owner, self.edge_dst[back]])
            nbr = np.concatenate([nbr, self.edge_src[back]])
            forward = np.concatenate([forward, np.zeros(int(back.sum()), dtype=bool)])
        w = weight[edge]
        order = np.lexsort((edge, -self.edge_importance[edge], -w, owner))
        counts = np.bincount(owner, minlength=self.num_nodes)
        offsets = np.zeros(self.num_nodes + 1, dtype=np.int64)
        np.cumsum(counts, out=offsets[1:])
        return Adjacency(offsets, edge[order], nbr[order], forward[order], w[order])

    def memories(self, memory_map: MemoryMap) -> CompiledMemories:
        """Return the memory map in array form (cached per map object)."""
        hit = self._memories.get(id(memory_map))
        if hit is not None and hit[0] is memory_map:
            return hit[1]
        compiled = _compile_memories(self.node_ids, memory_map)
        self._memories[id(memory_map)] = (memory_map, compiled)
        return compiled


def _compile_memories(node_ids: list[str], memory_map: MemoryMap) -> CompiledMemories:
    lists = [[memory_map.position[m] for m in memory_map.of_node(n)] for n in node_ids]
    counts = np.array([len(x) for x in lists], dtype=np.int64)
    offsets = np.zeros(len(node_ids) + 1, dtype=np.int64)
    np.cumsum(counts, out=offsets[1:])
    flat = [m for x in lists for m in x]
    mems = memory_map.memories
    return CompiledMemories(
        offsets=offsets,
        ids=np.array(flat, dtype=np.int64),
        importance=np.array([m.importance for m in mems], dtype=np.float64),
        created_at=np.array([m.created_at for m in mems], dtype=np.float64),
        last_accessed_at=np.array(
            [np.nan if m.last_accessed_at is None else m.last_accessed_at for m in mems],
            dtype=np.float64,
        ),
    )


def compact_graph(world: World) -> CompactGraph:
    """Return the world's compact form, rebuilt only when the world has changed."""
    return world.cached("compact", lambda: CompactGraph.from_world(world))
