"""Fusion rules beyond equal RRF, by brute force, each weight fitted on one half of the questions.

Issue 11 asks whether any fusion of the dense and BM25 sides beats BM25 alone on Chinese.
Each rule below has one knob; it is fitted on the even-numbered questions and reported on the
odd-numbered ones, then the reverse, so every question is scored once by a knob that never
saw it ("held-out" R@5, a two-fold cross-validation). Rules:

- weighted RRF: the dense side's votes times w (Cormack et al., 2009, k=60);
- min-max CombSUM: a * dense + (1 - a) * BM25 over the union of both top-20 lists, each
  side's true score min-max normalised over that union (Fox & Shaw, 1994, CombSUM; min-max
  as in Lee, 1997);
- Milvus weighted: Milvus's `WeightedRanker` with its own normalisation ((1 + cos) / 2 and
  2/pi * arctan(BM25), milvus_lite function/ops/merge_op.py), top-100 per side, a missing side
  counting 0 — what one `hybrid_search` request with `WeightedRanker(a, 1 - a)` computes;
- agreement gate: per query, equal RRF when the two top-10 lists share at least m passages
  (the sides agree), BM25 alone otherwise;
- dense-gap gate: per query, min-max CombSUM (a = 0.3) when the dense side's top-1/top-2
  cosine gap is at least g (a confident dense side), BM25 alone otherwise.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

N_UNION = 20
N_AGREE = 10


@dataclass
class QueryLists:
    """One query's ranked candidates on each side, with both sides' scores for every passage."""

    dense: np.ndarray  # passage indices, best first
    sparse: np.ndarray
    cos: np.ndarray  # cosine of every passage
    bm25: np.ndarray  # BM25 score of every passage


def _rrf(lists: Sequence[Sequence[int]], weights: Sequence[float], k: int = 60) -> list[int]:
    scores: dict[int, float] = {}
    for ranking, w in zip(lists, weights, strict=True):
        for rank, doc in enumerate(ranking, 1):
            scores[doc] = scores.get(doc, 0.0) + w / (k + rank)
    return sorted(scores, key=lambda d: -scores[d])


def _minmax(x: np.ndarray) -> np.ndarray:
    spread = float(x.max() - x.min()) if len(x) else 0.0
    return (x - x.min()) / spread if spread > 0 else np.ones_like(x)


def combsum(q: QueryLists, a: float) -> list[int]:
    """a * dense + (1 - a) * BM25, true scores min-max normalised over the two top-20 lists."""
    union = np.array(list(dict.fromkeys([*q.dense[:N_UNION], *q.sparse[:N_UNION]])))
    fused = a * _minmax(q.cos[union]) + (1 - a) * _minmax(q.bm25[union])
    return union[np.argsort(-fused, kind="stable")].tolist()


def milvus_weighted(q: QueryLists, a: float, pool: int = 100) -> list[int]:
    """Milvus `WeightedRanker(a, 1 - a)` over both top-`pool` lists (its own normalisation)."""
    scores: dict[int, float] = {}
    for i in q.dense[:pool]:
        scores[int(i)] = a * (1 + float(q.cos[i])) / 2
    for i in q.sparse[:pool]:
        bm = (1 - a) * 2 / np.pi * np.arctan(float(q.bm25[i]))
        scores[int(i)] = scores.get(int(i), 0.0) + bm
    return sorted(scores, key=lambda d: -scores[d])


def agreement(q: QueryLists) -> int:
    """How many passages the two top-10 lists share."""
    return len(set(q.dense[:N_AGREE].tolist()) & set(q.sparse[:N_AGREE].tolist()))


def dense_gap(q: QueryLists) -> float:
    """The dense side's top-1 minus top-2 cosine."""
    return float(q.cos[q.dense[0]] - q.cos[q.dense[1]]) if len(q.dense) > 1 else 0.0


Rule = Callable[[QueryLists, float], list[int]]
RULES: dict[str, tuple[str, Sequence[float], Rule]] = {
    "weighted RRF": (
        "w",
        (0.1, 0.2, 0.3, 0.5, 0.7, 1.0),
        lambda q, w: _rrf([q.dense.tolist(), q.sparse.tolist()], [w, 1.0]),
    ),
    "min-max CombSUM": ("a", tuple(np.round(np.arange(0.05, 1.0, 0.05), 2)), combsum),
    "Milvus weighted": ("a", tuple(np.round(np.arange(0.05, 1.0, 0.05), 2)), milvus_weighted),
    "agreement gate": (
        "m",
        tuple(range(0, N_AGREE + 1)),
        lambda q, m: (
            _rrf([q.dense.tolist(), q.sparse.tolist()], [1.0, 1.0])
            if agreement(q) >= m
            else q.sparse.tolist()
        ),
    ),
    "dense-gap gate": (
        "g",
        (0.0, 0.01, 0.02, 0.03, 0.05, 0.08, 0.12, 1.0),
        lambda q, g: combsum(q, 0.3) if dense_gap(q) >= g else q.sparse.tolist(),
    ),
}


def held_out(
    lists: Sequence[QueryLists], recall: Callable[[int, list[int]], float]
) -> dict[str, tuple[str, float, float, float]]:
    """Per rule: (knobs fitted on A / on B, R@5 of half B, of half A, of all held-out)."""
    halves = (np.arange(0, len(lists), 2), np.arange(1, len(lists), 2))
    out = {}
    for rule, (knob, grid, fuse) in RULES.items():
        per_q = np.array([[recall(i, fuse(q, v)) for v in grid] for i, q in enumerate(lists)])
        fitted = [int(np.argmax(per_q[half].mean(axis=0))) for half in halves]
        other_b = float(per_q[halves[1], fitted[0]].mean())
        other_a = float(per_q[halves[0], fitted[1]].mean())
        both = (other_b * len(halves[1]) + other_a * len(halves[0])) / len(lists)
        out[rule] = (f"{knob}={grid[fitted[0]]:g} / {grid[fitted[1]]:g}", other_b, other_a, both)
    return out
