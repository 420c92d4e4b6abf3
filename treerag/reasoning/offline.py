"""The offline reasoner: deterministic heuristics on embeddings and lexical overlap, no LLM.

Rules (documented here because they decide what a user without an LLM sees):
- judge: coverage = share of the question's content terms found in the chunk (title
  included; Latin words compared by their first six letters); similarity = cosine of the
  question and the best chunk sentence. Score 2 when coverage >= sufficient_coverage,
  similarity >= sufficient_similarity and one of the two best sentences holds a candidate of
  the asked-for kind (`questions.slot`: a person, place, time, number, "which X" ...). Score 1
  when the chunk shares a term and coverage >= partial_coverage, or similarity >=
  partial_similarity: it names something the question needs; also when the question names
  the chunk's title, or (Chinese) a proper name the chunk holds: the first hop of a multi-hop
  question, whatever the script or the word segmentation (`named_entity`); also a chunk the
  graph linked in one step from a document the question names, or a knowledge-graph path
  led to from an entity the question names (`named.linked_from`): the first hop's bridge,
  which shares few words with the question. Else 0: a chunk
  that shares no term with the question and is not similar never counts. Thresholds per
  script in `THRESHOLDS`, fitted on the dev sets (see there). The quote is the best sentence.
- follow-up (score 1 only): a short question about the bridge entity, the name the chunk adds
  next to what the question says about it, for the clause of the question still open
  (`questions.followup`); none when no such question can be built.
- answer: extractive. Sentences of score 2 and score 1 chunks and of the sub-runs' finds
  (each cited with its own [n]) are ranked by similarity to the question (or to the
  follow-up a sub-run answered) plus term overlap; the answer leads with the best sentence
  that states the asked-for thing, then support: three sentences of the run's own chunks,
  then up to two of what its sub-runs found (added, never in their place), at most two per
  chunk, streamed as they are picked.
"""

from __future__ import annotations

import asyncio
import functools
import re
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np

from treerag.reasoning.base import EvidenceItem, Judgement
from treerag.reasoning.marks import MarkNumbers
from treerag.reasoning.named import names_in, names_title
from treerag.reasoning.questions import (
    bridge,
    fills_slot,
    referent,
    resolve_pronoun,
    slot,
    statement,
)
from treerag.reasoning.questions import followup as build_followup
from treerag.reasoning.streaming import TextStreamModel
from treerag.reasoning.text import (
    content_terms,
    sentences,
    squash,
    stem,
    stems,
    unfootnoted,
)

LABEL = "[offline extractive answer]"
REFERENCE = re.compile(
    # "that"/"this" are left out: in questions they are mostly relative ("the fishers that…").
    r"\b(it|its|they|them|their|there|he|she|his|her)\b|[他她它那这该其]",
    re.IGNORECASE,
)
NOT_FOUND = "I could not find an answer to this in the ingested documents."
_CJK = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")

ANSWER_SENTENCES = 3
"""Sentences an offline answer takes from the run's own chunks (and structured context)."""
FOUND_SENTENCES = 2
"""Sentences it adds from what its sub-runs found."""


@dataclass(frozen=True)
class Thresholds:
    """The judge's thresholds for questions of one script."""

    partial_coverage: float
    partial_similarity: float
    sufficient_coverage: float
    sufficient_similarity: float


# Fitted with benchmarks/judge_fit.py (labels and objectives in its docstring), each script on
# its own dev set: Latin-script questions on hotpotqa_100, Chinese ones on rgb_zh_300 (300
# questions x top 10 hybrid hits). With the bundled English-only embedder (all-MiniLM-L6-v2)
# Chinese similarities carry little signal (an unrelated passage scores 0.49), so for Chinese
# a 1 comes from term coverage (0.65; similarity only when near-identical) and a 2 needs 80% of
# the terms and some similarity. On rgb_zh_300 the fit raised Youden's J of the 1s from 0.11
# (the hand-set 0.5 / off / 0.9 / 0.0) to 0.26 and F0.5 of the 2s from 0.65 to 0.67.
THRESHOLDS = {
    "latin": Thresholds(0.5, 0.45, 0.45, 0.8),
    "cjk": Thresholds(0.65, 0.9, 0.8, 0.45),
}


