"""A sentence about the other side of what a Chinese question names: 女单 for 男单.

"2022年WTT世界杯决赛男单冠军" is not answered by "…孙颖莎夺得女单冠军": the men's and the
women's events are two events, and a sentence that says the other one (and not the asked
one) is about it, however much of the rest of the question it holds. Chinese marks the side
with the first character of the term: 男单 / 女单, 男子 / 女子, 男篮 / 女篮, 男足 / 女足.
"""

from __future__ import annotations

from collections.abc import Iterable

_SIDES = {"男": "女", "女": "男"}


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
