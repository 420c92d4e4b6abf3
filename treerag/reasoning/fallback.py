"""The offline answer when the tree found no chain: the evidence's best relevant sentences.

Every sentence of the useful evidence is ranked (`rank`: similarity to the question, or to
the follow-up a sub-run answered, plus term overlap); only those that carry the question
(`carries`: its entity, or enough of its relation), or that state the asked-for thing plainly
in a chunk naming the entity, are quoted, the plainest statement of the asked-for thing
first (`pick`), at most `FALLBACK_SENTENCES`.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from typing import NamedTuple

import numpy as np

from treerag.reasoning.base import EvidenceItem, Quote
from treerag.reasoning.chunk_reading import labelled, names_subject, pronoun_led, statements
from treerag.reasoning.fillers import candidates as answer_candidates
from treerag.reasoning.kinds import asked_kind, kinds
from treerag.reasoning.named import names_in
from treerag.reasoning.questions import MEASURE_WORDS, counted, slot, statement
from treerag.reasoning.reading import fold, read_question
from treerag.reasoning.relation_held import present, relation_share, text_stems
from treerag.reasoning.text import content_terms, squash, unfootnoted
from treerag.text import HAN_CHAR, canonical

FALLBACK_SENTENCES = 2
"""Sentences an offline answer quotes when the tree found no chain (one or two, as a chain)."""

PLAIN_REACH = 8
"""How far down the relevant sentences a plain statement of the asked-for thing is sought
(`states_asked` 2) when none is among the best 2 x `FALLBACK_SENTENCES`."""

CARRIES_RELATION = 0.5
"""Share of a question's relation a quoted sentence without its entity must hold…"""
CARRIES_TERMS = 2
"""…or this many of its terms ("launch" and "plan" of "What is the launch plan's code name?
QMARK-61"): one shared word ("built" of "What was built in 1788?") is padding."""


def carries(question: str, sentence: str) -> bool:
    """Whether a sentence carries the question: names its entity, or holds enough relation.

    A sentence sharing one word with the question ("…展示新烧制的器物" for "…由哪个行会烧制")
    is padding, not an answer.
    """
    reading = read_question(question)
    folded = fold(sentence)
    rest = functools.reduce(lambda text, term: text.replace(term, " "), reading.terms, folded)
    if not content_terms(rest):
        return False  # "《巴拿马诡计》;": the question's own words, nothing said of them
    if any(names_in(e, canonical(sentence)) for e in reading.entities):
        return True
    if not reading.relation:
        return False
    held = sum(present(t, folded, text_stems(folded)) for t in reading.relation)
    return held >= CARRIES_TERMS or relation_share(reading, folded) >= CARRIES_RELATION


_ASKS_REASON = re.compile(
    r"(?<![称成作认视改名叫它其之他她])为什么|为何(?![\s?？。]*$)|何以|做什么用|什么用途"
    r"|目的(?:是|为)什么"
    r"|\bwhy\b|\bfor what purpose\b"
)
"""A question asking why, or what for ("为何总是一片混浊", "做什么用的"; not "名称为何", nor
"又被称为什么" or "称它为什么", where 为 goes with the verb before it)."""
_REASON_OPENS = (
    r"由于|因为|为了|因应|目的在于|目的是|以便|用以|用于|用来|旨在"
    r"|\bbecause\b|\bdue to\b|\bin order to\b|\bso that\b|\bowing to\b"
)
"""Words that open a clause giving a reason or a purpose (由于…, 为了…, "because")."""
_REASON_SAID = re.compile(rf"{_REASON_OPENS}|因而|之所以")
"""Words a sentence gives a reason or a purpose with: those that open its clause, and those
that stand in the clause of what is explained (因而, 之所以)."""


def asks_reason(question: str) -> bool:
    """Whether a question asks why something is, or what it is for (`_ASKS_REASON`)."""
    return _ASKS_REASON.search(fold(question)) is not None


@functools.lru_cache(maxsize=1024)
def explained(question: str) -> tuple[str, ...]:
    """The terms of what a why-question asks the reason of: its words after the why-word.

    "…为什么要减少参赛的人数" asks why the number of runners was cut (减少, 参赛, 人数), not
    why anything of the marathon is; "Why did the mill close?" asks of closing. The
    question's names are left out: a reason given for something else of its entity ("由于
    富邦金控取得冠名赞助，该赛事又被称为…") names them too.
    """
    folded = fold(question)
    match = _ASKS_REASON.search(folded)
    if match is None:
        return ()
    names = set(read_question(question).entities)
    return tuple(t for t in content_terms(folded[match.end() :]) if t not in names)


