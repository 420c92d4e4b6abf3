"""Settings of the path-scoring expansion, with seed 04's defaults (§2.5, §4)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from types import MappingProxyType


class MergeStrategy(StrEnum):
    """How two paths meeting at one node combine their scores (seed 04 §4.5)."""

    WEIGHTED_GEOMETRIC = "weighted_geometric"
    """sqrt(s1 × s2) × geometric_bonus: balances both paths."""
    MAX_BONUS = "max_bonus"
    """max(s1, s2) × max_bonus: rewards the better path."""


# Seed 04 §4.2: edge type → weight; types not listed use "default".
DEFAULT_EDGE_TYPE_WEIGHTS: Mapping[str, float] = MappingProxyType(
    {
        "reference": 1.3,
        "attribute": 1.2,
        "has_property": 1.2,
        "core_relation": 1.0,
        "relation": 0.9,
        "temporal": 0.7,
        "default": 1.0,
    }
)


@dataclass(frozen=True)
class FinalScoringWeights:
    """Weights of the final memory score (seed 04 §2.5, §3.6)."""

    path_score: float = 0.50
    importance: float = 0.30
    recency: float = 0.20


@dataclass(frozen=True)
class RecencyConfig:
    """Recency of a memory from its creation and last access (seed 04 §4.7)."""

    creation_scale_days: float = 30.0
    """Creation decay is exp(-age / this many days)."""
    access_scale_days: float = 7.0
    """Access decay is exp(-time since last access / this many days)."""
    creation_weight: float = 0.4
    access_weight: float = 0.6


@dataclass(frozen=True)
class ExpansionConfig:
    """Every knob of the path-scoring expansion (seed 04 §2.5), defaults from the seed."""

    max_hops: int = 2
    """Depth limit in edges."""
    damping_factor: float = 0.85
    """α in new = old × w_e × α^d + s_n × (1 − α^d) (§4.1)."""
    max_branches_per_node: int = 10
    """Upper bound of the dynamic branching max(1, int(B × (0.5 + 0.5 × score))) (§4.4)."""
    merge_strategy: MergeStrategy = MergeStrategy.WEIGHTED_GEOMETRIC
    geometric_bonus: float = 1.2
    max_bonus: float = 1.3
    merge_score_tolerance: float = 0.1
    """Paths meeting at a node merge only if their scores differ by less (§8.5 Q2)."""
    pruning_threshold: float = 0.9
    """A path is dropped when its score is below this share of the best score known to
    reach the same node (the seed's reference implementation's reading of §3.3 step 2.8)."""
    edge_type_weights: Mapping[str, float] = field(
        default_factory=lambda: DEFAULT_EDGE_TYPE_WEIGHTS
    )
    missing_vector_score: float = 0.3
    """Node score of a node without a vector (§4.3)."""
    directed: bool = True
    """Follow out-edges only; False also walks edges backwards (§8.5 Q3)."""
    final_weights: FinalScoringWeights = field(default_factory=FinalScoringWeights)
    recency: RecencyConfig = field(default_factory=RecencyConfig)

    def __post_init__(self) -> None:
        if self.max_hops < 0:
            raise ValueError("max_hops must be >= 0")
        if self.max_branches_per_node < 1:
            raise ValueError("max_branches_per_node must be >= 1")
        if not 0.0 < self.damping_factor <= 1.0:
            raise ValueError("damping_factor must be in (0, 1]")
        object.__setattr__(self, "merge_strategy", MergeStrategy(self.merge_strategy))

    def type_weight(self, edge_type: str) -> float:
        """Return the weight of an edge type (§4.2), the "default" weight if unlisted."""
        weights = self.edge_type_weights
        return weights.get(edge_type.lower(), weights.get("default", 1.0))

    def weights_key(self) -> tuple[tuple[str, float], ...]:
        """Return the edge-type weights as a hashable key (caches depend on them)."""
        return tuple(sorted(self.edge_type_weights.items()))
