"""A question asking what kind of thing something is, and a sentence's answer to it.

"《X》是什么类型的电影", "Wordle游戏是什么类型的游戏", "What kind of game is Wordle?" ask for
the kind, and a defining sentence gives it as the words right before the noun: "…主演的喜剧
电影" (喜剧), "…编写的网页文字游戏" (网页文字), "Wordle is a web-based word game" ("web-based
word"). The noun said after them says the relation itself, as a name that says its kind does
("the Salt River" for "which river": `chunk_reading.names_kind`).

Both are read in the canonical form (`reading.fold`).
"""

from __future__ import annotations

import re
from dataclasses import replace
from functools import lru_cache
from typing import TYPE_CHECKING

from treerag.reasoning.placing import PLACING_WORDS
from treerag.text import HAN, HAN_CHAR

if TYPE_CHECKING:
    from treerag.reasoning.reading import QuestionReading

_ZH_ASKED = re.compile(
    rf"(?:(?:什么|哪一?种|哪)(?:类型|种类)的?|什么样的)([{HAN}]{{1,4}})[？?。！!\s]*$"
)
"""A kind word must be asked: "哪种动物最大" asks which animal, a name, not a kind."""
_EN_ASKED = re.compile(r"\bwhat (?:kind|type|sort|genre)s? of ([a-z][a-z\-]*)")
_ZH_NOT_KIND = frozenset(
    "的 是 为 一 这 那 该 此 部 款 种 个 类 位 名 类型 种类 一部 一款 一种 一个 一位 一名 "
    "这部 那部 这种 这类 该片 本片 属于 作为".split()
)
"""Words that end a kind read backwards from the noun: a particle, a copula, a measure word,
a demonstrative, the kind words themselves ("这一类型的电影" gives no kind)."""
_EN_KIND = re.compile(r"\b(?:is|was|are|were)\s+(?:an?|the)\s+((?:[a-z][a-z\-]*\s+){1,3}?)")
_EN_NOT_KIND = frozenset("kind type sort genre".split())
_HAN_WORD = re.compile(f"[{HAN}]+")
KIND_WORDS = frozenset({"类型", "种类", "样", *_EN_NOT_KIND})
"""The words a kind question asks with; a defining sentence does not say them."""


@lru_cache(maxsize=2048)
def asked_kind(question: str) -> str:
    """The noun whose kind a canonical question asks for ("电影", "game"), else ""."""
    match = _ZH_ASKED.search(question) or _EN_ASKED.search(question)
    return match.group(1) if match else ""


def without_kind_words(reading: QuestionReading) -> QuestionReading:
    """The reading without the kind words of its relation.

    类型 of 什么类型的电影; 成绩 of a placing asked (`placing`).
    """
    words = KIND_WORDS | PLACING_WORDS
    return replace(reading, relation=tuple(t for t in reading.relation if t not in words))


def kinds(noun: str, sentence: str) -> list[str]:
    """The kinds a canonical sentence gives `noun`: the words right before it, nearest first."""
    if HAN_CHAR.search(noun):
        return _zh_kinds(noun, sentence)
    found = []
    for match in re.finditer(rf"{_EN_KIND.pattern}{re.escape(noun)}\b", sentence):
        words = match.group(1).split()
        if words and not _EN_NOT_KIND & set(words):
            found.append(" ".join(words))
    return found


def _zh_kinds(noun: str, sentence: str) -> list[str]:
    from treerag.segment import jieba

    found = []
    for match in re.finditer(re.escape(noun), sentence):
        before = jieba().lcut(sentence[max(0, match.start() - 8) : match.start()])
        kept: list[str] = []
        for word in reversed(before):
            if word in _ZH_NOT_KIND or not _HAN_WORD.fullmatch(word) or len(kept) == 2:
                break
            kept.insert(0, word)
        if kept:
            found.append("".join(kept))
    return found
