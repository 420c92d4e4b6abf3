"""Injected embed functions: the Embed type, a hashed offline embedder and an adapter."""

from __future__ import annotations

import re
import zlib
from collections.abc import Callable, Sequence
from typing import Any, Protocol, TypeAlias

import numpy as np

from treerag.knowledge_graph.errors import EmbeddingError
from treerag.text import WIDE_CHAR

Embed: TypeAlias = Callable[[list[str]], np.ndarray]
"""Map texts to an (n, d) float32 array of L2-normalised rows."""

_WORD = re.compile(r"[^\W_]+", re.UNICODE)


def normalize_rows(matrix: np.ndarray) -> np.ndarray:
    """Return float32 rows scaled to unit length; all-zero rows stay zero."""
    rows = np.asarray(matrix, dtype=np.float32)
    if rows.ndim == 1:
        rows = rows[None, :]
    norms = np.linalg.norm(rows, axis=1, keepdims=True)
    safe = np.where(norms > 0, norms, 1.0)
    return (rows / safe).astype(np.float32, copy=False)


def embed_checked(embed: Embed, texts: list[str]) -> np.ndarray:
    """Call embed and check it returned one finite row per text; return normalised rows."""
    out = np.asarray(embed(texts), dtype=np.float32)
    if out.ndim != 2 or out.shape[0] != len(texts):
        raise EmbeddingError(
            f"embed returned shape {out.shape} for {len(texts)} texts; expected ({len(texts)}, d)"
        )
    if not np.isfinite(out).all():
        raise EmbeddingError("embed returned NaN or infinite values")
    return normalize_rows(out)


def hash_tokens(text: str) -> list[str]:
    """Return lexical features: lowercased words, CJK characters and CJK bigrams."""
    tokens: list[str] = []
    for word in _WORD.findall(text.casefold()):
        if WIDE_CHAR.search(word):
            chars = [c for c in word if WIDE_CHAR.match(c)]
            tokens.extend(chars)
            tokens.extend(a + b for a, b in zip(chars, chars[1:], strict=False))
            latin = WIDE_CHAR.sub(" ", word).split()
            tokens.extend(latin)
        else:
            tokens.append(word)
    return tokens


class HashEmbedder:
    """Embed texts as signed hashed bags of words: lexical, deterministic, offline.

    It stands in when no real embedding model is available; similarity reflects shared
    words (and CJK characters/bigrams), not meaning.
    """

    def __init__(self, dim: int = 256) -> None:
        if dim < 2:
            raise ValueError("dim must be at least 2")
        self.dim = dim
        self.id = f"hash-{dim}"

    def __call__(self, texts: list[str]) -> np.ndarray:
        """Return one L2-normalised float32 row per text."""
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for row, text in enumerate(texts):
            for token in hash_tokens(text):
                # crc32 is stable across runs, unlike the salted built-in hash().
                h = zlib.crc32(token.encode("utf-8"))
                out[row, h % self.dim] += 1.0 if (h >> 31) & 1 else -1.0
        return normalize_rows(out)


class SupportsEmbedDocuments(Protocol):
    """Anything with a LangChain-style ``embed_documents``."""

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        """Embed texts."""
        ...


def embed_from_documents(embeddings: SupportsEmbedDocuments) -> Embed:
    """Adapt a LangChain-style embeddings object to an Embed function."""

    def embed(texts: list[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, 0), dtype=np.float32)
        return normalize_rows(np.asarray(embeddings.embed_documents(list(texts)), np.float32))

    return embed


def embedder_id(embed: Any) -> str:
    """Return a stable name for an embed function (its ``id`` attribute, else its class)."""
    ident = getattr(embed, "id", None)
    if isinstance(ident, str) and ident:
        return ident
    return type(embed).__qualname__


def unit_query(vector: Sequence[float] | np.ndarray) -> np.ndarray:
    """Return a query vector as float64 with unit length (zeros stay zeros)."""
    q = np.asarray(vector, dtype=np.float64).reshape(-1)
    norm = float(np.linalg.norm(q))
    return q / norm if norm > 0 else q
