"""The fusion-variants benchmark fits each knob on one half and scores it on the other."""

from __future__ import annotations

import numpy as np

from benchmarks._fusion_variants import QueryLists, combsum, held_out, milvus_weighted


def _query(cos: list[float], bm25: list[float]) -> QueryLists:
    c, b = np.array(cos), np.array(bm25)
    return QueryLists(np.argsort(-c, kind="stable"), np.argsort(-b, kind="stable"), c, b)


def test_score_fusion_follows_its_weight():
    q = _query([0.9, 0.1, 0.5], [1.0, 9.0, 5.0])
    assert combsum(q, 0.95)[0] == 0 and combsum(q, 0.05)[0] == 1
    assert milvus_weighted(q, 0.95)[0] == 0 and milvus_weighted(q, 0.05)[0] == 1


def test_knobs_are_scored_on_the_half_they_were_not_fitted_on():
    # Even questions: passage 0 is gold (dense-first); odd questions: passage 1 (BM25-first).
    lists = [_query([0.9, 0.1, 0.2], [1.0, 9.0, 0.5]) for _ in range(6)]

    def recall(i: int, ranking: list[int]) -> float:
        return float(ranking[0] == (0 if i % 2 == 0 else 1))

    knobs, on_b, on_a, both = held_out(lists, recall)["min-max CombSUM"]
    # Fitted on A (even) the weight favours dense, which fails every odd question; and back.
    fit_a, fit_b = (float(v) for v in knobs.removeprefix("a=").split(" / "))
    assert fit_a > 0.45 > fit_b
    assert (on_b, on_a, both) == (0.0, 0.0, 0.0)
