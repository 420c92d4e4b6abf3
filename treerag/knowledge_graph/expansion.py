"""Vectorised path-scoring expansion (seed 04): whole hops as numpy array operations.

Semantics are those of ``expansion_reference`` (read its module docstring); each hop is
one batch: candidate generation by CSR slicing, node scores by one matrix product, pruning
by a scatter-max, merging by one sort, memory scoring by bincount.
"""

from __future__ import annotations

import time
from collections.abc import Sequence

import numpy as np

from treerag.knowledge_graph.compact import Adjacency, CompactGraph
from treerag.knowledge_graph.config import ExpansionConfig, MergeStrategy
from treerag.knowledge_graph.embedding import unit_query
from treerag.knowledge_graph.errors import EmbeddingError
from treerag.knowledge_graph.expansion_layers import Layer
from treerag.knowledge_graph.expansion_memories import score_memories
from treerag.knowledge_graph.memories import MemoryMap
from treerag.knowledge_graph.paths import ExpansionResult, HopStats, normalise_seeds

_I = np.int64


class _NodeScores:
    """Clipped cosines to the query, computed once per node on first need (§4.3)."""

    def __init__(self, graph: CompactGraph, query: np.ndarray, config: ExpansionConfig):
        self.graph = graph
        self.query = query
        self.missing = config.missing_vector_score
        self.cache = np.full(graph.num_nodes, np.nan)

    def __call__(self, nodes: np.ndarray) -> np.ndarray:
        need = np.unique(nodes[np.isnan(self.cache[nodes])])
        if len(need):
            has = self.graph.has_vector[need]
            with_vec = need[has]
            if len(with_vec):
                # float32 rows against the float64 query, summed in float64: within ~1e-13
                # of the reference's per-node dot, without BLAS threads (slower here).
                sims = np.einsum("ij,j->i", self.graph.vectors[with_vec], self.query)
                self.cache[with_vec] = np.clip(sims, 0.0, 1.0)
            self.cache[need[~has]] = self.missing
        out: np.ndarray = self.cache[nodes]
        return out


