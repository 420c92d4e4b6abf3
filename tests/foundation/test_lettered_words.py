"""A lone Latin letter written onto a Chinese character is one word with it: C羅, A股, B站."""

from __future__ import annotations

import pytest

from treerag.reasoning.reading import read_question
from treerag.reasoning.text import tokens


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("2023年C羅在哪個球隊？", ["2023", "年", "C羅", "在", "哪個", "球隊"]),  # not C / 羅在
        ("C罗加盟沙特球队", ["C罗", "加盟", "沙特", "球队"]),
        ("A股在哪", ["A股", "在", "哪"]),
        ("B站的用户", ["B站", "的", "用户"]),
    ],
)
def test_a_letter_and_the_character_after_it_are_one_word(text, words):
    assert tokens(text) == words


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("方案A和方案B", ["方案", "A", "和", "方案", "B"]),  # a function word after the letter
        ("维生素C可以", ["维生素", "C", "可以"]),  # the character opens a dictionary word
        ("3D打印", ["3", "D", "打印"]),  # the letter follows a digit
        ("C 罗", ["C", "罗"]),  # not written onto it
        ("In 1902 I went", ["In", "1902", "I", "went"]),
    ],
)
def test_not_where_the_letter_stands_apart(text, words):
    assert tokens(text) == words


def test_the_question_names_c_ronaldo_and_asks_of_no_half_word():
    reading = read_question("2023年C羅在哪個球隊？")
    assert "c罗" in reading.terms
    assert "罗在" not in reading.terms