def script_of(question: str) -> str:
    """Name the script of a question: "cjk" with Chinese characters, else "latin"."""
    return "cjk" if _CJK.search(question) else "latin"


def rule(t: Thresholds, coverage: float, similarity: float, shares: bool, filled: bool) -> int:
    """The offline judge's score from a chunk's measures (rule at the top of this module)."""
    if coverage >= t.sufficient_coverage and similarity >= t.sufficient_similarity and filled:
        return 2
    if (shares and coverage >= t.partial_coverage) or similarity >= t.partial_similarity:
        return 1
    return 0


def _followup(question: str, f: Features) -> str:
    """The follow-up about the bridge entity of a chunk measured as `f` (`questions.followup`)."""
    entity = bridge(question, f.best, f.chunk_terms)
    return build_followup(question, f.chunk_terms, entity, f.named)


class Ranked(NamedTuple):
    """One evidence sentence as the answer ranks it."""

    score: float
    level: int
    """How plainly it states the asked-for thing (`questions.statement`)."""
    n: int
    """The number of the evidence item it comes from (its citation)."""
    text: str
    found: bool = False
    """Whether a sub-run found it (evidence of depth > 0)."""


@dataclass
class Features:
    """What the offline judge measures of one chunk against one question."""

    terms: list[str]
    found: list[str]
    chunk_terms: set[str]
    """Stems of the chunk's content terms (`text.stem`)."""
    coverage: float
    similarity: float
    kind: str
    filled: bool
    best: list[str]
    named: str = ""
    """The entity the question names that the chunk is about or names (`named_entity`)."""


def named_entity(question: str, title: str, text: str) -> str:
    """The entity the question names that the chunk is about or names, "" when none.

    The chunk's title (`named.names_title`); for a Chinese question also a proper name of
    it (a person / place / organisation jieba tags, a capitalised run of words) that the
    chunk's text holds, since Chinese has no similarity signal to go on with the bundled
    English-only embedder that judges; compared in the keyword tree's canonical form, which
    folds case, width and Traditional to Simplified script, so a question in either script
    names a chunk in either.
    """
    from treerag.keyword_tree.normalize import canonical

    if names_title(question, title):
        return title
    if script_of(question) != "cjk":
        # Latin script has sentence similarity to go on (MiniLM); a chunk naming the
        # question's entity is partial there by its thresholds already, and counting every
        # one of them made offline trees stop early (`questions.covers`) on hotpotqa_100.
        return ""
    body = canonical(f"{title} {text}")
    return next((name for name, key in _question_names(question) if names_in(key, body)), "")


@functools.lru_cache(maxsize=1024)
def _question_names(question: str) -> tuple[tuple[str, str], ...]:
    """The question's proper names with their canonical keys: every chunk a run judges asks."""
    from treerag.keyword_tree.normalize import query_key
    from treerag.knowledge_graph.extract import proper_names

    return tuple((name, query_key(name)) for name in proper_names(question))


