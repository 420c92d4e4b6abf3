"""Reasoners: the LLM roles (judge, follow-up, answer) behind one protocol; offline or LLM."""

from __future__ import annotations

from treerag.context import Context
from treerag.reasoning.base import EvidenceItem, Judgement, JudgeVerdict, Reasoner

_offline: dict[int, Reasoner] = {}


def get_reasoner(ctx: Context) -> Reasoner:
    """Return the LLM reasoner when a chat model is configured, else the offline one."""
    from treerag.models import get_chat_model

    if ctx.chat_model.partition(":")[0] == "local":
        from treerag.reasoning.local import LocalReasoner

        return LocalReasoner(ctx, offline_reasoner(ctx))
    model = get_chat_model(ctx)
    if model is None:
        return offline_reasoner(ctx)
    from treerag.reasoning.llm import LLMReasoner

    return LLMReasoner(model, ctx.llm_timeout_s, ctx.llm_retries, ctx.prompt_overrides)


def offline_reasoner(ctx: Context) -> Reasoner:
    """The offline reasoner of the run's settings (one per embedder, shared)."""
    from treerag.models import similarity_embeddings
    from treerag.reasoning.offline import OfflineReasoner

    # One instance per embedder, so its embedding memo serves every judge of a tree.
    embeddings = similarity_embeddings(ctx)
    if id(embeddings) not in _offline:
        _offline[id(embeddings)] = OfflineReasoner(embeddings)
    return _offline[id(embeddings)]


__all__ = [
    "EvidenceItem",
    "JudgeVerdict",
    "Judgement",
    "Reasoner",
    "get_reasoner",
    "offline_reasoner",
]