def _gives_reason(question: str, folded: str) -> int:
    """How plainly a sentence gives the reason asked: 2 of what is asked, 1 of another thing.

    It says a reason (`_REASON_SAID`) and holds a word of what is explained (`explained`):
    "由于上游流经容易崩解的…地层，此河的河水终年挟带大量泥沙，呈现混浊的…" for "浊水溪的溪水
    为何总是一片混浊", not "由于水量丰沛且落差大，浊水溪被大规模开发为…" (the river's power).
    """
    if not _REASON_SAID.search(folded):
        return 0
    effect = explained(question)
    # The reason's own clause ("为了减少赛事对市区交通的冲击，…") is not what it explains.
    rest = _REASON_CLAUSE.sub(" ", folded)
    stems = text_stems(rest)
    return 2 if not effect or any(present(t, rest, stems) for t in effect) else 1


_REASON_CLAUSE = re.compile(rf"(?:{_REASON_OPENS})[^，,；;。.]*")
"""A reason or purpose from the word that opens it to the end of its clause."""


def states_asked(kind: str, sentence: str, question: str) -> int:
    """How plainly a sentence states the asked-for thing: 0 not, 1 a candidate, 2 plainly.

    A reason or a purpose asked ("为何…", "做什么用的", "why") is stated plainly with the
    words that give one (由于, 为了, "because": `_REASON_SAID`) and a word of what it
    explains (`_gives_reason`).

    A count is stated by a number outside dates, times and codes (`fillers.candidates`),
    plainly with what is counted ("132人" for 多少人, "30个议席" for 多少个议席, "four times"
    is not read); a kind, plainly when said before its noun ("喜剧电影": `kinds`); other
    kinds as `questions.statement` reads them, plainly as a list's field labelled with what
    the question asks (`labelled`).
    """
    if asks_reason(question):
        return _gives_reason(question, fold(sentence))
    if noun := asked_kind(fold(question)):
        return 2 if kinds(noun, fold(sentence)) else 0
    if kind != "number":
        said = statement(kind, sentence, question)
        return 2 if said and labelled(sentence, question) else said
    found = answer_candidates(read_question(question), sentence)
    if not found:
        return 0
    unit = counted(question)
    folded = fold(sentence)
    return 2 if unit and any(_counts(c, unit, folded) for c in found) else 1


def _counts(number: str, unit: str, folded: str) -> bool:
    """Whether `number` is said with the unit counted: "132人", "30个议席", "132 people"."""
    if number.endswith(unit):
        return True  # 四次: a Chinese numeral is read with its measure word
    between = rf"\s*[{MEASURE_WORDS}]?\s*" if HAN_CHAR.search(unit) else r"\s+(?:[a-z\-]+\s+)?"
    return re.search(rf"{re.escape(number)}{between}{re.escape(unit)}", folded) is not None


class Ranked(NamedTuple):
    """One evidence sentence as the answer ranks it."""

    score: float
    level: int
    """How plainly it states the asked-for thing (`states_asked`)."""
    n: int
    """The number of the evidence item it comes from (its citation)."""
    text: str
    relevant: bool = True
    """Whether it carries the question (`carries`: its entity, or enough of its relation;
    else never quoted)."""
    by_chunk: bool = False
    """Relevant only as a sentence of a chunk that names the question's entity: it states
    the asked-for thing plainly (`states_asked` 2)."""
    said: str = ""
    """Whom its pronoun stands for, when that is its document's subject and the question
    names it ("He is best known as…" in Ed Roland's document): the answer says it before
    the quote (`Quote.said`)."""


