"""The offline reasoner: deterministic heuristics on embeddings and lexical overlap, no LLM.

Rules (documented here because they decide what a user without an LLM sees):
- judge: coverage = share of the question's content terms found in the chunk (title
  included); similarity = cosine of question and best chunk sentence. Score 2 when coverage
  >= 0.9 and similarity >= 0.5; score 1 when coverage >= 0.25 or similarity >= 0.35;
  else 0. The quote is the best sentence.
- follow-up: the question plus up to three bridge terms, the name-like terms of the best
  sentences that the question lacks.
- answer: extractive. Sentences of score 2 and score 1 chunks, and of the sub-runs' best
  evidence, are ranked by similarity to the question plus term overlap; the best three
  (at most two per chunk) are returned with [n] citations, streamed like an LLM answer.
"""

from __future__ import annotations

import asyncio
import re
from typing import Any

import numpy as np

from treerag.reasoning.base import EvidenceItem, Judgement
from treerag.reasoning.streaming import TextStreamModel
from treerag.reasoning.text import content_terms, salient_terms, sentences

LABEL = "[offline extractive answer]"
REFERENCE = re.compile(
    # "that"/"this" are left out: in questions they are mostly relative ("the fishers that…").
    r"\b(it|its|they|them|their|there|he|she|his|her)\b|[他她它那这该其]",
    re.IGNORECASE,
)
NOT_FOUND = "I could not find an answer to this in the ingested documents."


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

    async def judge(self, question: str, title: str, text: str) -> Judgement:
        """Score a chunk by term coverage and sentence similarity."""
        return await asyncio.to_thread(self._judge, question, title, text)

    def _judge(self, question: str, title: str, text: str) -> Judgement:
        q_terms = content_terms(question)
        chunk_terms = set(content_terms(f"{title}\n{text}"))
        found = [t for t in q_terms if t in chunk_terms]
        coverage = len(found) / len(q_terms) if q_terms else 0.0
        sents = sentences(text) or [text]
        vectors = self._embed([question, *sents])
        sims = vectors[1:] @ vectors[0]
        best = int(np.argmax(sims))
        similarity = float(sims[best])
        if coverage >= 0.9 and similarity >= 0.5:
            score = 2
        elif coverage >= 0.25 or similarity >= 0.35:
            score = 1
        else:
            score = 0
        reason = (
            f"offline: {len(found)}/{len(q_terms)} question terms present "
            f"({', '.join(found[:5]) or 'none'}), best sentence similarity {similarity:.2f}"
        )
        followup = self._followup(question, sents, sims) if score == 1 else ""
        return Judgement(score, reason, followup, sents[best], calls=1)

    @staticmethod
    def _followup(question: str, sents: list[str], sims: np.ndarray) -> str:
        asked = {t.lower() for t in content_terms(question)}
        bridge: list[str] = []
        for i in np.argsort(-sims)[:2]:
            for term in salient_terms(sents[int(i)]):
                if term.lower() not in asked and term not in bridge:
                    bridge.append(term)
        if not bridge:
            return ""
        return f"{question.rstrip()} {' '.join(bridge[:3])}"

    async def condense(self, history: list[tuple[str, str]], message: str) -> str:
        """Make a follow-up message standalone (see `_condense`), off the event loop."""
        return await asyncio.to_thread(self._condense, history, message)

    def _condense(self, history: list[tuple[str, str]], message: str) -> str:
        """Add the previous question's name-like terms when the message leans on it.

        A message leans on the conversation when it has a pronoun or demonstrative (it,
        they, there, he, she, 他, 她, 它, 那, 这, 该 ...) or fewer than three content terms;
        then the name-like terms of the previous answer's first sentence and of the previous
        question are appended in parentheses.
        """
        questions = [text for role, text in history if role == "human"]
        answers = [text.replace(LABEL, "") for role, text in history if role == "ai"]
        if not questions:
            return message
        terms = content_terms(message)
        leaning = REFERENCE.search(message) is not None or len(terms) < 3
        if not leaning:
            return message
        # The answer names what "there"/"it" points at; the question names the topic.
        from_answer = (
            salient_terms(sentences(answers[-1])[0]) if answers and answers[-1].strip() else []
        )
        pool = [*from_answer[:3], *salient_terms(questions[-1])[:2]]
        carried = list(dict.fromkeys(t for t in pool if t.lower() not in terms))[:4]
        return f"{message.rstrip()} ({' '.join(carried)})" if carried else message

    async def answer(self, question: str, evidence: list[EvidenceItem], extra_context: str) -> str:
        """Pick the best cited sentences and stream them."""
        text = await asyncio.to_thread(self._compose, question, evidence, extra_context)
        from langchain_core.messages import HumanMessage

        streamed = await self._stream.ainvoke([HumanMessage(content=text)])
        return str(streamed.content)

    def _compose(self, question: str, evidence: list[EvidenceItem], extra_context: str) -> str:
        candidates: list[tuple[int, str]] = []
        for item in evidence:
            if item.score < 1:
                continue
            for sent in sentences(item.text):
                candidates.append((item.n, sent))
            for support in item.support:
                for sent in sentences(support):
                    candidates.append((item.n, sent))
        for sent in sentences(extra_context):
            candidates.append((0, sent))
        if not candidates:
            return f"{LABEL} {NOT_FOUND}"
        q_terms = set(content_terms(question))
        vectors = self._embed([question, *[s for _, s in candidates]])
        sims = vectors[1:] @ vectors[0]
        scored = []
        for (n, sent), sim in zip(candidates, sims, strict=True):
            overlap = len(q_terms & set(content_terms(sent))) / max(1, len(q_terms))
            scored.append((float(sim) + 0.3 * overlap, n, sent))
        scored.sort(key=lambda x: -x[0])
        picked: list[tuple[int, str]] = []
        per_chunk: dict[int, int] = {}
        for _, n, sent in scored:
            if len(picked) == 3:
                break
            if per_chunk.get(n, 0) >= 2 or any(sent == s for _, s in picked):
                continue
            per_chunk[n] = per_chunk.get(n, 0) + 1
            picked.append((n, sent))
        body = " ".join(f"{sent} [{n}]" if n else sent for n, sent in picked)
        return f"{LABEL} {body}"
