"""Answer and recall metrics, checked against values computed by hand."""

from __future__ import annotations

import pytest

from treerag.eval.metrics import (
    answer_tokens,
    clean_answer,
    exact_match,
    normalize_answer,
    recall_at_k,
    token_f1,
)


def test_normalisation_is_squad_like():
    assert normalize_answer("The  Brand Harbour!") == "brand harbour"
    assert normalize_answer("an apple, a pear") == "apple pear"
    assert normalize_answer("U.S.") == "us"  # punctuation is deleted, not spaced
    assert normalize_answer("「苏岚」。") == "苏岚"


def test_exact_match():
    assert exact_match("The Brand Harbour.", ["Brand Harbour"]) == 1.0
    assert exact_match("Brand Harbour city", ["Brand Harbour"]) == 0.0
    assert exact_match("1712", ["in 1712", "1712"]) == 1.0  # any gold answer
    assert exact_match("苏 岚", ["苏岚"]) == 1.0  # CJK compares character by character


def test_token_f1_english():
    # pred [brand, harbour, in, north] vs gold [brand, harbour]: P 2/4, R 2/2 -> F1 2/3
    assert token_f1("Brand Harbour in the north", ["Brand Harbour"]) == pytest.approx(2 / 3)
    # pred [it, was, lit, in, 1712] vs [1712]: P 1/5, R 1 -> 1/3
    assert token_f1("It was lit in 1712.", ["1712"]) == pytest.approx(1 / 3)
    assert token_f1("nothing", ["1712"]) == 0.0


def test_token_f1_takes_the_best_gold_answer():
    # vs "Brand Harbour": P 1, R 1/2 -> 2/3; vs "Brand": 1.0
    assert token_f1("Brand", ["Brand Harbour", "Brand"]) == 1.0
    assert token_f1("Brand", ["Brand Harbour"]) == pytest.approx(2 / 3)


def test_token_f1_chinese_by_characters():
    assert answer_tokens("苏岚是会长") == ["苏", "岚", "是", "会", "长"]
    assert answer_tokens("iPhone手机") == ["iphone", "手", "机"]
    # pred 5 characters, gold 2, overlap 2: P 2/5, R 1 -> F1 = 0.8 / 1.4 = 4/7
    assert token_f1("苏岚是会长", ["苏岚"]) == pytest.approx(4 / 7)
    # gold 布兰德港 (4), pred 布兰德 (3): P 1, R 3/4 -> 6/7
    assert token_f1("布兰德", ["布兰德港"]) == pytest.approx(6 / 7)


def test_clean_answer_drops_label_and_citations():
    text = "[offline extractive answer] It was lit in 1712. [2] Keldmarsh is a city [1, 3]."
    assert clean_answer(text) == "It was lit in 1712. Keldmarsh is a city ."
    assert exact_match(clean_answer("[offline extractive answer] 1712 [1]"), ["1712"]) == 1.0


def test_recall_at_k():
    ranked = ["c3", "c1", "c4", "c5"]
    assert recall_at_k(ranked, {"c3", "c4"}, 2) == 0.5
    assert recall_at_k(ranked, {"c3", "c4"}, 5) == 1.0
    assert recall_at_k(ranked, {"c2"}, 5) == 0.0
    # a record split into several chunks counts once: distinct keys in rank order
    assert recall_at_k(["c3", "c3", "c4"], {"c3", "c4"}, 2) == 1.0
    with pytest.raises(ValueError):
        recall_at_k(ranked, set(), 2)
