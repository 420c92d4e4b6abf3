"""Settings of one keyword tree store, each with a default."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal


@dataclass(slots=True)
class TreeConfig:
    """Tuning knobs; the defaults follow seed 03 where it names a value."""

    fsync: bool = True
    """fsync every write (seed 03 §3.2); off only for throwaway stores."""
    auto_refresh: bool = True
    """Before a read, pick up writes other processes committed (one fstat when idle)."""
    view_max_depth: int = 3
    """Levels of the candidate subtree shown to the agent per round (seed 03 §4.3: 2–3)."""
    view_max_nodes: int = 120
    """Shrink the view one level at a time while it shows more nodes than this (down to 1).

    About 20 prompt tokens per node: 120 nodes keep a round near 2-3k tokens, which lets
    a tree with up to ~10 children per keyword show two levels at once.
    """
    max_rounds: int = 12
    """Agent calls allowed in one descent before it gives up with NotFound."""
    agent_timeout: float | None = 30.0
    """Seconds an async agent call may take before the descent falls back (seed 03 §4.3 #7)."""
    exact_ttl: float = 3600.0
    """exact:{q_norm} → node ids (seed 03 §4.4: 1h)."""
    descend_ttl: float = 3600.0
    """descend:{q_norm} → path (seed 03 §4.4: 1h)."""
    agent_ttl: float = 6 * 3600.0
    """agent:pick:{hash(query, subtree fingerprint)} → decision (seed 03 §4.4: 6h)."""
    page_ttl: float = 600.0
    """kw:{id}:infos:p{n} → a page of infos."""
    checkpoint_every: int = 20_000
    """Write the index checkpoint on close after this many records changed since the last."""
    snapshot_every_bytes: int = 8 << 20
    """Take a snapshot once the change log grew this much since the last automatic one
    (seed 03 §3.2: 定期快照), or `snapshot_log_ratio` times the data files if that is more;
    0 turns automatic snapshots off. See upkeep.py."""
    snapshot_log_ratio: float = 1.0
    """A snapshot costs time in proportion to the store: waiting for this many store-sizes
    of change log keeps its cost per write constant as the store grows."""
    keep_auto_snapshots: int = 5
    """Automatic snapshots kept; older ones are deleted (snapshots taken by hand are kept)."""
    compact_growth: float = 2.0
    """Compact when the data files reach this many times their size after the last compaction
    (seed 03 §三: 定期 compaction); 0 turns automatic compaction off."""
    compact_min_bytes: int = 4 << 20
    """Data files smaller than this are never compacted automatically."""
    uncategorized_name: str = "未分类"
    """Root that receives keywords no parent was found for (seed 03 §5.2 #3)."""
    unplaced: Literal["uncategorized", "root"] = "uncategorized"
    """Where create_keyword puts a keyword when the agent finds no parent for it."""
    log_agent_decisions: bool = True
    """Append agent decisions taken by searches to logs/agent_log.jsonl."""
    max_link_candidates: int = 30
    """Candidates passed to the agent's link_info when auto-linking an info."""
