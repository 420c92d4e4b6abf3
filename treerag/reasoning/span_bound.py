"""A Chinese sentence whose asked relation is bounded by a span the question does not give.

Two ways a sentence holds the asked word and still says something else:

- a title or a figure held over a shorter span or a unit: "《流浪地球2》成为春节档新片上映
  首日票房冠军" is the first day's box-office champion, not the champion of the season
  "春节档票房冠军" asks for; "全国棉花单位面积产量1992.2公斤/公顷" is a yield per hectare,
  not the 棉花产量 asked;
- a time counted from the asked event: "在2022年12月12日，即ChatGPT发布两周内" dates a day
  within two weeks after the release, not the release.

A span the question itself gives ("首日票房冠军是哪部电影") bounds nothing. English is not
read here.
"""

from __future__ import annotations

import re

from treerag.text import HAN_CHAR

_SPAN_BEFORE = re.compile(
    r"(?:首日|单日|当日|首周末?|单周|首映日?|预售"
    r"|单位面积|人均|户均|日均|月均|亩均|平均|每日|每天|每亩)$"
)
"""A span or a unit right before the asked word: 首日票房冠军, 单位面积产量, 人均GDP (a figure
per unit is not the total asked for)."""
_COUNT = r"[\d一二两三四五六七八九十百几数半]+"
_SPAN_AFTER = re.compile(
    rf"\s*(?:的)?\s*{_COUNT}\s*(?:个)?\s*(?:天|日|周|星期|个月|月|年|小时)\s*"
    r"(?:内|后|前|之内|之后|以后|以来|之前|以前)"
)
"""A time counted from the asked verb: 发布两周内, 上市三个月后, 开幕10天以来."""
_LEAD = 6
"""How far before the asked word a span is read: "春节档新片上映首日票房冠军" (首日 is two
characters before 票房冠军 once the title's own words are skipped)."""


def bounded(asked: str, question: str, folded: str) -> bool:
    """Whether every mention of the asked word in a folded sentence is bounded (above).

    `asked` is the question's asked word (`QuestionReading.asked`), `question` the folded
    question; False when the sentence holds the word unbounded once, or not at all.
    """
    if not asked or not HAN_CHAR.search(folded):
        return False
    at = [m.start() for m in re.finditer(re.escape(asked), folded)]
    if not at:
        return False
    return all(_bounded_at(asked, question, folded, i) for i in at)


def _bounded_at(asked: str, question: str, folded: str, at: int) -> bool:
    if after := _SPAN_AFTER.match(folded, at + len(asked)):
        return after.group().strip() not in question
    lead = folded[max(0, at - _LEAD) : at]
    for title_start in range(len(lead) + 1):
        # The title's own words ("票房" of 票房冠军) may stand between the span and the word.
        head = lead[:title_start]
        span = _SPAN_BEFORE.search(head)
        if span and lead[title_start:] in question and span.group() not in question:
            return True
    return False
