"""The Milvus collection of chunks: text, dense vector and BM25 sparse vector, with metadata."""

from __future__ import annotations

import json
import logging
import time
import weakref
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from treerag.bounded import Lease
from treerag.context import Context
from treerag.embedder_choice import AUTO, resolve_embedder
from treerag.retrievers.analyzers import (
    ANALYZERS,
    SERVER_ANALYZERS,
    STOP_WORDS,
    pick_analyzer,
    stop_words_of,
)
from treerag.retrievers.collection_record import (
    INFO_PROPERTY,
    no_lite_file,
    read_record,
    recorded_settings,
)
from treerag.retrievers.errors import EmptyStoreError, StoreError
from treerag.retrievers.milvus_client import LITE_GRPC_OPTIONS, milvus_client, milvus_lease
from treerag.segment import jieba
from treerag.server.tenants import tenant_collection
from treerag.text import has_han, source_file

__all__ = [
    "ANALYZERS",
    "LITE_GRPC_OPTIONS",
    "Chunk",
    "ChunkStore",
    "EmptyStoreError",
    "INFO_PROPERTY",
    "StoreError",
    "milvus_client",
    "pick_analyzer",
    "recorded_settings",
]

log = logging.getLogger(__name__)
_loaded: weakref.WeakKeyDictionary[Any, set[str]] = weakref.WeakKeyDictionary()
"""The collections each open client has loaded: loading once per client is enough. Kept per
client, not per URI: a client closed (pushed out of the open-stores bound) and opened again
may reach a new Milvus Lite server, which finds every collection released."""


def _loaded_by(client: Any) -> set[str]:
    """The names of the collections `client` has loaded (a set kept with the client)."""
    return _loaded.setdefault(client, set())


COPIES_PROPERTY = "treerag.copies"
"""Files not stored because another file holds the same text: {copy: original}."""

TEXT, DENSE, SPARSE = "text", "dense", "sparse"
TERMS = "terms"
"""The BM25 input of a `bigram` collection: words and character bigrams, space-joined."""
VECTOR_FIELDS = (DENSE, SPARSE)
SCALAR_FIELDS = ["text", "source", "title", "chunk_index", "content_hash", "meta"]
MAX_TEXT_BYTES = 65_535


@dataclass
class Chunk:
    """One chunk ready to be written: id, text and metadata (without vectors)."""

    id: str
    text: str
    source: str
    title: str
    chunk_index: int
    content_hash: str
    meta: dict[str, Any] = field(default_factory=dict)


