"""The agent protocol of seed 03 §4.3 / §5: four decisions, sync or async, counted."""

from __future__ import annotations

import asyncio
import inspect
from collections import Counter
from collections.abc import Awaitable, Coroutine
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeVar, runtime_checkable

from pydantic import BaseModel, ValidationError

from treerag.keyword_tree.schemas import (
    BranchDecision,
    CandidateNode,
    DedupDecision,
    DescentView,
    DisambiguationDecision,
    LinkDecision,
)

M = TypeVar("M", bound=BaseModel)
T = TypeVar("T")


@runtime_checkable
class KeywordAgent(Protocol):
    """Makes the judgement calls of the keyword tree; each method may be sync or async.

    An LLM implementation renders the inputs into a prompt (``DescentView.render()`` gives
    an outline) and asks for the return schema with ``with_structured_output``; an offline
    one (``HeuristicAgent``) applies lexical rules. Returning a plain dict of the schema's
    fields is accepted too.
    """

    def pick_branch(
        self, question: str, view: DescentView
    ) -> BranchDecision | Awaitable[BranchDecision]:
        """Decide one round of descent: jump (maybe several levels), match, missing, ambiguous."""
        ...

    def dedup_check(
        self, name: str, description: str, existing: list[CandidateNode]
    ) -> DedupDecision | Awaitable[DedupDecision]:
        """Decide whether a new keyword is an alias of, a merge into, or distinct from existing."""
        ...

    def link_info(
        self, content: str, candidates: list[CandidateNode]
    ) -> LinkDecision | Awaitable[LinkDecision]:
        """Choose which candidate keywords an info is filed under, and with which relation."""
        ...

    def disambiguate_same_name(
        self, question: str, candidates: list[CandidateNode]
    ) -> DisambiguationDecision | Awaitable[DisambiguationDecision]:
        """Pick which of several same-named keywords the question means (or none)."""
        ...


class AgentOutputError(Exception):
    """The agent answered with something that does not fit the expected schema."""


@dataclass(slots=True)
class AgentStats:
    """How many agent calls were made, per method (for "LLM calls per descent")."""

    calls: Counter[str] = field(default_factory=Counter)
    cached: int = 0
    """Decisions served from the agent:pick cache instead of a call."""

    @property
    def total(self) -> int:
        """Return the number of calls over all methods."""
        return sum(self.calls.values())

    def reset(self) -> None:
        """Zero the counters."""
        self.calls.clear()
        self.cached = 0


def agent_name(agent: object) -> str:
    """Return a name that identifies an agent's behaviour in cache keys and logs."""
    return str(getattr(agent, "name", None) or type(agent).__name__)


async def call_agent(
    agent: object,
    method: str,
    *args: Any,
    schema: type[M],
    timeout: float | None,
    stats: AgentStats | None = None,
) -> M:
    """Call one agent method, awaiting it if async (with timeout), and validate the answer.

    Raises:
        TimeoutError: An async call took longer than timeout.
        AgentOutputError: The answer does not fit the schema.
        Exception: Whatever the agent raised.
    """
    if stats is not None:
        stats.calls[method] += 1
    out = getattr(agent, method)(*args)
    if inspect.isawaitable(out):
        out = await (asyncio.wait_for(out, timeout) if timeout else out)
    if isinstance(out, schema):
        return out
    try:
        if isinstance(out, BaseModel):
            out = out.model_dump()
        return schema.model_validate(out)
    except ValidationError as exc:
        raise AgentOutputError(f"{method} returned {out!r}: {exc}") from exc


def run_sync(coro: Coroutine[Any, Any, T]) -> T:
    """Run a coroutine from synchronous code (refusing inside a running event loop)."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(coro)
    coro.close()
    raise RuntimeError(
        "called the synchronous keyword-tree API inside an event loop; use the a-prefixed "
        "async method (asearch, adescend, acreate_keyword, acreate_info, areorganize)"
    )
