"""Brute-force BM25 with the product's RM3 feedback rule (`treerag.retrievers.feedback`)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable

import numpy as np

from treerag.retrievers.feedback import FEEDBACK_PASSAGES, rm3_query
from treerag.retrievers.language import expand_for_bm25

FEEDBACK = "sparse + RM3 feedback (opt-in)"
HYBRID_FEEDBACK = "hybrid auto + RM3 feedback (opt-in)"


def feedback_rankings(
    questions: list[str],
    terms: list[list[str]],
    tokenize: Callable[[str], list[str]],
    bm25,
    depth: int,
) -> list[list[int]]:
    """Each question's top `depth` passages: a first search, RM3 expansion, a second search.

    `terms` are the passages' tokens as `bm25` indexed them. A weighted query is scored as
    the weighted sum of its terms' BM25 scores, which is what Milvus does with a term
    repeated in the query text.
    """
    per_term: dict[str, np.ndarray] = {}

    def scores(counts: Counter[str]) -> np.ndarray:
        total = np.zeros(len(terms))
        for term, n in counts.items():
            if term not in per_term:
                per_term[term] = bm25.get_scores([term])
            total += n * per_term[term]
        return total

    out = []
    for question in questions:
        query = tokenize(expand_for_bm25(question))
        first = scores(Counter(query))
        top = [i for i in np.argsort(-first, kind="stable")[:FEEDBACK_PASSAGES] if first[i] > 0]
        expanded = rm3_query(query, [(terms[i], float(first[i])) for i in top])
        second = scores(Counter(expanded))
        ranked = np.argsort(-second, kind="stable")[:depth]
        out.append([int(i) for i in ranked if second[i] > 0])
    return out
