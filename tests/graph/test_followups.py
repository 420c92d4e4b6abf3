"""A level's follow-ups and the call budget, step by step: pure functions, no store, no model."""

from __future__ import annotations

import pytest

from treerag.graphs.rag import CONTEXT_NODES, route_after_planning, route_to_answer
from treerag.nodes.followups import (
    affordable,
    cap,
    dedupe,
    followable,
    held_bridge,
    not_asked_records,
    partial_chunks,
    plan_subruns,
    stop_reason,
    subrun_tasks,
)
from treerag.nodes.judge import judge_tasks
from treerag.reasoning.base import ANSWERED_HERE, RECURSE, Recursion
from treerag.state import add_calls, answer_calls, calls_left, grant_judges, run_share

QUESTION = "Which river flows through the city where Aldous Brennick was born?"


def chunk(cid, rank, score, followup="", title="", text="", source=""):
    record = {"chunk_id": cid, "rank": rank, "score": score, "title": title, "text": text}
    record["source"] = source or f"{cid}.md"
    if followup:
        record["followup"] = followup
    return record


BRENNICK = chunk(
    "a",
    1,
    1,
    "Which river flows through Port Veyra?",
    "Aldous Brennick",
    "Aldous Brennick was a sea captain. He was born in the city of Port Veyra.",
)
LOWMARSH = chunk("c", 2, 1, "Which abbey stands in Lowmarsh?", "Lowmarsh", "Lowmarsh is a fen.")
VEYRA = chunk(
    "b",
    3,
    1,
    title="Port Veyra",
    text="Port Veyra is a city of the coast. The river Ambrel flows through the city.",
)


class Says:
    """A reasoner stand-in that answers "should this level recurse?" as told."""

    def __init__(self, answer: Recursion):
        self.answer = answer
        self.asked: list[tuple[str, list]] = []

    def should_recurse(self, question, chunks):
        self.asked.append((question, list(chunks)))
        return self.answer


# -- the call budget ---------------------------------------------------------------------------
def test_add_calls_sums_what_parallel_tasks_spent_and_a_new_run_starts_over():
    assert add_calls(None, 1) == 1
    assert add_calls(3, 2) == 5
    assert add_calls(7, {"replace": 0}) == 0


def test_a_run_starts_with_its_grant_never_more_than_the_question_s_budget():
    assert run_share(0, 60) == 60  # the root: the whole budget
    assert run_share(12, 60) == 12  # a sub-run: its grant
    assert run_share(90, 60) == 60


def test_calls_left_keeps_the_root_s_answer_and_counts_sub_runs():
    root = {"depth": 0, "call_share": 10, "llm_calls": 4, "chunks": [{"sub_llm_calls": 3}]}
    assert answer_calls(0) == 1 and answer_calls(2) == 0
    assert calls_left(root) == 10 - 4 - 3 - 1
    assert calls_left({**root, "depth": 1}) == 10 - 4 - 3  # a sub-run answers by quoting
    assert calls_left({**root, "llm_calls": 40}) == 0


def test_judges_are_granted_one_call_each_while_the_share_lasts():
    assert grant_judges(5, 3) == [1, 1, 1, 0, 0]
    assert grant_judges(2, 9) == [1, 1]
    assert grant_judges(3, 0) == [0, 0, 0]
    state = {"question": "q?", "depth": 0, "call_share": 4, "llm_calls": 0}
    chunks = [chunk(str(i), i, 0) for i in range(1, 6)]
    sends = judge_tasks({**state, "chunks": chunks}, chunks)
    assert [s.arg["call_share"] for s in sends] == [1, 1, 1, 0, 0]  # the answer keeps one


# -- should this level recurse? -----------------------------------------------------------------
def test_the_depth_limit_comes_before_the_reasoner():
    says = Says(RECURSE)
    state = {"question": QUESTION, "depth": 2, "chunks": [BRENNICK]}
    assert stop_reason(state, 2, says) == "depth limit (max_depth=2)" and not says.asked
    assert stop_reason({**state, "depth": 1}, 2, says) == ""
    assert says.asked == [(QUESTION, [BRENNICK])]
    assert stop_reason({**state, "depth": 0}, 2, Says(Recursion(False, "held"))) == "held"


# -- which partial chunks, which follow-ups -----------------------------------------------------
def test_partial_chunks_with_a_follow_up_come_best_rank_first():
    chunks = [LOWMARSH, VEYRA, BRENNICK, chunk("d", 4, 0), chunk("e", 5, 2)]
    assert [c["chunk_id"] for c in partial_chunks(chunks)] == ["a", "c"]


def test_a_chunk_about_what_the_question_names_takes_the_next_step():
    kept, why = followable(QUESTION, [BRENNICK, LOWMARSH])
    assert [c["chunk_id"] for c in kept] == ["a"]
    assert why == {"c": "a chunk about what the question names asks the next step"}
    # With no first hop among them, every partial chunk may ask.
    kept, why = followable("Which abbey stands in the fen?", [LOWMARSH])
    assert [c["chunk_id"] for c in kept] == ["c"] and why == {}


def test_a_follow_up_about_a_document_the_run_holds_is_not_asked():
    assert held_bridge(QUESTION, BRENNICK, [BRENNICK, VEYRA]) == "Port Veyra"
    kept, why = followable(QUESTION, [BRENNICK, VEYRA])
    assert kept == [] and why == {"a": "the run holds its bridge already: Port Veyra"}
    # Judged irrelevant, the bridge's document is not held.
    assert held_bridge(QUESTION, BRENNICK, [BRENNICK, {**VEYRA, "score": 0}]) == ""


