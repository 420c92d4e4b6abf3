"""RM3 pseudo-relevance feedback on BM25 (`TREERAG_BM25_FEEDBACK`)."""

from __future__ import annotations

from collections import Counter

import pytest

from treerag.context import Context
from treerag.retrievers.chunk_store import Chunk, ChunkStore
from treerag.retrievers.feedback import COPIES, expansion_terms, rm3_query
from treerag.retrievers.hybrid import from_context
from treerag.retrievers.language import expand_for_bm25

from .test_multilingual import RandomEmbeddings


def test_without_feedback_passages_the_query_is_unchanged() -> None:
    assert rm3_query(["salt", "wren"], []) == ["salt", "wren"]
    assert rm3_query(["salt"], [(["x"], 0.0)]) == ["salt"]


def test_the_expansion_favours_terms_of_better_matched_passages() -> None:
    feedback = [(["guild", "hull"], -3.0), (["river", "ferry"], -1.0)]  # Lite's negated scores
    weights = expansion_terms(feedback)
    assert weights["guild"] == pytest.approx(3 * weights["river"])
    assert sum(weights.values()) == pytest.approx(1.0)


def test_original_counts_are_kept_and_the_expansion_weighs_as_much_as_the_query() -> None:
    query = ["saltwren", "sank", "sank"]
    out = Counter(rm3_query(query, [(["guild"], 1.0)]))
    assert out["saltwren"] == COPIES and out["sank"] == 2 * COPIES
    assert out["guild"] == len(query) * COPIES  # weight 0.5 against the query's 0.5


# The question names the ship; the other passage about its builders shares no word with the
# question, only with the passage that answers it. A third passage shares one question word.
ENGLISH = [
    "The Saltwren sank in a storm. Tidewright guild shipwrights built her hull at Marrow harbour.",
    "Tidewright guild shipwrights at Marrow harbour kept records of every hull they built.",
    "A river ferry sank near a mill after a flood, and its owner, a miller, sold his cart.",
    "The lighthouse keeper counted gulls every spring.",
    "Farmers sold apples and cheese at the autumn market.",
]
ENGLISH_QUESTION = "why the Saltwren sank"
CHINESE = [
    "潮汐号在风暴中沉没，潮汐行会在玛瑞港为它打造了船体。",
    "潮汐行会的档案记载了玛瑞港的船体修理和行会的木料。",
    "一艘渡船在洪水后于磨坊附近沉没。",
    "灯塔看守人每年春天数海鸥。",
    "农民在秋季集市上出售苹果和奶酪。",
]
CHINESE_QUESTION = "潮汐号为什么沉没"


def _store(tmp_path, texts: list[str], analyzer: str, feedback: bool) -> ChunkStore:
    ctx = Context(
        data_dir=str(tmp_path),
        collection=f"fb_{analyzer}",
        analyzer=analyzer,  # type: ignore[arg-type]
        bm25_feedback=feedback,
    )
    store = ChunkStore(ctx, RandomEmbeddings(), embedding_name="minilm")
    chunks = [Chunk(f"c{i}", t, f"{i}.txt", f"doc{i}", 0, str(i)) for i, t in enumerate(texts)]
    store.ensure(384, texts)
    store.insert(chunks, store.embeddings.embed_documents(texts))
    store.flush()
    return store


@pytest.mark.parametrize(
    ("texts", "question", "analyzer"),
    [(ENGLISH, ENGLISH_QUESTION, "standard"), (CHINESE, CHINESE_QUESTION, "bigram")],
)
def test_feedback_finds_the_passage_that_shares_words_only_with_the_answer(
    tmp_path, texts, question, analyzer
) -> None:
    store = _store(tmp_path, texts, analyzer, feedback=False)
    plain = [d.id for d in from_context(store, topk=2, mode="sparse").search(question)]
    assert plain[0] == "c0" and "c1" not in plain
    with_feedback = from_context(store, topk=2, mode="sparse")
    with_feedback.feedback = True
    assert [d.id for d in with_feedback.search(question)] == ["c0", "c1"]
    hybrid = from_context(store, topk=2, mode="hybrid")
    hybrid.feedback = True
    assert "c1" in [d.id for d in hybrid.search(question)]


def test_the_setting_turns_feedback_on_and_a_jieba_collection_searches_as_before(tmp_path) -> None:
    assert from_context(_store(tmp_path / "b", CHINESE, "bigram", True)).feedback
    store = _store(tmp_path / "j", CHINESE, "jieba", True)
    retriever = from_context(store, mode="sparse")
    assert retriever.feedback
    on = from_context(_store(tmp_path / "s", ENGLISH, "standard", True), mode="sparse")
    assert on.bm25_data("?!") == "?!"  # no term: searched as it is, no feedback search
    assert retriever.bm25_data(CHINESE_QUESTION) == store.bm25_query(
        expand_for_bm25(CHINESE_QUESTION)
    )
