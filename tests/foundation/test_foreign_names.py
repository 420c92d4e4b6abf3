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


@pytest.mark.parametrize(
    "text, name",
    [
        ("The Golden Boot went to Mateo Agüero in Vellán.", "Mateo Agüero"),
        ("She moved to São Lucar in 1902.", "São Lucar"),
        ("Ásta Guðrúnardóttir sang with the choir.", "Ásta Guðrúnardóttir"),
        ("Łukasz Wrześ played for Brno.", "Łukasz Wrześ"),
    ],
)
def test_a_latin_name_with_accents_is_read_whole(text: str, name: str) -> None:
    # A name is not cut at its first accented letter ("Mateo Ag" asked nothing anyone wrote).
    assert name in proper_names(text, READING)
    from treerag.reasoning.text import content_terms

    assert all(word.lower() in content_terms(text) for word in name.split())


@pytest.mark.parametrize(
    "text, name",
    [
        ("Salt Winter is the third album by the singer-songwriter K. Orlen.", "K. Orlen"),
        ("Ivo L. Dane is an American shipwright.", "Ivo L. Dane"),
        ("It was produced by D.P. Marrow in 1988.", "D.P. Marrow"),
    ],
)
def test_a_name_with_initials_is_read_whole(text: str, name: str) -> None:
    # The full stop of an initial ends no name: "K. Orlen" was lost, "Ivo L. Dane" read nothing.
    assert name in proper_names(text, READING)


def test_an_initial_at_a_sentence_s_end_is_no_name() -> None:
    assert proper_names("She moved to the U.S. Then she left.", READING) == ["U.S."]


def test_the_graph_s_names_and_sentences_keep_initials() -> None:
    # The passage graph reads names by `LINKING` rules, sentence by sentence: an initial's full
    # stop ends neither the sentence nor the name ("K. Orlen" was "K" | "Orlen").
    from treerag.text.names import split_sentences

    text = "Salt Winter is an album by K. Orlen. It was made with Ivo L. Dane in Tarn."
    assert split_sentences(text) == [
        "Salt Winter is an album by K. Orlen.",
        "It was made with Ivo L. Dane in Tarn.",
    ]
    assert proper_names(text) == ["Salt Winter", "K. Orlen", "Ivo L. Dane"]
    # A capital and a full stop that end a sentence open no name with the next one's first word.
    assert "U. S. It" not in proper_names("She left the U.S. It rained in Tarn Bay.")
