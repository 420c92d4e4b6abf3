"""A follow-up that gets no sub-run says why, live and in the rebuilt tree (issue 23)."""

import json

from rich.console import Console

from treerag.api import ask, tree
from treerag.search_tree import to_rich

from ..fakes import ScriptedChatModel


def partial(followup):
    def script(question, title, text):
        return json.dumps(
            {"score": 1, "reason": "part", "followup_question": followup(text), "quote": ""}
        )

    return script


def reasons(node):
    return [c.get("not_asked") for c in node["chunks"]]


async def test_at_the_depth_limit_every_follow_up_says_so(make_ctx):
    model = ScriptedChatModel(judge_script=partial(lambda text: f"Which passage is {len(text)}?"))
    ctx = make_ctx(model, max_depth=0, top_k=3)
    result = await ask("Where was Orla Venn born?", ctx)
    assert reasons(result["tree"]) == ["depth limit (max_depth=0)"] * 3  # folded from events
    rebuilt = await tree(result["thread_id"], ctx)
    assert reasons(rebuilt) == reasons(result["tree"])  # and kept in the checkpoints
    console = Console(width=200, record=True)
    console.print(to_rich(rebuilt))
    assert "(not asked: depth limit (max_depth=0))" in console.export_text()


async def test_a_repeated_follow_up_is_named_a_duplicate(make_ctx):
    # Every chunk asks the same follow-up: the first is asked, the others repeat it.
    model = ScriptedChatModel(judge_script=partial(lambda text: "Where is Dunsorrow?"))
    result = await ask(
        "Where was Orla Venn born?", make_ctx(model, max_depth=1, max_subqueries=3, top_k=3)
    )
    root = result["tree"]
    assert root["chunks"][0].get("child") and "not_asked" not in root["chunks"][0]
    assert reasons(root)[1:] == ["duplicate of an earlier question"] * 2


async def test_the_sub_query_cap_is_named(make_ctx):
    distinct = ScriptedChatModel(
        judge_script=partial(lambda text: f"Which passage is numbered {hash(text) % 10_000}?")
    )
    capped = await ask(
        "Where was Orla Venn born?", make_ctx(distinct, max_depth=1, max_subqueries=1, top_k=3)
    )
    assert reasons(capped["tree"])[1:] == ["max_subqueries=1 reached"] * 2


def test_a_follow_up_about_a_document_the_run_holds_is_not_asked():
    from treerag.nodes.subrun import held_bridge

    question = "Which river flows through the city where Aldous Brennick was born?"
    bridge = {"chunk_id": "a", "title": "Aldous Brennick", "score": 1}
    bridge["followup"] = "Which river flows through Port Veyra, where Aldous Brennick was born?"
    veyra = {"chunk_id": "b", "title": "Port Veyra", "score": 1}
    assert held_bridge(question, bridge, [bridge, veyra]) == "Port Veyra"
    # Not when the run judged that document irrelevant, nor when the question names it
    # (a follow-up repeats the question's own names).
    assert held_bridge(question, bridge, [bridge, {**veyra, "score": 0}]) == ""
    named = {"chunk_id": "c", "title": "Aldous Brennick", "score": 1}
    assert held_bridge(question, bridge, [bridge, named]) == ""
    assert held_bridge(question, bridge, [bridge, named, veyra]) == "Port Veyra"


def test_a_run_holding_the_question_s_chain_recurses_no_further():
    from treerag.nodes.subrun import chain_in_hand

    question = "Which river flows through the city where Aldous Brennick was born?"
    brennick = {"chunk_id": "a", "title": "Aldous Brennick", "score": 1}
    brennick["followup"] = "Which river flows through Port Veyra?"
    veyra = {"chunk_id": "b", "title": "Port Veyra", "score": 1}
    other = {"chunk_id": "c", "title": "Lowmarsh", "score": 1}
    assert chain_in_hand(question, [brennick, other, veyra]) == "Aldous Brennick → Port Veyra"
    # The bridge must be judged useful, and be what the named document's follow-up asks.
    assert chain_in_hand(question, [brennick, other, {**veyra, "score": 0}]) == ""
    elsewhere = {**brennick, "followup": "Which river flows through Lowmarsh Abbey?"}
    assert chain_in_hand(question, [elsewhere, veyra]) == ""
    assert chain_in_hand("Which river flows past the town?", [brennick, veyra]) == ""
    # A comparison's two sides, both named and useful, are a chain too.
    both = "Were Aldous Brennick and Lowmarsh founded in the same year?"
    assert chain_in_hand(both, [brennick, other]) == "Aldous Brennick + Lowmarsh"
