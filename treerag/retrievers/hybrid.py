"""Seed 02's `Retriever`: sparse (BM25), dense, or hybrid search over the chunk collection."""

from __future__ import annotations

import copy
import json
from collections.abc import Sequence
from dataclasses import replace
from typing import Any, Literal

from langchain_core.documents import Document

from treerag.retrievers.chunk_store import DENSE, SCALAR_FIELDS, SPARSE, ChunkStore
from treerag.retrievers.feedback import feedback_query
from treerag.retrievers.feedback import supports as supports_feedback
from treerag.retrievers.fusion import FusionPlan, plan_fusion
from treerag.retrievers.language import expand_for_bm25

SearchType = Literal["sparse", "dense", "hybrid"]
RankerName = Literal["weighted", "rrf", "model", "auto"]
DEFAULT_PARAMS = {
    DENSE: {"metric_type": "COSINE", "params": {}},
    SPARSE: {"metric_type": "BM25", "params": {}},
}


class RetrieverArgumentError(ValueError):
    """A combination of retriever arguments that cannot work (seed 02's check_args)."""


class Retriever:
    """Search a `ChunkStore`; attributes may be changed between calls to change the search.

    Args mirror seed 02 (检索模块的设计与实现): `topk`, `search_fields`, `search_type`,
    `search_params` (one dict per field), `ranker_type` (weighted | rrf | model) and
    `ranker_params` (weights per field for weighted; `k` for rrf; `candidates`, the hits
    each field contributes to the fusion (default topk); for model: `pre_topk`,
    `pre_ranker_type`, `pre_ranker_params` of the coarse hybrid pass and a `reranker`).
    The `auto` ranker weighs the sides per query by language and embedder
    (`treerag.retrievers.fusion`); it takes `k` and `candidates` like rrf.
    BM25 always searches the query together with its other script forms (`expand_for_bm25`);
    with `feedback` it searches twice, the second time with the query expanded by the terms
    of the first search's best passages (RM3, `treerag.retrievers.feedback`).
    """

    def __init__(
        self,
        store: ChunkStore,
        topk: int = 3,
        search_fields: Sequence[str] | None = None,
        search_type: SearchType = "dense",
        search_params: Sequence[dict] | None = None,
        ranker_type: RankerName = "rrf",
        ranker_params: dict | None = None,
        feedback: bool = False,
    ):
        """Create a retriever; arguments are checked on every search."""
        self.store = store
        self.topk = topk
        self.search_type = search_type
        self.search_fields = list(search_fields) if search_fields else _default_fields(search_type)
        self.search_params = (
            [copy.deepcopy(p) for p in search_params]
            if search_params
            else [copy.deepcopy(DEFAULT_PARAMS.get(f, {})) for f in self.search_fields]
        )
        self.ranker_type = ranker_type
        self.ranker_params = dict(ranker_params or {})
        self.feedback = feedback

    # -- checks --------------------------------------------------------------------------
    def check_args(self) -> None:
        """Raise RetrieverArgumentError naming the first inconsistent argument."""
        if self.search_type not in ("sparse", "dense", "hybrid"):
            raise RetrieverArgumentError(
                f"search_type={self.search_type!r}: use sparse, dense or hybrid"
            )
        if not isinstance(self.topk, int) or self.topk < 1:
            raise RetrieverArgumentError(f"topk={self.topk!r}: must be a positive integer")
        unknown = [f for f in self.search_fields if f not in (DENSE, SPARSE)]
        if unknown:
            raise RetrieverArgumentError(
                f"search_fields {unknown} not in the collection's vector fields {[DENSE, SPARSE]}"
            )
        if len(set(self.search_fields)) != len(self.search_fields):
            raise RetrieverArgumentError(f"search_fields {self.search_fields} repeat a field")
        if len(self.search_fields) > 1 and self.search_type != "hybrid":
            raise RetrieverArgumentError(
                f"searching {len(self.search_fields)} fields needs search_type='hybrid', "
                f"got {self.search_type!r}"
            )
        if self.search_type != "hybrid" and self.search_fields != [self.search_type]:
            raise RetrieverArgumentError(
                f"search_type={self.search_type!r} searches the {self.search_type!r} field, "
                f"but search_fields={self.search_fields}"
            )
        if len(self.search_params) != len(self.search_fields):
            raise RetrieverArgumentError(
                f"search_params has {len(self.search_params)} entries for "
                f"{len(self.search_fields)} search_fields: give one dict per field"
            )
        if self.ranker_type not in ("weighted", "rrf", "model", "auto"):
            raise RetrieverArgumentError(
                f"ranker_type={self.ranker_type!r}: use auto, weighted, rrf or model"
            )
        if self.search_type == "hybrid" and self.ranker_type == "weighted":
            weights = self.ranker_params.get("weights")
            if weights is None or len(weights) != len(self.search_fields):
                raise RetrieverArgumentError(
                    f"ranker_type='weighted' needs ranker_params={{'weights': [...]}} with one "
                    f"weight per search field ({len(self.search_fields)}), got {weights!r}"
                )
            if any(not 0 <= w <= 1 for w in weights):
                raise RetrieverArgumentError(f"weights {weights} must each lie in [0, 1]")

    # -- search --------------------------------------------------------------------------
    def get_similar_chunk_with_score(self, query: str) -> list[tuple[Document, float]]:
        """Return the top chunks for a query with their scores, best first."""
        self.check_args()
        if not query or not query.strip():
            raise RetrieverArgumentError("query is empty")
        if not self.store.exists():
            self.store.require_data()  # raises with what to do
        self.store.load()
        self.store.check_embedder()
        if self.search_type == "hybrid" and self.ranker_type == "model":
            return self.search_with_rerank_model(query)
        mode, plan = self.search_type, None
        if self.search_type == "hybrid" and self.ranker_type == "auto":
            plan = self._related_dense(query, plan_fusion(query, self.store.recorded))
            mode = "hybrid" if plan.kind == "rrf" else plan.kind
        if mode == "sparse":
            hits = self.sparse_search(query)
        elif mode == "dense":
            hits = self.dense_search(query)
        else:
            hits = self.hybrid_search(query, plan)
        if not hits:
            # Counting costs a query, so it is done only when nothing came back.
            self.store.require_data()
        docs = [_to_document(h, mode) for h in hits]
        if plan is not None:
            for doc, _ in docs:
                doc.metadata.update(retrieval="hybrid", fusion=plan.reason)
        return docs

    def search(self, query: str) -> list[Document]:
        """Return the top chunks as Documents (score in metadata["score"])."""
        return [doc for doc, _ in self.get_similar_chunk_with_score(query)]

    def sparse_search(self, query: str) -> list[dict]:
        """BM25 search on the sparse field (Milvus tokenizes the query and its script forms)."""
        res = self.store.client.search(
            self.store.name,
            data=[self.bm25_data(query)],
            anns_field=SPARSE,
            limit=self.topk,
            search_params=self._params(SPARSE),
            output_fields=SCALAR_FIELDS,
        )
        return list(res[0])

    def bm25_data(self, query: str) -> str:
        """What a BM25 request sends: the query's terms, expanded by feedback when it is on.

        Feedback needs terms it can read back, which a `jieba` collection does not give
        (`ingest --rebuild` moves one to `bigram`); there the query goes as it is.
        """
        text = self.store.bm25_query(expand_for_bm25(query))
        if not self.feedback or not supports_feedback(self.store.analyzer):
            return text
        return feedback_query(self.store, text, self._params(SPARSE))

    def dense_search(self, query: str) -> list[dict]:
        """Cosine search on the dense field with the store's embedder."""
        vector = self.store.embeddings.embed_query(query)
        res = self.store.client.search(
            self.store.name,
            data=[vector],
            anns_field=DENSE,
            limit=self.topk,
            search_params=self._params(DENSE),
            output_fields=SCALAR_FIELDS,
        )
        return list(res[0])

    def _related_dense(self, query: str, plan: FusionPlan) -> FusionPlan:
        """Narrow a plan's dense filter to the filtered hits above its cosine threshold.

        Returns a BM25-only plan when no chunk passes: nothing related on the dense side.
        """
        if plan.kind != "rrf" or plan.related_above is None:
            return plan
        pool = max(self.topk, int(self.ranker_params.get("candidates", self.topk)))
        res = self.store.client.search(
            self.store.name,
            data=[self.store.embeddings.embed_query(query)],
            anns_field=DENSE,
            limit=pool,
            filter=plan.dense_filter,
            search_params=self._params(DENSE),
            output_fields=["id"],
        )
        ids = [h["id"] for h in res[0] if float(h["distance"]) > plan.related_above]
        if not ids:
            return replace(plan, kind="sparse", reason=plan.reason + " (none related: BM25 alone)")
        return replace(plan, dense_filter=f"id in {json.dumps(ids)}")

    def _params(self, name: str) -> dict:
        """The search params of one field (a one-side search inside hybrid mode included)."""
        for field, params in zip(self.search_fields, self.search_params, strict=True):
            if field == name:
                return params
        return copy.deepcopy(DEFAULT_PARAMS[name])

    def hybrid_search(self, query: str, plan: FusionPlan | None = None) -> list[dict]:
        """Search every field, then fuse the lists in one request (RRF or weighted ranker).

        A plan (the auto ranker) may restrict the dense request with a filter, e.g. to the
        chunks that are not Chinese for a Chinese query (`treerag.retrievers.fusion`).
        """
        from pymilvus import AnnSearchRequest, RRFRanker, WeightedRanker

        # Each side contributes `candidates` hits to the fusion: with only top-k per side, a
        # chunk ranked k+1 on both sides can never surface (BENCHMARKS.md, retrieval).
        pool = max(self.topk, int(self.ranker_params.get("candidates", self.topk)))
        dense_filter = plan.dense_filter if plan is not None else ""
        requests = []
        for name, params in zip(self.search_fields, self.search_params, strict=True):
            if name == DENSE:
                data: Any = self.store.embeddings.embed_query(query)
                expr = dense_filter or None
            else:
                data, expr = self.bm25_data(query), None
            requests.append(
                AnnSearchRequest(data=[data], anns_field=name, param=params, limit=pool, expr=expr)
            )
        if self.ranker_type == "weighted":
            ranker: Any = WeightedRanker(*self.ranker_params["weights"])
        else:
            ranker = RRFRanker(int(self.ranker_params.get("k", 60)))
        res = self.store.client.hybrid_search(
            self.store.name, requests, ranker, limit=self.topk, output_fields=SCALAR_FIELDS
        )
        return list(res[0])

    def search_with_rerank_model(self, query: str) -> list[tuple[Document, float]]:
        """Coarse hybrid top-N with a plain ranker, then a rerank step picks the top k."""
        from treerag.retrievers.rerank import EmbeddingReranker

        params = self.ranker_params
        coarse = Retriever(
            self.store,
            topk=int(params.get("pre_topk", 10)),
            search_fields=self.search_fields,
            search_type="hybrid",
            search_params=self.search_params,
            ranker_type=params.get("pre_ranker_type", "rrf"),
            ranker_params=params.get("pre_ranker_params", {"k": 60}),
            feedback=self.feedback,
        )
        candidates = coarse.search(query)
        reranker = params.get("reranker") or EmbeddingReranker(self.store.embeddings)
        ranked = reranker.rerank(query, candidates)[: self.topk]
        for doc, score in ranked:
            doc.metadata["score"] = score
            doc.metadata["retrieval"] = "hybrid+rerank"
        return ranked


