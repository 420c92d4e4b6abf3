"""The offline reasoner: deterministic heuristics on embeddings and lexical overlap, no LLM.

Rules (documented here because they decide what a user without an LLM sees):
- judge: the chunk is read as a reader reads it (`reading`: one canonical form for script,
  width and case; a sentence belongs to its document's subject). Score 2 when one sentence
  answers the question: about the entity it names, holding its relation and a candidate of
  the asked-for kind (`answering.answering`); the tree stops at a run with a 2. Score 1 when
  the chunk shares a term and coverage (share of the question's content terms the chunk
  holds, in the canonical form) >= partial_coverage, or the similarity (cosine of the
  question and the best sentence) >= partial_similarity; also when the question names the
  chunk's subject (its title or title line), or (Chinese) a proper name the chunk holds:
  the first hop of a multi-hop question, whatever the script or the word segmentation
  (`named_entity`); also a chunk the graph linked in one step from a document the question
  names, or a knowledge-graph path led to from an entity the question names
  (`named.linked_from`): the first hop's bridge, which shares few words with the question;
  also, for a Chinese question that names no one, a chunk one of whose sentences says all of
  the description the question opens with (`chunk_features.describes_opening`).
  Else 0. Partial thresholds per script in `THRESHOLDS`, fitted on the dev sets (see there).
  The quote is the answering sentence, else the most similar one.
- follow-up (score 1 only): a short question about the bridge entity, the name the chunk adds
  next to what the question says about it, for the clause of the question still open
  (`followup_question.followup`), written in the question's script; none when no such question can
  be built.
- answer: extractive, composed along the tree's chain (`compose.chain`: the sentence that
  answers, then the bridges that tie it to the question's entity, each cited). Without a
  chain, the `fallback.FALLBACK_SENTENCES` sentences most like the question (similarity plus
  term overlap, the plainest statement of the asked-for thing first) among those that carry
  the question's entity or terms. The label and "could not find" are in the question's language
  and script (`wording`).
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from treerag.reasoning.answering import answering
from treerag.reasoning.base import RECURSE, EvidenceItem, Judgement, Quote, Recursion, answered_here
from treerag.reasoning.bridging import typed_first
from treerag.reasoning.chunk_features import Features, describes_opening, named_entity, script_of
from treerag.reasoning.chunk_reading import pronoun_subject, statements, subjects
from treerag.reasoning.compose import chain as compose_chain
from treerag.reasoning.compose import distinct, held_chain, held_sides
from treerag.reasoning.coreference import referent, resolve_pronoun
from treerag.reasoning.fallback import Ranked, pick, rank
from treerag.reasoning.judge_cache import rules_version
from treerag.reasoning.marks import MarkNumbers
from treerag.reasoning.named import names_title
from treerag.reasoning.partial_followup import WALK_IN_CHUNK, followup_of, holds_next_link
from treerag.reasoning.questions import is_new
from treerag.reasoning.reading import fold, read_question
from treerag.reasoning.relation_held import present, relation_share, text_stems
from treerag.reasoning.streaming import TextStreamModel
from treerag.reasoning.text import content_terms
from treerag.reasoning.wording import framed, label, not_found, strip_label

REFERENCE = re.compile(
    # "that"/"this" are left out: in questions they are mostly relative ("the fishers that…").
    r"\b(it|its|they|them|their|there|he|she|his|her)\b|[他她它那这该其]",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class Thresholds:
    """The judge's partial thresholds for questions of one script."""

    partial_coverage: float
    partial_similarity: float


# Fitted with benchmarks/judge_fit.py (labels and objectives in its docstring), each script on
# its own dev set: Latin-script questions on hotpotqa_100, Chinese ones on rgb_zh_300 (300
# questions x top 10 hybrid hits). With the bundled English-only embedder (all-MiniLM-L6-v2)
# Chinese similarities carry little signal (an unrelated passage scores 0.49), so for Chinese
# a 1 comes from term coverage (0.65; similarity only when near-identical). On rgb_zh_300 the
# fit raised Youden's J of the 1s from 0.11 (the hand-set 0.5 / off) to 0.26.
THRESHOLDS = {
    "latin": Thresholds(0.5, 0.45),
    "cjk": Thresholds(0.65, 0.9),
}


def rule(t: Thresholds, coverage: float, similarity: float, shares: bool) -> int:
    """The partial verdict from a chunk's measures: 1 or 0 (rule at the top of this module)."""
    if (shares and coverage >= t.partial_coverage) or similarity >= t.partial_similarity:
        return 1
    return 0


def spoken(quote: Quote, question: str) -> str:
    """A quote as the answer says it: framed by the name its pronoun stands for, if any."""
    return framed(quote.said, quote.text, question) if quote.said else quote.text


