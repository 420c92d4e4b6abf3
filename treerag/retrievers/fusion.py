"""How hybrid search uses its two sides, per collection and query (the `auto` ranker).

Each side is trusted only where it was measured to help (BENCHMARKS.md, retrieval-fusion):

1. The dense side counts only when the collection's embedder places queries of the query's
   language. all-MiniLM-L6-v2 is English-only: a Chinese query against a MiniLM collection
   is answered by BM25 alone (rgb_zh_300: MiniLM dense R@5 0.16 next to BM25 0.62, and
   equal-weight RRF of the two fell to 0.39: a near-random side dilutes the strong one).
2. A Chinese query against an embedder measured on par with BM25 in Chinese (`e5-small`:
   dense R@5 0.713 against BM25 0.635 on the whole rgb_zh_300) keeps equal-weight RRF
   (0.719; weighted RRF fitted on half the questions chose equal weights on both halves).
3. Otherwise a Chinese query meets Chinese chunks through BM25 only, and chunks in other languages
   through the dense side as well, when they are related to it. Even a good multilingual
   embedder did not add to BM25 between Chinese texts: on the whole rgb_zh_300 (7,337
   passages) USE-m3 dense R@5 is 0.44 and BM25 0.62, equal RRF 0.59, and no weighted RRF,
   score fusion (min-max CombSUM, Milvus's `WeightedRanker`) or per-query gate (agreement of
   the two top-10 lists, the dense top-1/top-2 gap), its weight fitted on half the questions,
   came above BM25 + 0.002 on the other half (`benchmarks/_fusion_variants.py`), while BM25
   cannot match an English chunk with Chinese words at all. A dense search over the
   non-Chinese chunks (`meta["lang"] != "zh"`, written at ingest) keeps those above the embedder's
   `related_above` cosine; without any, BM25 answers alone; with some, one hybrid request
   fuses them with BM25 by RRF. (RRF alone would hand the best non-Chinese chunk a top vote
   however unrelated: one stray English passage in a Chinese collection then sat at rank 2
   of every query. Milvus Lite ignores a radius inside a hybrid sub-request, hence the
   separate dense search.)
4. Any other query (English, mixed, other languages) keeps equal-weight RRF, which gave the
   best recall on hotpotqa_100 (R@5 0.81 against 0.785 dense and 0.76 BM25).
5. A query without letters, ideographs or digits (symbols only) is answered by the dense side.

A collection created before chunks carried their language cannot be filtered, and an
endpoint embedder has no calibrated threshold: a Chinese query then uses BM25 alone, which
is never below the best single side on the Chinese dev set; `treerag ingest --rebuild`
writes the languages.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from treerag.multilingual import spec_for
from treerag.retrievers.language import language_of

FusionKind = Literal["sparse", "dense", "rrf"]
NOT_CHINESE = 'meta["lang"] != "zh"'
"""Milvus filter of the dense request for Chinese queries: chunks that are not Chinese."""


@dataclass(frozen=True)
class FusionPlan:
    """What one hybrid search does: which sides, filtered how, and why.

    Attributes:
        kind: "sparse" or "dense" (one side alone) or "rrf" (both sides, one request).
        dense_filter: A Milvus boolean expression restricting the dense side ("" = none).
        related_above: With a filter, the cosine a dense hit must exceed to join the fusion.
        reason: One line naming the signals that decided (kept in the result metadata).
    """

    kind: FusionKind
    dense_filter: str = ""
    related_above: float | None = None
    reason: str = ""


def plan_fusion(query: str, info: dict[str, Any]) -> FusionPlan:
    """Decide how to search for a query against a collection with recorded settings `info`."""
    language = language_of(query)
    name = str(info.get("embedding") or "minilm")
    spec = spec_for(name)
    if language == "none":
        return FusionPlan("dense", reason="no words for BM25 in the query: dense alone")
    if spec is not None and language in ("zh", "en") and not spec.covers(language):
        return FusionPlan("sparse", reason=f"{name} does not embed {language} queries: BM25 alone")
    if language != "zh":
        return FusionPlan("rrf", reason=f"{language} query: RRF of dense and BM25")
    if spec is not None and "zh" in spec.on_par:
        return FusionPlan("rrf", reason=f"zh query, {name} on par with BM25 in Chinese: RRF")
    if not info.get("chunk_languages"):
        return FusionPlan("sparse", reason="chunk languages not recorded: BM25 alone")
    if spec is None or spec.related_above is None:
        return FusionPlan("sparse", reason=f"no calibrated threshold for {name}: BM25 alone")
    return FusionPlan(
        "rrf",
        NOT_CHINESE,
        spec.related_above,
        reason=f"zh query: BM25 for Chinese chunks, RRF with related {name} hits for the others",
    )
