"""English stop words are out of BM25: Milvus's `stop` filter in every analyzer of a new collection."""

from __future__ import annotations

import json

import pytest

from treerag.context import Context
from treerag.retrievers import chunk_store
from treerag.retrievers.analyzers import ENGLISH_STOP_WORDS
from treerag.retrievers.chunk_store import INFO_PROPERTY, TERMS, TEXT, Chunk, ChunkStore
from treerag.retrievers.hybrid import from_context

from .test_multilingual import RandomEmbeddings

# A mixed collection: "the" and "of" occur in few chunks (the Chinese ones have none), so
# they weigh as much as a content word. The target shares only "the" and "engine" with the
# question; the distractors share only "of" and "the", many times over.
TARGET = "Dr. Ilsa Marrik designed the engine that turns the lamp."
ENGLISH = [
    "The keeper of the lighthouse of the cape is the son of the mayor of the town.",
    "Most of the salt of the island is sold at the market of the port.",
    "The guild of the weavers meets in the hall of the old quarter.",
]
CHINESE = [
    "灯塔建于1602年。",
    "渔民常问灯塔在哪里。",
    "钟楼在城镇北边。",
    "茶园在山坡上。",
    "盐税在洪水后废除。",
    "渡轮每天两班。",
]
QUESTION = "designer of the Pellucid Engine"
# The analyzers as they were before the stop filter (what existing collections keep).
BEFORE = {
    "standard": {"tokenizer": "standard", "filter": ["lowercase"]},
    "bigram": {"tokenizer": "standard"},
}


def _store(tmp_path, analyzer: str, name: str = "sw") -> ChunkStore:
    ctx = Context(data_dir=str(tmp_path), collection=f"{name}_{analyzer}", analyzer=analyzer)  # type: ignore[arg-type]
    store = ChunkStore(ctx, RandomEmbeddings(), embedding_name="minilm")
    texts = [TARGET, *ENGLISH, *CHINESE]
    chunks = [Chunk(f"c{i}", t, f"{i}.txt", f"doc{i}", 0, str(i)) for i, t in enumerate(texts)]
    store.ensure(384, texts)
    store.insert(chunks, store.embeddings.embed_documents(texts))
    store.flush()
    return store


def _sparse_ids(store: ChunkStore, query: str, k: int = 4) -> list[str]:
    return [d.id for d in from_context(store, topk=k, mode="sparse").search(query)]


def _field_params(store: ChunkStore) -> dict:
    field = TERMS if store.analyzer == "bigram" else TEXT
    fields = store.client.describe_collection(store.name)["fields"]
    params = next(f for f in fields if f["name"] == field)["params"]["analyzer_params"]
    return json.loads(params) if isinstance(params, str) else params


@pytest.mark.parametrize("analyzer", ["standard", "bigram"])
def test_a_stop_word_heavy_question_no_longer_ranks_by_the_and_of(tmp_path, analyzer) -> None:
    store = _store(tmp_path, analyzer)
    assert store.info()["stop_words"] == "english"
    assert store.stop_words == frozenset(ENGLISH_STOP_WORDS)
    assert _sparse_ids(store, QUESTION) == ["c0"]  # only the chunk with "engine" matches
    # The filter is in the collection's schema, which Milvus keeps for index and query alike.
    stop = [f for f in _field_params(store)["filter"] if isinstance(f, dict)]
    assert stop == [{"type": "stop", "stop_words": list(ENGLISH_STOP_WORDS)}]


@pytest.mark.parametrize("analyzer", ["standard", "bigram"])
def test_an_existing_collection_keeps_the_analyzer_it_was_created_with(
    tmp_path, analyzer, monkeypatch
) -> None:
    monkeypatch.setattr(chunk_store, "ANALYZERS", {**chunk_store.ANALYZERS, **BEFORE})
    old = _store(tmp_path, analyzer, name="old")
    info = {k: v for k, v in old.info().items() if k != "stop_words"}  # recorded before
    old.client.alter_collection_properties(old.name, properties={INFO_PROPERTY: json.dumps(info)})
    monkeypatch.undo()
    reopened = ChunkStore(old.ctx, RandomEmbeddings(), embedding_name="minilm")
    assert reopened.stop_words == frozenset()
    assert reopened.analyzer == analyzer
    # Its index still counts "of" and "the": a distractor ranks first, as the issue saw.
    assert _sparse_ids(reopened, QUESTION)[0] != "c0"


def test_chinese_terms_are_unchanged(tmp_path) -> None:
    store = _store(tmp_path, "bigram")
    row = store.client.get(store.name, ids=["c2"], output_fields=[TERMS])[0]
    assert "the" in row[TERMS].split()  # the stored terms are as before; Milvus drops them
    assert _sparse_ids(store, "灯塔在哪里", k=2) == ["c5", "c4"]
    assert _sparse_ids(store, "茶园", k=1) == ["c7"]


def test_a_question_of_stop_words_only_is_answered_without_error(tmp_path) -> None:
    store = _store(tmp_path, "standard")
    assert _sparse_ids(store, "what is the") == []
    assert len(from_context(store, topk=3, mode="hybrid").search("what is the")) == 3
