"""Foreign names written in Chinese are one word, however jieba cuts them (`transliteration`).

Made-up names in transliteration characters, as news writes them: jieba's HMM cuts each its
own way, and a question about one named no one.
"""

from __future__ import annotations

import pytest

from treerag.reasoning.reading import read_question
from treerag.segment import tag, tokens
from treerag.text.names import READING, proper_names
from treerag.transliteration import join_foreign_names


@pytest.mark.parametrize(
    "text, name",
    [
        ("法国总统马克龙访华", "马克龙"),
        ("德约科维奇夺冠", "德约科维奇"),
        ("阿尔卡拉斯以3比1击败对手", "阿尔卡拉斯"),  # 斯以: the last syllable glued to 以
        ("梅德韦杰夫说", "梅德韦杰夫"),
        ("法國總統馬克龍訪華", "馬克龍"),  # Traditional, given back as written
    ],
)
def test_a_foreign_name_jieba_cuts_is_one_word(text: str, name: str) -> None:
    assert (name, "nr") in tag(text)
    assert name in [w for w, _, _ in tokens(text)]
    assert name in proper_names(text, READING)


def test_two_whole_names_and_a_verb_after_a_place_stay_apart() -> None:
    assert [w for w, _ in join_foreign_names([("纽约", "ns"), ("曼哈顿", "ns")])] == [
        "纽约",
        "曼哈顿",
    ]
    assert "海南爱" not in [w for w, _, _ in tokens("海南爱心活动")]
    assert "梅西加" not in [w for w, _, _ in tokens("梅西加盟巴黎")]


def test_a_question_about_a_foreign_name_names_it() -> None:
    reading = read_question("马克龙访华时间？")
    assert reading.entities == ("马克龙",) and reading.relation == ("访华",)
    assert read_question("布林肯訪華時間").entities == ("布林肯",)
