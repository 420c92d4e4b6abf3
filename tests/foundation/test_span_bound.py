"""A sentence whose asked relation is bounded by a span the question lacks does not answer.

Made-up reports (`reasoning.span_bound`): a title held over a shorter span (首日票房冠军 for a
season's champion) and a date counted from the asked event (发布两周内).
"""

from treerag.reasoning.answering import answering
from treerag.reasoning.reading import fold
from treerag.reasoning.span_bound import bounded

SEASON = "2031年鹤城影展票房冠军是哪部电影？"


def test_a_first_day_title_is_not_the_season_s():
    first_day = "2031年鹤城影展，《青石》成为新片上映首日票房冠军，单日票房1.2亿元。"
    season = "2031年鹤城影展，电影《云港》荣获影展票房冠军，票房已达5亿元。"
    assert answering(SEASON, "", first_day) is None
    found = answering(SEASON, "", season)
    assert found is not None and found.filler == "云港"


def test_a_span_the_question_gives_bounds_nothing():
    question = "2031年鹤城影展首日票房冠军是哪部电影？"
    found = answering(question, "", "2031年鹤城影展，《青石》成为新片上映首日票房冠军。")
    assert found is not None and found.filler == "青石"


def test_a_date_counted_from_the_event_is_not_its_date():
    question = "鹤鸣语音助手的发布时间"
    after = "2031年5月20日，即鹤鸣语音助手发布两周内，用户已超过一百万。"
    assert answering(question, "", after) is None
    found = answering(question, "", "2031年5月6日，云港公司发布了鹤鸣语音助手。")
    assert found is not None and found.filler == "2031年5月6日"


def test_one_unbounded_mention_is_enough():
    text = fold("鹤鸣语音助手发布于5月6日，发布两周内用户过百万")
    assert not bounded("发布", fold("鹤鸣语音助手的发布时间"), text)
    assert bounded("发布", fold("鹤鸣语音助手的发布时间"), fold("发布三个月后用户过百万"))
    assert not bounded("", "", text) and not bounded("released", "", "released two weeks")
