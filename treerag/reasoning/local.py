"""The `local` preset: the local model where it beats the heuristics, the heuristics elsewhere.

Role by role (figures in README, "A real LLM with no API key"):
- judge and answer: the local model (it reads the passage; the offline judge only counts
  overlapping terms, and the offline answer can only quote sentences);
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
        asked = verdict.followup.strip()
        if verdict.score == 1 and not (asked and is_new(asked, [question])):
            followup = getattr(self._offline, "followup", None)
            verdict.followup = (
                await asyncio.to_thread(followup, question, title, text) if followup else ""
            )
        return verdict

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
