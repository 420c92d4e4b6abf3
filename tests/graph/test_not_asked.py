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


def test_a_run_holding_the_question_s_chain_recurses_no_further():
    from treerag.reasoning.compose import held_chain

    question = "Which river flows through the city where Aldous Brennick was born?"
    brennick = {
        "chunk_id": "a",
        "rank": 1,
        "title": "Aldous Brennick",
        "text": "Aldous Brennick was a sea captain. He was born in the city of Port Veyra.",
        "score": 1,
        "followup": "Which river flows through Port Veyra?",
    }
    veyra = {
        "chunk_id": "b",
        "rank": 3,
        "title": "Port Veyra",
        "text": "Port Veyra is a city of the coast. The river Ambrel flows through the city.",
        "score": 1,
    }
    other = {
        "chunk_id": "c",
        "rank": 2,
        "title": "Lowmarsh",
        "text": "Lowmarsh is a fen.",
        "score": 1,
    }
    assert held_chain(question, [brennick, other, veyra]) == "Aldous Brennick → Port Veyra"
    # The document that answers the follow-up must be judged useful.
    assert held_chain(question, [brennick, other, {**veyra, "score": 0}]) == ""
    # A bridge's document that does not hold the asked-for thing is not the chain's end.
    silent = {**veyra, "text": "Port Veyra is a city of the coast. Its harbour is deep."}
    assert held_chain(question, [brennick, silent]) == ""
    # A bridge sentence that names the city holds the chain, whatever the follow-up asked
    # (`compose.across`); a chunk that names another place does not.
    toward = {**brennick, "followup": "Which river flows through Lowmarsh Abbey?"}
    assert held_chain(question, [toward, veyra]) == "Aldous Brennick → Port Veyra"
    elsewhere = {
        **toward,
        "text": "Aldous Brennick was a sea captain. He was born at Lowmarsh Abbey.",
    }
    assert held_chain(question, [elsewhere, veyra]) == ""
