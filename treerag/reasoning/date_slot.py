"""Which of a sentence's dates is the one of the asked event (`by_the_event`).

A sentence may give several dates, of which one is when the asked thing happened:

- **A plan is not what happened.** "It was due to open in 1880, but opened in 1882", "原定于
  1894年完工…直到1896年才落成", "C919将于2月28日执飞商业航班": a date a plan word leads
  (原定, 计划, 将于, due to, scheduled for) says what was meant to happen: where the sentence
  says the asked event's date as a fact too, the plan's is no value at all; where it does
  not ("…宣布…将于6月3日…开赛", news of what is to come), the plan is the event's date. A
  question that asks for a plan (计划, 将, "is due", "scheduled") wants it.
- **A beginning is not a completion.** "始建于1893年…1896年落成", "laid down in 1876 …
  launched in 1878": the date of a work begun (始建, 开工, 动工, began, started) is left out
  likewise, unless the question asks when it began.
- **The asked verb's clause** holds its date: of "1903年创办，1912年迁址", "创办" asks the
  first; where a clause holding the asked verb (or a word for it, `equivalents`) holds a
  date, the dates of the other clauses are other events' and are left out.

Otherwise the sentence's order stands.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from treerag.reasoning.relation_held import present, text_stems

_CLAUSES = re.compile(r"[^，。；！？,;!?]+")
"""A clause: what lies between two marks of punctuation."""
_PLANNED = re.compile(
    r"(?:(?:原定|原计划|计划|预定|预计|拟)(?:于|在)?|(?:将|定)(?:于|在))\s*$"
    r"|\b(?:due|scheduled|planned|set|expected|intended|meant|supposed)\s+"
    r"(?:to\s+(?:be\s+)?\w+\s+)?(?:in|on|for|by)\s+(?:the\s+)?(?:year\s+)?$",
    re.IGNORECASE,
)
"""A plan word right before a date (a few words at most): 原定于, 将于, "due to open in"."""
_BEGUN = re.compile(
    r"始建|开工|动工|奠基|开建|筹建|\b(?:began|begun|started|laid down|construction began)\b",
    re.IGNORECASE,
)
"""Words saying a work was begun: its date is not the one it was finished."""
_ASKS_PLAN = re.compile(r"计划|原定|预定|将|\b(?:due|scheduled|planned|will)\b")
_ASKS_BEGINNING = re.compile(r"始建|开工|动工|奠基|开始|\b(?:begin|began|start|started)\b")
_RANGE = re.compile(r"\s*(?:至|到|-|–|—|~|to|until|and)\s*")
"""What joins the two ends of one span of dates: "3月27日至4月7日", "1893–1896"."""
_REACH = 32
"""How far around a date a plan or a beginning is read (characters)."""


def by_the_event(
    spans: Sequence[tuple[int, int]], folded: str, asked: str, verbs: Sequence[str]
) -> list[int]:
    """The indexes of a sentence's date `spans` (in canonical `folded`), the asked event's first.

    `asked` is the canonical question, `verbs` the asked relation term and its other words.
    Where a date is said as a fact in the asked verb's clause, the others are left out (rules
    at the top): they are no values for what the question asks, nor rival readings of it.
    """
    plans = not _ASKS_PLAN.search(asked)
    beginnings = not _ASKS_BEGINNING.search(asked)
    clauses = [m.span() for m in _CLAUSES.finditer(folded)]
    edges = sorted(spans)

    def key(i: int) -> tuple[bool, bool]:
        """(outside the asked verb's clause, planned or begun) of date `i`."""
        start, end = spans[i]
        earlier = [j for j, (a, b) in enumerate(spans) if b <= start]
        last = max(earlier, key=lambda j: spans[j][1]) if earlier else None
        if last is not None and _RANGE.fullmatch(folded[spans[last][1] : start]):
            return key(last)  # "3月27日至4月7日": a range's end is what its start is
        low, high = next(((a, b) for a, b in clauses if a <= start < b), (0, len(folded)))
        # The words between the date and its neighbours in its clause: "laid down at the
        # yard in 1876", "于1893年开工" (a Chinese verb follows its date), not the next date's.
        after_last = max([b for a, b in edges if b <= start] + [low])
        next_first = min([a for a, b in edges if a >= end] + [high])
        before = folded[after_last:start]
        around = before + " " + folded[end : min(next_first, end + _REACH)]
        planned = plans and bool(_PLANNED.search(before[-_REACH:]))
        begun = beginnings and bool(_BEGUN.search(around))
        return bool(verbs) and not _holds_verb(folded[low:high], verbs), planned or begun

    keys = [key(i) for i in range(len(spans))]
    # A date said as a fact in the asked verb's clause is the value; the others are other
    # events' ("1919年…先行通車", "原定于1894年完工") and no rival reading of it.
    said = [i for i, k in enumerate(keys) if k == (False, False)]
    # Failing one, the verb's clause first, a plan there before a fact elsewhere ("5月23日,
    # …宣布…将于6月3日…开赛" asks the match's day, not the announcement's).
    return said or sorted(range(len(spans)), key=lambda i: keys[i])


def _holds_verb(clause: str, verbs: Sequence[str]) -> bool:
    """Whether a clause says one of the asked verb's words (a Latin one in any of its forms)."""
    stems = text_stems(clause)
    return any(present(v, clause, stems) for v in verbs if v)