def _candidates(
    layer: Layer, adj: Adjacency, max_branches: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Return (parent row, adjacency slot, next node) of every allowed one-edge extension."""
    ends = layer.end
    starts = adj.offsets[ends]
    degree = adj.offsets[ends + 1] - starts
    # §4.4 dynamic branching, with the score clipped to [0, 1] as in scoring.branch_limit.
    ratio = 0.5 + 0.5 * np.clip(layer.score, 0.0, 1.0)
    limit = np.maximum(1, (max_branches * ratio).astype(_I))
    take = np.minimum(degree, limit)
    parent = np.repeat(np.arange(len(layer), dtype=_I), take)
    first = np.repeat(starts - (np.cumsum(take) - take), take)
    slot = first + np.arange(len(parent), dtype=_I)
    nxt = adj.nbr[slot].astype(_I)
    fresh = ~(layer.route[parent] == nxt[:, None]).any(axis=1)
    return parent[fresh], slot[fresh], nxt[fresh]


def _pair_merges(nxt: np.ndarray, score: np.ndarray, tolerance: float) -> tuple[np.ndarray, ...]:
    """Return (leader, partner) rows: candidates at one node paired in score order."""
    m = len(score)
    idx = np.arange(m, dtype=_I)
    order = np.lexsort((idx, -score, nxt))
    node, ordered = nxt[order], score[order]
    same_next = np.zeros(m, dtype=bool)
    same_next[:-1] = node[1:] == node[:-1]
    group_start = np.ones(m, dtype=bool)
    group_start[1:] = node[1:] != node[:-1]
    # Rank within each node's group in score order; pairs are ranks (0, 1), (2, 3), …
    rank = idx - np.maximum.accumulate(np.where(group_start, idx, 0))
    gap = np.full(m, np.inf)
    gap[:-1] = ordered[:-1] - ordered[1:]
    lead_pos = np.flatnonzero((rank % 2 == 0) & same_next & (gap < tolerance))
    return order[lead_pos], order[lead_pos + 1]


def _merged_scores(a: np.ndarray, b: np.ndarray, config: ExpansionConfig) -> np.ndarray:
    # seed 04 §4.5, the array twin of scoring.merge_scores
    if config.merge_strategy is MergeStrategy.MAX_BONUS:
        out: np.ndarray = np.maximum(a, b) * config.max_bonus
        return out
    out = np.sqrt(a * b) * config.geometric_bonus
    return out


def _next_layer(
    layer: Layer,
    adj: Adjacency,
    cand: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray],
    config: ExpansionConfig,
) -> tuple[Layer, int]:
    parent, slot, nxt, score = cand
    lead, part = _pair_merges(nxt, score, config.merge_score_tolerance)
    partner = np.full(len(score), -1, dtype=_I)
    partner[lead] = part
    merged = score.copy()
    merged[lead] = _merged_scores(score[lead], score[part], config)
    keep = np.ones(len(score), dtype=bool)
    keep[part] = False
    rows = np.flatnonzero(keep)
    par, pp = parent[rows], partner[rows]
    has_p = pp >= 0
    pp_safe = np.where(has_p, pp, 0)
    partner_parent = np.where(has_p, parent[pp_safe], -1)
    # A merged path also counts the nodes of the route it absorbed (memory mapping, §3.5);
    # the padded node-set only widens in hops where a merge happened.
    nodeset = [layer.nodeset[par]]
    if has_p.any():
        extra = layer.nodeset[np.where(has_p, partner_parent, 0)]
        extra[~has_p] = -1
        nodeset.append(extra)
    end = nxt[rows][:, None]
    new = Layer(
        score=merged[rows],
        raw=score[rows],
        route=np.hstack([layer.route[par], end]),
        eroute=np.hstack([layer.eroute[par], adj.edge[slot[rows]][:, None].astype(_I)]),
        froute=np.hstack([layer.froute[par], adj.forward[slot[rows]][:, None]]),
        nodeset=np.hstack([*nodeset, end]),
        partner_parent=partner_parent.astype(_I),
        partner_edge=np.where(has_p, adj.edge[slot[pp_safe]], -1).astype(_I),
        partner_fwd=np.where(has_p, adj.forward[slot[pp_safe]], False),
        partner_raw=np.where(has_p, score[pp_safe], 0.0),
        extended=np.zeros(len(rows), dtype=bool),
    )
    return new, len(lead)


def _hop(
    layer: Layer,
    hop: int,
    adj: Adjacency,
    best: np.ndarray,
    scores: _NodeScores,
    config: ExpansionConfig,
) -> tuple[Layer, HopStats]:
    parent, slot, nxt = _candidates(layer, adj, config.max_branches_per_node)
    decay = config.damping_factor**hop
    # seed 04 §4.1: new = old × w_e × α^d + s_n × (1 − α^d)
    score = layer.score[parent] * adj.weight[slot] * decay + scores(nxt) * (1.0 - decay)
    hop_best = np.full(len(best), -np.inf)
    np.maximum.at(hop_best, nxt, score)
    keep = ~(score < config.pruning_threshold * np.maximum(best[nxt], hop_best[nxt]))
    parent, slot, nxt, score = parent[keep], slot[keep], nxt[keep], score[keep]
    np.maximum.at(best, nxt, score)
    layer.extended[parent] = True
    new, merged = _next_layer(layer, adj, (parent, slot, nxt, score), config)
    pruned = int(len(keep) - keep.sum())
    return new, HopStats(hop, len(keep), pruned, merged, len(new))


def expand_paths(
    graph: CompactGraph,
    seeds: Sequence[tuple[str, float]],
    query: Sequence[float] | np.ndarray,
    *,
    memories: MemoryMap,
    config: ExpansionConfig | None = None,
    now: float | None = None,
    top_k: int | None = 20,
    top_paths: int | None = 20,
    paths_per_memory: int = 3,
    min_path_depth: int = 0,
) -> ExpansionResult:
    """Expand seeds along scored paths and rank memories (seed 04 §3).

    Args:
        graph: The world in array form (``compact_graph(world)``).
        seeds: (entity id, similarity) pairs from vector search, best first.
        query: The query vector the node scores are measured against.
        memories: What paths map to (``world_memories(world, "entity" | "chunk")``).
        config: Expansion settings; the seed's defaults when omitted.
        now: Epoch seconds for recency; the current time when omitted.
        top_k: How many memories to return (None: all).
        top_paths: How many leaf paths to return, best first (None: all).
        paths_per_memory: How many contributing paths to attach to each memory.
        min_path_depth: Leave shorter paths out of ``paths`` (1 drops lone seeds).
    """
    cfg = config or ExpansionConfig()
    now = time.time() if now is None else now
    q = unit_query(query)
    if graph.has_vector.any() and q.shape[0] != graph.vectors.shape[1]:
        raise EmbeddingError(
            f"query vector has {q.shape[0]} dimensions, "
            f"the graph's vectors {graph.vectors.shape[1]}"
        )
    start = normalise_seeds(seeds, known=graph.node_index)
    nodes = np.array([graph.node_index[n] for n, _ in start], dtype=_I)
    layer = Layer.seeds(nodes, np.array([s for _, s in start], dtype=np.float64))
    best = np.full(graph.num_nodes, -np.inf)
    best[nodes] = layer.score
    adj = graph.adjacency(cfg)
    scores = _NodeScores(graph, q, cfg)
    layers, hops = [layer], []
    for hop in range(1, cfg.max_hops + 1):
        if not len(layer):
            break
        layer, stats = _hop(layer, hop, adj, best, scores, cfg)
        layers.append(layer)
        hops.append(stats)
    return score_memories(
        layers, graph, memories, cfg, now, hops, top_k, top_paths, paths_per_memory, min_path_depth
    )
