"""A Chinese question's name asked in apposition, words that point, and a title's frame."""

from __future__ import annotations

import pytest

from treerag.reasoning.answering import answering
from treerag.reasoning.called import called, named_noun
from treerag.reasoning.fillers import candidates
from treerag.reasoning.reading import fold, read_question

MASCOT = "北京冬奧會吉祥物叫什麼"


@pytest.mark.parametrize(
    ("question", "noun"),
    [
        ("北京冬奥会吉祥物叫什么", ("冬奥会", "吉祥物")),
        ("北京冬奥会的吉祥物叫什么名字", ("冬奥会", "吉祥物")),
        ("这部电影的名字是什么？", ("", "电影")),
        ("这部电影是什么类型的电影", ("", "")),
        ("谁发明了电话", ("", "")),
    ],
)
def test_the_noun_whose_name_is_asked(question: str, noun: tuple[str, str]) -> None:
    assert named_noun(fold(question)) == noun


@pytest.mark.parametrize(
    ("sentence", "names"),
    [
        ("冬奥会吉祥物冰墩墩以熊猫为原型进行设计创作。", ["冰墩墩"]),
        (
            "北京 2022 年冬奥会吉祥物（冰墩墩） 北京 2022 年冬残奥会吉祥物 （雪容融）",
            ["冰墩墩"],
        ),
        ("北京冬奥会吉祥物“冰墩墩”和冬残奥会吉祥物“雪容融”揭开面纱。", ["冰墩墩"]),
        ("北京冬奥会和冬残奥会的吉祥物极具深意。", []),
        ("选择熊猫作为北京冬奥会吉祥物形象并不令人感到意外。", []),
        ("冬奥会的吉祥物冰墩墩一墩难求。", ["冰墩墩"]),
        ("冬奥会吉祥物（冰墩墩", []),  # a bracket never closed gives no name
        ("冬奥会吉祥物“”亮相。", []),
    ],
)
def test_the_name_given_in_apposition(sentence: str, names: list[str]) -> None:
    assert called(("冬奥会", "吉祥物"), fold(sentence)) == names


def test_the_apposition_is_the_sentences_only_candidate() -> None:
    reading = read_question(MASCOT)
    sentence = "冬奧會吉祥物冰墩墩以熊貓爲原型進行設計創作，象徵着北京冬奧會的精神。"
    assert candidates(reading, sentence) == ["冰墩墩"]
    other = "北京冬奧會吉祥物“冰墩墩”和冬殘奧會吉祥物“雪容融”揭開面紗。"
    assert candidates(reading, other) == ["冰墩墩"]


def test_a_word_pointing_at_the_askers_country_is_no_relation() -> None:
    question = "我國2021年人口出生率"
    assert "我国" not in read_question(question).relation
    found = answering(question, "", "2021年全年出生人口1062萬人，人口出生率爲7.52‰；")
    assert found is not None and "7.52" in found.candidates


def test_a_title_frames_locative_is_not_glued_to_the_verb() -> None:
    reading = read_question("梁冠華在《相逢時節》中演的誰")
    assert not any(t.startswith("中") for t in reading.terms)
    # The work's title is named whole, a name of the question's, not its relation.
    assert "相逢时节" in reading.entities and "时节" not in reading.relation
