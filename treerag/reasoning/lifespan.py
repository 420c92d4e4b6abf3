"""A life-span in parentheses, read as the birth and death it states.

Reference works give a person's dates in parentheses after the name, without a verb:
"Ezer Weizman (15 June 1924 – 24 April 2005) was…", "钱学森（1911年12月11日－2009年10月31日）…"
(the style of Wikipedia's Manual of Style, "Dates of birth and death": the first date is the
birth, the second the death). A question asks "born" or "died"; the sentence says neither
word. `spelled` gives the sentence with the date the question asks for said with its verb,
for reading only: the answer still quotes the sentence as the document wrote it.
"""

from __future__ import annotations

import re

from treerag.text import HAN_CHAR
from treerag.text.figures import MONTH_NAME

_MONTH = MONTH_NAME.pattern
_DATE = (
    rf"(?:(?:c\.\s*)?(?:\d{{1,2}}\s+{_MONTH}\s+|{_MONTH}\s+(?:\d{{1,2}},\s*)?)?\d{{3,4}}"
    r"|\d{3,4}年(?:\d{1,2}月(?:\d{1,2}日)?)?)"
)
_SPAN = re.compile(
    rf"(?P<open>[(（](?:[^()（）]*?[;；,，]\s*)??)(?P<birth>{_DATE})\s*[–—\-－~～至]\s*"
    rf"(?P<death>{_DATE})\s*(?P<close>[)）])"
)
_BIRTH = re.compile(r"\b(?:born|birth)\b|出生|生于|诞生|生在", re.IGNORECASE)
_DEATH = re.compile(r"\b(?:die|died|death|dead)\b|去世|逝世|死于|卒于|病逝", re.IGNORECASE)


def spelled(sentence: str, question: str) -> str:
    """The sentence with a life-span's date said as the birth or death the question asks.

    "(15 June 1924 – 24 April 2005)" becomes "(born 15 June 1924)" for "In what year was he
    born?" and "(die 24 April 2005)" for "When did he die?" (the question's word). A
    question asking neither, or a sentence without a life-span, gives the sentence back
    unchanged. `question` is read in any form (folded or as written).
    """
    birth, death = _BIRTH.search(question), _DEATH.search(question)
    asked, group = (birth, "birth") if birth else (death, "death")
    if asked is None or (birth and death):
        return sentence
    # The question's own word ("born", "die", 去世), so that the relation is read as asked.
    verb = asked.group() if HAN_CHAR.match(asked.group()) else f"{asked.group()} "

    def said(match: re.Match[str]) -> str:
        return f"{match['open']}{verb}{match[group]}{match['close']}"

    return _SPAN.sub(said, sentence, count=1)
