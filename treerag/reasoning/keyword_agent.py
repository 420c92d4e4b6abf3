"""The keyword tree's agent (seed 03 §4.3) played by a chat model, through structured output."""

from __future__ import annotations

import asyncio
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import HumanMessage
from pydantic import BaseModel
from tenacity import AsyncRetrying, retry_if_exception, stop_after_attempt

from treerag.keyword_tree import (
    BranchDecision,
    CandidateNode,
    DedupDecision,
    DescentView,
    DisambiguationDecision,
    LinkDecision,
    ReorganizeAdvice,
)
from treerag.prompts import get_prompt
from treerag.prompts.fencing import untrusted
from treerag.reasoning.structured import KEYWORD_MAX_TOKENS, structured, worth_retrying


def _candidates(nodes: list[CandidateNode]) -> str:
    """Keywords as prompt lines; names and descriptions come from documents (fenced)."""
    return untrusted(
        "\n".join(
            f"[{n.id}] {n.name}" + (f" — {n.description}" if n.description else "") for n in nodes
        )
    )


class CallBudgetSpent(Exception):
    """The agent has made the calls it was allowed (`max_calls`); it is not retried."""


def _retried(exc: BaseException) -> bool:
    return worth_retrying(exc) and not isinstance(exc, CallBudgetSpent)


class LLMKeywordAgent:
    """Implements the engine's `KeywordAgent` protocol with prompts and retries.

    Failures propagate: the engine's descent loop turns them into its NotFound fallback with
    the current candidates (seed 03 §4.3), which is the degradation the design asks for. So
    does a spent call budget (`CallBudgetSpent`).
    """

    def __init__(
        self,
        model: BaseChatModel,
        timeout_s: float,
        retries: int,
        prompts: dict[str, str] | None = None,
        max_calls: int | None = None,
    ):
        """Wrap a chat model with the run's timeout, retries, prompt overrides and call cap."""
        self.model = model
        self.timeout_s = timeout_s
        self.retries = retries
        self.prompts = prompts or {}
        self.max_calls = max_calls
        self.calls = 0
        """Model calls made, retries included: a rag run adds them to its `llm_calls`."""

    async def _ask(self, schema: type[BaseModel], prompt_name: str, **slots: Any) -> Any:
        prompt = get_prompt(prompt_name, self.prompts).format(**slots)
        runnable = structured(self.model, schema, KEYWORD_MAX_TOKENS)
        async for attempt in AsyncRetrying(
            stop=stop_after_attempt(self.retries + 1),
            retry=retry_if_exception(_retried),
            reraise=True,
        ):
            with attempt:
                if self.max_calls is not None and self.calls >= self.max_calls:
                    raise CallBudgetSpent(
                        "budget: no call left for the keyword agent (max_llm_calls)"
                    )
                self.calls += 1
                result = await asyncio.wait_for(
                    runnable.ainvoke([HumanMessage(content=prompt)]), timeout=self.timeout_s
                )
                return result if isinstance(result, schema) else schema.model_validate(result)
        raise RuntimeError("unreachable")  # AsyncRetrying either returns or re-raises

    async def pick_branch(self, question: str, view: DescentView) -> BranchDecision:
        """Choose jump / match / missing / ambiguous for the shown subtree."""
        return await self._ask(
            BranchDecision, "pick_branch", question=question, view=untrusted(view.render())
        )

    async def dedup_check(
        self, name: str, description: str, existing: list[CandidateNode]
    ) -> DedupDecision:
        """Decide whether a new keyword duplicates an existing one."""
        return await self._ask(
            DedupDecision,
            "dedup",
            name=untrusted(name),
            description=untrusted(description),
            existing=_candidates(existing),
        )

    async def link_info(self, content: str, candidates: list[CandidateNode]) -> LinkDecision:
        """Choose the keywords a piece of information belongs to."""
        return await self._ask(
            LinkDecision, "link", content=untrusted(content), candidates=_candidates(candidates)
        )

    async def disambiguate_same_name(
        self, question: str, candidates: list[CandidateNode]
    ) -> DisambiguationDecision:
        """Pick one of several same-named keywords for a question."""
        return await self._ask(
            DisambiguationDecision,
            "disambiguate",
            question=question,
            candidates=_candidates(candidates),
        )

    async def review_subtree(self, view: DescentView) -> ReorganizeAdvice:
        """Propose merges, moves and descriptions for the shown subtree (reorganize)."""
        return await self._ask(ReorganizeAdvice, "reorganize", view=untrusted(view.render()))
