"""Tree health of seed 03 §八 V4: orphans, missing descriptions, depth, branching factors."""

from __future__ import annotations

import statistics
from collections import Counter
from dataclasses import dataclass, field

from treerag.keyword_tree.indexes import TreeIndex

SAMPLE = 20
"""How many example ids each list keeps."""


@dataclass(slots=True)
class TreeMetrics:
    """Counts and distributions describing how navigable the tree is."""

    keywords: int = 0
    infos: int = 0
    links: int = 0
    roots: int = 0
    max_depth: int = 0
    """Deepest level (roots are level 0)."""
    depth_histogram: dict[int, int] = field(default_factory=dict)
    """Level → number of keywords."""
    orphans: list[str] = field(default_factory=list)
    """Keywords whose parent does not exist (should stay empty)."""
    empty_leaves: int = 0
    """Leaves with no infos: dead ends for a descent."""
    empty_leaf_sample: list[str] = field(default_factory=list)
    unlinked_infos: int = 0
    """Infos no keyword points to: unreachable by search."""
    missing_description_rate: float = 0.0
    """Share of keywords without a description (the agent's main clue)."""
    missing_description_sample: list[str] = field(default_factory=list)
    over_deep: list[str] = field(default_factory=list)
    """Keywords at level depth_limit + 1: the tops of subtrees that go too deep."""
    depth_limit: int = 6
    branching_histogram: dict[int, int] = field(default_factory=dict)
    """Number of children → number of keywords that have that many (internal nodes)."""
    branching_mean: float = 0.0
    branching_median: float = 0.0
    branching_max: int = 0
    widest: list[tuple[str, int]] = field(default_factory=list)
    """The keywords with the most children, with their child counts."""


def tree_metrics(index: TreeIndex, depth_limit: int = 6) -> TreeMetrics:
    """Compute TreeMetrics over the whole index in one pass."""
    m = TreeMetrics(depth_limit=depth_limit)
    m.keywords, m.infos, m.links = len(index.nodes), len(index.info_offsets), index.link_count()
    roots = index.child_ids(None)
    m.roots = len(roots)
    levels: dict[str, int] = {}
    frontier = [(r, 0) for r in roots]
    while frontier:
        node_id, level = frontier.pop()
        levels[node_id] = level
        frontier.extend((c, level + 1) for c in index.child_ids(node_id))
    m.orphans = sorted(
        node_id
        for node_id, rec in index.nodes.items()
        if rec["parent_id"] is not None and rec["parent_id"] not in index.nodes
    )[:SAMPLE]
    m.depth_histogram = dict(sorted(Counter(levels.values()).items()))
    m.max_depth = max(levels.values(), default=0)
    m.over_deep = [i for i, lv in levels.items() if lv == depth_limit + 1][:SAMPLE]
    _leaves_and_descriptions(index, m)
    _branching(index, m)
    m.unlinked_infos = sum(1 for i in index.info_offsets if i not in index.kw_by_info)
    return m


def _leaves_and_descriptions(index: TreeIndex, m: TreeMetrics) -> None:
    empty, undescribed = [], []
    for node_id, rec in index.nodes.items():
        if not index.child_ids(node_id) and node_id not in index.info_by_kw:
            empty.append(node_id)
        if not rec["description"].strip():
            undescribed.append(node_id)
    m.empty_leaves, m.empty_leaf_sample = len(empty), empty[:SAMPLE]
    m.missing_description_rate = len(undescribed) / len(index.nodes) if index.nodes else 0.0
    m.missing_description_sample = undescribed[:SAMPLE]


def _branching(index: TreeIndex, m: TreeMetrics) -> None:
    fanout = {n: len(index.child_ids(n)) for n in index.nodes if index.child_ids(n)}
    if not fanout:
        return
    values = list(fanout.values())
    m.branching_histogram = dict(sorted(Counter(values).items()))
    m.branching_mean = statistics.fmean(values)
    m.branching_median = float(statistics.median(values))
    m.branching_max = max(values)
    m.widest = sorted(fanout.items(), key=lambda kv: (-kv[1], kv[0]))[:5]
