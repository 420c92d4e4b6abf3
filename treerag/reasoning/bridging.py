"""The bridge a partial chunk names (offline).

Among a chunk's best sentences, the new proper name nearest the word that says what the
bridge is (`type_word`: "ship" of "the ship captained by…", the 老师 of "…求学时的老师").
The follow-up question asked about it is built in `treerag.reasoning.followup_question`;
what a question asks (its slot, its clauses) is read in `treerag.reasoning.questions`.
"""

from __future__ import annotations

import re

from treerag.reasoning.question_clauses import StemSet, asked_relative, described_noun, term_spans
from treerag.reasoning.questions import _head, chinese, proper
from treerag.reasoning.text import content_terms, stem
from treerag.text import (
    EN_STOP,
    HAN,
    HAN_CHAR,
    LATIN,
    READING,
    fold,
    proper_names,
)
from treerag.text.figures import NUMERAL


def type_word(question: str, covered: set[str]) -> str:
    """The common noun that describes the bridge: the first covered lower-case question term.

    In "Which guild built the ship captained by Aldous Brennick?" a chunk about Brennick
    covers "ship", "aldous", "brennick"; "ship" is what the chunk must name. A Chinese
    question describes its bridge as "…的 N" (佩林·奥斯克求学时的老师, 周怀远出生的县):
    N is the type word, whether or not the chunk says it the same way (师从 for 老师).
    """
    if HAN_CHAR.search(question):
        for match in re.finditer(r"[的之]", question):
            end = described_noun(question, match.start())
            if end > match.end():
                return question[match.end() : end].lower()
    head = _head(question)
    if described := _RELATIVE_NOUN.search(question):
        # "the man who signed…": the noun the relative clause describes is the bridge's
        # type, though no document calls him "the man" ("signed" is what he did).
        if described.group(1).lower() != head:
            return described.group(1).lower()
    if asking := asked_relative(question):
        # "…hit a state named after which tribes?": the bridge is a state.
        noun = asking.group("described").split()[-1].lower()
        if noun != head and noun not in EN_STOP and noun.isalpha():
            return noun
    covered = StemSet(covered)
    # A word of a name the question gives is the entity the chunk is about, not the bridge's
    # type ("潮聲" of 潮聲樂團 in "潮聲樂團的首任指揮…": 首任 is).
    named = [n.lower() for n in proper_names(question, READING)]
    for term, start, end in term_spans(question):
        word = question[start:end]
        if term in covered and term != head and not any(term in n for n in named):
            if word.islower() or HAN_CHAR.match(word):
                return term
    return ""


_RELATIVE_NOUN = re.compile(
    r"\bthe\s+([a-z]+)\s+(?:who|whom|whose|which|that|where|when)\b(?!\s+(?:is|are|was|were)\b)"
)
"""English "the N who/that/where …": N is the noun a relative clause describes."""


_MEASURES = "名位个只家座条架艘部本首"
"""Measure words a count puts before a noun: 9名机组人员, 三位教授."""


def bridge(
    question: str, best: list[str], covered: set[str] | None = None, about: str = ""
) -> tuple[str, str]:
    """The entity the chunk adds, and the sentence naming it: a name the question lacks.

    Among the chunk's best sentences (in the order given) the first that says the bridge's
    type word (`type_word`) is used, else the first that says the word governing it
    (`_lead_word`: "hit" of "…hit a state named after…"), else the first with a new name (not
    a count: "9名机组人员"), one that also holds another name of the question's first; in
    it, the new name in the stretch of a list that holds that other name, if any, and of
    those the one nearest to that word (after it, for the governing word: its object), else
    to that name, else to any question term. `about` is the
    entity the chunk is about (its subject, or the question's name it holds): the other
    names of the question are what single the bridge out ("the man who signed the Accord
    on behalf of Varunhal": "Aldous Brennick for Varunhal" among three signatories). A
    parenthesised name right after a question's name is its other name ("Accord of
    Quillhaven (奎尔港盟约)"), no bridge. Compared in the canonical script, so a Traditional
    question finds its type word in a Simplified document. ("", "") when none.
    """
    asked = {fold(t) for t in content_terms(question)}
    kind = fold(type_word(question, covered or set()))
    lead = _lead_word(question)
    question_names = proper_names(question, READING)
    others = _other_names(question_names, about)
    named = [_words(n) for n in question_names if not HAN_CHAR.search(n)]
    choice: tuple[bool, bool, bool, int, int, str, str] | None = None
    for position, sentence in enumerate(best):
        glosses = _glosses(sentence, asked)
        # "following Ezer Weizman's resignation": the name, not its possessive.
        found = [_POSSESSIVE.sub("", n) for n in proper_names(sentence, READING)]
        fresh = [
            n
            for n in found
            if not {fold(t) for t in content_terms(n)} <= asked
            and n not in glosses
            # jieba tags common words nouns (基本 / 持平): a bridge is a name (`proper`).
            and proper(n)
            and not _demonym(n, sentence)
            and not _fuller(n, named)
        ]
        if not fresh:
            continue
        low = fold(sentence)
        kind_at = _word_at(low, kind) if kind else -1
        if kind_at < 0 and HAN_CHAR.search(kind):
            # 师从 for 老师: the noun's last character (its head in Chinese) where it stands.
            kind_at = low.find(kind[-1])
        named_at = [(low.find(n), len(n)) for n in others if n in low]
        lead_at = _word_at(low, lead) if lead else -1
        anchors = (
            [(kind_at, len(kind))]
            if kind_at >= 0
            else [(lead_at, len(lead))]
            if lead_at >= 0
            else named_at
        )
        anchors = anchors or [(low.find(t), len(t)) for t in asked if t in low]
        # "Each isle sent one envoy: Mirren Hask sealed for Fenmoor, Tobiah Crane for Kestrel
        # Isle": where the question's other name stands in a stretch of a list, the bridge
        # is the name in that stretch, whichever is nearer the type word.
        stretches = {_stretch(low, at) for at, _ in named_at}
        listed = [n for n in fresh if _stretch(low, low.find(fold(n))) in stretches]
        for name in listed or fresh:
            at = low.find(fold(name))
            if at > 0 and NUMERAL.match(low[at - 1]) and fold(name)[:1] in _MEASURES:
                continue  # "9名机组人员": a count of people, no name (之一陆远舟 is one)
            span = (at, at + len(name))
            distance = min((_apart(low, span, a) for a in anchors), default=len(sentence))
            if kind_at < 0 <= lead_at and span[1] <= lead_at:
                distance += len(sentence)  # the verb's object follows it: "hit South Dakota"
            key = (kind_at < 0, lead_at < 0, not named_at, position, distance, name, sentence)
            if choice is None or key < choice:
                choice = key
    return (choice[5], choice[6]) if choice else ("", "")


