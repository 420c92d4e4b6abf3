"""A question searched as the statement that answers it: the words that only ask taken out."""

from __future__ import annotations

import pytest

from treerag.retrievers.statement import statement_query


@pytest.mark.parametrize(
    ("question", "statement"),
    [
        ("ChatGPT的發佈時間", "ChatGPT的發佈"),  # kept in the question's script
        ("ChatGPT的发布时间", "ChatGPT的发布"),
        ("2022年考研開始日期", "2022年考研開始"),  # adjacent pieces stay glued
        ("GPT4發佈時間", "GPT4發佈"),
        ("衆議院TikTok聽證會的時間", "衆議院TikTok聽證會的"),
        ("哪個地方政府出臺了政策", "地方政府出臺了政策"),  # 地方 of 地方政府 is no asking word
        ("發佈時間是什麼時候", "發佈是"),
        ("What year was the Orsk Press founded?", "What was the Orsk Press founded"),
    ],
)
def test_the_asking_words_are_taken_out(question, statement):
    assert statement_query(question) == statement


@pytest.mark.parametrize(
    "question",
    [
        "特拉斯當了多久首相",  # no answer-kind word: the question is its own statement
        "When was Marta Velik born?",
        "時間",  # nothing left to search with
        "ｗｈａｔ year ﬁ",  # NFKC changes its length: no span to map back
    ],
)
def test_none_where_nothing_is_taken_out_or_nothing_is_left(question):
    assert statement_query(question) is None
