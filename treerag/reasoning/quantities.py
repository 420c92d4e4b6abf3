"""The candidates of a number question: numbers outside dates, of what is asked (`fillers`).

A sentence holds many numbers; the one asked for is not a count of another noun ("来自31个省"
for "录取了多少名本科生"), nor, for an amount ("2022年全国棉花产量"), the value another noun
labels ("播种面积3000.3千公顷") or a count at all; from a "respectively" list the asked term's
own value (`respective`).
"""

from __future__ import annotations

import re

from treerag.reasoning.reading import QuestionReading
from treerag.reasoning.respective import respective
from treerag.reasoning.span_bound import bounded
from treerag.text import HAN, HAN_CHAR
from treerag.text.figures import CLASSIFIERS, DATE_PART, QUANTITY
from treerag.text.names import NAME_FLAGS

_COUNT_ASKED = re.compile(rf"(?:多少|几)[{CLASSIFIERS}]?([{HAN}]{{1,6}}?)(?:[?？。,，的]|$)")
"""A Chinese count question's counted noun: 本科生 of "录取了多少名本科生", 国家 of "几个国家"."""
_COUNTED = re.compile(rf"\s*[万亿千百]?\s*[{CLASSIFIERS}]([{HAN}]{{1,4}})")
"""A classifier and the noun it counts after a number: "31个省", "12691名新生"."""


def _counted_noun(question: str) -> str:
    """The noun a Chinese count question counts ("本科生"), "" when it names none."""
    match = _COUNT_ASKED.search(question)
    return match.group(1) if match else ""


_YEARS_ASKED = re.compile(r"(?:多少|几)(?:个)?年(?!代|级|度|份)")
"""A question counting years ("前后一共有多少年", "几年"), not asking which year."""
_YEARS = re.compile(r"\d{1,3}年")
"""A count of years a sentence gives ("长达30年"): fewer digits than a year's."""
_RESTATED = re.compile(r"\d[\d.,]*\s*[^\d\s(（]{0,4}\s*[(（]\s*$")
"""A value and its unit right before an opening parenthesis: what the number inside restates."""


def quantities(reading: QuestionReading, folded: str) -> list[str]:
    """A number question's candidates: numbers outside dates, of what is asked.

    Not a count of another noun ("来自31个省"), nor, for an amount ("棉花产量"), the value
    of another noun ("播种面积3000.3千公顷"); from a "respectively" list, the asked term's.
    """
    asked = reading.folded
    # "前后一共有多少年": a count of years ("长达30年") is the answer, not a date's part.
    years_counted = _YEARS_ASKED.search(asked) is not None
    in_dates = {
        i
        for m in DATE_PART.finditer(folded)
        if not (years_counted and _YEARS.fullmatch(folded, m.start(), m.end() + 1))
        for i in range(m.start(), m.end())
    }
    counted = _counted_noun(asked)
    han = asked if HAN_CHAR.search(asked) else ""
    amount = bool(han) and not _COUNT_WORD.search(han)
    found = list(QUANTITY.finditer(folded))
    taken = {i for m in found for i in range(m.start(), m.end())}
    found += [m for m in _ZH_NUMBER.finditer(folded) if m.start() not in taken]
    values = [
        m
        for m in sorted(found, key=lambda m: m.start())
        if m.group() not in asked
        and m.start() not in in_dates
        and not _counts_another(folded, m.end(), counted, han if amount else "")
        and not (amount and _labelled_another(folded, m.start(), reading.relation))
    ]
    if any(t.endswith("率") for t in reading.relation if HAN_CHAR.search(t)):
        # A rate (增长率) is a percentage: "284997亿元，同比增长4.5%" gives 4.5%.
        values = [m for m in values if _PERCENT.search(m.group())] or values
    if han:
        # "播种面积、单位面积产量和总产量分别为…": the value in the asked term's place.
        words = [t for t in reading.relation if HAN_CHAR.search(t)][-1:]
        paired = respective(folded, values, lambda item: _names_term(item, words, asked))
        values = paired if paired is not None else values
    return [m.group() for m in values]


def _labelled_another(folded: str, start: int, relation: tuple[str, ...]) -> bool:
    """Whether the number at `start` is the value of a noun right before it, not asked.

    3000.3 of "全国棉花播种面积3000.3千公顷" for 棉花产量, and the same value in another unit
    in parentheses after it ("（4500.4万亩）"); not 总产量597.7 nor "达597.7万吨" (产量 is
    asked, 达 is a verb).
    """
    from treerag.segment import tag

    restated = _RESTATED.search(folded, 0, start)
    if restated is not None:
        start = restated.start()  # "3000.3千公顷（4500.4万亩）": the label of the first

    pairs = [p for p in tag(folded[max(0, start - 8) : start]) if p[0].strip()]
    if not pairs:
        return False
    word, flag = pairs[-1]
    if not flag.startswith("n") or flag.startswith(NAME_FLAGS) or len(word) < 2:
        return False  # a verb, a year, a name ("中国4.5%"): no label of its own
    return not any(word in t or t in word for t in relation)


def _names_term(item: str, words: list[str], asked: str) -> bool:
    """Whether an item of a list names the question's last relation word, unbounded."""
    return any(w in item and not bounded(w, asked, item) for w in words)


def _counts_another(folded: str, end: int, counted: str, amount: str = "") -> bool:
    """Whether the number ending at `end` counts a noun other than the question's `counted`.

    "来自31个省" counts provinces, not the 本科生 of "录取了多少名本科生"; "7436名本科生"
    and "本科生7436人" (a classifier with no noun after it) count what is asked. `amount`,
    a folded question that asks no count at all ("2022年全国棉花产量"), is not answered by a
    count of a noun it does not name ("全国31个省").
    """
    match = _COUNTED.match(folded, end)
    if match is None or match.group(1).startswith("次"):
        return False  # none, or a compound unit ("3473.6万人次", 架次): no noun counted
    noun = match.group(1)
    if amount:
        return noun[:2] not in amount
    if len(counted) < 2:
        return False  # 多少人, 多少钱: a word too broad to tell one count from another
    return counted[:2] not in noun and noun[:2] not in counted


_ZH_NUMBER = re.compile(
    r"(?:[一二三四五六七八九两][十百千万]|十)[零一二三四五六七八九十百千万亿两]*(?:余|多)?"
    rf"(?=\s*(?:[{CLASSIFIERS}首米里吨人岁年]|平方|公里|公顷|亩))"
)
"""A number written in Chinese numerals with a unit or measure word after it (十二平方公里,
六十二首, 三十余名), of ten or more: "一座" and "两位" count one thing, no value asked."""
_PERCENT = re.compile(r"[%‰]$")
"""A percentage (or per mille) candidate."""
_COUNT_WORD = re.compile(r"多少|几|数量|人数|次数|个数|家数|总数")
"""What a Chinese question that asks a count says: 多少个, 几家, 参赛人数."""
