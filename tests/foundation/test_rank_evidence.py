"""Where a sub-run's finds rank among the run's own chunks."""

from treerag.nodes.answer import rank_evidence


def _own(cid, rank, score=1, found=()):
    return {
        "chunk_id": cid,
        "title": cid,
        "text": cid,
        "rank": rank,
        "score": score,
        "sub_evidence": [dict(f) for f in found],
    }


def _found(cid, score):
    return {"chunk_id": cid, "title": cid, "source": "", "score": score, "depth": 1}


def test_a_sub_run_that_answered_its_follow_up_ranks_its_find_among_the_runs_own_chunks():
    # Counted from its bridge's rank (1): rank 2, which it shares with b (the shallower first).
    chunks = [
        _own("a", 1, found=[_found("a-answer", 2)]),
        _own("b", 2),
        _own("c", 3),
    ]
    assert [e["chunk_id"] for e in rank_evidence(chunks, 0)] == ["a", "b", "a-answer", "c"]


def test_a_sub_run_that_found_only_partial_evidence_ranks_after_the_runs_own_chunks():
    chunks = [
        _own("a", 1, found=[_found("a-maybe", 1)]),
        _own("b", 2, found=[_found("b-maybe", 1)]),
        _own("c", 3),
        _own("d", 4, score=0),
    ]
    ranked = [e["chunk_id"] for e in rank_evidence(chunks, 0)]
    assert ranked == ["a", "b", "c", "a-maybe", "b-maybe", "d"]


def test_the_chunks_the_answer_cites_rank_first_in_the_order_it_cites_them():
    # d, judged irrelevant to the question, answered a partial chunk's follow-up: the answer
    # stands on it and on b-answer, a sub-run's find.
    chunks = [
        _own("a", 1, score=2),
        _own("b", 2, found=[_found("b-answer", 2)]),
        _own("c", 3),
        _own("d", 4, score=0),
    ]
    ranked = [e["chunk_id"] for e in rank_evidence(chunks, 0, "", ["d", "b-answer"])]
    assert ranked == ["d", "b-answer", "a", "b", "c"]
    # Without citations (no answer), the verdicts order it.
    assert [e["chunk_id"] for e in rank_evidence(chunks, 0)] == ["a", "b", "c", "b-answer", "d"]


def test_the_root_ranks_the_document_a_useful_chunk_names_among_the_partial_ones():
    # The river's paragraph names the engineer who designed its canal; the engineer's own
    # paragraph (judged irrelevant: it does not name the canal) is the chain's next link.
    river = {**_own("river-3", 1), "title": "濁水溪", "text": "嘉南大圳由技師八田與一設計。"}
    engineer = {**_own("engineer-1", 2, score=0), "title": "八田與一", "text": "他畢業於東京。"}
    again = {**_own("river-4", 3), "title": "濁水溪", "text": "濁水溪是臺灣最長的河流。"}
    other = {**_own("school-1", 4, score=0), "title": "東海大學", "text": "東海大學位於臺中。"}
    chunks = [river, engineer, again, other]
    ranked = [e["chunk_id"] for e in rank_evidence(chunks, 0, "", next_links=True)]
    assert ranked == ["river-3", "engineer-1", "river-4", "school-1"]
    # A paragraph naming its own document's title links nothing; without next_links (a
    # sub-run's ranking, which its parent numbers) the verdicts order it.
    assert [e["chunk_id"] for e in rank_evidence(chunks, 0)] == [
        "river-3",
        "river-4",
        "engineer-1",
        "school-1",
    ]
