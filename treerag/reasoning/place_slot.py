"""Where a Chinese sentence says the asked event takes place (`place_spans`).

A Chinese sentence gives the place of an event in a locative phrase tied to its verb: before
it ("国葬在伦敦西敏寺大教堂举行", "于哈尔滨举办"), after it ("成立于北京", "总部位于重庆"), or after
a noun that names the place ("地点在莫斯科工会大厦圆柱大厅"). For "where" the place asked for
is the one in that phrase: in "戈尔巴乔夫在莫斯科去世，他的葬礼将于9月3日举行" the funeral's
phrase holds a date, and 莫斯科 is where he died, not where the funeral is. A sentence whose
phrase for the asked verb holds no name does not say where (`fillers.candidates`).

The locative prepositions 在 and 于 introduce the place of an event before the verb, and 于
also after it (Li and Thompson, 1981, "Mandarin Chinese: A Functional Reference Grammar",
ch. 11, "Locative phrases"). English is not read here: its place follows the verb's
preposition and the name after it is read by `fillers` ("born in Kalvik").
"""

from __future__ import annotations

import re
from collections.abc import Sequence

_CLAUSES = re.compile(r"[^，。；！？,;!?、]+")
"""A clause: what lies between two marks of punctuation (parentheses stay inside)."""
_ZAI = r"(?<![现存正所实自不])在(?!于)"
"""The locative 在, not of 现在, 正在, 所在, 存在."""
_YU = r"(?<![由对关等属终至在基])于"
"""The locative 于, not of 由于, 对于, 关于."""
_BEFORE_VERB = re.compile(rf"{_ZAI}|(?<!位){_YU}")
"""A locative before the verb: 在 or 于 (位于 is read after the verb or noun, `_AFTER`)."""
_AFTER = re.compile(r"\s*(?:位于|坐落于|坐落在|设在|设于|在|于)")
"""A locative right after the asked verb or noun: 成立于, 总部位于, 出生在."""
_NAMING_PLACE = re.compile(r"(?:地点|地址|所在地|举办地|举行地)\s*(?:在|为|是|位于)?\s*[:：]?")
"""A noun that names the place, before it: 地点在…, 举办地为…."""


def _verb_in(text: str, verbs: Sequence[str]) -> tuple[int, str]:
    """Where the first of the asked verb's words stands in a clause, and which: (-1, "")."""
    found = [(text.find(v), v) for v in verbs if v and v in text]
    return min(found) if found else (-1, "")


def place_spans(verbs: Sequence[str], folded: str) -> list[tuple[int, int]] | None:
    """The stretches of a folded sentence that say where the asked event is, or None.

    In each clause holding the asked verb (`QuestionReading.asked`, or a word for it:
    举行 for 举办): from a locative before it to the verb, and from a locative right after it
    to the clause's end; anywhere, from a noun naming the place (地点, 地址) to the clause's
    end. None when there is no such stretch (the sentence says where in some other way, or
    not at all: it is not read).
    """
    spans: list[tuple[int, int]] = []
    for clause in _CLAUSES.finditer(folded):
        text, start = clause.group(), clause.start()
        for named in _NAMING_PLACE.finditer(text):
            spans.append((start + named.end(), clause.end()))
        at, verb = _verb_in(text, verbs)
        if at < 0:
            continue
        if before := _BEFORE_VERB.search(text, 0, at):  # the first: "于9月3日在莫斯科举行"
            spans.append((start + before.end(), start + at))
        if after := _AFTER.match(text, at + len(verb)):
            spans.append((start + after.end(), clause.end()))
        elif verb[-1] in "于在":
            spans.append((start + at + len(verb), clause.end()))  # 生于临沣: its own locative
    return spans or None


_AGENT = re.compile(r"由(?!于|此|来)")
"""The agent marker 由 ("由IEEE CVPR举办": who holds it), not 由于, 由此, 由来."""


def not_where(verbs: Sequence[str], folded: str) -> list[tuple[int, int]]:
    """The stretches of a folded sentence whose names are not where the asked event is.

    Who does it: "由全球计算机视觉领域三大顶会之一的IEEE CVPR举办的挑战赛" names the
    organiser before the verb (由 marks the agent of the verb after it: Li and Thompson,
    1981, ch. 16); the stretch ends at a locative ("由X在北京举办": 北京 says where). And
    what is held: the name right after "举办的" is the event the verb describes.
    """
    spans: list[tuple[int, int]] = []
    for clause in _CLAUSES.finditer(folded):
        text, start = clause.group(), clause.start()
        at, verb = _verb_in(text, verbs)
        if at < 0:
            continue
        if agent := _AGENT.search(text, 0, at):
            place = _BEFORE_VERB.search(text, agent.end(), at)
            spans.append((start + agent.end(), start + (place.start() if place else at)))
        held = at + len(verb)
        if text.startswith("的", held):
            spans.append((start + held + 1, start + held + 2))
    return spans


def within(name: str, folded: str, spans: list[tuple[int, int]]) -> bool:
    """Whether a name begins inside one of the spans (any of its occurrences)."""
    return any(
        any(lo <= m.start() < hi for lo, hi in spans) for m in re.finditer(re.escape(name), folded)
    )


_LOCATIVE_LEAD = re.compile(rf"(?:{_ZAI}|{_YU}|位于|坐落于|来自|前往|抵达)\s*$")
"""A locative right before a name: 发生在…, 位于…, 来自…."""
_LED_BY = re.compile(r"的?(?:带领|领导|率领|主持|指导|陪同|帮助|支持|号召)")
"""What makes a name after 在 a person's: "在沈秋禾的带领下"."""


def located(name: str, folded: str) -> bool:
    """Whether a name stands as a place: right after a locative ("发生在日本奈良县奈良市").

    A "who" is not answered by it; a name after 在 that leads ("在沈秋禾的带领下") is a person.
    """
    for m in re.finditer(re.escape(name), folded):
        if _LOCATIVE_LEAD.search(folded, 0, m.start()) and not _LED_BY.match(folded, m.end()):
            return True
    return False
