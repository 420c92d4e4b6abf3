"""Lexical terms for the offline agent: jieba words and CJK bigrams, English words."""

from __future__ import annotations

import functools
import re
from typing import Any

from treerag.text import HAN_RUN, canonical, has_han

STOPWORDS = frozenset(
    """
    a an the of to in on at by for with about from into and or not is are was were be been
    what which who whom whose when where why how does do did can could should would will
    i you he she it we they me my your its our their this that these those there here
    please tell explain describe some any all more most other such than then
    的 了 是 在 和 与 及 或 吗 呢 吧 啊 什么 怎么 怎样 如何 哪些 哪个 哪里 为什么 一个 一些
    有 有关 关于 请问 介绍 一下 说说 以及 还是 这个 那个 这些 那些 我们 你们 他们 它们 可以
    """.split()
)
"""Words that carry no topic; dropped from term sets."""


def jieba_module() -> Any:
    """Return jieba, imported on first use with its dictionary loaded (`treerag.segment`)."""
    from treerag.segment import jieba

    return jieba()


@functools.lru_cache(maxsize=16384)
def terms(text: str) -> frozenset[str]:
    """Return the topic terms of text.

    Chinese: jieba words of two or more characters plus every character bigram, so that
    "机器学习" and "机器 学习" share terms however jieba splits them. Other scripts: words
    of two or more characters, and numbers. Stopwords are dropped.
    """
    norm = canonical(text)
    out: set[str] = set()
    if has_han(norm):
        for token in jieba_module().lcut(norm):
            token = token.strip()
            if len(token) >= 2 and token not in STOPWORDS:
                out.add(token)
        for run in HAN_RUN.findall(norm):
            out.update(run[i : i + 2] for i in range(len(run) - 1))
        out -= STOPWORDS
        norm = HAN_RUN.sub(" ", norm)
    for word in norm.split():
        if (len(word) >= 2 or word.isdigit()) and word not in STOPWORDS:
            out.add(word)
    return frozenset(out)


def mentions(text_canonical: str, form: str) -> bool:
    """Return whether a normalized name form occurs in canonical text as a whole word.

    Latin forms must sit on word boundaries ("go" is not in "google"); CJK forms of two or
    more characters may sit anywhere; a one-character CJK form must be the whole text.
    """
    if not form:
        return False
    if has_han(form):
        return form in text_canonical if len(form) >= 2 else text_canonical == form
    pattern = r"(?<![0-9a-z])" + re.escape(form) + r"(?![0-9a-z])"
    return re.search(pattern, text_canonical) is not None


def overlap(query_terms: frozenset[str], other: frozenset[str]) -> float:
    """Return the share of the query's terms found in other (0 when the query has none)."""
    if not query_terms:
        return 0.0
    return len(query_terms & other) / len(query_terms)
