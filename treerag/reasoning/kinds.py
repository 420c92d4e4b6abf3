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
    rf"|是什么(?!时候|时间|地方|意思|原因|东西|样子|日子|人)([{HAN}]{{2,4}}?)的?[？?。！!\s]*$"
)
"""A kind word must be asked: "哪种动物最大" asks which animal, a name, not a kind. A thing
the question names, asked "是什么X(的)" ("徐梦桃是什么项目的", "…是什么电影"), is asked its
kind of X too (not a time, a place, a meaning or a cause: those are other slots)."""
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
    return next((g for g in match.groups() if g), "") if match else ""


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
    """The words right before `noun` in a Chinese sentence, or before the noun's head.

    The head of a compound of three characters or more is its last character: 剧 of 电视剧
    in "反黑刑侦剧" (not where it ends the compound itself, "电视剧市场"). A determiner or
    a numeral with its measure word ends the kind ("任何项目", "该项目", "一个项目").
    """
    from treerag.segment import tag

    said = list(re.finditer(re.escape(noun), sentence))
    if len(noun) >= 3:  # the head alone, where it does not end the compound itself
        said += re.finditer(f"(?<!{re.escape(noun[:-1])}){re.escape(noun[-1])}", sentence)
    found = []
    for match in said:
        before = list(tag(sentence[max(0, match.start() - 8) : match.start()]))
        kept: list[str] = []
        for word, flag in reversed(before):
            if (
                word in _ZH_NOT_KIND
                or not _HAN_WORD.fullmatch(word)
                or len(kept) == 2
                or flag.startswith(_NOT_KIND_TAGS)
            ):
                break
            kept.insert(0, word)
        if kept:
            found.append("".join(kept))
    return found


_NOT_KIND_TAGS = ("r", "m", "p", "c", "u")
"""jieba's tags of pronouns and determiners, numerals (一个, 一部), prepositions, conjunctions
and particles: none says a kind."""
