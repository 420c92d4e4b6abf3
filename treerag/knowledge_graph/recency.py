"""Recency of a memory from its creation and last access (seed 04 §4.7)."""

from __future__ import annotations

import math

import numpy as np

from treerag.knowledge_graph.config import RecencyConfig

DAY = 86400.0


def recency_score(
    created_at: float, last_accessed_at: float | None, now: float, config: RecencyConfig
) -> float:
    """Return 0.4 × exp(-age/30 d) + 0.6 × exp(-idle/7 d) with the seed's defaults.

    A memory never accessed counts as accessed when created; times in the future count as now.
    """
    accessed = created_at if last_accessed_at is None else last_accessed_at
    creation = math.exp(-max(0.0, now - created_at) / (config.creation_scale_days * DAY))
    access = math.exp(-max(0.0, now - accessed) / (config.access_scale_days * DAY))
    return config.creation_weight * creation + config.access_weight * access


def recency_scores(
    created_at: np.ndarray, last_accessed_at: np.ndarray, now: float, config: RecencyConfig
) -> np.ndarray:
    """Vectorised recency_score; NaN in last_accessed_at means never accessed."""
    accessed = np.where(np.isnan(last_accessed_at), created_at, last_accessed_at)
    creation = np.exp(-np.maximum(0.0, now - created_at) / (config.creation_scale_days * DAY))
    access = np.exp(-np.maximum(0.0, now - accessed) / (config.access_scale_days * DAY))
    out: np.ndarray = config.creation_weight * creation + config.access_weight * access
    return out