_DEMONYM = re.compile(
    r"[A-Z][a-z]+(?:ian|ese|ish|ican|ean)|American|African|German|Korean|Soviet|French|Dutch"
    r"|Greek|Swiss|Thai|Welsh|Argentine|Filipino|Icelandic"
)
"""A word that says where someone or something is from: Canadian, Portuguese, English."""


def _demonym(name: str, sentence: str) -> bool:
    """Whether a name is a demonym said before a noun: "Canadian actor", "American film".

    It says what kind of person or thing the noun is, and names no one a follow-up could
    ask about ("Canadian have a child with?").
    """
    said_before_noun = re.search(rf"\b{re.escape(name)}\s+[a-z]", sentence)
    return bool(_DEMONYM.fullmatch(name)) and said_before_noun is not None


def _words(name: str) -> tuple[str, ...]:
    """The words of a Latin name in order, its hyphenated words apart, lower-cased."""
    return tuple(w for w in re.split(r"[\s\-,.]+", fold(name)) if w.isalpha())


def _fuller(name: str, named: list[tuple[str, ...]]) -> bool:
    """Whether a name is another form of one the question gives, so no other one.

    "Kerry-Anne Saxby-Junna" and "Kerry Saxby AM" (her names at birth and with an honour)
    are "Kerry Saxby-Junna" of the question: her document opens with them, and a follow-up
    about her asks nothing new. Another form starts with the same first name and shares
    another word; a generation's mark makes another person ("Hank Williams, Jr.").
    """
    parts = set(_words(name))
    if parts & _GENERATION:
        return False
    return any(
        len(words) >= 2 and words[0] in parts and len(set(words) & parts) >= 2 for words in named
    )


_GENERATION = frozenset({"jr", "sr", "ii", "iii", "iv", "junior", "senior"})
"""The words that tell a son or father of the same name from him: "Hank Williams, Jr."."""


def _lead_word(question: str) -> str:
    """The word governing the noun a participle asks about ("hit" of "…hit a state named…").

    The chunk names the bridge where it says that word ("hit southeast South Dakota"), when
    it does not say the noun itself.
    """
    asking = asked_relative(question)
    if asking is None or chinese(question):
        return ""
    described = asking["described"]
    articles = list(re.finditer(r"\b(?:a|an|the)\s+", described, re.IGNORECASE))
    words = [t for t, _, _ in term_spans(described[: articles[-1].start()])] if articles else []
    return words[-1] if words else ""


def _word_at(low: str, kind: str) -> int:
    """Where a folded sentence says the type word, -1 when it does not.

    In English as a word ("state", not the "states" of "United States"), in Chinese anywhere
    (小镇 in 青石小镇).
    """
    if HAN_CHAR.search(kind):
        return low.find(kind)
    found = re.search(rf"\b(?:{re.escape(kind)}|{re.escape(stem(kind))})\b", low)
    return found.start() if found else -1


_BOUNDARY = re.compile(r"[,;:，；：、]")


_POSSESSIVE = re.compile(r"['’]s$")


def _stretch(low: str, at: int) -> int:
    """Which stretch of a sentence, between commas and semicolons, offset `at` falls in."""
    return len(_BOUNDARY.findall(low[:at]))


def _apart(low: str, name: tuple[int, int], anchor: tuple[int, int]) -> int:
    """Characters between a name and an anchor (0 when they overlap)."""
    (a, b), (c, d) = name, (anchor[0], anchor[0] + anchor[1])
    return c - b if b <= c else a - d if d <= a else 0


def _other_names(question_names: list[str], about: str) -> list[str]:
    """The question's proper names (folded) other than the one the chunk is about."""
    subject = fold(about)
    return [
        n
        for n in (fold(name) for name in question_names)
        if n
        and not (subject and (n in subject or subject in n))
        and not re.fullmatch(r"(?:which|what|who|where|when|how)\b.*", n)
    ]


_GLOSS = re.compile(r"[(（]([^()（）]{1,40})[)）]")


def _glosses(sentence: str, asked: set[str]) -> set[str]:
    """Names inside a parenthesis right after a question's word: that word's other name.

    "the Accord of Quillhaven (奎尔港盟约)": 奎尔 is the Accord's Chinese name, not a new
    entity.
    """
    out: set[str] = set()
    for match in _GLOSS.finditer(sentence):
        last = re.search(rf"([{LATIN}][\w'\-]*|[{HAN}]+)\s*$", sentence[: match.start()])
        if last and fold(last.group(1)) in asked:
            out.update(proper_names(match.group(1), READING))
    return out