class OfflineReasoner:
    """Takes every LLM role with heuristics; labelled as offline wherever it speaks."""

    name = "offline-heuristic-v1"
    offline = True

    def __init__(self, embeddings: Any):
        """Use the given embeddings for similarities."""
        self.embeddings = embeddings
        self._stream = TextStreamModel()
        self._memo: dict[str, np.ndarray] = {}

    def keyword_agent(self) -> Any:
        """The engine's lexical HeuristicAgent (rules in treerag/keyword_tree/heuristic.py)."""
        from treerag.keyword_tree import HeuristicAgent

        return HeuristicAgent()

    def extractor(self) -> Any:
        """The knowledge graph's heuristic extractor (labelled `extractor: heuristic`)."""
        from treerag.knowledge_graph import HeuristicExtractor

        return HeuristicExtractor()

    def clear_memo(self) -> None:
        """Forget memoised embeddings (for fair timing of separate runs)."""
        self._memo.clear()

    def _embed(self, texts: list[str]) -> np.ndarray:
        # The same sentences and questions recur across a tree's judges: embed each once.
        missing = list(dict.fromkeys(t for t in texts if t not in self._memo))
        if missing:
            vectors = np.asarray(self.embeddings.embed_documents(missing), dtype=np.float32)
            if len(self._memo) > 20_000:
                self._memo.clear()
            self._memo.update(zip(missing, vectors, strict=True))
        return np.stack([self._memo[t] for t in texts])

    async def judge(self, question: str, title: str, text: str, linked_from: str = "") -> Judgement:
        """Score a chunk by term coverage and sentence similarity (and its graph link)."""
        return await asyncio.to_thread(self._judge, question, title, text, linked_from)

    def features(self, question: str, title: str, text: str) -> Features:
        """Measure a chunk against a question (what the judge's rule reads)."""
        q_terms = content_terms(question)
        chunk_terms = stems(content_terms(f"{title}\n{text}"))
        found = [t for t in q_terms if stem(t) in chunk_terms]
        sents = sentences(text) or [text]
        vectors = self._embed([question, *sents])
        sims = vectors[1:] @ vectors[0]
        order = [int(i) for i in np.argsort(-sims)]
        kind = slot(question)
        return Features(
            terms=q_terms,
            found=found,
            chunk_terms=chunk_terms,
            coverage=len(found) / len(q_terms) if q_terms else 0.0,
            similarity=float(sims[order[0]]),
            kind=kind,
            filled=any(fills_slot(kind, sents[i], question) for i in order[:2]),
            best=[sents[i] for i in order[:3]],
            named=named_entity(question, title, text),
        )

    def _judge(self, question: str, title: str, text: str, linked_from: str = "") -> Judgement:
        f = self.features(question, title, text)
        score = rule(
            THRESHOLDS[script_of(question)], f.coverage, f.similarity, bool(f.found), f.filled
        )
        bridged = bool(linked_from) and names_title(question, linked_from)
        if (f.named or bridged) and score == 0:
            score = 1
        reason = (
            f"offline: {len(f.found)}/{len(f.terms)} question terms present "
            f"({', '.join(f.found[:5]) or 'none'}), best sentence similarity {f.similarity:.2f}"
            f"{f', holds a {f.kind}' if score == 2 else ''}"
            f"{f'; names {f.named!r}, which the question names' if f.named else ''}"
            f"{f'; linked from {linked_from!r}, which the question names' if bridged else ''}"
        )
        followup = _followup(question, f) if score == 1 else ""
        return Judgement(score, reason, followup, f.best[0], calls=1)

    def followup(self, question: str, title: str, text: str) -> str:
        """The follow-up this judge asks for a partial chunk ("" when none can be built)."""
        return _followup(question, self.features(question, title, text))

    async def condense(self, history: list[tuple[str, str]], message: str) -> str:
        """Make a follow-up message standalone (see `_condense`), off the event loop."""
        return await asyncio.to_thread(self._condense, history, message)

    def _condense(self, history: list[tuple[str, str]], message: str) -> str:
        """Resolve the message's pronoun to the entity the previous answer was about.

        A message leans on the conversation when it has a pronoun or demonstrative (it,
        they, there, he, she, 他, 她, 它, 那, 这, 该 ...) or fewer than three content terms.
        The entity is the previous turn's top-cited one (`questions.top_entity`): among the
        names in the previous answer's cited sentences, one the previous question did not
        name (what the answer found), then the one cited most often, then the first; unless
        the pronoun's kind does not fit what the previous question asked for ("it" after a
        "who" question), when it is the previous question's own named entity
        (`questions.referent`). The pronoun is replaced by it ("Where was he born?" ->
        "Where was Oswin Marl born?"); a message without a pronoun gets it appended in
        parentheses.
        """
        questions = [text for role, text in history if role == "human"]
        answers = [text.replace(LABEL, "") for role, text in history if role == "ai"]
        if not questions:
            return message
        terms = content_terms(message)
        if REFERENCE.search(message) is None and len(terms) >= 3:
            return message
        entity = referent(message, questions[-1], answers[-1] if answers else "")
        if not entity or any(t in terms for t in content_terms(entity)):
            return message
        resolved = resolve_pronoun(message, entity)
        return resolved if resolved != message else f"{message.rstrip()} ({entity})"

    async def answer(self, question: str, evidence: list[EvidenceItem], extra_context: str) -> str:
        """Stream the label at once, then each cited sentence as soon as it is picked."""
        from langchain_core.messages import HumanMessage

        pieces = [LABEL]
        await self._stream.ainvoke([HumanMessage(content=LABEL)])
        ranked = await asyncio.to_thread(self._rank, question, evidence, extra_context)
        marks = MarkNumbers(item.n for item in evidence)  # streamed as `answer_question` shows it
        for piece in [f" {p}" for p in self._pick(ranked)] or [f" {NOT_FOUND}"]:
            await self._stream.ainvoke([HumanMessage(content=marks.feed(piece))])
            pieces.append(piece)
        if rest := marks.flush():
            await self._stream.ainvoke([HumanMessage(content=rest)])
        return "".join(pieces)

    def _compose(self, question: str, evidence: list[EvidenceItem], extra_context: str) -> str:
        """The whole answer at once (the text `answer` streams)."""
        body = " ".join(self._pick(self._rank(question, evidence, extra_context)))
        return f"{LABEL} {body or NOT_FOUND}"

    def _rank(
        self, question: str, evidence: list[EvidenceItem], extra_context: str
    ) -> list[Ranked]:
        """Score every sentence of the evidence, best first (see `Ranked`).

        A sentence is cited with the number of the item it comes from, never another. Its
        score is its similarity to the question plus 0.3 x its share of the question's terms;
        a sentence of sub-run evidence scores by its similarity to the follow-up question it
        answered where that is higher. A sentence that only repeats its item's title is left
        out.
        """
        candidates: list[tuple[int, str, str]] = []
        found: set[int] = {item.n for item in evidence if item.depth > 0}
        for item in evidence:
            if item.score < 1:
                continue
            asked = item.followup if item.depth > 0 else ""
            title = squash(item.title).lower()
            candidates.extend(
                (item.n, sent, asked)
                for sent in map(unfootnoted, sentences(item.text))
                if sent.strip() and squash(sent).lower().rstrip(":") != title
            )
        # `extra_context` (keyword-tree infos, graph context) is not quoted: a sentence of it
        # would carry no citation. What the tree and the graph find reaches the answer as
        # judged, cited chunks (`treerag.retrievers.sources`).
        if not candidates:
            return []
        q_terms = set(content_terms(question))
        followups = list(dict.fromkeys(f for _, _, f in candidates if f))
        vectors = self._embed([question, *followups, *[s for _, s, _ in candidates]])
        q_vec, f_vecs = (
            vectors[0],
            dict(zip(followups, vectors[1 : 1 + len(followups)], strict=True)),
        )
        kind = slot(question)
        out = []
        for (n, sent, asked), vec in zip(candidates, vectors[1 + len(followups) :], strict=True):
            sim = float(vec @ q_vec)
            if asked:
                sim = max(sim, float(vec @ f_vecs[asked]))
            overlap = len(q_terms & set(content_terms(sent))) / max(1, len(q_terms))
            states = max(
                statement(kind, sent, question),
                statement(slot(asked), sent, asked) if asked else 0,
            )
            out.append(Ranked(sim + 0.3 * overlap, states, n, sent, n in found))
        out.sort(key=lambda r: -r.score)
        return out

    @staticmethod
    def _pick(ranked: list[Ranked]) -> list[str]:
        """Lead with the sentence that states the asked-for thing, then the support and finds.

        The lead is, among the best 2 x `ANSWER_SENTENCES`, the first of those that state it
        most plainly (`questions.statement`); sentences sub-runs found compete by their
        similarity to the follow-up they answered. Then the run's own chunks' best sentences
        up to `ANSWER_SENTENCES`, then the best of what the sub-runs found up to
        `FOUND_SENTENCES`: a sub-run's find is added to what the run's own chunks say, never
        put in its place. At most two sentences per chunk.
        """
        top = ranked[: ANSWER_SENTENCES * 2]
        plainest = max((r.level for r in top), default=0)
        lead = next((r for r in top if r.level == plainest), None) if plainest else None
        ordered = ([lead] if lead else []) + [r for r in ranked if r is not lead]
        quota = {False: ANSWER_SENTENCES, True: FOUND_SENTENCES}
        picked: list[tuple[int, str]] = []
        per_chunk: dict[int, int] = {}
        for r in ordered:
            if quota[r.found] == 0 or per_chunk.get(r.n, 0) >= 2:
                continue
            if any(r.text == s for _, s in picked):
                continue
            quota[r.found] -= 1
            per_chunk[r.n] = per_chunk.get(r.n, 0) + 1
            picked.append((r.n, r.text))
        return [f"{sent} [{n}]" if n else sent for n, sent in picked]
