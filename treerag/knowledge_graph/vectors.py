"""Vector index protocol and the default in-memory numpy implementation."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Protocol, runtime_checkable

import numpy as np

from treerag.knowledge_graph.embedding import normalize_rows


@runtime_checkable
class VectorIndex(Protocol):
    """Store unit vectors of entities and edges by id and find the nearest ones.

    ``kind`` tells entity vectors ("entity") from edge vectors ("edge"). Scores are cosine
    similarities, larger is closer.
    """

    def upsert(self, ids: Sequence[str], vectors: np.ndarray, kinds: Sequence[str]) -> None:
        """Insert or replace vectors."""
        ...

    def delete(self, ids: Sequence[str]) -> None:
        """Remove vectors; unknown ids are ignored."""
        ...

    def search(
        self, vector: np.ndarray, k: int, kind: str | None = None
    ) -> list[tuple[str, float]]:
        """Return up to k (id, score) pairs, best first, optionally of one kind only."""
        ...

    def fetch(self, ids: Sequence[str]) -> tuple[list[str], np.ndarray]:
        """Return the ids found (in the order asked) and their vectors as rows."""
        ...

    def __len__(self) -> int:
        """Return the number of stored vectors."""
        ...


class NumpyVectorIndex:
    """Brute-force cosine index in memory; fast enough for tens of thousands of vectors."""

    def __init__(self) -> None:
        self._ids: list[str] = []
        self._row: dict[str, int] = {}
        self._kinds: list[str] = []
        self._masks: dict[str, np.ndarray] = {}
        """Per-kind row masks, dropped on every write."""
        self._matrix = np.zeros((0, 0), dtype=np.float32)

    def __len__(self) -> int:
        return len(self._ids)

    @property
    def dim(self) -> int:
        """Return the vector size (0 while empty)."""
        return int(self._matrix.shape[1]) if len(self._ids) else 0

    def _ensure_capacity(self, rows: int, dim: int) -> None:
        used = len(self._ids)
        if used == 0 and self._matrix.shape[1] != dim:
            self._matrix = np.zeros((max(16, rows), dim), dtype=np.float32)
        if self._matrix.shape[1] != dim:
            raise ValueError(f"vector size {dim} differs from the index's {self._matrix.shape[1]}")
        if used + rows > self._matrix.shape[0]:
            grown = np.zeros((max(2 * self._matrix.shape[0], used + rows), dim), np.float32)
            grown[:used] = self._matrix[:used]
            self._matrix = grown

    def upsert(self, ids: Sequence[str], vectors: np.ndarray, kinds: Sequence[str]) -> None:
        """Insert or replace vectors (rows are normalised on the way in)."""
        if not len(ids):
            return
        rows = normalize_rows(vectors)
        if rows.shape[0] != len(ids) or len(kinds) != len(ids):
            raise ValueError("ids, vectors and kinds must have the same length")
        self._masks.clear()
        fresh = sum(1 for i in ids if i not in self._row)
        self._ensure_capacity(fresh, rows.shape[1])
        for ident, vec, kind in zip(ids, rows, kinds, strict=True):
            row = self._row.get(ident)
            if row is None:
                row = len(self._ids)
                self._row[ident] = row
                self._ids.append(ident)
                self._kinds.append(kind)
            self._kinds[row] = kind
            self._matrix[row] = vec

    def delete(self, ids: Sequence[str]) -> None:
        """Remove vectors by moving the last row into each freed slot."""
        self._masks.clear()
        for ident in ids:
            row = self._row.pop(ident, None)
            if row is None:
                continue
            last = len(self._ids) - 1
            if row != last:
                moved = self._ids[last]
                self._ids[row], self._kinds[row] = moved, self._kinds[last]
                self._matrix[row] = self._matrix[last]
                self._row[moved] = row
            self._ids.pop()
            self._kinds.pop()

    def search(
        self, vector: np.ndarray, k: int, kind: str | None = None
    ) -> list[tuple[str, float]]:
        """Return up to k (id, cosine) pairs, best first; ties go to the earlier insert."""
        n = len(self._ids)
        if n == 0 or k <= 0:
            return []
        q = normalize_rows(np.asarray(vector, dtype=np.float32))[0]
        scores = self._matrix[:n] @ q
        if kind is not None:
            mask = self._masks.get(kind)
            if mask is None:
                mask = np.fromiter((x == kind for x in self._kinds), dtype=bool, count=n)
                self._masks[kind] = mask
            scores = np.where(mask, scores, -np.inf)
        k = min(k, n)
        top = np.argpartition(-scores, k - 1)[:k] if k < n else np.arange(n)
        order = top[np.lexsort((top, -scores[top]))]
        return [(self._ids[i], float(scores[i])) for i in order if np.isfinite(scores[i])]

    def fetch(self, ids: Sequence[str]) -> tuple[list[str], np.ndarray]:
        """Return the ids found (in the order asked) and their rows."""
        found = [i for i in ids if i in self._row]
        rows = [self._row[i] for i in found]
        dim = self._matrix.shape[1]
        if not rows:
            return [], np.zeros((0, dim), dtype=np.float32)
        return found, self._matrix[rows].copy()

    def save(self, path: str | Path) -> None:
        """Write the index to an .npz file atomically (temp file + os.replace)."""
        path = Path(path)
        n = len(self._ids)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
        try:
            with os.fdopen(fd, "wb") as fh:
                np.savez(
                    fh,
                    ids=np.array(self._ids, dtype=np.str_),
                    kinds=np.array(self._kinds, dtype=np.str_),
                    vectors=self._matrix[:n],
                )
            os.replace(tmp, path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise

    @classmethod
    def load(cls, path: str | Path) -> NumpyVectorIndex:
        """Read an index written by save()."""
        index = cls()
        with np.load(Path(path), allow_pickle=False) as data:
            ids = [str(x) for x in data["ids"]]
            kinds = [str(x) for x in data["kinds"]]
            vectors = data["vectors"].astype(np.float32)
        if ids:
            index.upsert(ids, vectors, kinds)
        return index


def make_vector_index(uri: str | None = None, collection: str = "knowledge_graph") -> VectorIndex:
    """Return the in-memory index, or a Milvus collection when a URI (or .db path) is given."""
    if not uri:
        return NumpyVectorIndex()
    from treerag.knowledge_graph.milvus_index import MilvusVectorIndex

    return MilvusVectorIndex(uri, collection)
