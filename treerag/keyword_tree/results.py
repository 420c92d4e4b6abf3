"""Results of searches, descents and writes."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from treerag.keyword_tree.models import Info, KeywordNode, Page


@dataclass(slots=True)
class DescentStep:
    """One round of agent descent."""

    path: list[str]
    """Keyword ids walked before this round."""
    shown: int
    """How many keywords the agent was shown."""
    depth: int
    """How many levels were expanded."""
    decision: dict[str, Any]
    """The agent's answer (BranchDecision fields), or the error that replaced it."""
    cached: bool = False
    """Whether the answer came from the agent:pick cache."""


@dataclass(slots=True)
class DescentTrace:
    """What a descent did: rounds, agent calls, and the error that ended it, if any."""

    steps: list[DescentStep] = field(default_factory=list)
    agent_calls: int = 0
    cached_calls: int = 0
    error: str | None = None


Via = Literal["exact", "exact_cache", "descend_cache", "descent", "disambiguation", "none"]


@dataclass(slots=True)
class Matched:
    """The query leads to one keyword."""

    node: KeywordNode
    path: list[KeywordNode]
    """From the root down to node."""
    infos: Page | None = None
    """Infos under node (search only)."""
    via: Via = "exact"
    trace: DescentTrace | None = None
    reason: str = ""
    kind: Literal["matched"] = "matched"


@dataclass(slots=True)
class Ambiguous:
    """The query fits several keywords equally."""

    candidates: list[KeywordNode]
    reason: str = ""
    via: Via = "exact"
    trace: DescentTrace | None = None
    kind: Literal["ambiguous"] = "ambiguous"


@dataclass(slots=True)
class NotFound:
    """No keyword fits; where one could go, or what was on screen when the agent failed."""

    suggested_parent: KeywordNode | None = None
    """Where a keyword for the query belongs (None: at the top)."""
    suggested_name: str | None = None
    candidates: list[KeywordNode] = field(default_factory=list)
    """The candidates the descent was looking at when it stopped."""
    reason: str = ""
    error: str | None = None
    """Set when the agent failed (timeout, exception, unusable answer)."""
    via: Via = "descent"
    trace: DescentTrace | None = None
    kind: Literal["not_found"] = "not_found"


SearchResult = Matched | Ambiguous | NotFound


@dataclass(slots=True)
class WriteResult:
    """What a write did; operation_id feeds undo()."""

    operation_id: str | None
    """None when nothing had to change."""
    kind: str
    action: str = "done"
    """What happened, e.g. created, updated, alias_of, merged, unchanged."""
    node: KeywordNode | None = None
    info: Info | None = None
    ids: list[str] = field(default_factory=list)
    """Ids created or removed (batches, cascades)."""
    detail: dict[str, Any] = field(default_factory=dict)

    @property
    def version(self) -> int | None:
        """Return the new version of the written keyword or info."""
        if self.node is not None:
            return self.node.version
        return self.info.version if self.info is not None else None
