"""Compact delimiter-separated context tables filled up to a token budget (GraphRAG style)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from treerag.knowledge_graph.text import clean_cell, count_tokens, truncate_tokens


@dataclass(frozen=True)
class TableSection:
    """One rendered context table and what went into it."""

    name: str
    text: str
    """"-----Name-----", the header and the rows; empty when no row fit (or there was none)."""
    ids: list[str] = field(default_factory=list)
    """Ids of the records whose rows are in the table, in order."""
    tokens: int = 0
    budget: int = 0
    dropped: int = 0
    """Candidate rows left out for lack of budget."""


def render_table(
    name: str,
    header: Sequence[str],
    rows: Iterable[tuple[str, Sequence[object]]],
    budget: int,
    *,
    delimiter: str = "|",
    truncate_last: bool = False,
) -> TableSection:
    """Render rows (record id, cells) in order until the next one would exceed the budget.

    With ``truncate_last`` the first row that does not fit has its last cell cut to the
    remaining budget instead of being dropped (used for long text units); either way no
    later row is added, so the table keeps the ranking's order.
    """
    title = f"-----{name}-----"
    head = delimiter.join(header)
    used = count_tokens(title) + count_tokens(head)
    if used > budget:
        return TableSection(name, "", [], 0, budget, sum(1 for _ in rows))
    lines, ids, dropped, full = [title, head], [], 0, False
    for ident, cells in rows:
        if full:
            dropped += 1
            continue
        line = delimiter.join(clean_cell(c, delimiter) for c in cells)
        cost = count_tokens(line)
        if used + cost <= budget:
            lines.append(line)
            ids.append(ident)
            used += cost
            continue
        full = True
        if truncate_last and cells:
            prefix = delimiter.join(clean_cell(c, delimiter) for c in cells[:-1])
            room = budget - used - count_tokens(prefix + delimiter)
            tail = truncate_tokens(clean_cell(cells[-1], delimiter), room)
            cut = f"{prefix}{delimiter}{tail}" if prefix else tail
            if room > 0 and tail and used + count_tokens(cut) <= budget:
                lines.append(cut)
                ids.append(ident)
                used += count_tokens(cut)
                continue
        dropped += 1
    if not ids:
        return TableSection(name, "", [], 0, budget, dropped)
    return TableSection(name, "\n".join(lines), ids, used, budget, dropped)
