"""A follow-up replaces a description of the bridge, never the question's own name (`bridging`).

Made-up flights, films and towns; a partial chunk about the question's own entity asks no
follow-up, and a count before a noun ("9名机组人员") names no bridge.
"""

import pytest

from treerag.context import Context
from treerag.models import get_embeddings
from treerag.reasoning.bridging import bridge
from treerag.reasoning.fallback import carries
from treerag.reasoning.offline import OfflineReasoner


@pytest.fixture(scope="module")
def reasoner():
    return OfflineReasoner(get_embeddings(Context()))


def test_a_chunk_about_the_question_s_own_flight_asks_no_follow_up(reasoner):
    # The chunk names the flight and its crew, not the crash: partial, but there is no bridge
    # to ask about. "ZX9031航班" is the question's entity, not a description of another.
    text = "“3·21”东航ZX9031航班上123名乘客和9名机组人员已全部遇难。图为发布会现场。"
    for question in ("坠毁的ZX9031航班上有多少人", "墜毀的ZX9031航班上有多少人"):
        verdict = reasoner._judge(question, "", text)
        assert verdict.score == 1 and verdict.followup == ""


def test_a_film_s_own_title_is_not_replaced(reasoner):
    text = "1992年，一部名为《青州夜谈》的纪录片上映，导演是陆远舟。"
    verdict = reasoner._judge("《青州夜谈》是什么类型的电影", "", text)
    assert "《" not in verdict.followup.replace("《青州夜谈》", "")
    assert verdict.followup == ""


def test_a_relative_clause_is_still_the_bridge_s_description(reasoner):
    # The rule keeps the two-hop follow-up: "李明远出生的小镇" is a description, with 的.
    text = "李明远是一位造纸匠人，他出生在青石镇。"
    verdict = reasoner._judge("李明远出生的小镇坐落在哪条江边？", "李明远", text)
    assert verdict.score == 1 and verdict.followup == "青石镇坐落在哪条江边？"


def test_a_count_before_a_noun_names_no_bridge():
    # Read as written, jieba takes "名機組人員" of "9名機組人員" for a name; it is a count.
    sentence = "機長所在的9名機組人員中，陸遠舟最年長。"
    entity, _ = bridge("事故航班的機長出生在哪裡？", [sentence])
    assert entity == "陸遠舟"


def test_a_fragment_of_the_question_s_own_words_carries_nothing():
    question = "《青州夜谈》是什么类型的电影"
    assert not carries(question, "《青州夜谈》;")
    assert carries(question, "《青州夜谈》是一部纪录电影。")


def test_a_preposition_before_a_name_stays_and_one_of_is_no_count(reasoner):
    text = "李明远是一位造纸匠人，他出生在青石镇。"
    verdict = reasoner._judge("从李明远出生的小镇出发的列车开往哪里？", "李明远", text)
    assert verdict.followup == "从青石镇出发的列车开往哪里？"
    entity, _ = bridge(
        "《青州夜谈》的编剧出生在哪里？", ["《青州夜谈》的编剧之一陆远舟出生于青州。"]
    )
    assert entity == "陆远舟"


def test_an_english_question_holding_a_chinese_name_is_read_as_english(reasoner):
    # "the ship commanded by 沈秋禾" has no 的, and needs none: the clause is English.
    text = (
        "沈秋禾 was a sea captain. In 1599 she was given command of the Saltwren, a merchant ship."
    )
    verdict = reasoner._judge("Which guild built the ship commanded by 沈秋禾?", "沈秋禾", text)
    assert verdict.followup == "Which guild built the Saltwren?"


def test_a_description_of_the_question_s_own_flight_is_no_bridge(reasoner):
    # "一起青州客机坠毁事故" describes the crash of ZX9031 itself: "坠毁的ZX9031航班" names
    # the flight (its name after the last 的), so there is nothing else to ask about.
    text = (
        "青州航空ZX9031号班机空难，是发生于2030年3月21日的一起青州客机坠毁事故。"
        "失事飞机是由青州航空执飞的客机，自云港飞往青州，航班号为ZX9031。"
    )
    for question in ("坠毁的ZX9031航班上有多少人", "墜毀的ZX9031航班上有多少人"):
        verdict = reasoner._judge(question, "", text)
        assert verdict.followup == "", verdict.followup
