"""Who a follow-up message's pronoun stands for, in a conversation (offline).

"Where was he born?" after an answer about Tomas Brandt asks where Tomas Brandt was born: the
previous turn's top-cited entity (`top_entity`) of the kind the pronoun refers to
(`referent`) takes the pronoun's place (`resolve_pronoun`).
"""

from __future__ import annotations

import re

from treerag.reasoning.questions import slot
from treerag.reasoning.text import content_terms
from treerag.text import HAN, HAN_CHAR, READING, proper_names

_CITED = re.compile(r"\[\d+\]")
_PRONOUN_EN = re.compile(r"\b(he|she|it|they|him|her|them|his|its|their|hers|theirs)\b", re.I)
_POSSESSIVE = frozenset({"his", "its", "their", "hers", "theirs"})
_PRONOUN_ZH = re.compile(f"[他她它]们?的?|该[{HAN}]?(?=[{HAN}])")


def top_entity(answer: str, question: str) -> str:
    """The entity a previous answer was about: its top-cited name the question did not name.

    Names are counted over the answer's cited sentences (all of it when none is cited), the
    first sentence counting twice (it states the asked-for thing); names the question already
    had rank after new ones, then by count, then by first appearance.
    """
    from treerag.reasoning.text import sentences

    # A sentence's [n] follows it: "… Dunsorrow. [1] Orla Venn … [2]".
    said = [m.group(1) for m in re.finditer(r"(.+?)\s*\[\d+\]", answer)] or sentences(answer)
    counts: dict[str, int] = {}
    for position, sent in enumerate(said):
        for name in proper_names(_CITED.sub(" ", sent), READING):
            counts[name] = counts.get(name, 0) + (2 if position == 0 else 1)
    if not counts:
        return ""
    asked = {t.lower() for t in content_terms(question)}
    order = list(counts)

    def rank(name: str) -> tuple[bool, int, int]:
        return (set(content_terms(name)) <= asked, -counts[name], order.index(name))

    return min(order, key=rank)


_PERSONAL = re.compile(r"\b(he|she|him|her|his|hers)\b|[他她]", re.I)
_PLACE = re.compile(r"\bthere\b|那里|那儿", re.I)


def referent(message: str, previous_question: str, previous_answer: str) -> str:
    """The entity a follow-up message's pronoun stands for.

    A pronoun takes the most salient earlier entity of a compatible kind: when its kind
    matches what the previous question asked for (he/she for a "who" question, there for a
    "where" one, it for a thing or place), it is the previous answer's entity (`top_entity`);
    otherwise it is what the previous question itself named ("Who led the fishers that
    founded Quillhaven?" → "When was it founded?" means Quillhaven, not the leader).
    """
    if _PERSONAL.search(message):
        kind = {"person"}
    elif _PLACE.search(message):
        kind = {"place"}
    else:
        kind = {"thing", "place", "number", "time", "yesno"}
    found = top_entity(previous_answer, previous_question)
    if slot(previous_question) in kind or not found:
        return found
    named = proper_names(previous_question, READING)
    return named[0] if named else found


def resolve_pronoun(message: str, entity: str) -> str:
    """Replace the message's first personal pronoun by the entity (possessives get 's / 的)."""
    if HAN_CHAR.search(message) and not re.search(r"[A-Za-z]{3}", message):
        match = _PRONOUN_ZH.search(message)
        if match is None:
            return message
        tail = "的" if match.group().endswith("的") else ""
        return f"{message[: match.start()]}{entity}{tail}{message[match.end() :]}"
    match = _PRONOUN_EN.search(message)
    if match is None:
        # "What glass is made there?" -> "... made in Dunsorrow?"
        there = re.search(r"\bthere(?=\s*[?.!]?\s*$)", message, re.I)
        if there is None:
            return message
        return f"{message[: there.start()]}in {entity}{message[there.end() :]}"
    word = match.group().lower()
    text = f"{entity}'s" if word in _POSSESSIVE else entity
    return f"{message[: match.start()]}{text}{message[match.end() :]}"
