"""Rerank steps for the `model` ranker: an OpenAI-style rerank endpoint, or offline embeddings."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any, Protocol

import numpy as np
from langchain_core.documents import Document

_SENTENCE_END = re.compile(r"(?<=[.!?。！？；;])\s*")


class Reranker(Protocol):
    """Score candidate documents against a query, best first."""

    def rerank(self, query: str, docs: Sequence[Document]) -> list[tuple[Document, float]]:
        """Return (document, score) pairs sorted best first."""
        ...


class EmbeddingReranker:
    """Offline cross-similarity: mean of whole-chunk cosine and best-sentence cosine.

    Whole-chunk similarity alone repeats the dense search; the best sentence rewards a chunk
    that holds one sentence squarely on the question, which is what a cross-encoder notices.
    """

    def __init__(self, embeddings: Any):
        """Use the given embeddings (anything with `embed_documents`/`embed_query`)."""
        self.embeddings = embeddings

    def rerank(self, query: str, docs: Sequence[Document]) -> list[tuple[Document, float]]:
        """Return (document, score) pairs sorted best first."""
        if not docs:
            return []
        sentences: list[str] = []
        owner: list[int] = []
        for i, doc in enumerate(docs):
            parts = [s for s in _SENTENCE_END.split(doc.page_content) if s.strip()] or [" "]
            sentences.extend(parts)
            owner.extend([i] * len(parts))
        texts = [d.page_content for d in docs] + sentences
        matrix = np.asarray(self.embeddings.embed_documents(texts), dtype=np.float32)
        q = np.asarray(self.embeddings.embed_query(query), dtype=np.float32)
        sims = matrix @ q
        whole, per_sentence = sims[: len(docs)], sims[len(docs) :]
        best = np.full(len(docs), -1.0, dtype=np.float32)
        np.maximum.at(best, np.asarray(owner), per_sentence)
        scores = 0.5 * whole + 0.5 * best
        order = np.argsort(-scores, kind="stable")
        return [(docs[i], float(scores[i])) for i in order]


class EndpointReranker:
    """A `/rerank` endpoint in the Jina/Cohere/vLLM shape: {model, query, documents, top_n}."""

    def __init__(self, url: str, model: str, api_key: str = "", timeout: float = 30.0):
        """Call `url` (the full rerank URL) with `model`."""
        self.url, self.model, self.api_key, self.timeout = url, model, api_key, timeout

    def rerank(self, query: str, docs: Sequence[Document]) -> list[tuple[Document, float]]:
        """Return (document, score) pairs sorted best first."""
        import httpx

        headers = {"Authorization": f"Bearer {self.api_key}"} if self.api_key else {}
        body = {
            "model": self.model,
            "query": query,
            "documents": [d.page_content for d in docs],
            "top_n": len(docs),
        }
        resp = httpx.post(self.url, json=body, headers=headers, timeout=self.timeout)
        resp.raise_for_status()
        payload = resp.json()
        # DashScope nests results under "output"; the others return them at the top level.
        results = payload.get("results") or payload.get("output", {}).get("results", [])
        ranked = [(docs[r["index"]], float(r["relevance_score"])) for r in results]
        return sorted(ranked, key=lambda p: -p[1])
