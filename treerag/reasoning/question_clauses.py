"""What the bridge and the follow-up both read of a question's clause (offline).

Its content terms with their spans, a set of stems that a term's stem is looked up in, the
relative clause or participle phrase that asks ("…a state named after which tribes?") and
the noun a Chinese description (a relative clause before 的) ends at.
"""

from __future__ import annotations

import re
from functools import lru_cache
from itertools import accumulate

from treerag.reasoning.called import ATTRIBUTE
from treerag.reasoning.name_kinds import NAMED_BY_KIND
from treerag.reasoning.questions import POINTED, ZH_WH
from treerag.reasoning.relation_held import agent_verb
from treerag.reasoning.text import stem, unpossessed
from treerag.text import (
    EN_STOP,
    HAN_CHAR,
    is_zh_stop,
    to_simplified,
)
from treerag.text.names import WORD as _WORD


def term_spans(clause: str) -> list[tuple[str, int, int]]:
    """(lower-cased content term, start, end) of each content word of a clause."""
    from treerag.segment import tokens

    out: list[tuple[str, int, int]] = []
    for match in _WORD.finditer(clause):
        piece, base = match.group(), match.start()
        words = (
            [(w, base + s, base + e) for w, s, e in tokens(piece)]
            if HAN_CHAR.match(piece)
            else [(piece, match.start(), match.end())]
        )
        for word, start, end in words:
            low = word.lower()
            if low in EN_STOP or is_zh_stop(low) or (len(low) < 2 and not low.isdigit()):
                continue
            out.append((low, start, end))
    return out


class StemSet(set):
    """A set of canonical stems that answers `term in covered` by the term's canonical stem.

    The chunk's terms are read in the canonical script (`reading.fold`), so a Traditional
    question's term is folded to Simplified before it is looked up, and a name's possessive
    goes (`unpossessed`: "holt's" is the chunk's "holt").
    """

    def __contains__(self, term: object) -> bool:
        if not isinstance(term, str):
            return False
        term = to_simplified(term)
        return any(set.__contains__(self, stem(t)) for t in {term, unpossessed(term)})


ASKING = re.compile(rf"\b(?:which|what|who|whom|whose|where|when|how)\b|{ZH_WH.pattern}", re.I)
"""A question word of either language: a follow-up keeps its question's."""


_ASKED_RELATIVE = re.compile(
    r"^(?P<described>.*\b(?:a|an|the)\s+[^,;]*?)\s+(?:(?:that|who|which)\s+"
    r"(?!(?:is|are|was|were)\b)(?P<asked>[^,;]*\b(?:what|which|who|whom|how|when|where)\b[^,;]*)"
    r"|(?P<participle>(?:[a-z]+(?:ed|en|wn|lt|ght)|born|known)\s+"
    r"(?:in|by|on|at|for|from|to|as|after|with|near)\b[^,;]*\b(?:what|which|who|whom|how|when|where)\b"
    r"[^,;]*))$",
    re.IGNORECASE,
)
"""A question asking in a relative clause of its last noun: "…a series that originally
broadcast on what station?", or in a participle phrase, a relative clause without its
"that … is" ("…hit a state named after which tribes?", "…a company headquartered in what
city?")."""

_ASKED_ORIGIN = re.compile(
    r"^(?P<described>.*\b(?:a|an|the)\s+[^,;]*?)\s+"
    r"(?P<origin>(?:from|in)\s+(?:what|which)\b[^,;]*)$",
    re.IGNORECASE,
)
"""Else, a question asking where its last noun is from or in: "…by a singer-songwriter from
what state?"."""


@lru_cache(maxsize=4096)
def asked_relative(question: str) -> re.Match[str] | None:
    """The question's relative clause or phrase that asks (`_ASKED_RELATIVE`, `_ASKED_ORIGIN`).

    None when the question word stands before it: "When was the lighthouse built in the town
    where Pavel Orsk was born?" asks "when" of the lighthouse, and "where" is a relative word.
    """
    question = question.strip().rstrip("?？. ")
    for pattern in (_ASKED_RELATIVE, _ASKED_ORIGIN):
        match = pattern.match(question)
        if match is not None and not ASKING.search(match["described"]):
            return match
    return None


