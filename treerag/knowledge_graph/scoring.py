"""Seed 04's scoring formulas as plain functions, shared by both expansion implementations."""

from __future__ import annotations

import math
from collections.abc import Sequence

from treerag.knowledge_graph.config import ExpansionConfig, FinalScoringWeights, MergeStrategy


def propagate_score(
    old_score: float, edge_weight: float, node_score: float, depth: int, damping: float
) -> float:
    """Return the score of a path extended by one edge (seed 04 §4.1).

    new = old × w_e × α^d + s_n × (1 − α^d): the inherited part fades with depth and the
    new node's own similarity takes its place.
    """
    decay = damping**depth
    return old_score * edge_weight * decay + node_score * (1.0 - decay)


def edge_weight(importance: float, edge_type: str, config: ExpansionConfig) -> float:
    """Return importance × type weight (seed 04 §4.2)."""
    return importance * config.type_weight(edge_type)


def node_score(similarity: float | None, config: ExpansionConfig) -> float:
    """Return the cosine similarity clipped to [0, 1], or the no-vector score (seed 04 §4.3)."""
    if similarity is None:
        return config.missing_vector_score
    return min(1.0, max(0.0, similarity))


def branch_limit(path_score: float, max_branches: int) -> int:
    """Return max(1, int(B × (0.5 + 0.5 × score))) (seed 04 §4.4).

    Scores are clipped to [0, 1] first: propagation and merging can push a score past 1,
    and the limit must stay within max_branches_per_node.
    """
    score = min(1.0, max(0.0, path_score))
    return max(1, int(max_branches * (0.5 + 0.5 * score)))


def merge_scores(score1: float, score2: float, config: ExpansionConfig) -> float:
    """Return the score of two merged paths (seed 04 §4.5)."""
    if config.merge_strategy is MergeStrategy.MAX_BONUS:
        return max(score1, score2) * config.max_bonus
    return math.sqrt(score1 * score2) * config.geometric_bonus


def aggregate_path_scores(scores: Sequence[float]) -> float:
    """Return the rank-weighted mean of path scores: weights 1, 1/2, 1/3… best first (§4.6)."""
    if not scores:
        return 0.0
    weighted = 0.0
    total = 0.0
    for rank, score in enumerate(sorted(scores, reverse=True)):
        weight = 1.0 / (rank + 1)
        weighted += score * weight
        total += weight
    return weighted / total


def final_score(
    path_score: float, importance: float, recency: float, weights: FinalScoringWeights
) -> float:
    """Return w_path × path + w_imp × importance + w_rec × recency (seed 04 §3.6)."""
    return (
        weights.path_score * path_score
        + weights.importance * importance
        + weights.recency * recency
    )
