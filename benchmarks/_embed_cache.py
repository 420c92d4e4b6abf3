"""Passage embeddings cached on disk (bench-out/, git-ignored) so benchmark reruns skip them."""

from __future__ import annotations

import hashlib
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np

CACHE_DIR = Path(__file__).resolve().parent.parent / "bench-out" / "embeddings"


def embedder(name: str):
    """The product's embedder object for an offline model name."""
    from treerag.context import Context
    from treerag.models import get_embeddings

    return get_embeddings(Context(embedding_model=name))


def passage_vectors(
    name: str, texts: Sequence[str], cache: bool = True
) -> tuple[np.ndarray, float | None]:
    """Embed passages with model `name`; returns (vectors, passages/s or None if cached)."""
    key = hashlib.sha1("\x00".join(texts).encode()).hexdigest()[:16]
    path = CACHE_DIR / f"{name}-{len(texts)}-{key}.npy"
    if cache and path.exists():
        return np.load(path), None
    emb = embedder(name)
    emb.embed_documents(["warm-up"])
    start = time.perf_counter()
    vectors = np.asarray(emb.embed_documents(list(texts)), dtype=np.float32)
    rate = len(texts) / (time.perf_counter() - start)
    if cache:
        path.parent.mkdir(parents=True, exist_ok=True)
        np.save(path, vectors)
    return vectors, rate


def query_vectors(name: str, queries: Sequence[str]) -> np.ndarray:
    """Embed queries with model `name` (query prefix where the model has one), cached."""
    key = hashlib.sha1(("q\x00" + "\x00".join(queries)).encode()).hexdigest()[:16]
    path = CACHE_DIR / f"{name}-q{len(queries)}-{key}.npy"
    if path.exists():
        return np.load(path)
    emb = embedder(name)
    vectors = np.asarray([emb.embed_query(q) for q in queries], dtype=np.float32)
    path.parent.mkdir(parents=True, exist_ok=True)
    np.save(path, vectors)
    return vectors
