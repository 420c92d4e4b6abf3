"""Web pages as documents: their layout is no prose, their lists label what they give.

A page saved as text runs its menu, header, table cells and paragraphs together, split only by
runs of blanks or a paragraph's ideographic indent (　　); an answer quoted that page's header
with the sentence ("評論        打印   距離2022年美國中期選舉只剩四天…"). Made-up pages.
"""

from __future__ import annotations

from treerag.reasoning.answering import answering
from treerag.reasoning.base import EvidenceItem
from treerag.reasoning.chunk_reading import labelled, statements
from treerag.reasoning.fallback import states_asked
from treerag.reasoning.text import sentences

PAGE = (
    "评论        打印   距离潮汐港市长选举只剩四天，两党的选战进入白热化阶段。"
    "　　潮汐港市长选举结果将于11月9日公布。 》》潮汐港新闻 Copyright © 2006- 2031 All rights reserved."
)


def test_a_page_is_cut_at_its_layout_gaps_not_at_a_blank():
    assert sentences(PAGE)[:4] == [
        "评论",
        "打印",
        "距离潮汐港市长选举只剩四天，两党的选战进入白热化阶段。",
        "潮汐港市长选举结果将于11月9日公布。",
    ]
    assert sentences("The river  flows. It is long.") == ["The river  flows.", "It is long."]


def test_a_copyright_line_is_no_statement():
    said = statements(PAGE)
    assert not [s for s in said if "Copyright" in s]
    assert "潮汐港市长选举结果将于11月9日公布。" in said


def test_a_field_labelled_with_what_is_asked_states_it_plainly():
    question = "潮声周刊2031年度体育人物是谁？"
    field = "年度体育人物：花样滑冰运动员，冬奥会金牌得主沈秋禾"
    assert labelled(field, question)
    assert not labelled("年度文化人物：作家林秋雁", question)
    assert not labelled("潮声周刊发布2031年度人物榜单。", question)
    assert states_asked("person", field, question) == 2


def test_the_labelled_field_of_a_list_leads_the_answer(reasoner):
    page = (
        "附：《潮声周刊》2031“年度人物”榜单(排名不分先后)"
        "　　年度文化人物：作家林秋雁"
        "　　年度体育人物：花样滑冰运动员，冬奥会金牌得主沈秋禾"
        "　　年度企业家：潮汐船厂董事长许若兰"
    )
    other = "潮声周刊希望用这份2030“年度人物”榜单，串联起过去一年的故事与荣耀。"
    evidence = [
        EvidenceItem(n=1, chunk_id="1", title="", source="", text=other, score=1),
        EvidenceItem(n=2, chunk_id="2", title="", source="", text=page, score=1),
    ]
    quotes = reasoner._fallback("潮声周刊2031年度体育人物是谁？", evidence)
    assert quotes[0].text == "年度体育人物：花样滑冰运动员，冬奥会金牌得主沈秋禾"


def test_a_list_field_labelled_with_what_is_asked_answers_under_its_heading():
    # The heading names the list's publisher and year; the field, what is asked.
    question = "潮声周刊2031年度体育人物是谁？"
    text = (
        "附：《潮声周刊》2031“年度人物”榜单(排名不分先后) \u3000\u3000"
        "年度文化人物：著名作家沈疑微 \u3000\u3000"
        "年度体育人物：青州赛艇运动员，金牌得主林秋雁 \u3000\u3000"
        "年度企业家：白鹭船厂董事长周怀远"
    )
    found = answering(question, "", text)
    assert found is not None and found.filler == "林秋雁"
    assert "潮声周刊" in found.bridge