def framed_quotes(quotes: list[Quote], evidence: Sequence[EvidenceItem]) -> list[Quote]:
    """Quotes whose pronoun stands for their document's subject, framed by it (`pronoun_subject`).

    "Thrennick: “The River Soale flows through it.”": a sentence carried up from a sub-run
    reads as its document meant it, wherever it stands in the answer.
    """
    items = {item.n: item for item in evidence}
    out = []
    for quote in quotes:
        item = items.get(quote.n)
        if not quote.said and item is not None:
            quote = replace(quote, said=pronoun_subject(quote.text, item.title, item.text))
        out.append(quote)
    return out


class OfflineReasoner:
    """Takes every LLM role with heuristics; labelled as offline wherever it speaks."""

    name = "offline-heuristic-v2"
    """v2: the reading rules (`reading`): one canonical form, sentences of a document, the
    answering sentence."""
    offline = True

    @property
    def judge_name(self) -> str:
        """The rules' version (a hash of their source) and the embedder of the similarities."""
        embedder = getattr(self.embeddings, "model_name", type(self.embeddings).__name__)
        return f"{self.name}#{rules_version()}#{embedder}"

    def __init__(self, embeddings: Any):
        """Use the given embeddings for similarities."""
        self.embeddings = embeddings
        self._stream = TextStreamModel()
        self._memo: dict[str, np.ndarray] = {}

    def keyword_agent(self, max_calls: int | None = None) -> Any:
        """The engine's lexical HeuristicAgent (rules in treerag/keyword_tree/heuristic.py).

        It calls no model: `max_calls` does not bound it, and the run counts no call for it.
        """
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
        reading = read_question(question)
        body = fold(f"{title}\n{text}")
        chunk_terms = text_stems(body)
        found = [t for t in reading.terms if present(t, body, chunk_terms)]
        sents = statements(text) or [text]
        vectors = self._embed([question, *sents])
        sims = vectors[1:] @ vectors[0]
        order = [int(i) for i in np.argsort(-sims)]
        answer = answering(question, title, text)
        shares = [relation_share(reading, fold(s)) for s in sents]
        bridging = typed_first(
            question, [sents[i] for i in sorted(order, key=lambda i: -shares[i])], chunk_terms
        )[:3]
        return Features(
            terms=list(reading.terms),
            found=found,
            chunk_terms=chunk_terms,
            coverage=len(found) / len(reading.terms) if reading.terms else 0.0,
            similarity=float(sims[order[0]]),
            kind=reading.kind,
            best=[sents[i] for i in order[:3]],
            bridging=bridging,
            named=named_entity(question, title, text),
            subject=next(iter(subjects(title, text)), ""),
            answer=answer.sentence if answer else "",
            described=describes_opening(question, sents),
        )

    def _judge(self, question: str, title: str, text: str, linked_from: str = "") -> Judgement:
        f = self.features(question, title, text)
        t = THRESHOLDS[script_of(question)]
        score = 2 if f.answer else rule(t, f.coverage, f.similarity, bool(f.found))
        bridged = bool(linked_from) and names_title(question, linked_from)
        opening = "; one sentence says the description the question opens with"
        if (f.named or bridged or f.described) and score == 0:
            score = 1
        reason = (
            f"offline: {len(f.found)}/{len(f.terms)} question terms present "
            f"({', '.join(f.found[:5]) or 'none'}), best sentence similarity {f.similarity:.2f}"
            f"{f'; one sentence answers it (the {f.kind} asked for)' if score == 2 else ''}"
            f"{f'; names {f.named!r}, which the question names' if f.named else ''}"
            f"{f'; linked from {linked_from!r}, which the question names' if bridged else ''}"
            f"{opening if f.described else ''}"
        )
        followup = self._asked(question, f, title, text) if score == 1 else ""
        return Judgement(score, reason, followup, f.answer or f.best[0], calls=1)

    def followup(self, question: str, title: str, text: str) -> str:
        """The follow-up this judge asks for a partial chunk ("" when none can be built)."""
        return self._asked(question, self.features(question, title, text), title, text)

    def _asked(self, question: str, f: Features, title: str, text: str) -> str:
        """The follow-up of a chunk measured as `f`, taken through it as far as it goes.

        A chunk can hold two links of the chain: "Pavel Orsk was an engraver who worked with
        Ilse Varga. He was born in the harbour town of Duneport." turns "the birthplace of
        the engraver who worked with Ilse Varga" into "the birthplace of Pavel Orsk", and
        the same chunk names that birthplace: the sub-run is asked "At the mouth of which
        river lies Duneport?", not what its parent holds (a sub-run does not get its
        parent's partial chunks back). At most `WALK_IN_CHUNK` more links.
        """
        followup, entity = followup_of(question, f)
        for _ in range(WALK_IN_CHUNK):
            if not followup:
                break
            f = self.features(followup, title, text)
            if (
                not f.named
                and script_of(followup) == "cjk"
                and entity
                and fold(entity) in fold(text)
            ):
                # The bridge just put in is the entity the follow-up names, whether or not
                # jieba reads it as a name (畢昇 is 畢 / 昇 to it). (An English chunk names
                # it by its subject alone, `named_entity`.)
                f = replace(f, named=entity)
            if f.answer or not f.named:
                break  # the chunk answers the follow-up, or is not about its entity
            if not holds_next_link(followup, f):
                break
            further, entity = followup_of(followup, f)
            if not further or not is_new(further, [followup]):
                break
            followup = further
        return followup

    def should_recurse(self, question: str, chunks: Sequence[Mapping[str, Any]]) -> Recursion:
        """Not at a chunk judged 2, nor when the chunks hold the question's chain.

        The offline judge scores a chunk alone; a chain across two chunks of the run (a
        bridge and the document about it: `compose.held_chain`), or a comparison's sides
        (`compose.held_sides`), is only seen here, so the level stops with it.
        """
        if not (verdict := answered_here(chunks)).recurse:
            return verdict
        if chain := held_chain(question, chunks) or held_sides(question, chunks):
            return Recursion(False, f"the chunks hold the question's chain: {chain}")
        return RECURSE

    async def condense(self, history: list[tuple[str, str]], message: str) -> str:
        """Make a follow-up message standalone (see `_condense`), off the event loop."""
        return await asyncio.to_thread(self._condense, history, message)

    def _condense(self, history: list[tuple[str, str]], message: str) -> str:
        """Resolve the message's pronoun to the entity the previous answer was about.

        A message leans on the conversation when it has a pronoun or demonstrative (it,
        they, there, he, she, 他, 她, 它, 那, 这, 该 ...) or fewer than three content terms.
        The entity is the previous turn's top-cited one (`coreference.top_entity`): among the
        names in the previous answer's cited sentences, one the previous question did not
        name (what the answer found), then the one cited most often, then the first; unless
        the pronoun's kind does not fit what the previous question asked for ("it" after a
        "who" question), when it is the previous question's own named entity
        (`coreference.referent`). The pronoun is replaced by it ("Where was he born?" ->
        "Where was Oswin Marl born?"); a message without a pronoun gets it appended in
        parentheses.
        """
        questions = [text for role, text in history if role == "human"]
        answers = [strip_label(text) for role, text in history if role == "ai"]
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

    async def answer(
        self,
        question: str,
        evidence: list[EvidenceItem],
        extra_context: str,
        chain: Sequence[Quote] = (),
    ) -> str:
        """Stream the label at once, then each cited sentence as soon as it is picked.

        The sentences are the tree's chain when it found one (`compose.chain`), else the
        fallback's (`_fallback`). `extra_context` (keyword-tree infos, graph context) is not
        quoted: a sentence of it would carry no citation; what the tree and the graph find
        reaches the answer as judged, cited chunks (`treerag.retrievers.sources`).
        """
        from langchain_core.messages import HumanMessage

        documents = "".join(item.text for item in evidence)
        head = label(question, documents)
        pieces = [head]
        await self._stream.ainvoke([HumanMessage(content=head)])
        quotes = framed_quotes(
            distinct(list(chain) or await asyncio.to_thread(self._fallback, question, evidence)),
            evidence,
        )
        marks = MarkNumbers(item.n for item in evidence)  # streamed as `answer_question` shows it
        said = [f" {spoken(q, question)} [{q.n}]" for q in quotes]
        said = said or [f" {not_found(question, documents)}"]
        for piece in said:
            await self._stream.ainvoke([HumanMessage(content=marks.feed(piece))])
            pieces.append(piece)
        if rest := marks.flush():
            await self._stream.ainvoke([HumanMessage(content=rest)])
        return "".join(pieces)

    def compose(self, question: str, evidence: list[EvidenceItem]) -> str:
        """The whole answer at once, as `answer` streams it (chain first, else the fallback)."""
        quotes = framed_quotes(
            distinct(compose_chain(question, evidence) or self._fallback(question, evidence)),
            evidence,
        )
        body = " ".join(f"{spoken(q, question)} [{q.n}]" for q in quotes)
        documents = "".join(item.text for item in evidence)
        return f"{label(question, documents)} {body or not_found(question, documents)}"

    def _fallback(self, question: str, evidence: list[EvidenceItem]) -> list[Quote]:
        """The answer when the tree found no chain: the best relevant sentences (`fallback`)."""
        return pick(self._rank(question, evidence))

    def _rank(self, question: str, evidence: list[EvidenceItem]) -> list[Ranked]:
        """Every sentence of the useful evidence, best first (`fallback.rank`)."""
        return rank(question, evidence, self._embed)