def described_noun(clause: str, end: int) -> int:
    """The end of the noun a Chinese description describes ("…的县", "…的小镇"), else `end`.

    The nouns right after 的 / 之 (jieba's n* tags) are what the description names: the
    bridge entity takes their place with it, and so with a demonstrative before them
    ("…出生的那个镇": `DEMONSTRATIVE`).
    """
    from treerag.segment import tag

    de = _DESCRIBING.match(clause[end:])
    if de is None:
        return end
    start = end + de.end()
    pointing = DEMONSTRATIVE.match(clause, start)
    at = start = pointing.end() if pointing else start
    offset = 0
    words = tag(clause)  # the whole clause: jieba tags a word by its context
    for i, (word, flag) in enumerate(words):
        offset += len(word)
        if offset - len(word) < at:
            continue
        nominal = flag.startswith("n") or (bool(pointing) and flag == "l")
        modifier = (
            bool(pointing)
            and at == start
            and flag == "v"
            and i + 1 < len(words)
            and (words[i + 1][1].startswith("n") or words[i + 1][1] == "l")
        )  # "那家织布合作社": a verb before the noun pointed at describes it
        if modifier:
            at = offset
            continue
        if not nominal or is_zh_stop(word):
            if at == start and len(word) > 1 and word[-1] in _LOCATIVE:
                at = offset - 1  # "那个镇上": jieba reads 镇上 as one word, the noun is 镇
            break
        if at > start and word[0] == "所":
            break  # "…的那位工匠所處的朝代": 所 opens a clause the noun is the agent of
        if at > start and i + 1 < len(words) and words[i + 1][1] == "p":
            break  # "…的设计者毕业于…": a noun before a preposition is the predicate's verb
        if at > start and _ASKED_OF.match(clause, offset):
            break  # "…的那座湖面积有多大": the noun asked about is the question's, not described
        if pointing and at == start and len(word) == 1 and word in NAMED_BY_KIND:
            # "林秋萍出生的那个岛最高峰…": the island pointed at is one character; the nouns
            # after it are what is asked of it (its highest peak).
            at = offset
            break
        attribute = ATTRIBUTE.search(to_simplified(word))
        if attribute and attribute.end() == len(word) and (attribute.start() or at > start):
            # "…的那個村子舊稱什麼", "…的那座湖面积": the village is described, its former
            # name asked (a word of its own, or glued to the noun: 村子旧称).
            at = offset - (len(word) - attribute.start())
            break
        at = offset
    return at if at > start else end


def roles_described_further(clause: str) -> list[tuple[int, int, str, bool]]:
    """Agent nouns a later Chinese description goes on from: (start, end, verb after, after 的).

    "南灣週報創辦人出生的那個村子…": the founder (创办人, `agent_verb`) is a link, and the
    village described after him the next. Only where a verb follows the noun and a 的 comes
    later ("南灣週報創辦人是誰" asks the founder, it describes no bridge); whether a 的 stands
    before the noun is told, as the bridge's type word reads that case on its own.
    """
    from treerag.segment import tag

    words = tag(clause)
    ends = list(accumulate(len(w) for w, _ in words))
    found = []
    for i in range(1, len(words) - 1):
        word, flag = words[i]
        if (
            flag.startswith("n")
            and agent_verb(to_simplified(word))
            and words[i + 1][1] == "v"
            and any(w in "的之" for w, _ in words[i + 2 :])
        ):
            after_de = words[i - 1][0] in "的之" or not words[i - 1][1].startswith("n")
            found.append((ends[i] - len(word), ends[i], words[i + 1][0], after_de))
    return found


_LOCATIVE = "上里裡中内內"
"""Locatives after a noun ("镇上", "学校里"): where, not what is described."""
LOCATIVE_ONLY = re.compile(rf"\s*[{_LOCATIVE}]\s*")
"""What is left of a clause whose description ends in a locative: "…出生的那个镇上"."""
_DESCRIBING = re.compile(rf"\s*(?:[的之]|(?={POINTED.pattern}))")
"""What joins a description to its noun: 的, or a demonstrative with its measure word
("鹤岭铁路北端终点那个镇")."""
_ASKED_OF = re.compile(r"(?:有多|是多|多大|多少|是什么|是什麼|是谁|是誰|在哪|是哪|为何|為何)")
"""The words after a noun that ask about it: "面积有多大", "人口是多少"."""
DEMONSTRATIVE = re.compile(r"[那这這该該此](?:[个個座所家位条條艘部本间間项項幅场場首张張件篇])?")
"""A demonstrative and its measure word before a described noun: 那个镇, 这所学校, 该船,
那项工程, 那幅油画."""
