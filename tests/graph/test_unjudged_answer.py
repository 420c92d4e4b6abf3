"""A root whose judges found nothing useful reads its top hits, and says so."""

import json

from treerag.api import ask
from treerag.nodes.answer import closest_passages
from treerag.reasoning.wording import UNJUDGED_READ

from ..fakes import ScriptedChatModel


def _nothing(question, title, text):
    return json.dumps({"score": 0, "reason": "scripted", "followup_question": "", "quote": ""})


async def test_a_root_judged_empty_answers_from_its_top_hits_and_says_so(make_ctx):
    model = ScriptedChatModel(judge_script=_nothing, answer_text="Marrowgate [1].")
    result = await ask("Where was Orla Venn born?", make_ctx(model, max_depth=1, top_k=3))
    assert all(c["score"] == 0 for c in result["tree"]["chunks"])
    answer_prompt = model.prompts[-1]
    assert "Orla Venn" in answer_prompt and "[1]" in answer_prompt  # the hits, numbered
    assert result["answer"] == "Marrowgate [1]."
    assert result["citations"] and result["citations"][0]["chunk_id"] in {
        c["chunk_id"] for c in result["tree"]["chunks"]
    }
    assert UNJUDGED_READ["en"] in result["error"]


async def test_a_root_with_a_useful_chunk_says_nothing_of_it(make_ctx):
    result = await ask("Where was Aldous Brennick born?", make_ctx(max_depth=1, top_k=5))
    assert any(c["score"] for c in result["tree"]["chunks"])
    assert UNJUDGED_READ["en"] not in result["error"]


async def test_an_offline_root_with_nothing_to_quote_only_says_not_found(make_ctx):
    result = await ask("Wie heißt der Hund des Bürgermeisters von Zqxvbn?", make_ctx(max_depth=1))
    assert "could not find" in result["answer"]
    assert not result["citations"]
    assert UNJUDGED_READ["en"] not in result["error"]


def test_the_closest_passages_are_the_hybrid_hits_in_search_order():
    chunks = [
        {"chunk_id": "b", "rank": 2, "text": "two", "score": 0},
        {
            "chunk_id": "g",
            "rank": 6,
            "text": "graph find",
            "score": 0,
            "found_by": {"kind": "graph"},
        },
        {"chunk_id": "a", "rank": 1, "text": "one", "score": 0},
        {"chunk_id": "n", "rank": 7, "text": "next page", "score": 0, "further": True},
        {"chunk_id": "u", "rank": 3, "text": "never judged", "reserve": 1},
    ]
    passages = closest_passages(chunks, budget_tokens=1000)
    assert [(p.n, p.chunk_id) for p in passages] == [(1, "a"), (2, "b")]
    assert closest_passages(chunks, budget_tokens=0)[0].chunk_id == "a"  # at least one