class ChunkStore:
    """A Milvus collection of chunks, created on first write with the right schema.

    The schema is built with pymilvus directly: Milvus Lite refuses langchain-milvus's default
    sparse index (AUTOINDEX / drop_ratio_build), and BM25 needs SPARSE_INVERTED_INDEX with
    metric BM25 (LANDMINES.md). The embedder name, dimension and analyzer are recorded in the
    collection description so a later mismatch is reported instead of returning nonsense.
    """

    def __init__(self, ctx: Context, embeddings: Any, embedding_name: str | None = None):
        """Open (not create) the collection named by the context."""
        self.ctx = ctx
        self.embeddings = embeddings
        self._embedding_name = embedding_name or (
            None if ctx.embedding_model == AUTO else ctx.embedding_model
        )
        # Each tenant's chunks live in a collection of their own, so no search, count or
        # delete can reach another tenant's rows whatever filter a caller passes (or forgets).
        self.name = tenant_collection(ctx.collection, ctx.tenant)
        self._client: Any = None
        self._lease: Lease[Any] | None = None
        self._release: weakref.finalize | None = None
        self._embedder_checked = False
        self.recorded: dict[str, Any] = {}
        """The collection's recorded settings, read by `check_embedder` before a search."""
        self._analyzer: str | None = None
        self._stop_words: frozenset[str] | None = None

    @property
    def client(self) -> Any:
        """The process's shared MilvusClient for the store's URI, opened on first use.

        The store leases it (`treerag.bounded`) until `close()`, the end of a `with` block,
        or the store's collection as garbage: other tenants pushing the client out of the
        open-stores bound meanwhile do not close it under a call of this store.
        """
        if self._client is None:
            lease = milvus_lease(self.ctx.resolved_milvus_uri, self.ctx.milvus_token)
            # The collector may end it in any thread, so that end must not wait for the
            # table's lock (`Lease.release_soon`); `close()` ends it at once.
            self._release = weakref.finalize(self, lease.release_soon)
            self._lease, self._client = lease, lease.value
        return self._client

    def close(self) -> None:
        """End the store's lease on the client (the client stays open for other users)."""
        if self._release is not None and self._release.detach() is not None and self._lease:
            self._lease.release()  # not the collector's thread: it may wait for the lock
        self._client = self._release = self._lease = None

    def __enter__(self) -> ChunkStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- collection ----------------------------------------------------------------------
    def exists(self) -> bool:
        """Whether the collection exists (a Milvus Lite file that is not there is not opened)."""
        if self._client is None and no_lite_file(self.ctx.resolved_milvus_uri):
            return False
        return bool(self.client.has_collection(self.name))

    @property
    def embedding_name(self) -> str:
        """The embedder the collection records (or will record when `ensure` creates it).

        With `auto` it is read from the collection on first need (`check_embedder` reads the
        record anyway), so opening a store costs no lookup of its own.
        """
        if self._embedding_name is None:
            self._embedding_name = resolve_embedder(self.ctx, self.info() if self.exists() else {})
        return self._embedding_name

    @embedding_name.setter
    def embedding_name(self, name: str) -> None:
        self._embedding_name = name

    def info(self) -> dict[str, Any]:
        """The settings recorded when the collection was created."""
        return read_record(self.client, self.name)

    def ensure(self, dimension: int, sample_texts: Sequence[str] = ()) -> None:
        """Create the collection if missing; check the embedder matches if present."""
        if self.exists() and not self.discard_interrupted():
            self.check_compatible(dimension)
            self.load()
            return
        from pymilvus import DataType, Function, FunctionType

        analyzer = pick_analyzer(self.ctx.analyzer, sample_texts)
        info = {"embedding": self.embedding_name, "dimension": dimension, "analyzer": analyzer}
        # Its analyzer drops English stop words (collections created before keep theirs).
        info["stop_words"] = STOP_WORDS
        # Chunks written from now on carry meta["lang"]: language-aware fusion may filter on it.
        info["chunk_languages"] = True
        schema = self.client.create_schema(auto_id=False)
        schema.add_field("id", DataType.VARCHAR, is_primary=True, max_length=64)
        bm25_input = TERMS if analyzer == "bigram" else TEXT
        analyzers = ANALYZERS if self._is_lite() else {**ANALYZERS, **SERVER_ANALYZERS}
        if bm25_input == TERMS:
            schema.add_field(TEXT, DataType.VARCHAR, max_length=MAX_TEXT_BYTES)
        schema.add_field(
            bm25_input,
            DataType.VARCHAR,
            max_length=MAX_TEXT_BYTES,
            enable_analyzer=True,
            analyzer_params=analyzers[analyzer],
        )
        schema.add_field("source", DataType.VARCHAR, max_length=4096)
        schema.add_field("title", DataType.VARCHAR, max_length=1024)
        schema.add_field("chunk_index", DataType.INT64)
        schema.add_field("content_hash", DataType.VARCHAR, max_length=64)
        schema.add_field("meta", DataType.JSON)
        schema.add_field(DENSE, DataType.FLOAT_VECTOR, dim=dimension)
        schema.add_field(SPARSE, DataType.SPARSE_FLOAT_VECTOR)
        schema.add_function(
            Function(
                name="bm25",
                function_type=FunctionType.BM25,
                input_field_names=[bm25_input],
                output_field_names=[SPARSE],
            )
        )
        index = self.client.prepare_index_params()
        index.add_index(
            DENSE, index_type="FLAT" if self._is_lite() else "HNSW", metric_type="COSINE"
        )
        index.add_index(SPARSE, index_type="SPARSE_INVERTED_INDEX", metric_type="BM25")
        try:
            # The record is a collection property (Milvus Lite drops a schema's description),
            # written in the same call: a process killed in between would leave a collection
            # whose analyzer nothing records (every insert then refused: `discard_interrupted`).
            self.client.create_collection(
                self.name,
                schema=schema,
                index_params=index,
                properties={INFO_PROPERTY: json.dumps(info)},
            )
        except Exception as exc:
            if "already exist" not in str(exc):
                raise
            # Another process created it between our look and our create: use theirs.
            self._join_created(dimension)
            return
        _loaded_by(self.client).add(self.name)
        self._analyzer = analyzer
        self._stop_words = stop_words_of(info)
        log.info("created collection %s (%s)", self.name, info)

    def discard_interrupted(self) -> bool:
        """Whether the collection is an interrupted creation, dropped here to be made again.

        Releases before the record was written with the collection wrote it in a second
        call; a process killed between the two left a collection with no record, so read
        as a `jieba` one, whose `bigram` schema then refused every insert ("Insert missed
        an field `terms`"). Such a collection holds nothing (no insert ever went in); a
        collection with chunks and no record is one made before records, and stays.
        """
        if not self.exists() or self.info() or self.count():
            return False
        log.warning("collection %s has no record and no chunks: made again", self.name)
        self.drop()
        return True

    def _join_created(self, dimension: int, wait_s: float = 30.0) -> None:
        """Use a collection another process has just created, once its record is written."""
        deadline = time.monotonic() + wait_s
        while not self.info() and time.monotonic() < deadline:
            time.sleep(0.1)  # the creator writes the record right after the collection
        self.check_compatible(dimension)
        self.load()

    @property
    def analyzer(self) -> str:
        """The collection's BM25 analyzer (`jieba` for collections that recorded none)."""
        if self._analyzer is None:
            self._read_analyzer()
        return str(self._analyzer)

    @property
    def stop_words(self) -> frozenset[str]:
        """The English stop words the collection's BM25 analyzer drops (none if created before)."""
        if self._stop_words is None:
            self._read_analyzer()
        return self._stop_words or frozenset()

    def _read_analyzer(self) -> None:
        info = self.info()
        self._analyzer = str(info.get("analyzer", "jieba"))
        self._stop_words = stop_words_of(info)

    def bm25_query(self, text: str) -> str:
        """What a BM25 search sends: the text, or its terms in a `bigram` collection.

        Chinese text is segmented by this process's jieba either way (here, or by Milvus
        Lite's analyzer in a `jieba` collection), so its dictionary is loaded the fast way
        first (`treerag.segment`).
        """
        if has_han(text):
            jieba()
        if self.analyzer != "bigram":
            return text
        from treerag.retrievers.lexical import terms_field

        return terms_field(text, MAX_TEXT_BYTES)

    def _is_lite(self) -> bool:
        return "://" not in self.ctx.resolved_milvus_uri

    def check_compatible(self, dimension: int) -> None:
        """Fail clearly when the collection was built with another embedder."""
        info = self.info()
        if info and (
            info.get("dimension") != dimension or info.get("embedding") != self.embedding_name
        ):
            raise StoreError(
                f"collection {self.name!r} was built with embeddings {info.get('embedding')!r} "
                f"({info.get('dimension')}-d) but TREERAG_EMBEDDING_MODEL is "
                f"{self.embedding_name!r} ({dimension}-d): use the same model, or another "
                "TREERAG_COLLECTION, or `treerag ingest --rebuild` to start over"
            )

    def check_embedder(self) -> None:
        """Refuse to search a collection with another embedder than the one it was built with.

        Two 384-d models (minilm, e5-small) would search each other's vectors without any
        error from Milvus, returning nonsense; the recorded name is what tells them apart.
        """
        if self._embedder_checked:
            return
        self.recorded = self.info()
        if self._embedding_name is None:  # `auto`: the record just read names it
            self._embedding_name = resolve_embedder(self.ctx, self.recorded)
        built_with = self.recorded.get("embedding")
        if built_with and built_with != self.embedding_name:
            raise StoreError(
                f"collection {self.name!r} was built with embeddings {built_with!r} but "
                f"TREERAG_EMBEDDING_MODEL is {self.embedding_name!r}: set "
                f"TREERAG_EMBEDDING_MODEL={built_with}, or `treerag ingest --rebuild` to "
                "re-embed it"
            )
        self._embedder_checked = True

    def require_data(self) -> None:
        """Raise EmptyStoreError unless the collection exists and holds chunks."""
        if not self.exists():
            raise EmptyStoreError(
                f"no collection {self.name!r} at {self.ctx.resolved_milvus_uri}: "
                "run `treerag ingest <folder>` first"
            )
        self.load()
        if self.count() == 0:
            raise EmptyStoreError(
                f"no documents in collection {self.name!r} at {self.ctx.resolved_milvus_uri}: "
                "run `treerag ingest <folder>` first"
            )

    def load(self) -> None:
        """Load the collection for search (a fresh process finds it released)."""
        loaded = _loaded_by(self.client)
        if self.name not in loaded:
            self.client.load_collection(self.name)
            loaded.add(self.name)

    def drop(self) -> None:
        """Drop the collection (everything in it)."""
        if self.exists():
            self.client.drop_collection(self.name)
        _loaded_by(self.client).discard(self.name)
        self._analyzer = None
        self._stop_words = None

    # -- rows ----------------------------------------------------------------------------
    def count(self) -> int:
        """Number of chunks stored."""
        self.load()
        rows = self.client.query(self.name, filter="", output_fields=["count(*)"])
        return int(rows[0]["count(*)"]) if rows else 0

    def ids_by_source(self) -> dict[str, set[str]]:
        """Map every stored source to the ids of its chunks."""
        out: dict[str, set[str]] = {}
        for row in self._every_row("", ["source"]):
            out.setdefault(row["source"], set()).add(row["id"])
        return out

    def _every_row(self, where: str, fields: list[str]) -> list[dict[str, Any]]:
        """Every row a filter selects, read page by page (a query iterator).

        An iterator's pages are calls of their own, past the shared client's failover: when
        the process serving the folder exits in the middle, the whole read is made again on
        the next server (`SharedLiteClient.again_if_lost`).
        """
        self.load()

        def read() -> list[dict[str, Any]]:
            rows: list[dict[str, Any]] = []
            it = self.client.query_iterator(
                self.name, filter=where, output_fields=fields, batch_size=2000
            )
            try:
                while batch := it.next():
                    rows.extend(batch)
            finally:
                it.close()
            return rows

        again = getattr(self.client, "again_if_lost", None)
        return again(read) if again is not None else read()

    def files_by_hash(self) -> dict[str, set[str]]:
        """Map the text hash of every stored file (meta.file_hash, set by ingest) to its files."""
        out: dict[str, set[str]] = {}
        for row in self._every_row("chunk_index == 0", ["source", "meta"]):
            digest = (row.get("meta") or {}).get("file_hash")
            if digest:
                out.setdefault(digest, set()).add(source_file(row["source"]))
        return out

    def copies(self) -> dict[str, str]:
        """Files whose text is stored once under another file: {copy: original}."""
        props = self.client.describe_collection(self.name).get("properties") or {}
        try:
            return dict(json.loads(props.get(COPIES_PROPERTY, "{}")))
        except (json.JSONDecodeError, TypeError, ValueError):
            return {}

    def set_copies(self, copies: dict[str, str]) -> None:
        """Remember which files are copies of which (a collection property, like the info)."""
        self.client.alter_collection_properties(
            self.name, properties={COPIES_PROPERTY: json.dumps(copies, ensure_ascii=False)}
        )

    def insert(self, chunks: Sequence[Chunk], vectors: Sequence[Sequence[float]]) -> None:
        """Write chunks with their dense vectors (BM25 vectors are computed by Milvus)."""
        terms = self.analyzer == "bigram"
        if terms:
            from treerag.retrievers.lexical import terms_field
        rows = [
            {
                "id": c.id,
                TEXT: c.text,
                **({TERMS: terms_field(c.text, MAX_TEXT_BYTES)} if terms else {}),
                "source": c.source,
                "title": c.title[:1000],
                "chunk_index": c.chunk_index,
                "content_hash": c.content_hash,
                "meta": c.meta,
                DENSE: list(v),
            }
            for c, v in zip(chunks, vectors, strict=True)
        ]
        if rows:
            self.client.upsert(self.name, rows)

    def delete(self, ids: Iterable[str]) -> None:
        """Delete chunks by id."""
        ids = list(ids)
        for start in range(0, len(ids), 1000):
            self.client.delete(self.name, ids=ids[start : start + 1000])

    def get(self, ids: Sequence[str]) -> list[dict[str, Any]]:
        """Fetch stored rows by id (without vectors)."""
        if not ids:
            return []
        self.load()
        return list(self.client.get(self.name, ids=list(ids), output_fields=SCALAR_FIELDS))

    def of_source(self, source: str, limit: int = 2000) -> list[dict[str, Any]]:
        """The chunks of one stored source (without vectors), in document order."""
        self.load()
        literal = json.dumps(source)  # a quoted string Milvus' filter parser reads as JSON does
        rows = self.client.query(
            self.name, filter=f"source == {literal}", output_fields=SCALAR_FIELDS, limit=limit
        )
        return sorted(rows, key=lambda r: r["chunk_index"])

    def all_rows(self) -> list[dict[str, Any]]:
        """Every stored chunk (without vectors), ordered by source and position."""
        ids = sorted(i for chunk_ids in self.ids_by_source().values() for i in chunk_ids)
        rows = [
            row for start in range(0, len(ids), 500) for row in self.get(ids[start : start + 500])
        ]
        return sorted(rows, key=lambda r: (r["source"], r["chunk_index"]))

    def flush(self) -> None:
        """Seal written data: unflushed searches are ~30x slower on Milvus Lite (LANDMINES.md)."""
        self.client.flush(self.name)
