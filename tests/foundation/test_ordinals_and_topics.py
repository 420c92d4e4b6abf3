"""An ordinal the question gives must be said; a sentence goes on with the topic before it.

Made-up relay and press reports in both scripts and English (`answering`, `compose.chain`).
"""

from treerag.reasoning.answering import answering, answerings
from treerag.reasoning.base import EvidenceItem
from treerag.reasoning.compose import chain
from treerag.reasoning.reading import fold
from treerag.reasoning.relation_held import ordinals_held


def item(n: int, text: str) -> EvidenceItem:
    return EvidenceItem(n=n, chunk_id=f"c{n}", title="", source="", text=text, score=1)


QUESTION = "谁是青州马拉松第一棒火炬手？"
ANY_BEARER = "青州马拉松火炬传递今日启动，参与的火炬手包括市长周怀安等。"
OPENS = "青州马拉松火炬传递仪式在滨江公园举行。"
FIRST = "市长在台前点燃火炬并交给第一棒火炬手--沈秋禾，她是本地首位女子马拉松冠军。"
LAST = "最后一棒火炬手--陆远舟，他点燃了主火炬。"


def test_ordinals_are_held_as_said_or_as_shou():
    question = fold(QUESTION)
    assert ordinals_held(question, fold(FIRST))
    assert ordinals_held(question, fold("首棒火炬手沈秋禾"))  # 首 before a measure word
    assert not ordinals_held(question, fold(ANY_BEARER))
    assert not ordinals_held(question, fold("第二棒火炬手"))
    assert ordinals_held(fold("澳洲第31任总理是谁"), fold("成为澳洲第31任总理"))
    assert not ordinals_held(fold("澳洲第31任总理是谁"), fold("成为澳洲第30任总理"))
    assert not ordinals_held("who was the first mayor of kalvik", "the mayor of kalvik was")
    assert ordinals_held("who was the first mayor of kalvik", "its first mayor was")
    # No ordinal asked, none needed.
    assert ordinals_held(fold("青州马拉松火炬手是谁"), fold(ANY_BEARER))


def test_a_sentence_without_the_asked_ordinal_does_not_answer():
    # Three of the four relation words are there (one paraphrase is forgiven), but which
    # bearer is asked is not: "any bearer" is another question.
    assert answering(QUESTION, "", ANY_BEARER) is None
    latin = "Who was the first mayor of Kalvik? "
    assert answering(latin, "", "Sten Holm was a mayor of Kalvik in 1902.") is None
    found = answering(latin, "", "Sten Holm was the first mayor of Kalvik.")
    assert found is not None and found.filler == "Sten Holm"


def test_a_sentence_goes_on_with_the_relation_the_one_before_opened():
    text = f"{OPENS}{FIRST}"
    found = answering(QUESTION, "", text)
    assert found is not None
    assert found.sentence == FIRST and found.bridge == OPENS and "沈秋禾" in found.filler
    assert not found.scoped
    # The same in Traditional script.
    assert (
        answering(
            "誰是青州馬拉松第一棒火炬手？",
            "",
            "青州馬拉松火炬傳遞儀式在濱江公園舉行。市長在臺前點燃火炬並交給第一棒火炬手--沈秋禾。",
        )
        is not None
    )
    # Alone, the sentence lacks the event: no answer.
    assert answering(QUESTION, "", FIRST) is None


def test_the_sentence_after_keeps_its_own_ordinal():
    # "最后一棒" after a sentence naming "第一棒": the first's ordinal is not lent.
    text = f"{OPENS}第一棒火炬手是{FIRST[-11:]}{LAST}"
    assert all("陆远舟" not in found.sentence for found in answerings(QUESTION, "", text))


def test_the_bearer_several_reports_name_is_quoted_first():
    evidence = [
        item(1, f"{ANY_BEARER}第一棒火炬手：外地选手韩乘风，曾获青州马拉松亚军。"),
        item(2, f"{OPENS}{FIRST}"),
        item(3, f"{OPENS}市长交给第一棒火炬手--沈秋禾。"),
    ]
    quotes = chain(QUESTION, evidence)
    assert quotes and "沈秋禾" in quotes[0].text


def test_who_is_asked_is_a_person_before_a_newsroom():
    found = answering(
        "谁是青州马拉松女子冠军？",
        "",
        "封面新闻记者获悉，青州马拉松女子冠军沈秋禾已出任市体育局副局长。",
    )
    assert found is not None and "沈秋禾" in found.filler


def test_an_ordinal_of_a_name_is_no_rank():
    text = "First Republic Bank is a bank in Kalvik. It was founded by Sten Holm in 1985."
    found = answering("Who founded First Republic Bank?", "First Republic Bank", text)
    assert found is not None and found.filler == "Sten Holm"
    # The same number written two ways is one ordinal; a phrase is no rank.
    assert ordinals_held(fold("谁是青州第十一任市长"), fold("沈秋禾成为青州第11任市长"))
    assert ordinals_held("what is his last name", "his name is sten holm")


def test_a_bridge_lends_no_rank_to_a_sentence_that_gives_another():
    text = "Orsk crowned its first king in 1200. Later, Tomas Brandt was crowned as its last king."
    assert answering("Who was the first king of Orsk?", "", text) is None
