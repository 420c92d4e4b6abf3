"""A sentence about the other side of what a Chinese question names: 女单 for 男单, 越南 for 中国.

"2022年WTT世界杯决赛男单冠军" is not answered by "…孙颖莎夺得女单冠军": the men's and the
women's events are two events, and a sentence that says the other one (and not the asked
one) is about it, however much of the rest of the question it holds. Chinese marks the side
with the first character of the term: 男单 / 女单, 男子 / 女子, 男篮 / 女篮, 男足 / 女足.

The same holds for the place that owns a figure: "2023年第一季度，越南GDP增长率为3.3%" is
Vietnam's growth, not the 中国GDP增长率 asked (`other_place`), and for a sibling of a word the
question names, a noun of the same length and the same last character in its place: 澳网 for
温网 (another tournament), 亚军 for 冠军 (another placing), 亚洲杯 for 世界杯 (`other_sibling`).

And a sentence that names the question's entity only as the one another came after ("特蕾莎•梅
将于1月末访华，成为继马克龙之后访华的欧洲元首") tells of the other's visit (`only_followed`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

_SIDES = {"男": "女", "女": "男"}
_NOUN_FLAGS = ("n", "nz", "nt", "ns", "nr", "j")
"""jieba's flags of nouns and names (not verbs: 上网 is no sibling of 温网)."""


def other_side(terms: Iterable[str], folded: str) -> bool:
    """Whether a canonical sentence says the other side of a term and not the term itself.

    The side is read where the term marks it, at its start or inside a name (中国女篮).
    """
    for term in terms:
        at = next((i for i, ch in enumerate(term[:-1]) if ch in _SIDES), -1)
        if at < 0:
            continue
        side = term[at : at + 2]
        flipped = _SIDES[side[0]] + side[1]
        if flipped in folded and side not in folded:
            return True
    return False


def _owned(folded: str) -> dict[str, str]:
    """Each word of a folded text that a place name right before it owns: {"gdp": "中国"}."""
    from treerag.segment import tokens, word_tag

    words = [w for w, _, _ in tokens(folded) if w.strip()]
    return {
        word: before
        for before, word in zip(words, words[1:], strict=False)
        if word_tag(before).startswith("ns") and not word_tag(word).startswith("ns")
    }


def other_place(question: str, folded: str, own: Iterable[str] = ()) -> bool:
    """Whether a folded sentence gives another place's figure than the folded question's.

    A word the question's place owns ("中国GDP") owned in the sentence by another place
    ("越南GDP"), the question's place (or one of `own`, its other words: 我国 for 中国)
    named nowhere in the sentence.
    """
    asked = _owned(question)
    if not asked:
        return False
    said = _owned(folded)
    for word, place in asked.items():
        other = said.get(word)
        if other and other != place and not any(p in folded for p in (place, *own)):
            return True
    return False


def _nouns(folded: str) -> set[str]:
    """The Chinese nouns and names of two characters or more jieba reads in a folded text."""
    from treerag.segment import tag

    return {w for w, flag in tag(folded) if len(w) >= 2 and flag.startswith(_NOUN_FLAGS)}


def other_sibling(question: str, folded: str) -> bool:
    """Whether a folded sentence says a sibling of a noun of the folded question, not it.

    A sibling is another two-character noun with the same head (`_HEADS`, its last
    character), and the question lacks it: "德约科维奇夺得2023年澳网男单冠军" is another
    tournament's champion for "2023年温网男单冠军", which it does not name; a sentence naming
    both (温网 and 澳网) is read as usual. Longer nouns are left alone: 运动会 is the 大运会
    written out, 锦标赛 the 世锦赛.
    """
    asked = {w for w in _nouns(question) if len(w) == 2 and w[-1] in _HEADS}
    if not asked:
        return False
    said = _nouns(folded) - asked
    return any(
        word not in folded and any(len(w) == 2 and w[-1] == word[-1] for w in said)
        for word in asked
    )


_HEADS = frozenset("网军杯奖")
"""Heads of two-character nouns that name one of a kind: a tournament (温网, 澳网), a placing
(冠军, 亚军), a cup, an award."""


def only_followed(entities: Iterable[str], folded: str) -> bool:
    """Whether a canonical sentence names the question's entities only as one followed (继X之后).

    "继马克龙之后访华" makes 马克龙 the one before: the sentence's event is another's.
    """
    named = [e for e in entities if e in folded]
    if not named:
        return False
    for entity in named:
        rest = re.sub(f"继{re.escape(entity)}之?后", " ", folded)
        if entity in rest:
            return False
    return True
