"""Vector index on a Milvus collection (Milvus Lite file, standalone or distributed by URI)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import numpy as np

from treerag.knowledge_graph.embedding import normalize_rows

_BATCH = 1000
_MAX_ID = 512


def _quote_list(ids: Sequence[str]) -> str:
    # JSON string literals are valid Milvus filter string literals (escapes included).
    return "[" + ", ".join(json.dumps(i, ensure_ascii=False) for i in ids) + "]"


class MilvusVectorIndex:
    """Store entity/edge vectors in one Milvus collection: id, kind, vector (COSINE).

    The collection is created on the first insert, when the vector size is known. Every
    write is flushed: unflushed Milvus Lite segments make searches tens of times slower.
    """

    def __init__(self, uri: str, collection: str = "knowledge_graph", **client_kwargs: Any):
        # Imported here so the package works without pymilvus when this index is unused.
        from pymilvus import MilvusClient

        self.uri = uri
        self.collection = collection
        if "://" not in uri:
            from treerag.milvus_options import LITE_GRPC_OPTIONS

            client_kwargs.setdefault("grpc_options", LITE_GRPC_OPTIONS)
        self._client = MilvusClient(uri, **client_kwargs)
        self._dim = self._existing_dim()

    def _existing_dim(self) -> int:
        if not self._client.has_collection(self.collection):
            return 0
        info = self._client.describe_collection(self.collection)
        for f in info.get("fields", []):
            if f.get("name") == "vector":
                return int(f.get("params", {}).get("dim", 0))
        return 0

    def _create(self, dim: int) -> None:
        from pymilvus import DataType

        schema = self._client.create_schema(auto_id=False, enable_dynamic_field=False)
        schema.add_field("id", DataType.VARCHAR, is_primary=True, max_length=_MAX_ID)
        schema.add_field("kind", DataType.VARCHAR, max_length=16)
        schema.add_field("vector", DataType.FLOAT_VECTOR, dim=dim)
        index = self._client.prepare_index_params()
        index.add_index(field_name="vector", index_type="FLAT", metric_type="COSINE")
        self._client.create_collection(self.collection, schema=schema, index_params=index)
        self._dim = dim

    def __len__(self) -> int:
        if not self._dim:
            return 0
        stats = self._client.get_collection_stats(self.collection)
        return int(stats.get("row_count", 0))

    def upsert(self, ids: Sequence[str], vectors: np.ndarray, kinds: Sequence[str]) -> None:
        """Insert or replace vectors, then flush."""
        if not len(ids):
            return
        rows = normalize_rows(vectors)
        if not self._dim:
            self._create(int(rows.shape[1]))
        if rows.shape[1] != self._dim:
            raise ValueError(
                f"vector size {rows.shape[1]} differs from the collection's {self._dim}"
            )
        for ident in ids:
            if len(ident.encode("utf-8")) > _MAX_ID:
                raise ValueError(f"id longer than {_MAX_ID} bytes: {ident[:40]!r}…")
        data = [
            {"id": i, "kind": k, "vector": v.tolist()}
            for i, k, v in zip(ids, kinds, rows, strict=True)
        ]
        for start in range(0, len(data), _BATCH):
            self._client.upsert(self.collection, data[start : start + _BATCH])
        self._client.flush(self.collection)

    def delete(self, ids: Sequence[str]) -> None:
        """Remove vectors by id, then flush."""
        if not self._dim or not len(ids):
            return
        for start in range(0, len(ids), _BATCH):
            self._client.delete(self.collection, ids=list(ids[start : start + _BATCH]))
        self._client.flush(self.collection)

    def search(
        self, vector: np.ndarray, k: int, kind: str | None = None
    ) -> list[tuple[str, float]]:
        """Return up to k (id, cosine) pairs, best first."""
        if not self._dim or k <= 0:
            return []
        q = normalize_rows(np.asarray(vector, dtype=np.float32))[0]
        hits = self._client.search(
            self.collection,
            data=[q.tolist()],
            limit=k,
            filter=f"kind == {json.dumps(kind)}" if kind else "",
            anns_field="vector",
            search_params={"metric_type": "COSINE"},
        )
        return [(str(h["id"]), float(h["distance"])) for h in hits[0]]

    def fetch(self, ids: Sequence[str]) -> tuple[list[str], np.ndarray]:
        """Return the ids found (in the order asked) and their vectors."""
        if not self._dim or not len(ids):
            return [], np.zeros((0, self._dim), dtype=np.float32)
        got: dict[str, list[float]] = {}
        for start in range(0, len(ids), _BATCH):
            part = list(ids[start : start + _BATCH])
            rows = self._client.query(
                self.collection, filter=f"id in {_quote_list(part)}", output_fields=["id", "vector"]
            )
            got.update({str(r["id"]): r["vector"] for r in rows})
        found = [i for i in ids if i in got]
        matrix = np.asarray([got[i] for i in found], dtype=np.float32).reshape(-1, self._dim)
        return found, matrix

    def close(self) -> None:
        """Release the client."""
        self._client.close()
