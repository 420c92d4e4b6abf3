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
