"""The root reads further down the hybrid list when nothing in its top_k answers.

The corpus: six notes about the Orlen bridge repeat its name and the words of the question
but never say when it opened; the one document that does ("Crossings of the Sella") names it
once, so it ranks below a top_k of 3. One retrieval of top_k never reads it; the tree, finding
no sufficient chunk and no follow-up to ask, judges the next hybrid hits and answers from it.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from treerag.api import ask
from treerag.context import Context
from treerag.eval.runner import run_naive
from treerag.ingest.indexer import ingest
from treerag.nodes.answer import build_evidence
from treerag.nodes.reserve import release_reserve
from treerag.retrievers.sources import NEXT_PAGE, STRUCTURED, HybridSource, gather
from treerag.retrievers.statement import statement_query

DOCS = {
    **{
        f"d{i}.md": f"# Orlen bridge notes {i}\n\nThe Orlen bridge is painted green and carries "
        f"trams {i}. When did visitors first walk the Orlen bridge at dusk? They open umbrellas "
        "when it rains; the Orlen bridge lamps were renewed.\n"
        for i in range(1, 7)
    },
    "h.md": "# Crossings of the Sella\n\nThe ferry across the Sella stopped running when the "
    "stone crossing was built by the masons of Kalvik, who quarried the grey granite upstream "
    "and floated it down on rafts. The Orlen bridge opened to traffic in 1902.\n",
}
QUESTION = "When did the Orlen bridge open?"


@pytest.fixture(scope="module")
def corpus(tmp_path_factory) -> tuple[Context, Path]:
    root = tmp_path_factory.mktemp("orlen-docs")
    for name, text in DOCS.items():
        (root / name).write_text(text, encoding="utf-8")
    ctx = Context(data_dir=str(tmp_path_factory.mktemp("orlen-data")), top_k=3, structure="none")
    report = ingest([root], ctx)
    assert not report.skipped
    return ctx, root


def _run_ctx(ctx: Context, tmp_path: Path, **overrides) -> Context:
    # Each run its own data dir's judge cache would be shared: the verdicts are the same
    # either way, and what is asserted is the answer and the tree.
    return replace(ctx, checkpointer_uri=str(tmp_path / "cp.sqlite"), **overrides)


def test_the_next_page_is_held_back_at_the_root_only(corpus):
    ctx, root = corpus
    root_pool = gather(ctx, QUESTION)
    assert [c.get("reserve", 0) for c in root_pool] == [0, 0, 0, *[NEXT_PAGE] * ctx.next_k]
    assert [c["rank"] for c in root_pool] == list(range(1, 4 + ctx.next_k))
    assert [bool(c.get("further")) for c in root_pool] == [False] * 3 + [True] * ctx.next_k
    assert (root / "h.md").as_posix() in {c["source"] for c in root_pool[3:]}
    assert not any(c.get("reserve") for c in gather(ctx, QUESTION, widen=False))
    assert len(gather(replace(ctx, next_k=0), QUESTION)) == 3


def test_the_next_page_also_holds_the_question_searched_without_its_asking_words(corpus):
    ctx, _ = corpus
    ctx = replace(ctx, next_k=1)
    question = "What is the date the Orlen bridge opened?"
    statement = statement_query(question)
    assert statement is not None and "date" not in statement
    pool = gather(ctx, question)
    top = [c for c in pool if not c.get("reserve")]
    plain = HybridSource(ctx).find(question, [], (), (), ctx.top_k + 1)[ctx.top_k :]
    more = HybridSource(ctx).find(statement, top, (), (), 1)
    expected = list(dict.fromkeys(c["chunk_id"] for c in [*plain, *more]))
    assert len(expected) == 2  # the statement's best new hit is not the plain next hit
    assert [c["chunk_id"] for c in pool if c.get("reserve") == NEXT_PAGE] == expected
    assert [c["rank"] for c in pool] == list(range(1, ctx.top_k + 3))


async def test_full_answers_from_below_the_top_k_where_one_retrieval_cannot(corpus, tmp_path):
    ctx, root = corpus
    naive = await run_naive(QUESTION, _run_ctx(ctx, tmp_path / "naive"))
    assert "1902" not in naive.answer

    narrow = await ask(QUESTION, _run_ctx(ctx, tmp_path / "narrow", next_k=0))
    assert "1902" not in narrow["answer"]

    out = await ask(QUESTION, _run_ctx(ctx, tmp_path / "wide"))
    first = out["answer"].split("[1]")[0]
    assert "1902" in first
    judged = out["tree"]["chunks"]
    assert len(judged) == ctx.top_k + ctx.next_k  # nothing in the top_k answered
    answering = [c for c in judged if c.get("score") == 2]
    assert [c["source"] for c in answering] == [(root / "h.md").as_posix()]
    assert answering[0]["rank"] > ctx.top_k
    cited = {c["source"] for c in out["citations"]}
    assert cited == {(root / "h.md").as_posix()}


async def test_an_answer_in_the_top_k_judges_no_further(corpus, tmp_path):
    ctx, _ = corpus
    out = await ask("What does the Orlen bridge carry?", _run_ctx(ctx, tmp_path))
    assert "trams" in out["answer"]
    assert len(out["tree"]["chunks"]) == ctx.top_k


def test_a_next_page_hit_joins_the_answer_only_when_it_answers():
    top = {"chunk_id": "a", "rank": 1, "score": 1, "text": "The bridge is green."}
    below = {"chunk_id": "b", "rank": 6, "score": 1, "further": True, "text": "Lamps."}
    answering = {**below, "chunk_id": "c", "rank": 7, "score": 2, "text": "It opened in 1902."}
    assert [e.chunk_id for e in build_evidence([top, below], 1000)] == ["a"]
    assert [e.chunk_id for e in build_evidence([top, below, answering], 1000)] == ["c", "a"]


def _chunk(n: int, score: int | None = None, reserve: int = 0, followup: str = "") -> dict:
    chunk = {"chunk_id": f"c{n}", "rank": n}
    if score is not None:
        chunk["score"] = score
    if reserve:
        chunk["reserve"] = reserve
    if followup:
        chunk["followup"] = followup
    return chunk


async def test_the_tiers_are_released_in_turn_and_a_follow_up_goes_deeper_not_wider():
    top = [_chunk(1, 1), _chunk(2, 0)]
    held = [_chunk(3, reserve=STRUCTURED), _chunk(4, reserve=NEXT_PAGE)]
    first = await release_reserve({"chunks": [*top, *held], "call_share": 60})
    assert first["chunks"] == [{"chunk_id": "c3", "reserve": 0}]

    judged = [*top, _chunk(3, 1), _chunk(4, reserve=NEXT_PAGE)]
    assert (await release_reserve({"chunks": judged, "call_share": 60}))["chunks"] == [
        {"chunk_id": "c4", "reserve": 0}
    ]

    asking = [_chunk(1, 1, followup="Where is Kalvik?"), _chunk(2, 0), _chunk(4, reserve=NEXT_PAGE)]
    dropped = (await release_reserve({"chunks": asking, "call_share": 60}))["chunks"]["replace"]
    assert [c["chunk_id"] for c in dropped] == ["c1", "c2"]

    spent = {"chunks": judged, "call_share": 60, "llm_calls": 60}  # nothing left to look with
    dropped = (await release_reserve(spent))["chunks"]["replace"]
    assert [c["chunk_id"] for c in dropped] == ["c1", "c2", "c3"]

    answered = [_chunk(1, 2), *held]
    dropped = (await release_reserve({"chunks": answered, "call_share": 60}))["chunks"]["replace"]
    assert [c["chunk_id"] for c in dropped] == ["c1"]