def _default_fields(search_type: str) -> list[str]:
    return [DENSE, SPARSE] if search_type == "hybrid" else [search_type]


def _to_document(hit: dict, mode: str) -> tuple[Document, float]:
    entity = hit.get("entity", {})
    score = float(hit["distance"])
    if mode == "sparse":
        # Milvus Lite reports BM25 as a negative distance (smaller = better); scores stay positive.
        score = abs(score)
    meta = dict(entity.get("meta") or {})
    meta.update(
        source=entity.get("source", ""),
        title=entity.get("title", ""),
        chunk_index=entity.get("chunk_index", 0),
        content_hash=entity.get("content_hash", ""),
        score=score,
        retrieval=mode,
    )
    return Document(id=str(hit["id"]), page_content=entity.get("text", ""), metadata=meta), score


def from_context(store: ChunkStore, topk: int | None = None, mode: str | None = None) -> Retriever:
    """Build a retriever from the run settings (mode, ranker, weights)."""
    ctx = store.ctx
    mode = mode or ctx.search_mode
    ranker_params: dict[str, Any]
    if ctx.ranker == "weighted":
        ranker_params = {
            "weights": [ctx.dense_weight, 1.0 - ctx.dense_weight],
            "candidates": ctx.hybrid_candidates,
        }
    elif ctx.ranker == "model":
        ranker_params = {"pre_topk": ctx.rerank_candidates, "pre_ranker_params": {"k": ctx.rrf_k}}
    else:
        ranker_params = {"k": ctx.rrf_k, "candidates": ctx.hybrid_candidates}
    return Retriever(
        store,
        topk=topk or ctx.top_k,
        search_type=mode,  # type: ignore[arg-type]
        ranker_type=ctx.ranker if mode == "hybrid" else "rrf",
        ranker_params=ranker_params,
        feedback=ctx.bm25_feedback,
    )
