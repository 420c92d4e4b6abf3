"""A chain that starts from a description, a topic chain's subject, a dynasty as a bridge;
who is asked by 哪一位, and a statement that goes on after a semicolon.

Made-up encyclopedia paragraphs in Traditional script (a river and the canal it feeds, a
printing craftsman of a real dynasty), read as the offline reasoner reads them.
"""

from treerag.reasoning.answering import answering
from treerag.reasoning.bridging import bridge
from treerag.reasoning.chunk_features import describes_opening
from treerag.reasoning.followup_question import _whole_names, followup
from treerag.reasoning.question_clauses import described_noun
from treerag.reasoning.questions import slot
from treerag.reasoning.reading import fold, read_question
from treerag.reasoning.relation_held import text_stems, with_equivalents

CANAL = "以青蘆溪作為青幹線水源的那項灌溉工程，其設計者是從哪一所大學畢業的？"
CANAL_SAID = (
    "中下游的澄南大圳則由水利技師柯守田設計，以青蘆溪作為青幹線的水源，灌溉澄州一帶的農田。"
)
POWER_SAID = "1919年，總督府開始推動月湖水力發電工程，在上游築壩，將溪水引入月湖。"
MOTTO = "後來更有以「青蘆溪以南」作為南澄州代稱的說法。"
TYPE = "發明竹活字的那位工匠所處的朝代，是把首都定在哪裡？"
TYPE_SAID = (
    "根據記載，最早的竹活字由北宋的平民工匠柯湛於慶曆年間發明，這項發明被記錄在《澄溪筆記》之中。"
)


def _covered(subject: str, sentence: str) -> set[str]:
    return with_equivalents(text_stems(fold(f"{subject} {sentence}")))


def test_a_compound_kind_s_last_character_alone_names_no_bridge():
    # 工程 of 月湖水力發電工程 is a power project's; the canal's sentence says the
    # question's description, and its clauses after the comma say what 澄南大圳 does.
    assert bridge(CANAL, [POWER_SAID], about="青蘆溪") == ("", "")
    assert bridge(CANAL, [CANAL_SAID, POWER_SAID], about="青蘆溪") == ("澄南大圳", CANAL_SAID)


def test_the_bridge_replaces_a_description_opened_by_a_preposition_and_its_pronoun():
    asked = followup(CANAL, _covered("青蘆溪", CANAL_SAID), "澄南大圳", "青蘆溪")
    assert asked == "澄南大圳的設計者是從哪一所大學畢業的？"


def test_a_sentence_without_the_description_s_other_name_asks_nothing():
    # 青幹線 is what singles the canal out; "南澄州代稱" is no irrigation work.
    assert followup(CANAL, _covered("青蘆溪", MOTTO), "南澄州代稱", "青蘆溪") == ""


def test_the_noun_described_ends_before_the_particle_suo():
    clause = "發明竹活字的那位工匠所處的朝代"
    assert clause[: described_noun(clause, clause.find("的"))] == "發明竹活字的那位工匠"
    # jieba's nouns run on into 所處; the description the bridge replaces stops before it.
    assert _whole_names(clause, 0, 10) == (0, 10)


def test_one_sentence_saying_the_opening_description_is_the_first_hop():
    assert describes_opening(TYPE, ["竹活字的印刷技術後來傳到了朝鮮半島。", TYPE_SAID])
    assert not describes_opening(TYPE, ["竹活字的印刷技術後來傳到了朝鮮半島。"])
    # A question that names its entity starts there (the named rule), not here.
    assert not describes_opening(CANAL, [CANAL_SAID])


def test_a_craftsman_named_after_his_role_and_his_dynasty_are_the_chain():
    assert bridge(TYPE, [TYPE_SAID]) == ("柯湛", TYPE_SAID)
    asked = "柯湛所處的朝代，是把首都定在哪裡？"
    assert bridge(asked, [TYPE_SAID], about="柯湛") == ("北宋", TYPE_SAID)


def test_the_chunk_walks_from_the_description_to_the_dynasty(reasoner):
    asked = reasoner.followup(TYPE, "活字印刷術", TYPE_SAID)
    assert asked == "北宋是把首都定在哪裡？"
    judged = reasoner._judge(TYPE, "活字印刷術", TYPE_SAID)
    assert judged.score == 1 and "description the question opens with" in judged.reason


def test_a_measure_word_after_a_demonstrative_opens_no_name():
    question = "柳灣線這條森林鐵道所沿著爬升的那條溪流，古時候被稱為什麼？"
    said = "這條鐵路舊稱「鹿角山森林鐵道」。"
    assert bridge(question, [said], about="柳灣線") == ("", "")


def test_which_one_of_a_measure_for_people_asks_for_a_person():
    assert slot("提議改建城牆的是哪一位士紳？") == "person"
    assert slot("創辦該校的是哪位商人？") == "person"


def test_a_statement_after_a_semicolon_goes_on_with_what_the_one_before_names():
    question = "提議將竹溪城改建成磚石城的是哪一位地方士紳？"
    text = (
        "1733年，同知徐治民下令在此種植莿竹作為城垣，是為竹溪城的開端；"
        "1827年，由地方士紳陳文華等人倡議改築為磚石城，共設有四座城門。"
    )
    found = answering(question, "澄州市", text)
    assert found is not None and fold(found.filler) == fold("陳文華")


def test_a_person_asked_by_his_role_is_no_place_ending_in_its_first_character():
    question = "資助周啟明前往日本留學的是哪一位鄉紳？"
    assert read_question(question).head == ""
    # 鹿溪鄉 ends in 鄉, the first character of 鄉紳: no answer to who the gentleman was.
    assert answering(question, "周啟明", "晚年他也經常返回鹿溪鄉探望鄉親。") is None
    said = "1917年，他在鄉紳羅阿松的資助下前往日本留學。"
    found = answering(question, "周啟明", said)
    assert found is not None and fold(found.filler) == fold("羅阿松")


def test_a_sentence_defining_the_subject_as_the_kind_makes_the_subject_the_bridge(reasoner):
    question = "以「半水式填充工法」構築青潭水庫的那位技師，是從哪一所大學畢業的？"
    paragraph = (
        "周啟明（1886年—1942年）是臺灣的土木工程師，出生於澄州縣花園村，早年在臺灣任職。"
        "青潭水庫位於澄州縣，採用當時罕見的「半水式填充工法」構築，是當時最大的土石壩。"
    )
    # Not the county the defining sentence goes on to name.
    assert reasoner.followup(question, "周啟明", paragraph) == "周啟明是從哪一所大學畢業的？"


def test_a_follow_up_opening_with_a_name_jieba_cannot_read_is_about_it():
    # jieba reads 九條與四 as a number, a noun, a preposition and a number: no name, but
    # the question's topic, which a chunk must name to answer it.
    question = "九條與四是從哪一所大學畢業的？"
    assert read_question(question).topic == fold("九條與四")
    # So a university's own definition answers no one's school.
    assert answering(question, "澄江大學", "澄江大學是一所位於澄州的私立綜合大學。") is None
    said = "九條與四是日本的土木工程師，1910年自東京帝國大學畢業。"
    found = answering(question, "九條與四", said)
    assert found is not None and fold(found.filler) == fold("東京帝國大學")
