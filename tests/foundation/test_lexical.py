"""Chinese BM25 on jieba's words plus character bigrams (`bigram` collections)."""

from __future__ import annotations

import pytest

from treerag.context import Context
from treerag.retrievers.chunk_store import MAX_TEXT_BYTES, TERMS, Chunk, ChunkStore
from treerag.retrievers.hybrid import from_context
from treerag.retrievers.lexical import bm25_terms, terms_field

from .test_multilingual import RandomEmbeddings

# jieba cuts the harbour's name as 索 / 拉玛 / 瑞港 in the passage and keeps 玛瑞港 whole in
# the question, so the two share no word: only the character pairs 玛瑞 and 瑞港 meet.
TARGET = "索拉玛瑞港的灯塔建于1602年。"
OTHERS = ["渔民常问灯塔在哪里。", "钟楼在城镇北边，游客常问在哪里买票。", "茶园在山坡上。"]
QUESTION = "玛瑞港在哪里"


def test_terms_are_words_and_character_pairs_without_punctuation() -> None:
    terms = bm25_terms("潮汐号，Built by the GUILD.")
    assert {"潮汐", "汐号", "built", "guild"} <= set(terms)
    assert not [t for t in terms if not t.isalnum()]


def test_a_terms_field_is_cut_at_a_term_boundary_within_its_byte_limit() -> None:
    text = "潮汐号的船长" * 40
    field = terms_field(text, 100)
    assert len(field.encode("utf-8")) <= 100
    assert set(field.split()) <= set(bm25_terms(text))


def _store(tmp_path, analyzer: str) -> ChunkStore:
    ctx = Context(data_dir=str(tmp_path), collection=f"lex_{analyzer}", analyzer=analyzer)  # type: ignore[arg-type]
    store = ChunkStore(ctx, RandomEmbeddings(), embedding_name="minilm")
    texts = [TARGET, *OTHERS]
    chunks = [Chunk(f"c{i}", t, f"{i}.txt", f"doc{i}", 0, str(i)) for i, t in enumerate(texts)]
    store.ensure(384, texts)
    store.insert(chunks, store.embeddings.embed_documents(texts))
    store.flush()
    return store


def _top(store: ChunkStore) -> str:
    return from_context(store, topk=1, mode="sparse").search(QUESTION)[0].id


def test_a_name_jieba_segments_differently_is_found_through_its_character_pairs(tmp_path) -> None:
    words_only = _store(tmp_path / "jieba", "jieba")
    both = _store(tmp_path / "bigram", "bigram")
    assert _top(words_only) != "c0"  # jieba's words alone miss it (the case this is for)
    assert _top(both) == "c0"


def test_auto_picks_bigrams_for_chinese_and_the_terms_are_stored(tmp_path) -> None:
    store = _store(tmp_path, "auto")
    assert store.info()["analyzer"] == "bigram"
    row = store.client.get(store.name, ids=["c0"], output_fields=[TERMS])[0]
    assert "瑞港" in row[TERMS].split() and len(row[TERMS]) < MAX_TEXT_BYTES


@pytest.mark.parametrize("analyzer", ["jieba", "standard"])
def test_collections_without_a_terms_field_search_their_text_as_before(tmp_path, analyzer) -> None:
    store = _store(tmp_path, analyzer)
    assert store.bm25_query(QUESTION) == QUESTION
    # jieba finds the word inside a sentence; standard (for English) only whole \w+ runs.
    query = "灯塔" if analyzer == "jieba" else "茶园在山坡上"
    assert from_context(store, topk=4, mode="sparse").search(query)
