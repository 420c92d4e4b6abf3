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
