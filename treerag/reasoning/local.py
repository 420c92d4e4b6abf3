"""The `local` preset: the local model where it beats the heuristics, the heuristics elsewhere.

Role by role (figures in README, "A real LLM with no API key"):
- answer: the local model (the offline answer can only quote sentences), told the chain the
  tree found and written in the question's script (`llm`); when the chain found the answer,
  the model's first sentence must say it (`held_to_chain`);
- judge: the offline judge by default (`local_judge`: it reads the chain at least as well
  as the 1.5B model, at no call); with `local_judge=model` the model, whose "sufficient" for
  a chunk that only names the question's bridge is read as partial (`_bridge_only`);
- the follow-up of a partial chunk: the model's own when it asks something new, else the
  offline one (`OfflineReasoner.followup`, a short question about the bridge entity). The
  1.5B model often leaves it empty or repeats the question, and a partial chunk without a
  follow-up cannot recurse;
- keyword-tree agent and knowledge-graph extraction: the offline heuristics. Extraction is one
  structured call per chunk, so building a graph of a few hundred chunks with a CPU-only model
  takes hours; the keyword descent adds calls to every question for a step that the exact
  lookup and the lexical agent already take;
- condensing a chat message: the offline rule (the previous turn's names are appended when
  the message leans on it), which costs no call before the tree even starts.

The model server starts on the first judge or answer, in a worker thread: starting it means
reading files and waiting for a process, which must not happen on the event loop (`langgraph
dev` refuses blocking calls there).
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from typing import Any

from treerag.context import Context
from treerag.reasoning.answering import answering
from treerag.reasoning.base import (
    EvidenceItem,
    Judgement,
    LenientJudgeVerdict,
    Quote,
    Reasoner,
    Recursion,
)
from treerag.reasoning.llm import LLMReasoner
from treerag.reasoning.questions import is_new


class LocalReasoner(LLMReasoner):
    """An LLMReasoner on the local model, which hands some roles to the offline reasoner."""

    def __init__(self, ctx: Context, offline: Reasoner):
        """Name the local model now; start its server on the first call that needs it."""
        from treerag.local_llm.weights import model_name

        super().__init__(
            None,  # type: ignore[arg-type]  # set by _ready()
            timeout_s=ctx.llm_timeout_s,
            retries=ctx.llm_retries,
            prompt_overrides=ctx.prompt_overrides,
        )
        self.name = model_name(ctx.chat_model.partition(":")[2])
        self._ctx = ctx
        self._offline = offline

    async def _ready(self) -> None:
        if self.model is None:
            from treerag.models import get_chat_model

            self.model = await asyncio.to_thread(get_chat_model, self._ctx)

    verdict_schema = LenientJudgeVerdict
    held_to_chain = True
    """The 1.5B model answered against the chain it was shown (the birthplace of the
    question's own person for that of her co-author's): its first sentence must say the
    chain's answer, else the offline answer, which quotes the chain, stands in."""

    @property
    def judge_name(self) -> str:
        """Who judges, for the verdict cache: the model, or the offline judge when chosen."""
        if self._ctx.local_judge == "offline":
            return self._offline.judge_name
        return super().judge_name

    async def judge(self, question: str, title: str, text: str, linked_from: str = "") -> Judgement:
        """The LLM judge, once the server is up; a partial verdict gets a follow-up that is new.

        With `local_judge=offline` the heuristic judge decides instead, and no call is made.
        """
        if self._ctx.local_judge == "offline":
            verdict = await self._offline.judge(question, title, text, linked_from)
            verdict.calls = 0  # no model call: neither the budget nor the call count moves
            return verdict
        await self._ready()
        verdict = await super().judge(question, title, text)
        if verdict.score == 2:
            verdict = await asyncio.to_thread(self._bridge_only, question, title, text, verdict)
        asked = verdict.followup.strip()
        if verdict.score == 1 and not (asked and is_new(asked, [question])):
            verdict.followup = await asyncio.to_thread(
                self._offline_followup, question, title, text
            )
        return verdict

    def _offline_followup(self, question: str, title: str, text: str) -> str:
        """The follow-up the offline judge asks of a chunk, "" when it asks none (or can't)."""
        followup = getattr(self._offline, "followup", None)
        return followup(question, title, text) if followup else ""

    def _bridge_only(self, question: str, title: str, text: str, verdict: Judgement) -> Judgement:
        """The model's 2 as a 1 when the chunk names the question's bridge and not its answer.

        The 1.5B model calls "sufficient" a chunk that says who or where the question's
        description leads to ("She was born in the village of Brennholt" for "Which river
        flows through the village where Ilse Varga was born?"), and the two-hop question is
        then answered with the bridge. When no sentence of the chunk answers the question as
        the offline reader reads it (`answering`) and the offline judge asks a follow-up about
        the bridge the chunk names, the chunk is partial and that follow-up is asked.
        """
        if answering(question, title, text) is not None:
            return verdict
        asked = self._offline_followup(question, title, text)
        if not asked:
            return verdict
        return Judgement(
            1,
            f"{verdict.reason} [the model's 2 read as 1: the passage names the bridge, "
            f"not the answer]",
            asked,
            verdict.quote,
            calls=verdict.calls,
        )

    async def answer(
        self,
        question: str,
        evidence: list[EvidenceItem],
        extra_context: str,
        chain: Sequence[Quote] = (),
    ) -> str:
        """The LLM answer, once the server is up."""
        await self._ready()
        return await super().answer(question, evidence, extra_context, chain)

    def keyword_agent(self, max_calls: int | None = None) -> Any:
        """The lexical keyword agent (see the module docstring for why): no model call."""
        return self._offline.keyword_agent(max_calls)

    def extractor(self) -> Any:
        """The heuristic graph extractor (see the module docstring for why)."""
        return self._offline.extractor()

    def should_recurse(self, question: str, chunks: Sequence[Mapping[str, Any]]) -> Recursion:
        """Whoever judges decides: the offline judge (`local_judge=offline`) or the model."""
        if self._ctx.local_judge == "offline":
            return self._offline.should_recurse(question, chunks)
        return super().should_recurse(question, chunks)

    async def condense(self, history: list[tuple[str, str]], message: str) -> str:
        """The offline condensing rule (see the module docstring for why)."""
        return await self._offline.condense(history, message)
