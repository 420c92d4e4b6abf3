"""A count question's answer states a number with what is counted; a sentence that does so
belongs to its document, so a chunk naming the question's entity makes it quotable though it
does not name the entity itself. Made-up flights."""

import pytest

from treerag.reasoning.base import EvidenceItem
from treerag.reasoning.fallback import states_asked
from treerag.reasoning.questions import counted


@pytest.mark.parametrize(
    ("question", "unit"),
    [
        ("坠毁的XQ4410航班上有多少人", "人"),
        ("青石镇议会有多少個議席？", "议席"),
        ("央行今年会加息几次", "次"),
        ("这部电影花了多少钱", ""),
        ("How many people were on board flight XQ4410?", "people"),
        ("How much did the bridge cost?", ""),
    ],
)
def test_what_a_count_question_counts(question, unit):
    assert counted(question) == unit


@pytest.mark.parametrize(
    ("sentence", "level"),
    [
        ("机上载有88人。", 2),
        ("这架客机上载有乘客80人、机组人员8人。", 2),
        ("事故造成的损失超过3000万元。", 1),
        ("XQ4410航班于3月21日14时38分坠毁。", 0),  # a code, a date, a time of day
        ("航班于23时左右失联。", 0),
        ("XQ4410航班的坠毁令人震惊。", 0),
    ],
)
def test_a_count_is_stated_plainly_with_what_is_counted(sentence, level):
    assert states_asked("number", sentence, "坠毁的XQ4410航班上有多少人") == level


def test_an_english_count_with_its_noun_is_plain():
    question = "How many people were on board flight XQ4410?"
    assert states_asked("number", "The aircraft carried 88 people.", question) == 2
    assert states_asked("number", "The aircraft was built in 2011.", question) == 1


def _item(n, text):
    return EvidenceItem(n=n, chunk_id=str(n), title="", source="", text=text, score=1)


def test_the_count_of_a_chunk_about_the_entity_leads_and_its_naming_sentence_ties_it(reasoner):
    evidence = [
        _item(1, "XQ4410航班的坠毁令人震惊与悲痛。各方向遇难者家属表示慰问。"),
        _item(
            2,
            "一架客机在青石县坠毁，并引发山火。机上载有88人。"
            "航空公司已确认这架XQ4410航班上所有乘客均为本国国籍。",
        ),
        _item(3, "另一架客机ZK2031此前在海上迫降，机上载有57人。"),
    ]
    quotes = reasoner._fallback("坠毁的XQ4410航班上有多少人", evidence)
    assert [(q.n, q.text) for q in quotes] == [
        (2, "机上载有88人。"),
        (2, "航空公司已确认这架XQ4410航班上所有乘客均为本国国籍。"),
    ]


def test_a_plain_count_further_down_leads_when_the_best_state_none():
    from treerag.reasoning.fallback import Ranked, pick

    ranked = [
        Ranked(1.0, 0, 1, "XQ4410航班的坠毁令人震惊。"),
        Ranked(0.9, 1, 1, "XQ4410航班停飞了3天。"),
        Ranked(0.8, 0, 2, "XQ4410航班上的乘客均为本国国籍。"),
        Ranked(0.7, 0, 2, "调查XQ4410航班的专家已抵达。"),
        Ranked(0.6, 0, 3, "XQ4410航班的黑匣子已找到。"),
        Ranked(0.5, 2, 3, "XQ4410航班上共有88人。"),
    ]
    assert [q.text for q in pick(ranked)][0] == "XQ4410航班上共有88人。"
    assert [q.text for q in pick(ranked[:5])][0] == "XQ4410航班停飞了3天。"


def test_copies_of_one_sentence_do_not_crowd_a_candidate_out_of_the_lead():
    from treerag.reasoning.fallback import Ranked, pick

    # Two pages of a listing site repeat one line; the date the question asks for ranks fifth.
    ranked = [
        Ranked(1.09, 0, 1, "潮汐盟播出时间及播放电视台."),
        Ranked(1.03, 0, 3, "本站提供最近一周潮汐盟在各电视台的播出时间表。"),
        Ranked(1.03, 0, 6, "本站提供最近一周潮汐盟在各电视台的播出时间表。"),
        Ranked(1.02, 0, 4, "潮汐盟播出平台：潮视频。"),
        Ranked(0.96, 1, 1, "潮汐盟播出时间：2031年1月30日在潮视频播出。"),
    ]
    assert [q.text for q in pick(ranked)] == [
        "潮汐盟播出时间：2031年1月30日在潮视频播出。",
        "潮汐盟播出时间及播放电视台.",
    ]
