"""Citation marks added to an answer that cites nothing (`treerag.reasoning.attribution`)."""

from __future__ import annotations

from tests.fakes import ScriptedChatModel
from treerag.reasoning.attribution import added_marks
from treerag.reasoning.base import EvidenceItem
from treerag.reasoning.llm import LLMReasoner

GUILD = EvidenceItem(
    1, "c1", "Guild of Tidewrights", "g.md", "The Guild of Tidewrights built the Saltwren.", 2
)
CAPTAIN = EvidenceItem(
    2, "c2", "Aldous Brennick", "a.md", "In 1599 Aldous Brennick took command of the Saltwren.", 1
)


def test_the_marks_name_the_passages_the_sentences_draw_on_in_order() -> None:
    answer = (
        "Aldous Brennick took command in 1599. The weather was fine. "
        "The guild that built the Saltwren was the Guild of Tidewrights. It was the guild."
    )
    assert added_marks(answer, [GUILD, CAPTAIN]) == " [2][1]"


def test_an_answer_that_cites_anything_gets_no_more() -> None:
    answer = "The Guild of Tidewrights built it [2]. Aldous Brennick commanded it."
    assert added_marks(answer, [GUILD, CAPTAIN]) == ""


def test_one_shared_word_is_not_support() -> None:
    assert added_marks("The Saltwren sank.", [GUILD]) == ""
    assert added_marks("Nothing was found.", []) == ""


def test_chinese_sentences_and_decimals() -> None:
    item = EvidenceItem(1, "c", "香港经济", "hk.md", "2021年香港GDP增长了6.4%，为近十年最高。", 2)
    assert added_marks("2021年香港GDP增长了6.4%。", [item]) == " [1]"
    assert added_marks("天气很好。", [item]) == ""


async def test_the_llm_answer_gets_the_marks() -> None:
    model = ScriptedChatModel(answer_text="The Guild of Tidewrights built the Saltwren.")
    answer = await LLMReasoner(model, 30.0, 0).answer("Who built the Saltwren?", [GUILD], "")
    assert answer == "The Guild of Tidewrights built the Saltwren. [1]"