def rank(
    question: str, evidence: list[EvidenceItem], embed: Callable[[list[str]], np.ndarray]
) -> list[Ranked]:
    """Score every sentence of the useful evidence, best first (see `Ranked`).

    A sentence is cited with the number of the item it comes from, never another. Its
    score is its similarity to the question plus 0.3 x its share of the question's terms;
    a sentence of sub-run evidence scores by its similarity to the follow-up question it
    answered where that is higher. Title lines and headings are left out
    (`chunk_reading.statements`), and so are the documents' own footnote marks.
    """
    candidates: list[tuple[int, str, str]] = []
    for item in evidence:
        if item.score < 1:
            continue
        asked = item.followup if item.depth > 0 else ""
        title = squash(item.title).lower()
        candidates.extend(
            (item.n, sent, asked)
            for sent in map(unfootnoted, statements(item.text))
            if sent.strip() and squash(sent).lower().rstrip(":") != title
        )
    if not candidates:
        return []
    reading = read_question(question)
    q_terms = set(reading.terms)
    followups = list(dict.fromkeys(f for _, _, f in candidates if f))
    vectors = embed([question, *followups, *[s for _, s, _ in candidates]])
    q_vec, f_vecs = (
        vectors[0],
        dict(zip(followups, vectors[1 : 1 + len(followups)], strict=True)),
    )
    kind = slot(question)
    # A sentence belongs to its document: one that plainly states the asked-for thing
    # ("機上載有132人") is about the question's entity when its chunk names it.
    keys = {e.n: canonical(f"{e.title} {e.text}") for e in evidence} if reading.entities else {}
    naming = {n for n, key in keys.items() if any(names_in(e, key) for e in reading.entities)}
    # "He is best known as the lead vocalist of…" in Ed Roland's document is about Ed Roland:
    # a pronoun's subject is its document's subject (`chunk_reading.pronoun_led`).
    about = {
        e.n: subject for e in evidence if (subject := names_subject(question, e.title, e.text))
    }
    out = []
    for (n, sent, asked), vec in zip(candidates, vectors[1 + len(followups) :], strict=True):
        sim = float(vec @ q_vec)
        if asked:
            sim = max(sim, float(vec @ f_vecs[asked]))
        folded = fold(sent)
        shared = [t for t in q_terms if present(t, folded, text_stems(folded))]
        overlap = len(shared) / max(1, len(q_terms))
        states = max(
            states_asked(kind, sent, question),
            states_asked(slot(asked), sent, asked) if asked else 0,
        )
        carried = carries(question, sent) or bool(asked and carries(asked, sent))
        said = about.get(n, "") if pronoun_led(sent) else ""
        by_chunk = not (carried or said) and states == 2 and n in naming
        out.append(
            Ranked(
                sim + 0.3 * overlap,
                states,
                n,
                sent,
                carried or bool(said) or by_chunk,
                by_chunk,
                "" if carried else said,
            )
        )
    out.sort(key=lambda r: -r.score)
    return out


def pick(ranked: list[Ranked]) -> list[Quote]:
    """Lead with the sentence that states the asked-for thing, then the next best.

    Only sentences that carry the question (or the follow-up they answered) count:
    they name its entity or hold half its relation (`carries`). The lead
    is, among the best 2 x `FALLBACK_SENTENCES`, the first of those that state the
    asked-for thing most plainly (`states_asked`), or failing a plain one (2) there, the
    first plain one of the best `PLAIN_REACH`; then the best others, up to
    `FALLBACK_SENTENCES` in all, each sentence once (copies in other chunks left out, by
    squashed text, as `compose.distinct` reads them). A lead quotable only as a sentence of
    its chunk (`Ranked.by_chunk`) is followed by the best sentence of that chunk that
    carries the question: it ties the lead to the question's entity.
    """
    # Each sentence once (at its best), so that copies of one sentence in several chunks
    # do not crowd the others out of the best 2 x `FALLBACK_SENTENCES`.
    seen: set[str] = set()
    relevant = [r for r in ranked if r.relevant and _first_time(squash(r.text), seen)]
    top = relevant[: FALLBACK_SENTENCES * 2]
    plainest = max((r.level for r in top), default=0)
    lead = next((r for r in top if r.level == plainest), None) if plainest else None
    if plainest < 2:
        # A plain statement ("机上载有132人" for 多少人) is worth reaching further down for.
        lead = next((r for r in relevant[:PLAIN_REACH] if r.level == 2), lead)
    ordered = ([lead] if lead else []) + [r for r in relevant if r is not lead]
    if lead and lead.by_chunk:
        # Its chunk's sentence that names the entity ties it to the question.
        ordered.sort(key=lambda r: r is not lead and (r.n != lead.n or r.by_chunk))
    return [Quote(r.n, r.text, r.said) for r in ordered[:FALLBACK_SENTENCES]]


def _first_time(key: str, seen: set[str]) -> bool:
    """Whether `key` is new to `seen` (and note it)."""
    if key in seen:
        return False
    seen.add(key)
    return True
