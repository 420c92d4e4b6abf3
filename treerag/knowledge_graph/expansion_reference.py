"""Plain per-path implementation of the path-scoring expansion (seed 04), for checking.

It walks the networkx graph one path at a time, exactly as the seed's pseudocode reads,
and defines the semantics the vectorised ``expansion.expand_paths`` must reproduce:

* Hops are synchronous: every path of hop d is extended before any pruning or merging of
  hop d, so the result does not depend on the order in which paths are visited.
* Pruning (§3.3 step 2.8): a candidate is dropped when its score is below
  ``pruning_threshold`` × the best score known to reach its end node (from earlier hops,
  seeds, or this hop's candidates).
* Merging (§3.3 step 2.7, §4.5, §8.5 Q2): candidates of one hop that end at the same node
  are paired in score order (1st with 2nd, 3rd with 4th, …; ties by creation order); a pair
  whose scores differ by less than ``merge_score_tolerance`` becomes one merged path that
  keeps the better route and counts the nodes of both.
* Leaves (§3.4): every path, of any hop, that no surviving candidate extended.
"""

from __future__ import annotations

import math
import time
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from treerag.knowledge_graph.config import ExpansionConfig
from treerag.knowledge_graph.embedding import unit_query
from treerag.knowledge_graph.memories import MemoryMap, world_memories
from treerag.knowledge_graph.model import Edge
from treerag.knowledge_graph.paths import (
    ExpansionResult,
    HopStats,
    ScoredMemory,
    ScoredPath,
    normalise_seeds,
)
from treerag.knowledge_graph.recency import recency_score
from treerag.knowledge_graph.scoring import (
    aggregate_path_scores,
    branch_limit,
    edge_weight,
    final_score,
    merge_scores,
    node_score,
    propagate_score,
)
from treerag.knowledge_graph.world import World


@dataclass(eq=False)
class _Path:
    nodes: tuple[str, ...]
    edges: tuple[str, ...]
    forward: tuple[bool, ...]
    score: float
    raw_score: float
    nodeset: frozenset[str]
    partner: _Path | None = None
    extended: bool = False


@dataclass(eq=False)
class _Candidate:
    parent: _Path
    edge: Edge
    node: str
    forward: bool
    score: float

    def route(self) -> _Path:
        p = self.parent
        return _Path(
            p.nodes + (self.node,),
            p.edges + (self.edge.id,),
            p.forward + (self.forward,),
            self.score,
            self.score,
            p.nodeset | {self.node},
        )


@dataclass
class _Walker:
    world: World
    query: np.ndarray
    config: ExpansionConfig
    _neighbours: dict[str, list[tuple[Edge, str, bool]]] = field(default_factory=dict)
    _scores: dict[str, float] = field(default_factory=dict)

    def neighbours(self, node: str) -> list[tuple[Edge, str, bool]]:
        """Return (edge, other end, forward) best edge first (§3.3 step 2.1)."""
        if node not in self._neighbours:
            graph = self.world.graph
            found = [(e, v, True) for _, v, e in graph.out_edges(node, data="edge")]
            if not self.config.directed:
                found += [
                    (e, u, False) for u, _, e in graph.in_edges(node, data="edge") if u != node
                ]
            cfg = self.config
            found.sort(
                key=lambda t: (
                    -edge_weight(t[0].importance, t[0].type, cfg),
                    -t[0].importance,
                    self.world.edge_seq(t[0].id),
                )
            )
            self._neighbours[node] = found
        return self._neighbours[node]

    def node_score(self, node: str) -> float:
        """Return the clipped cosine of a node to the query, 0.3 without a vector (§4.3)."""
        if node not in self._scores:
            vec = self.world.entity_vector(node)
            sim = None if vec is None else float(vec.astype(np.float64) @ self.query)
            self._scores[node] = node_score(sim, self.config)
        return self._scores[node]


def _candidates(walker: _Walker, layer: list[_Path], hop: int) -> list[_Candidate]:
    cfg = walker.config
    out: list[_Candidate] = []
    for path in layer:
        limit = branch_limit(path.score, cfg.max_branches_per_node)
        for edge, nxt, fwd in walker.neighbours(path.nodes[-1])[:limit]:
            if nxt in path.nodes:
                continue  # no cycles within a path (§3.3)
            weight = edge_weight(edge.importance, edge.type, cfg)
            score = propagate_score(
                path.score, weight, walker.node_score(nxt), hop, cfg.damping_factor
            )
            out.append(_Candidate(path, edge, nxt, fwd, score))
    return out


def _prune(cands: list[_Candidate], best: dict[str, float], threshold: float) -> list[_Candidate]:
    hop_best: dict[str, float] = {}
    for c in cands:
        hop_best[c.node] = max(hop_best.get(c.node, -math.inf), c.score)
    kept = [
        c
        for c in cands
        if not c.score < threshold * max(best.get(c.node, -math.inf), hop_best[c.node])
    ]
    for c in kept:
        best[c.node] = max(best.get(c.node, -math.inf), c.score)
        c.parent.extended = True
    return kept


