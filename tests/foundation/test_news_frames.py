"""A news text's frame (label, dateline, byline, clock) is never the answer (`answering`).

Made-up wire reports: the names that frame them come first in their sentences, the answer
after.
"""

from treerag.reasoning.answering import answering
from treerag.reasoning.fillers import candidates
from treerag.reasoning.reading import read_question


def test_a_label_a_dateline_or_a_clock_is_no_candidate():
    reading = read_question("2030年青州网球公开赛男单冠军是谁？")
    for text, frame in (
        ("原标题：纳达尔夺得2030年青州网球公开赛男单冠军", "原标题"),
        ("正文：陆远舟夺得冠军。", "正文"),
        ("北京时间1月30日晚，陆远舟夺得2030年青州网球公开赛男单冠军。", "北京时间"),
        ("中新社青州1月30日电 陆远舟夺得冠军。", "中新社青州"),
    ):
        assert frame not in candidates(reading, text), text


def test_a_dateline_before_the_answer_is_not_the_champion():
    text = "中新社多哈12月1日电 陆远舟夺得2030年青州网球公开赛男单冠军。"
    found = answering("2030年青州网球公开赛男单冠军是谁？", "", text)
    assert found is not None and found.filler == "陆远舟"


def test_a_reporter_s_byline_is_not_the_winner():
    text = "新华社青州3月27日电（记者韩乘风）2030年青州市长选举结果揭晓，沈秋禾当选第六任市长。"
    found = answering("2030年青州第六任市长选举结果？", "", text)
    assert found is None or found.filler != "韩乘风"
    assert found is not None and found.filler == "沈秋禾"


def test_a_person_before_a_colon_is_a_speaker_not_a_label():
    found = answering(
        "谁宣布了青州马拉松的新赛道？", "", "陆远舟：青州马拉松的新赛道由我宣布启用。"
    )
    assert found is not None and found.filler == "陆远舟"


def test_a_report_s_source_is_not_who_did_it():
    reading = read_question("谁袭击了青州码头的货轮？")
    text = "据青州MBS电视台报道，当地时间3月2日，青州码头的货轮遭袭击，船员沈秋禾受伤。"
    found = candidates(reading, text)
    assert not any(n in found for n in ("MBS", "青州MBS电视台")), found
