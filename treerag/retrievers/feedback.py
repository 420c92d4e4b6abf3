"""Pseudo-relevance feedback for BM25: the RM3 query expansion.

A first BM25 search takes its best passages as if they were relevant; the terms those passages
use most, weighted by how well each passage matched, are added to the query, and the expanded
query is searched again. A passage that tells the same story in other words than the question
then meets it through the words it shares with the passages that matched. Where the evidence
is spread over passages about different things (multi-hop questions), the expansion pulls
towards the first passage's topic instead: measured, it helps one kind of corpus and hurts the
other (README, Retrieval), so it is a setting, off by default.

The model is RM3: the relevance model of Lavrenko and Croft (SIGIR 2001),
P(t|R) = sum over feedback passages d of P(t|d) * P(d|q), interpolated with the original query
(Abdul-Jaleel et al., "UMass at TREC 2004", the RM3 variant). P(t|d) is the term's share of
the passage, P(d|q) the passage's BM25 score normalised over the feedback passages. The three
numbers are the defaults of Anserini's RM3 (Yang, Fang and Lin, "Anserini", SIGIR 2017 and
JDIQ 2018): 10 feedback passages, 10 expansion terms, original query weight 0.5; they were
taken as published, not fitted here.

Milvus's BM25 counts a term repeated in the query as often as it occurs (checked on Milvus
Lite: "pear pear plum" scores a "pear" passage twice as high as "pear plum" does), so the
weighted query is sent as text, each term repeated in proportion to its weight.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from treerag.retrievers.chunk_store import ChunkStore

FEEDBACK_PASSAGES = 10
EXPANSION_TERMS = 10
ORIGINAL_WEIGHT = 0.5
COPIES = 4
"""Weights are sent as repeats: each occurrence of an original term becomes COPIES copies, and
an expansion term gets copies in the same proportion to its weight (rounded), so the original
query keeps its own term counts and the expansion its resolution."""


def expansion_terms(
    feedback: Sequence[tuple[Sequence[str], float]], count: int = EXPANSION_TERMS
) -> dict[str, float]:
    """P(t|R) over the `count` likeliest terms of the feedback passages, summing to 1.

    `feedback` holds each passage's BM25 terms with its score (its sign ignored: Milvus Lite
    reports BM25 scores negated).
    """
    from treerag.keyword_tree.terms import STOPWORDS  # the engine loads only when used

    scores = [abs(score) for _, score in feedback]
    total = sum(scores)
    if not total:
        return {}
    relevance: defaultdict[str, float] = defaultdict(float)
    for (terms, _), score in zip(feedback, scores, strict=True):
        if not terms:
            continue
        weight = score / total / len(terms)
        for term, tf in Counter(terms).items():
            if term not in STOPWORDS:  # Milvus's analyzers keep them; they carry no topic
                relevance[term] += weight * tf
    top = sorted(relevance.items(), key=lambda kv: -kv[1])[:count]
    norm = sum(p for _, p in top)
    return {term: p / norm for term, p in top} if norm else {}


def rm3_query(
    query_terms: Sequence[str],
    feedback: Sequence[tuple[Sequence[str], float]],
    original_weight: float = ORIGINAL_WEIGHT,
) -> list[str]:
    """The expanded query as a list of terms, each repeated in proportion to its RM3 weight.

    With no feedback the query is unchanged.
    """
    if not query_terms:
        return []
    expansion = expansion_terms(feedback)
    if not expansion:
        return list(query_terms)
    weights: defaultdict[str, float] = defaultdict(float)
    for term, tf in Counter(query_terms).items():
        weights[term] += original_weight * tf / len(query_terms)
    for term, p in expansion.items():
        weights[term] += (1 - original_weight) * p
    unit = original_weight / len(query_terms) / COPIES  # one copy's weight
    out: list[str] = []
    for term, weight in weights.items():
        out.extend([term] * round(weight / unit))
    return out


_WORD = re.compile(r"\w+")


def _terms_of(analyzer: str, text: str, stop_words: frozenset[str] = frozenset()) -> list[str]:
    """A text's BM25 terms as the collection's analyzer cuts them (bigram or standard)."""
    terms = text.split() if analyzer == "bigram" else _WORD.findall(text.lower())
    return [t for t in terms if t not in stop_words] if stop_words else terms


def supports(analyzer: str) -> bool:
    """Whether feedback can read a collection's terms: `bigram` (ours) or `standard` (its words).

    Milvus segments a `jieba` collection itself, where its words cannot be read back.
    """
    return analyzer in ("bigram", "standard")


def feedback_query(store: ChunkStore, text: str, search_params: dict[str, Any]) -> str:
    """The RM3 expansion of a BM25 query text (`ChunkStore.bm25_query`), after one first search."""
    from treerag.retrievers.chunk_store import SPARSE, TERMS, TEXT

    analyzer, stop_words = store.analyzer, store.stop_words
    query = _terms_of(analyzer, text, stop_words)
    if not query:  # nothing BM25 can match: the text goes as it is
        return text
    field = TERMS if analyzer == "bigram" else TEXT
    res = store.client.search(
        store.name,
        data=[text],
        anns_field=SPARSE,
        limit=FEEDBACK_PASSAGES,
        search_params=search_params,
        output_fields=[field],
    )
    feedback = [
        (
            _terms_of(analyzer, hit.get("entity", {}).get(field, ""), stop_words),
            float(hit["distance"]),
        )
        for hit in res[0]
    ]
    return " ".join(rm3_query(query, feedback))
