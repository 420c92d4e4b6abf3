"""An answer several chunks state outranks one a single chunk states (`compose.corroborated`).

Made-up reports in both scripts and English: a forecast or a quarter's figure in one chunk,
the year's figure in several.
"""

from treerag.reasoning.answering import answering, answerings
from treerag.reasoning.base import EvidenceItem
from treerag.reasoning.compose import chain


def item(n: int, text: str, title: str = "") -> EvidenceItem:
    return EvidenceItem(n=n, chunk_id=f"c{n}", title=title, source="", text=text, score=1)


FORECAST = "分析师曾经对青禾科技作出全年营收812.5亿元的预测。"
YEAR = "2024年，青禾科技全年营收为705亿元，较上年下降12%。"
AGAIN = "青禾科技公布年报：全年营收705亿元，净利润下滑。"
QUESTION = "青禾科技2024年的全年营收是多少？"


def test_every_answering_sentence_of_a_chunk_in_order():
    text = f"{YEAR}此前，{FORECAST}"
    found = list(answerings(QUESTION, "", text))
    assert [f.filler for f in found] == ["705", "812.5"]
    assert found[0].candidates == ("705", "12%")
    # `answering` is the first of them.
    first = answering(QUESTION, "", text)
    assert first is not None and first.sentence == found[0].sentence


def test_the_figure_most_chunks_state_is_quoted_first():
    evidence = [item(1, f"2024年。{FORECAST}"), item(2, YEAR), item(3, f"2024年。{AGAIN}")]
    quotes = chain(QUESTION, evidence)
    assert quotes and "705" in quotes[0].text and quotes[0].n in (2, 3)
    # One chunk alone: its own answer, whatever it is.
    alone = chain(QUESTION, [item(1, f"2024年。{FORECAST}")])
    assert alone and "812.5" in alone[0].text


def test_a_tie_keeps_the_evidence_order():
    evidence = [item(1, f"2024年。{FORECAST}"), item(2, YEAR)]
    quotes = chain(QUESTION, evidence)
    assert quotes and quotes[0].n == 1


def test_votes_read_both_scripts_as_one():
    traditional = "2024年，青禾科技全年營收爲705億元，較上年下降12%。"
    evidence = [item(1, f"2024年。{FORECAST}"), item(2, YEAR), item(3, traditional)]
    quotes = chain("青禾科技2024年的全年營收是多少？", evidence)
    assert quotes and quotes[0].n == 2


def test_english_names_are_voted_for_too():
    question = "Who founded the Orsk Press?"
    wrong = "Orsk Press\n\nThe Orsk Press was founded by Ivo Marek, some say."
    right = "Pavel Orsk\n\nThe Orsk Press was founded by Pavel Orsk in 1931."
    again = "Orsk Press history\n\nThe Orsk Press was founded by Pavel Orsk, a printer."
    quotes = chain(question, [item(1, wrong), item(2, right), item(3, again)])
    assert quotes and "Pavel Orsk" in quotes[0].text


def test_the_sentence_after_one_naming_the_entity_goes_on_with_it():
    text = "2024年，青禾科技经营稳健。全年营收为705亿元，同比下降12%。"
    found = answering(QUESTION, "", text)
    assert found is not None and found.filler == "705"
    assert found.bridge == "2024年，青禾科技经营稳健。"
    # Two sentences further on, the topic has moved: no bridge adds the relation.
    later = "2024年，青禾科技经营稳健。白鹭湾港口扩建完成。全年营收为705亿元，同比下降12%。"
    assert answering(QUESTION, "", later) is None


def test_a_titled_document_or_a_pronoun_keeps_the_topic_its_subjects():
    # "He" after a sentence naming Marta Lind, in Tomas Brandt's document, is Tomas Brandt.
    tomas = (
        "Tomas Brandt was an engineer who worked with Marta Lind on the harbour bridge. "
        "He was born in the port city of Vellby."
    )
    assert answering("Where was Marta Lind born?", "", tomas) is None
    assert answering("Where was Marta Lind born?", "Tomas Brandt", tomas) is None


def test_a_question_asking_no_relation_keeps_the_first_answer():
    # "Who is X?" asks for a description: the names a later sentence holds are by the way.
    question = "Who is Marta Lind?"
    marta = (
        "Marta Lind\n\nMarta Lind is a weaver from Aldmoor. "
        "In 1890 she moved to Vellby, where she met Tomas Brandt."
    )
    harbour = "Harbour bridge\n\nMarta Lind and Tomas Brandt met in Vellby in 1890."
    school = "Kessel school\n\nMarta Lind taught at the Kessel school in Vellby."
    quotes = chain(question, [item(1, marta), item(2, harbour), item(3, school)])
    assert quotes and quotes[0].text.startswith("Marta Lind is a weaver")
