"""Normalization tables of seed 03 §4.1 and exact lookup of §4.2."""

from __future__ import annotations

import pytest

from treerag.keyword_tree import KeywordTree
from treerag.keyword_tree.normalize import normalized_forms
from treerag.text import canonical, query_key

CANONICAL = [
    # traditional → simplified
    ("機器學習", "机器学习"),
    ("頭髮", "头发"),
    ("臺灣", "台湾"),
    ("網絡協議", "网络协议"),
    # full width → half width, case
    ("ＰＹＴＨＯＮ", "python"),
    ("Ｃ＋＋", "c++"),
    ("１２３", "123"),
    ("ａ\u3000ｂ", "a b"),
    # punctuation out, symbols that carry meaning kept
    ("「你好」，世界！", "你好 世界"),
    ("Machine-Learning", "machine learning"),
    ("Node.js", "node js"),
    ("C#", "c#"),
    ("  many   spaces\t", "many spaces"),
    # mixed scripts
    ("Python编程", "python编程"),
    ("GPT-4 模型", "gpt 4 模型"),
    ("乾隆皇帝", "乾隆皇帝"),
]


@pytest.mark.parametrize(("raw", "expected"), CANONICAL)
def test_canonical_table(raw: str, expected: str) -> None:
    assert canonical(raw) == expected


FORMS = [
    ("北京", ["北京", "beijing", "bei jing"]),
    ("機器學習", ["机器学习", "jiqixuexi", "ji qi xue xi"]),
    ("Machine Learning", ["machine learning", "machinelearning"]),
    ("Python编程", ["python编程", "pythonbiancheng", "python bian cheng"]),
    ("Go", ["go"]),
]


@pytest.mark.parametrize(("name", "expected"), FORMS)
def test_normalized_forms_table(name: str, expected: list[str]) -> None:
    assert normalized_forms(name) == expected


def test_aliases_add_their_forms_without_duplicates() -> None:
    forms = normalized_forms("北京", ["Beijing", "北京"])
    assert forms == ["北京", "beijing", "bei jing"]


def test_query_key_is_canonical() -> None:
    assert query_key("  機器學習！") == "机器学习"


def test_exact_lookup_matches_every_form(tree: KeywordTree) -> None:
    node = tree.create_keyword("機器學習", aliases=["ML"]).node
    for query in ["机器学习", "機器學習", "jiqixuexi", "ji qi xue xi", "ml", "ＭＬ", "机器学习！"]:
        assert [n.id for n in tree.exact_lookup(query)] == [node.id], query
    assert tree.exact_lookup("机器") == []  # exact only, nothing fuzzy
    assert tree.exact_lookup("学习机器") == []


def test_exact_lookup_returns_every_same_named_keyword(tree: KeywordTree) -> None:
    a = tree.create_keyword("动物").node
    b = tree.create_keyword("编程").node
    p1 = tree.create_keyword("Python", parent_id=a.id).node
    p2 = tree.create_keyword("python", parent_id=b.id).node
    assert sorted(n.id for n in tree.exact_lookup("PYTHON")) == sorted([p1.id, p2.id])