def test_a_section_of_the_bridge_s_document_that_says_another_thing_does_not_hold_it():
    # A paragraph of Port Veyra's document about its harbour: the run does not hold which
    # river flows through the city, and the sub-run must look for it.
    harbour = {**VEYRA, "text": "Port Veyra is a city of the coast. Its harbour opened in 1821."}
    assert held_bridge(QUESTION, BRENNICK, [BRENNICK, harbour]) == ""
    kept, why = followable(QUESTION, [BRENNICK, harbour])
    assert [c["chunk_id"] for c in kept] == ["a"] and why == {}


def test_follow_ups_asked_above_by_a_sibling_or_just_before_are_dropped():
    first = chunk("a", 1, 1, "Where is Dunsorrow?")
    again = chunk("b", 2, 1, "where is  DUNSORROW?")
    above = chunk("c", 3, 1, "Who founded Quillhaven?")
    fresh = chunk("d", 4, 1, "Which guild built the Saltwren?")
    kept, why = dedupe([first, again, above, fresh], ["Who founded Quillhaven?"])
    assert [c["chunk_id"] for c in kept] == ["a", "d"]
    assert why == {"b": "duplicate of an earlier question", "c": "duplicate of an earlier question"}


@pytest.mark.parametrize(("left", "expected"), [(0, 0), (3, 0), (4, 1), (11, 2), (12, 3), (60, 3)])
def test_a_level_starts_only_the_sub_runs_its_calls_pay_for(left, expected):
    assert affordable(left, max_subqueries=3, subrun_size=4) == expected


def test_the_cap_names_the_limit_that_was_reached():
    candidates = [chunk(c, i, 1, f"q{i}?") for i, c in enumerate("abc", 1)]
    chosen, why = cap(candidates, 3, max_subqueries=3, max_llm_calls=60)
    assert len(chosen) == 3 and why == {}
    chosen, why = cap(candidates, 1, max_subqueries=1, max_llm_calls=60)
    assert [c["chunk_id"] for c in chosen] == ["a"]
    assert set(why.values()) == {"max_subqueries=1 reached"}
    chosen, why = cap(candidates, 2, max_subqueries=3, max_llm_calls=9)
    assert why == {"c": "budget spent (max_llm_calls=9)"}


# -- the planned sub-runs and their tasks -------------------------------------------------------
def test_each_planned_sub_run_gets_an_even_part_of_the_calls_left():
    chosen = [chunk("a", 1, 1, "qa?"), chunk("b", 2, 1, "qb?"), chunk("c", 4, 1, "qc?")]
    fetched = [[{"chunk_id": "x"}], [], [{"chunk_id": "y"}]]
    planned, why = plan_subruns("root", chosen, ["Qa?", "Qb?", "Qc?"], fetched, calls_left=13)
    assert [(r["chunk_id"], r["child_thread_id"], r["followup"]) for r in planned] == [
        ("a", "root/1", "Qa?"),
        ("c", "root/4", "Qc?"),
    ]
    assert [r["call_share"] for r in planned] == [6, 6]  # never more than is left, together
    assert [r["child_chunks"] for r in planned] == [[{"chunk_id": "x"}], [{"chunk_id": "y"}]]
    assert why == {"b": "it finds no chunk the tree does not hold already"}


def test_not_asked_records_go_on_partial_chunks_with_a_follow_up_only():
    chunks = [BRENNICK, LOWMARSH, VEYRA, chunk("e", 5, 2)]
    assert not_asked_records(chunks, {}, ANSWERED_HERE) == [
        {"chunk_id": "a", "not_asked": ANSWERED_HERE},
        {"chunk_id": "c", "not_asked": ANSWERED_HERE},
    ]
    assert not_asked_records(chunks, {"c": "duplicate"}) == [
        {"chunk_id": "c", "not_asked": "duplicate"}
    ]


def test_sub_run_tasks_carry_their_grant_and_what_the_tree_holds():
    planned = {
        **chunk("a", 1, 1, "Qa?"),
        "child_thread_id": "root/1",
        "child_chunks": [{"chunk_id": "x"}],
        "call_share": 7,
    }
    done = {**chunk("b", 2, 1, "Qb?"), "child_thread_id": "root/2", "sub_answer": "done"}
    state = {
        "question": "Q?",
        "thread_id": "root",
        "root_thread_id": "root",
        "depth": 0,
        "chunks": [planned, done, chunk("c", 3, 0)],
        "seen_chunk_ids": ["above"],
        "asked": ["Q?", "Qa?"],
        "deadline": 5.0,
    }
    [send] = subrun_tasks(state)
    task = send.arg
    assert send.node == "run_sub_rag"
    assert task["question"] == "Qa?" and task["child_thread_id"] == "root/1"
    assert task["depth"] == 1 and task["call_share"] == 7 and task["deadline"] == 5.0
    assert task["seen_chunk_ids"] == ["above", "a", "b", "c", "x"]
    assert task["prefetched"] == [{"chunk_id": "x"}] and task["asked"] == ["Q?", "Qa?"]


# -- routing past the root-only steps -----------------------------------------------------------
def test_only_the_root_gathers_structured_context_before_answering():
    assert route_to_answer({"depth": 0}) == CONTEXT_NODES
    assert route_to_answer({"depth": 1}) == "answer_question"
    assert route_after_planning({"depth": 2, "chunks": [BRENNICK]}) == "answer_question"
    assert route_after_planning({"depth": 0, "chunks": []}) == CONTEXT_NODES
