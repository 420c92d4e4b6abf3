"""A Chinese sentence whose asked relation is bounded by a span the question does not give.

Two ways a sentence holds the asked word and still says something else:

- a title or a figure held over a shorter span or a unit: "《流浪地球2》成为春节档新片上映
  首日票房冠军" is the first day's box-office champion, not the champion of the season
  "春节档票房冠军" asks for; "全国棉花单位面积产量1992.2公斤/公顷" is a yield per hectare,
  not the 棉花产量 asked;
- a time counted from the asked event: "在2022年12月12日，即ChatGPT发布两周内" dates a day
  within two weeks after the release, not the release.

- a figure that describes another thing: "（包含全長12.9公里的雪山隧道）" is the tunnel's
  length, not the 宜蘭線's the question asks: the asked word and its figure stand before
  的 and a noun, as the noun's attribute. A sentence saying the subject *is* that thing
  ("是一座面積約7.93平方公里的湖泊") describes the subject, a noun the question names
  (全长93.6公里的宜兰线) is its entity, and a forecast (…812.5亿元的预测) is the asked
  figure forecast.

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


_STOP = "，,。；;、！？的"
_ATTRIBUTE = re.compile(rf"[^{_STOP}]{{0,12}}?\d[^{_STOP}]{{0,6}}?的(?P<noun>[^\W\d_]{{2}})")
"""The rest of an attribute after the asked word: a figure, then 的 and the noun it describes."""
_ESTIMATE = re.compile(r"预[测计估期]|估计|目标")
"""The asked figure as a forecast ("全年营收812.5亿元的预测"): the figure asked, weighed as a
forecast by `answering.Answering.hedged`, not another thing's."""
_COPULA_BEFORE = re.compile(r"(?:是|为)[^，,。；;、（(]{0,8}$")
"""是一座面积约, 为一条: the attribute that follows describes the sentence's subject."""


def _describes_another(asked: str, question: str, folded: str, at: int) -> bool:
    """Whether the asked word and its figure are an attribute of a noun the question lacks."""
    figure_before = at > 0 and folded[at - 1].isdigit()  # 12.9公里的: the unit asked
    start = at
    while figure_before and start and (folded[start - 1].isdigit() or folded[start - 1] in ".,"):
        start -= 1
    rest = folded[at + len(asked) :]
    attribute = re.match(r"的(?P<noun>[^\W\d_]{2})", rest) if figure_before else None
    attribute = attribute or _ATTRIBUTE.match(rest)
    noun = attribute.group("noun") if attribute else ""
    if not noun or noun in question or _ESTIMATE.match(noun):
        return False
    return _COPULA_BEFORE.search(folded[:start]) is None


def _bounded_at(asked: str, question: str, folded: str, at: int) -> bool:
    if _describes_another(asked, question, folded, at):
        return True
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