def _merge(kept: list[_Candidate], config: ExpansionConfig) -> tuple[list[_Path], int]:
    groups: dict[str, list[int]] = {}
    for i, c in enumerate(kept):
        groups.setdefault(c.node, []).append(i)
    partner: dict[int, int] = {}
    for members in groups.values():
        ranked = sorted(members, key=lambda i: (-kept[i].score, i))
        for r in range(0, len(ranked) - 1, 2):
            lead, other = ranked[r], ranked[r + 1]
            if kept[lead].score - kept[other].score < config.merge_score_tolerance:
                partner[lead] = other
    absorbed = set(partner.values())
    layer: list[_Path] = []
    for i, c in enumerate(kept):
        if i in absorbed:
            continue
        path = c.route()
        if i in partner:
            mate = kept[partner[i]]
            path.score = merge_scores(c.score, mate.score, config)
            path.partner = mate.route()
            path.nodeset = path.nodeset | mate.parent.nodeset
        layer.append(path)
    return layer, len(partner)


def _public(path: _Path) -> ScoredPath:
    merged: tuple[ScoredPath, ...] = ()
    if path.partner is not None:
        lead = ScoredPath(path.nodes, path.edges, path.forward, path.raw_score)
        p = path.partner
        merged = (lead, ScoredPath(p.nodes, p.edges, p.forward, p.raw_score))
    return ScoredPath(path.nodes, path.edges, path.forward, path.score, merged)


def _score_memories(
    leaves: list[_Path],
    memories: MemoryMap,
    config: ExpansionConfig,
    now: float,
    top_k: int | None,
    paths_per_memory: int,
) -> list[ScoredMemory]:
    hits: dict[int, list[tuple[float, int]]] = {}
    for li, leaf in enumerate(leaves):
        reached: set[str] = set()
        for node in leaf.nodeset:
            reached.update(memories.of_node(node))
        for memory_id in reached:
            hits.setdefault(memories.position[memory_id], []).append((leaf.score, li))
    rows = []
    for pos, entries in hits.items():
        mem = memories.memories[pos]
        path_score = aggregate_path_scores([s for s, _ in entries])
        rec = recency_score(mem.created_at, mem.last_accessed_at, now, config.recency)
        final = final_score(path_score, mem.importance, rec, config.final_weights)
        rows.append((final, pos, path_score, rec, entries))
    rows.sort(key=lambda r: (-r[0], r[1]))
    out = []
    for final, pos, path_score, rec, entries in rows[:top_k]:
        best = sorted(entries, key=lambda e: (-e[0], e[1]))[:paths_per_memory]
        mem = memories.memories[pos]
        paths = tuple(_public(leaves[li]) for _, li in best)
        out.append(ScoredMemory(mem, final, path_score, mem.importance, rec, len(entries), paths))
    return out


def expand_paths_reference(
    world: World,
    seeds: Sequence[tuple[str, float]],
    query: Sequence[float] | np.ndarray,
    *,
    memories: MemoryMap | None = None,
    config: ExpansionConfig | None = None,
    now: float | None = None,
    top_k: int | None = 20,
    top_paths: int | None = 20,
    paths_per_memory: int = 3,
    min_path_depth: int = 0,
) -> ExpansionResult:
    """Expand seeds along scored paths and rank memories, one path at a time (seed 04 §3)."""
    cfg = config or ExpansionConfig()
    memory_map = memories if memories is not None else world_memories(world, "entity")
    now = time.time() if now is None else now
    walker = _Walker(world, unit_query(query), cfg)
    start = normalise_seeds(seeds, known=set(world.graph.nodes))
    layer = [_Path((n,), (), (), s, s, frozenset((n,))) for n, s in start]
    best = dict(start)
    layers, hops = [layer], []
    for hop in range(1, cfg.max_hops + 1):
        if not layer:
            break
        cands = _candidates(walker, layer, hop)
        kept = _prune(cands, best, cfg.pruning_threshold)
        layer, merged = _merge(kept, cfg)
        layers.append(layer)
        hops.append(HopStats(hop, len(cands), len(cands) - len(kept), merged, len(layer)))
    leaves = [p for lay in layers for p in lay if not p.extended]
    deep = [i for i, p in enumerate(leaves) if len(p.edges) >= min_path_depth]
    ranked = sorted(deep, key=lambda i: (-leaves[i].score, i))[:top_paths]
    return ExpansionResult(
        memories=_score_memories(leaves, memory_map, cfg, now, top_k, paths_per_memory),
        paths=[_public(leaves[i]) for i in ranked],
        hops=hops,
        leaf_count=len(leaves),
    )
