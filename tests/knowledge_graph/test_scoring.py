"""Seed 04 formulas: propagation, edge weights, branching, merging, aggregation, recency."""

from __future__ import annotations

import math

import numpy as np
import pytest

from treerag.knowledge_graph.config import ExpansionConfig, FinalScoringWeights, MergeStrategy
from treerag.knowledge_graph.recency import DAY, recency_score, recency_scores
from treerag.knowledge_graph.scoring import (
    aggregate_path_scores,
    branch_limit,
    edge_weight,
    final_score,
    merge_scores,
    node_score,
    propagate_score,
)


def test_propagation_matches_seed_example():
    # seed 04 §4.1 / §7.1 test 1: 0.8 × 1.2 × 0.85 + 0.6 × 0.15 = 0.906
    assert propagate_score(0.8, 1.2, 0.6, 1, 0.85) == pytest.approx(0.906, abs=1e-12)


def test_propagation_decays_with_depth():
    # At depth 2 the inherited part is weighted 0.85² = 0.7225.
    expected = 0.8 * 1.0 * 0.7225 + 0.5 * (1 - 0.7225)
    assert propagate_score(0.8, 1.0, 0.5, 2, 0.85) == pytest.approx(expected, abs=1e-12)


@pytest.mark.parametrize(
    ("kind", "weight"),
    [
        ("reference", 1.3),
        ("attribute", 1.2),
        ("has_property", 1.2),
        ("core_relation", 1.0),
        ("relation", 0.9),
        ("temporal", 0.7),
        ("default", 1.0),
        ("co_occurs", 1.0),
        ("REFERENCE", 1.3),
    ],
)
def test_edge_weight_is_importance_times_type_weight(kind, weight):
    assert edge_weight(0.5, kind, ExpansionConfig()) == pytest.approx(0.5 * weight)


def test_node_score_clips_and_defaults_without_vector():
    cfg = ExpansionConfig()
    assert node_score(None, cfg) == 0.3
    assert node_score(-0.2, cfg) == 0.0
    assert node_score(1.5, cfg) == 1.0
    assert node_score(0.42, cfg) == 0.42


@pytest.mark.parametrize(
    ("score", "branches"),
    [(1.0, 10), (0.8, 9), (0.6, 8), (0.5, 7), (0.4, 7), (0.2, 6), (0.0, 5)],
)
def test_dynamic_branching_table(score, branches):
    # seed 04 §4.4 table and §7.1 test 3
    assert branch_limit(score, 10) == branches


def test_branching_is_bounded():
    assert branch_limit(1.7, 10) == 10  # merged scores can exceed 1
    assert branch_limit(0.0, 1) == 1
    assert branch_limit(-1.0, 2) == 1


def test_weighted_geometric_merge_matches_seed():
    # seed 04 §7.1 test 2
    cfg = ExpansionConfig()
    assert merge_scores(0.8, 0.7, cfg) == pytest.approx(math.sqrt(0.8 * 0.7) * 1.2)


def test_max_bonus_merge():
    cfg = ExpansionConfig(merge_strategy=MergeStrategy.MAX_BONUS)
    assert merge_scores(0.8, 0.7, cfg) == pytest.approx(0.8 * 1.3)
    assert ExpansionConfig(merge_strategy="max_bonus").merge_strategy is MergeStrategy.MAX_BONUS


def test_rank_weighted_aggregation():
    # weights 1, 1/2, 1/3 on the scores sorted best first (§4.6)
    expected = (0.9 * 1 + 0.6 / 2 + 0.3 / 3) / (1 + 1 / 2 + 1 / 3)
    assert aggregate_path_scores([0.3, 0.9, 0.6]) == pytest.approx(expected)
    assert aggregate_path_scores([]) == 0.0
    assert aggregate_path_scores([0.4]) == pytest.approx(0.4)


def test_recency_decays():
    cfg = ExpansionConfig().recency
    now = 100 * DAY
    assert recency_score(now, None, now, cfg) == pytest.approx(1.0)
    # created 30 days ago, accessed just now: 0.4·e⁻¹ + 0.6
    assert recency_score(now - 30 * DAY, now, now, cfg) == pytest.approx(0.4 * math.exp(-1) + 0.6)
    # never accessed: the access decay runs from creation (7-day scale)
    expected = 0.4 * math.exp(-7 / 30) + 0.6 * math.exp(-1)
    assert recency_score(now - 7 * DAY, None, now, cfg) == pytest.approx(expected)
    # times in the future count as now
    assert recency_score(now + DAY, None, now, cfg) == pytest.approx(1.0)


def test_vectorised_recency_agrees():
    cfg = ExpansionConfig().recency
    created = np.array([0.0, 5 * DAY, 9 * DAY])
    accessed = np.array([np.nan, 8 * DAY, 20 * DAY])
    now = 10 * DAY
    got = recency_scores(created, accessed, now, cfg)
    want = [
        recency_score(0.0, None, now, cfg),
        recency_score(5 * DAY, 8 * DAY, now, cfg),
        recency_score(9 * DAY, 20 * DAY, now, cfg),
    ]
    assert got == pytest.approx(want)


def test_final_score_weights_and_ordering():
    w = FinalScoringWeights()
    assert final_score(0.8, 0.5, 1.0, w) == pytest.approx(0.5 * 0.8 + 0.3 * 0.5 + 0.2 * 1.0)
    # a better path wins when importance and recency tie; importance matters next
    assert final_score(0.9, 0.5, 0.5, w) > final_score(0.8, 0.5, 0.5, w)
    assert final_score(0.8, 0.9, 0.5, w) > final_score(0.8, 0.5, 0.5, w)
    assert final_score(0.8, 0.5, 0.9, w) > final_score(0.8, 0.5, 0.5, w)


def test_config_defaults_are_the_seeds():
    cfg = ExpansionConfig()
    assert (cfg.max_hops, cfg.damping_factor, cfg.max_branches_per_node) == (2, 0.85, 10)
    assert cfg.merge_strategy is MergeStrategy.WEIGHTED_GEOMETRIC
    assert cfg.pruning_threshold == 0.9
    assert cfg.missing_vector_score == 0.3
    w = cfg.final_weights
    assert (w.path_score, w.importance, w.recency) == (0.5, 0.3, 0.2)
    r = cfg.recency
    assert (r.creation_scale_days, r.access_scale_days) == (30.0, 7.0)
    assert (r.creation_weight, r.access_weight) == (0.4, 0.6)


def test_config_rejects_nonsense():
    with pytest.raises(ValueError):
        ExpansionConfig(max_hops=-1)
    with pytest.raises(ValueError):
        ExpansionConfig(max_branches_per_node=0)
    with pytest.raises(ValueError):
        ExpansionConfig(damping_factor=0.0)
