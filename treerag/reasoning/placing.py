"""A Chinese question asking how someone placed, and the placings a sentence gives.

"2022年女篮世界杯中国女篮成绩", "中国女篮在2022世界杯小组赛中最终排名？" ask for a placing in a
competition, which a report gives in a few set forms: a title (亚军), a round reached (八强,
16强, "止步8强"), a rank (第二, 第3名), a medal (银牌). No name answers it: "2022年国际篮联女篮
世界杯在澳大利亚首都悉尼激战正酣" names a place, not how the team did. A placing the
sentence denies ("无缘四强": not among the last four) is none. The words the question asks
with (成绩, 排名) are seldom in the sentence that answers ("中国女篮获得亚军"): they say what
kind of answer is wanted, not its relation.

Both are read in the canonical form (`reading.fold`).
"""

from __future__ import annotations

import re

_ASKED = re.compile(r"(?:成绩|排名|名次|战绩)(?:如何|怎么样|怎样|是什么|是多少)?[？?。！!\s]*$")
"""The question ends asking for a placing."""
PLACING_WORDS = frozenset({"成绩", "排名", "名次", "战绩", "最终"})
"""The words such a question asks with (最终 of "最终排名" qualifies the placing)."""
_NUMERAL = "[一二三四五六七八九十百\\d]"
_PLACING = re.compile(
    r"冠军|亚军|季军|殿军|金牌|银牌|铜牌"
    rf"|{_NUMERAL}{{1,3}}强"
    rf"|第{_NUMERAL}{{1,3}}(?:名|位)?(?=名|位|出线|晋级|[，。,、；;）)]|$)"
)
"""A title, a round reached, a rank (not "第一次", "第3局": a rank ends the phrase)."""
_DENIED = re.compile(r"(?:无缘|未能|没能|无法|未进|未入|无望|错失)\S{0,2}$")
"""Words before a placing that say it was not reached ("无缘四强")."""


def asks_placing(folded: str) -> bool:
    """Whether a canonical Chinese question asks for a placing (rules at the top)."""
    return _ASKED.search(folded) is not None


def placings(folded: str) -> list[str]:
    """The placings a canonical sentence gives, in order, those it denies left out."""
    return [
        m.group()
        for m in _PLACING.finditer(folded)
        if not _DENIED.search(folded[max(0, m.start() - 4) : m.start()])
    ]
