"""An answer composed along the chain the search tree found (the offline answer; the LLM's guide).

The chain is read from the judged evidence with the judge's own reading rules
(`treerag.reasoning.reading`), whichever reasoner judged, in this order:

0. **A comparison is decided.** When the question compares the documents it names and the
   run holds them, the verdict or the side chosen, framing the sentences it rests on
   (`comparison.decide`).
1. **One chunk answers.** A sentence of the evidence that answers the question
   (`answering.answerings`), this run's own chunks before its sub-runs' finds; of several, the
   one whose answer the most chunks answer with (`corroborated`). It is followed by the
   sentence of the same chunk that ties the chunk's subject to the question's entity when
   the answer needs one. Failing one, the sentence a model judge quoted for a chunk it
   judged sufficient.
2. **A follow-up was answered.** For a partial chunk (its follow-up asked about the bridge
   entity it names), the follow-up's answer: the sub-run's own chain (its answer sentences,
   carried up as they are and cited with this run's numbers: `EvidenceItem.chain`), or a
   sentence of another chunk this run holds that answers the follow-up, or one that answers
   the follow-up the sub-run's own partial chunk asked (`_completed`: a sub-run is not given
   its parents' chunks again, so the chain's last link may be a chunk up here). Then the partial
   chunk's bridge sentence, the one that names the follow-up's entity: "The river Amsel flows
   through the village. [1] She was born in 1902 in the village of Brennholt. [2]".
3. **Two chunks hold the chain.** A chunk the question does not name answers the question
   through a bridge sentence of another chunk that names it (`across`).
4. **A comparison's sides.** When the question names two documents or more and the run
   holds them, each one's sentence that holds most of the question's relation (`sides`).
5. Otherwise there is no chain: the answer quotes what is most like the question (see
   `treerag.reasoning.offline`), and a parent run does not quote it as an answer.

The sentences are quoted as the documents write them (citations stay faithful); title lines
and headings are never quoted (`chunk_reading.statements`).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from treerag.reasoning.answering import Answering, answering, answering_across, answerings
from treerag.reasoning.base import EvidenceItem, Quote
from treerag.reasoning.chunk_reading import names_entity, names_subject, statements
from treerag.reasoning.comparison import decide
from treerag.reasoning.fillers import personal
from treerag.reasoning.named import names_title, title_of
from treerag.reasoning.questions import compares
from treerag.reasoning.reading import fold, read_question
from treerag.reasoning.relation_held import relation_share
from treerag.reasoning.text import squash
from treerag.text import HAN_CHAR, canonical, shown_title
from treerag.text.figures import EDITION_YEAR, WRITTEN_YEAR


def chain(question: str, evidence: Sequence[EvidenceItem]) -> list[Quote]:
    """The sentences that answer the question along the tree's chain, last hop first; [] if none.

    Args:
        question: The run's question.
        evidence: The numbered evidence (`nodes.answer.build_evidence`): this run's chunks,
            best first, each followed by what its sub-run found.
    """
    useful = [e for e in evidence if e.score > 0]
    if not useful:
        return []
    depth = min(e.depth for e in useful)
    own = [e for e in useful if e.depth == depth]
    decided = decide(question, own)
    if decided:
        return decided
    answered = corroborated(
        question,
        [
            (item, found)
            for item in [*own, *(e for e in useful if e.depth > depth)]
            for found in answerings(question, item.title, item.text)
        ],
    )
    if answered is not None:
        item, found = answered
        return answer_quotes(item.n, found)
    for item in own:
        # A model judge's own pick: the sentence its "sufficient" rests on, quoted as written.
        if item.score == 2 and item.quote and squash(item.quote) in squash(item.text):
            return [Quote(item.n, item.quote)]
    for item in own:
        if item.score != 1 or not item.followup:
            continue
        answer = list(item.chain) or _held_answer(item, useful) or _completed(item, useful)
        if answer:
            tie = bridge_sentence(question, item)
            return distinct([*answer, *([Quote(item.n, tie)] if tie else [])])
    return across(question, useful) or sides(question, own)


def answer_quotes(n: int, found: Answering, bridge_n: int | None = None) -> list[Quote]:
    """The answering sentence of evidence `n`, then its bridge (of `bridge_n`, else of `n`)."""
    said = Quote(n, found.sentence, found.subject, found.filler)
    return (
        [said, Quote(n if bridge_n is None else bridge_n, found.bridge)] if found.bridge else [said]
    )


def corroborated(
    question: str, found: Sequence[tuple[EvidenceItem, Answering]]
) -> tuple[EvidenceItem, Answering] | None:
    """Of the sentences that answer, the one whose answer the most chunks answer with.

    Each chunk votes once for every candidate its answering sentences hold
    (`Answering.candidates`); a sentence is as strong as its best-voted candidate, between
    equals by how many of its candidates another chunk states too ("每股95美元…总价值687亿
    美元" over "每股95美元…近700亿美金" when two chunks say 687), and ties go to the first in
    evidence order. Strength-based re-ranking (Wang et al., 2018, "Evidence Aggregation for
    Answer Re-Ranking in Open-Domain Question Answering", ICLR): an answer several passages
    state is more likely right than one a single passage states. News text states the
    figure asked for in several reports and a forecast or a quarter's figure in one:
    "全年营收为631亿美元" in three chunks outvotes "全年营收743.4亿美元的预测" in one.

    Before the votes, a sentence that says the whole relation outranks one that borrows part
    of it from its chunk (`Answering.scoped`), as it does within a chunk: "全年营收为631亿美元"
    answers "英特尔全年营收" before the "第四季度营收" that every report of the year gives.
    Between equal votes, a sentence that states what was outranks one that gives a forecast
    (`Answering.hedged`; unless the question asks for one): "全年营收为631亿美元" before
    "…全年营收743.4亿美元的预测" when one chunk says each. Last, for a number or a date, of
    sentences equally borne out, the one with fewer values no other chunk states:
    "2021年美国GDP同比增长5.7%" before "…增长率应该是10.24%，为什么…却是5.7%？", whose other
    value is a rival reading.

    A date is borne out by the chunks that state it whole or in part ("2月4日" in two reports,
    "2022年2月4日" in a third: one date said three times), and of dates equally borne out
    the one written whole is quoted; a Chinese place, by those that name it within a larger
    one ("黑龙江哈尔滨" says 哈尔滨). Between answers equally borne out, a sentence that names
    the edition the question names by its year ("2022世界5G大会") outranks one that does not
    (the venues of the congress's earlier editions, said in a report of this year's); so
    does, for a question asking what holds now (现在, 目前, "currently"), a sentence that
    says now: "目前總部位於臺南市東區" before "成立之初，台糖的總部設於臺北市，1955年才遷至
    臺南市" for "台糖的總部現在位在哪裡". A
    person question counts the people among a sentence's names (not the 中国 beside 王亚平),
    and a question asking for several ("成员有哪些") prefers, between equals, the sentence
    that names the most.

    A question that asks no relation ("沈疑微是谁？", "What is the Orsk Press?") asks for a
    description, not a value: its answering sentences hold names by the way (the places of
    her life), and the first of them is kept.
    """
    if not found:
        return None
    reading = read_question(question)
    if not reading.relation:
        return found[0]
    votes: dict[str, set[str]] = {}
    for item, answer in found:
        for value in answer.candidates or (answer.filler,):
            votes.setdefault(canonical(value), set()).add(item.chunk_id)
    if reading.kind in ("time", "place"):
        # A date is borne out by the chunks that state it whole or in part: "2月4日" in two
        # reports and "2022年2月4日" in a third are one date, said three times. A Chinese
        # place by those that name it within a larger one: "黑龙江哈尔滨" says "哈尔滨".
        same = _part_of if reading.kind == "time" else _place_within
        said = {value: set(chunks) for value, chunks in votes.items()}
        for value, chunks in votes.items():
            for other, by in said.items():
                if other != value and (same(other, value) or same(value, other)):
                    chunks |= by
    editions = set(EDITION_YEAR.findall(reading.folded))
    now_asked = bool(_NOW.search(reading.folded))

    forecast = Answering(question, "").hedged  # a question asking for a forecast wants one
    # A number or a date is one value: another of its kind beside it is a rival reading. Names
    # beside the answer are its context, and a list question (哪些国家) asks for several.
    one_value = reading.kind in ("number", "time")

    listing = bool(_LIST_ASKED.search(reading.folded))

    def strength(answer: Answering) -> tuple[bool, int, bool, bool, int, bool, int, int]:
        given = answer.candidates or (answer.filler,)
        if reading.kind == "person" and any(map(personal, given)):
            given = tuple(filter(personal, given))  # who is asked: not 中国 beside 王亚平
        values = [canonical(v) for v in given]
        counts = [len(votes[v]) for v in values]
        stated = forecast or not answer.hedged
        alone = -sum(c == 1 for c in counts) if one_value else 0  # rival values
        # Of dates equally borne out, the one written whole: "2022年2月4日" over "2月4日";
        # of lists, the one that names the most ("航天员：翟志刚、王亚平、叶光富").
        whole = max(len(v) for v, c in zip(values, counts, strict=True) if c == max(counts))
        precise = whole if reading.kind == "time" else len(values) if listing else 0
        # Between equals, the sentence naming the edition the question names by its year:
        # "2022世界5G大会在哈尔滨举办" before "世界5G大会此前三届举办地分别在北京、广州、北京"
        # for "2022世界5G大会…" (a year with its unit, "2022年8月", dates; `answering` reads it).
        dated = editions <= set(WRITTEN_YEAR.findall(fold(answer.sentence)))
        now = not now_asked or bool(_NOW.search(fold(answer.sentence)))
        return (
            not answer.scoped,
            max(counts),
            dated,
            now,
            precise,
            stated,
            sum(c > 1 for c in counts),
            alone,
        )

    best = max(range(len(found)), key=lambda i: (strength(found[i][1]), -i))
    return found[best]


_NOW = re.compile(r"现在|目前|如今|现今|当前|\b(?:now|currently|today|present(?:ly)?)\b")
"""A question asking what holds now, and a sentence saying it (canonical form)."""
_LIST_ASKED = re.compile(
    r"哪些|有谁|都是谁|分别是谁|\bwhat (?:are|were) the\b|\bwhich \w+s (?:are|were)\b"
)
"""A question asking for several of a kind: "成员有哪些", "What are the members of…"."""


def _place_within(place: str, larger: str) -> bool:
    """Whether canonical Chinese `place` ends the place `larger`: 哈尔滨 of 黑龙江哈尔滨.

    A Chinese place phrase puts the larger places first (省, then 市, then 区), so the place
    it names is its last part.
    """
    return len(place) >= 2 and larger.endswith(place) and bool(HAN_CHAR.match(place))


def _part_of(part: str, date: str) -> bool:
    """Whether canonical `part` is a part of the canonical date `date`.

    "2月4日" is a part of "2022年2月4日", not of "12月4日"; "2022" is none of "20220".
    """
    return bool(re.search(rf"(?<!\d){re.escape(part)}(?!\d)", date))


def across(question: str, useful: Sequence[EvidenceItem]) -> list[Quote]:
    """A chain held in two chunks: the last hop's sentence, then the bridge that names it.

    A chunk the question does not name answers through a sentence of another chunk about
    the question's entity that names the first chunk's document (`answering.answering_across`):
    the tree often holds both hops at one level (the graph and the keyword tree bring the
    second hop in beside the first), where no sub-run is asked to find it.
    """
    about = [e for e in useful if names_entity(question, {"title": e.title, "text": e.text})]
    for item in useful:
        bridges = [
            (other.n, sentence)
            for other in about
            if other is not item
            for sentence in statements(other.text)
            if names_title(sentence, item.title)
        ]
        found = answering_across(question, item.title, item.text, [s for _, s in bridges])
        if found is not None:
            n = next(n for n, s in bridges if s == found.bridge)
            return answer_quotes(item.n, found, n)
    return []


def sides(question: str, own: Sequence[EvidenceItem]) -> list[Quote]:
    """A comparison's sides, [] unless the evidence holds two or more.

    For each document the question names, its sentence that holds most of the question's
    relation ("Are X and Y both film directors?": what X is, what Y is).
    """
    if not compares(question):
        return []
    reading = read_question(question)
    best: dict[str, Quote] = {}
    for item in own:
        side = names_subject(question, item.title, item.text)
        said = statements(item.text)
        if not side or side in best or not said:
            continue
        sentence = max(said, key=lambda s: relation_share(reading, fold(s)))
        best[side] = Quote(item.n, sentence)
    return list(best.values()) if len(best) >= 2 else []


def _held_answer(partial: EvidenceItem, useful: Sequence[EvidenceItem]) -> list[Quote]:
    """The follow-up's answer in another chunk the evidence holds, with that chunk's own tie.

    Chosen among the chunks as the run's own answer is (`corroborated`): "September 23,
    1962" of one report of a premiere before "1962–63" of another, for "…premiered on which
    date?".
    """
    best = corroborated(
        partial.followup,
        [
            (other, found)
            for other in useful
            if other is not partial
            for found in answerings(partial.followup, other.title, other.text)
        ],
    )
    return answer_quotes(best[0].n, best[1]) if best is not None else []


def _completed(partial: EvidenceItem, useful: Sequence[EvidenceItem]) -> list[Quote]:
    """A sub-run's open link, closed by a chunk this run holds: answer, then the sub-run's tie.

    "…the ship commanded by Aldous Brennick?" found in his document that he commanded the
    Saltwren and asked "Which guild built the Saltwren?"; the guild's document, partial here, is
    not given to a sub-run again (its parent holds it), so its sentence answers here: "Among
    the vessels launched by the guild is the Saltwren [3]. In 1599 he was given command of
    the Saltwren [2]."
    """
    at = useful.index(partial)
    below = []
    for item in useful[at + 1 :]:
        if item.depth <= partial.depth:
            break
        below.append(item)
    for sub in below:
        if not sub.asked:
            continue
        for other in useful:
            if other is sub or other in below:
                continue
            found = answering(sub.asked, other.title, other.text)
            if found is not None:
                tie = bridge_sentence(partial.followup, replace(sub, followup=sub.asked))
                return distinct(
                    [*answer_quotes(other.n, found), *([Quote(sub.n, tie)] if tie else [])]
                )
    return []


def bridge_sentence(question: str, item: EvidenceItem) -> str:
    """The sentence of a partial chunk that ties the question's entity to the bridge entity.

    The bridge entity is what the chunk's follow-up names and the question does not; the
    sentence names it and, where one does, is about the question's entity (names it, or
    the question names the chunk's subject). With no such sentence, the one holding most of
    the question's relation.
    """
    from treerag.reasoning.named import names_in

    reading = read_question(question)
    asked = read_question(item.followup) if item.followup else None
    new = [e for e in (asked.entities if asked else ()) if e not in reading.entities]
    said = statements(item.text)
    if not said:
        return ""
    subject = bool(names_subject(question, item.title, item.text))

    def about(sentence: str) -> bool:
        key = canonical(sentence)
        return subject or any(names_in(e, key) for e in reading.entities)

    naming = [s for s in said if any(names_in(e, canonical(s)) for e in new)]
    for sentence in naming:
        if about(sentence):
            return sentence
    if naming:
        return naming[0]
    return max(said, key=lambda s: (about(s), relation_share(reading, fold(s))))


def distinct(quotes: Sequence[Quote]) -> list[Quote]:
    """Each sentence once, in order, quoted at the first chunk that holds it.

    Two chunks can hold copies of one sentence that differ only in whitespace ("规模投入要保持
    科技部…"): the second copy would repeat the answer as padding.
    """
    seen: set[str] = set()
    out = []
    for quote in quotes:
        key = squash(quote.text)
        if key and key not in seen:
            seen.add(key)
            out.append(quote)
    return out


def held_chain(question: str, chunks: Sequence[Mapping[str, Any]]) -> str:
    """The documents of the chain a run's judged chunks hold, when it answers; else "".

    The chunks (a run's records: title, text, score, follow-up, rank) are read as `chain`
    reads evidence: a useful chunk answers the question, or a partial chunk's follow-up.
    A chain that stops short of the answer (a bridge's document without the asked-for
    thing) is not held. The titles are given first hop first: "Ilse Varga → Brennholt".
    """
    useful = sorted((c for c in chunks if c.get("score", 0) > 0), key=lambda c: c.get("rank", 0))
    items = [
        EvidenceItem(
            n=n,
            chunk_id=c["chunk_id"],
            title=title_of(c),
            source=c.get("source", ""),
            text=c.get("text", ""),
            score=c.get("score", 0),
            followup=c.get("followup", ""),
        )
        for n, c in enumerate(useful, 1)
    ]
    quotes = chain(question, items)
    held = [items[n - 1] for n in dict.fromkeys(q.n for q in quotes)]
    return " → ".join(reversed([shown_title(i.title, i.source) for i in held]))


def held_sides(question: str, chunks: Sequence[Mapping[str, Any]]) -> str:
    """The documents a comparison names, when the run holds two or more of them useful; else "".

    "Are X and Y both film directors?" with X's and Y's documents in hand: each side is a
    one-hop lookup, which a sub-run would only repeat. Given as "X + Y".
    """
    if not compares(question):
        return ""
    named: list[str] = []
    for c in chunks:
        side = names_subject(question, title_of(c), c.get("text", ""))
        if c.get("score", 0) > 0 and side and side not in named:
            named.append(side)
    return " + ".join(named) if len(named) >= 2 else ""
