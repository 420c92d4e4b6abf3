"""Vectorised leaf extraction, path → memory mapping and final scoring (seed 04 §3.4–§3.6)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from treerag.knowledge_graph.compact import CompactGraph, CompiledMemories
from treerag.knowledge_graph.config import ExpansionConfig
from treerag.knowledge_graph.expansion_layers import Layer, materialise
from treerag.knowledge_graph.memories import MemoryMap
from treerag.knowledge_graph.paths import ExpansionResult, HopStats, ScoredMemory, ScoredPath
from treerag.knowledge_graph.recency import recency_scores

_I = np.int64


def _group_ranks(keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For keys sorted into runs, return each item's rank in its run and the run starts."""
    m = len(keys)
    idx = np.arange(m, dtype=_I)
    start = np.ones(m, dtype=bool)
    start[1:] = keys[1:] != keys[:-1]
    return idx - np.maximum.accumulate(np.where(start, idx, 0)), np.flatnonzero(start)


def _leaves(layers: list[Layer]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Return (hop, row, score) of every path no surviving candidate extended (§3.4)."""
    hop, row, score = [], [], []
    for h, lay in enumerate(layers):
        rows = np.flatnonzero(~lay.extended)
        hop.append(np.full(len(rows), h, dtype=_I))
        row.append(rows.astype(_I))
        score.append(lay.score[rows])
    return np.concatenate(hop), np.concatenate(row), np.concatenate(score)


def _leaf_memory_pairs(
    layers: list[Layer], mem: CompiledMemories, n_memories: int
) -> tuple[np.ndarray, np.ndarray]:
    """Return unique (leaf, memory) pairs: a leaf reaches the memories of all its nodes (§3.5)."""
    leaf_ids, nodes = [], []
    base = 0
    for lay in layers:
        sets = lay.nodeset[np.flatnonzero(~lay.extended)]
        leaf_ids.append(np.repeat(base + np.arange(len(sets), dtype=_I), sets.shape[1]))
        nodes.append(sets.ravel())
        base += len(sets)
    leaf, node = np.concatenate(leaf_ids), np.concatenate(nodes)
    valid = node >= 0
    leaf, node = leaf[valid], node[valid]
    starts = mem.offsets[node]
    counts = mem.offsets[node + 1] - starts
    first = np.repeat(starts - (np.cumsum(counts) - counts), counts)
    memory = mem.ids[first + np.arange(int(counts.sum()), dtype=_I)]
    key = np.unique(np.repeat(leaf, counts) * max(1, n_memories) + memory)
    return key // max(1, n_memories), key % max(1, n_memories)


@dataclass
class _Ranked:
    """Per-memory aggregates, memories in first-hit order, with their sorted (leaf) runs."""

    leaf: np.ndarray
    starts: np.ndarray
    counts: np.ndarray
    hit: np.ndarray
    path_score: np.ndarray
    recency: np.ndarray
    final: np.ndarray


def _rank(
    layers: list[Layer],
    leaf_score: np.ndarray,
    mem: CompiledMemories,
    n_memories: int,
    config: ExpansionConfig,
    now: float,
) -> _Ranked:
    leaf, memory = _leaf_memory_pairs(layers, mem, n_memories)
    score = leaf_score[leaf]
    order = np.lexsort((leaf, -score, memory))
    leaf, memory, score = leaf[order], memory[order], score[order]
    rank, starts = _group_ranks(memory)
    # §4.6: rank-weighted mean, weights 1, 1/2, 1/3… summed best first (bincount adds in
    # array order, the same order as the reference's loop).
    weight = 1.0 / (rank + 1)
    num = np.bincount(memory, weights=score * weight, minlength=n_memories)
    den = np.bincount(memory, weights=weight, minlength=n_memories)
    hit = memory[starts]
    path_score = num[hit] / den[hit]
    recency = recency_scores(mem.created_at[hit], mem.last_accessed_at[hit], now, config.recency)
    w = config.final_weights
    # §3.6: final = 0.5 × path + 0.3 × importance + 0.2 × recency (seed defaults)
    final = w.path_score * path_score + w.importance * mem.importance[hit] + w.recency * recency
    counts = np.diff(np.append(starts, len(memory)))
    return _Ranked(leaf, starts, counts, hit, path_score, recency, final)


def score_memories(
    layers: list[Layer],
    graph: CompactGraph,
    memories: MemoryMap,
    config: ExpansionConfig,
    now: float,
    hops: list[HopStats],
    top_k: int | None,
    top_paths: int | None,
    paths_per_memory: int,
    min_path_depth: int = 0,
) -> ExpansionResult:
    """Rank memories by aggregated path score, importance and recency; attach best paths."""
    leaf_hop, leaf_row, leaf_score = _leaves(layers)
    r = _rank(layers, leaf_score, graph.memories(memories), len(memories), config, now)
    made: dict[int, ScoredPath] = {}

    def path_of(li: int) -> ScoredPath:
        if li not in made:  # one leaf often feeds several memories
            made[li] = materialise(layers, int(leaf_hop[li]), int(leaf_row[li]), graph)
        return made[li]

    leaf_list = r.leaf.tolist()
    out = []
    for g in np.lexsort((r.hit, -r.final))[:top_k].tolist():
        begin, n = int(r.starts[g]), int(r.counts[g])
        paths = tuple(path_of(li) for li in leaf_list[begin : begin + min(n, paths_per_memory)])
        m = memories.memories[int(r.hit[g])]
        scores = float(r.final[g]), float(r.path_score[g]), m.importance, float(r.recency[g])
        out.append(ScoredMemory(m, *scores, n, paths))
    deep = np.flatnonzero(leaf_hop >= min_path_depth)
    best_leaves = deep[np.lexsort((deep, -leaf_score[deep]))][:top_paths]
    return ExpansionResult(
        memories=out,
        paths=[path_of(i) for i in best_leaves.tolist()],
        hops=hops,
        leaf_count=len(leaf_score),
    )
