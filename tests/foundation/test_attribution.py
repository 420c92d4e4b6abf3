"""Citation marks added to an answer that cites nothing (`treerag.reasoning.attribution`)."""

from __future__ import annotations

from tests.fakes import ScriptedChatModel
from treerag.reasoning.attribution import cite_unmarked
from treerag.reasoning.base import EvidenceItem
from treerag.reasoning.llm import LLMReasoner

GUILD = EvidenceItem(
    1, "c1", "Guild of Tidewrights", "g.md", "The Guild of Tidewrights built the Saltwren.", 2
)
CAPTAIN = EvidenceItem(
    2, "c2", "Aldous Brennick", "a.md", "In 1599 Aldous Brennick took command of the Saltwren.", 1
)


def test_each_sentence_cites_the_passage_it_draws_on() -> None:
    answer = (
        "The guild that built the Saltwren was the Guild of Tidewrights. "
        "Aldous Brennick took command in 1599. The weather was fine."
    )
    assert cite_unmarked(answer, [GUILD, CAPTAIN]) == (
        "The guild that built the Saltwren was the Guild of Tidewrights. [1] "
        "Aldous Brennick took command in 1599. [2] The weather was fine."
    )


def test_an_answer_that_cites_anything_is_left_as_written() -> None:
    answer = "The Guild of Tidewrights built it [2]. Aldous Brennick commanded it."
    assert cite_unmarked(answer, [GUILD, CAPTAIN]) == answer


def test_one_shared_word_is_not_support() -> None:
    assert cite_unmarked("The Saltwren sank.", [GUILD]) == "The Saltwren sank."
    assert cite_unmarked("Nothing was found.", []) == "Nothing was found."


def test_chinese_sentences_and_decimals() -> None:
    item = EvidenceItem(1, "c", "香港经济", "hk.md", "2021年香港GDP增长了6.4%，为近十年最高。", 2)
    assert cite_unmarked("2021年香港GDP增长了6.4%。天气很好。", [item]) == (
        "2021年香港GDP增长了6.4%[1]。天气很好。"
    )


async def test_the_llm_answer_gets_marks_and_so_citations() -> None:
    model = ScriptedChatModel(answer_text="The Guild of Tidewrights built the Saltwren.")
    answer = await LLMReasoner(model, 30.0, 0).answer("Who built the Saltwren?", [GUILD], "")
    assert answer == "The Guild of Tidewrights built the Saltwren. [1]"
