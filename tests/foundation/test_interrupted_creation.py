"""A first ingest killed while it created the collection leaves nothing that refuses the next one.

The collection's record (embedder, analyzer) is a collection property. Written in a second call,
as releases before did, a kill between the two left a collection with no record: read as a
`jieba` collection, its `bigram` schema refused every insert ("Insert missed an field `terms`"),
in this data dir for good.
"""

from __future__ import annotations

from pathlib import Path

from treerag.context import Context
from treerag.ingest.indexer import ingest
from treerag.models import embedding_dimension, get_embeddings
from treerag.retrievers.chunk_store import ChunkStore

TEXT = "潮汐号于1902年在青石镇下水，船长是沈秋禾。"


def test_the_record_is_written_with_the_collection(tmp_path: Path) -> None:
    ctx = Context(data_dir=str(tmp_path / "data"))
    store = ChunkStore(ctx, get_embeddings(ctx))
    store.ensure(embedding_dimension(store.embeddings), [TEXT])
    assert store.info()["analyzer"] == "bigram"


def test_a_collection_left_without_its_record_is_made_again(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    # English first: the collection is made again from every file's first chunks, as a new
    # one is, not from the first file's alone (which would make it English-only).
    (docs / "a_harbour.txt").write_text("The harbour of Keldmarsh was dredged.", encoding="utf-8")
    (docs / "b_ship.txt").write_text(TEXT, encoding="utf-8")
    ctx = Context(data_dir=str(tmp_path / "data"))
    store = ChunkStore(ctx, get_embeddings(ctx))
    store.ensure(embedding_dimension(store.embeddings), [TEXT])
    # What a kill between creating the collection and writing its record left behind.
    store.client.drop_collection_properties(store.name, property_keys=[*store_properties(store)])
    store._analyzer = None
    assert store.info() == {} and store.exists()

    report = ingest([docs], ctx)
    assert not report.skipped and report.total_chunks == 2
    fresh = ChunkStore(ctx, None)
    assert fresh.info()["analyzer"] == "bigram" and fresh.count() == 2
    assert fresh.info()["embedding"] != "minilm"  # chosen for text that is not all English


def store_properties(store: ChunkStore) -> dict[str, str]:
    """The collection's properties, where its record lives."""
    return dict(store.client.describe_collection(store.name).get("properties") or {})
