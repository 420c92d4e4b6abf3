"""The `local` preset: the local model where it beats the heuristics, the heuristics elsewhere.

Role by role (figures in README, "A real LLM with no API key"):
- judge and answer: the local model (it reads the passage; the offline judge only counts
  overlapping terms, and the offline answer can only quote sentences);
- keyword-tree agent and knowledge-graph extraction: the offline heuristics. Extraction is one
  structured call per chunk, so building a graph of a few hundred chunks with a CPU-only model
  takes hours; the keyword descent adds calls to every question for a step that the exact
  lookup and the lexical agent already take;
- condensing a chat message: the offline rule (the previous turn's names are appended when
  the message leans on it), which costs no call before the tree even starts.
"""

from __future__ import annotations

from typing import Any

from langchain_core.language_models import BaseChatModel

from treerag.reasoning.base import Reasoner
from treerag.reasoning.llm import LLMReasoner


class LocalReasoner(LLMReasoner):
    """An LLMReasoner that hands the roles the small model does worse or too slowly offline."""

    def __init__(self, model: BaseChatModel, offline: Reasoner, **kwargs: Any):
        """Wrap the local chat model; `offline` takes the keyword, extraction and condense roles."""
        super().__init__(model, **kwargs)
        self._offline = offline

    def keyword_agent(self) -> Any:
        """The lexical keyword agent (see the module docstring for why)."""
        return self._offline.keyword_agent()

    def extractor(self) -> Any:
        """The heuristic graph extractor (see the module docstring for why)."""
        return self._offline.extractor()

    async def condense(self, history: list[tuple[str, str]], message: str) -> str:
        """The offline condensing rule (see the module docstring for why)."""
        return await self._offline.condense(history, message)
