"""A two-hop Chinese question whose description opens with the chunk's own verbs.

Made-up encyclopedia paragraphs in Traditional script: the railway a technician surveyed,
the technician's studies abroad.
"""

from treerag.reasoning.answering import answering, answering_across
from treerag.reasoning.bridging import bridge
from treerag.reasoning.chunk_features import question_names
from treerag.reasoning.followup_question import followup
from treerag.reasoning.questions import proper
from treerag.reasoning.reading import fold, read_question
from treerag.reasoning.relation_held import (
    RELATION_SHARE,
    relation_share,
    text_stems,
    with_equivalents,
)

QUESTION = "負責勘測與設計青嶺線的那位臺籍技師，是在哪一年到日本東京求學的？"
BRIDGE = "鐵道部於1916年決定興建此線，並由出身楓林的臺籍技師許文淵負責路線勘測與設計工作。"


def test_verbs_the_chunk_says_before_the_name_are_of_the_description():
    covered = with_equivalents(text_stems(fold(f"青嶺線 {BRIDGE}")))
    asked = followup(QUESTION, covered, "許文淵", "青嶺線")
    assert asked == "許文淵是在哪一年到日本東京求學的？"
    # Verbs the chunk does not say stay the question's: the description is not replaced.
    other = with_equivalents(text_stems(fold("青嶺線 此線由許文淵於1916年完成。")))
    assert not followup(QUESTION, other, "許文淵", "青嶺線").startswith("許文淵是在")


def test_a_name_written_with_a_kind_after_it_is_that_thing_s_name():
    # jieba reads 霧溪 in 霧溪線: the question names the railway, not the river.
    names = [name for name, _ in question_names("負責設計霧溪線的那位技師是誰？")]
    assert "霧溪線" in names and "霧溪" not in names
    assert [n for n, _ in question_names("霧溪的主流全長是多少？")] == ["霧溪"]


def test_studying_abroad_is_attending_a_school_there():
    # 求學 in the question, 就讀 in the sentence: the chain's last hop through its bridge.
    text = "許文淵自幼學習漢文，1903年遠赴日本東京，就讀岩倉鐵道學校建設科。"
    found = answering_across(QUESTION, "許文淵", text, [BRIDGE])
    assert found is not None and found.filler.startswith("1903")


def test_a_person_jieba_reads_apart_is_the_bridge_the_type_word_gives():
    # 許 / 明哲: 明哲 is also a common word ("wise"); after 許 it is a given name.
    question = "主持設計青嶺線的那位工程師後來創辦了一所學校，這所學校的第一任校長是誰？"
    said = "路線由水利局工程師許明哲主持設計，於1955年3月動工，於1957年9月完工通車。"
    assert bridge(question, [said], None, "青嶺線") == ("許明哲", said)
    assert proper("許明哲") and not proper("明哲") and not proper("許多")


def test_two_words_of_one_relation_are_held_once():
    # 就讀 and 進入 say one relation: a sentence saying it without 東京 holds two parts of
    # three, not three of four.
    question = "林秋雁到東京就讀時進入的是哪一所學校？"
    home = "1921年她進入剛創立的青嶺實業補習學校就讀，是該校的第一屆學生。"
    abroad = "1926年，她隻身前往日本東京，就讀女子美術專門學校西洋畫科。"
    reading = read_question(question).relation_in(["林秋雁"])
    assert relation_share(reading, fold(home)) < RELATION_SHARE
    assert relation_share(reading, fold(abroad)) == 1.0
    found = answering(question, "林秋雁", f"{home}{abroad}")
    assert found is not None and "女子美術" in found.sentence
