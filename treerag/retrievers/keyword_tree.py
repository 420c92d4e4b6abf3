"""Keyword-tree retrieval for the rag graph: exact lookup first, agent descent otherwise."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any

from treerag import data_layout
from treerag.bounded import BoundedCache
from treerag.context import Context
from treerag.text import RECORD_MARK, source_file

MAX_INFOS = 5
MAX_INFO_CHARS = 600
_trees: BoundedCache[str, Any] = BoundedCache("keyword trees")
"""Open trees, one per tenant and collection; an evicted one writes its caches and closes."""


def tree_dir(ctx: Context) -> Path:
    """Where the keyword tree of a data directory lives."""
    return data_layout.keyword_tree_dir(ctx.stores_path)


def _tree_key(ctx: Context, create: bool) -> str | None:
    """The table key of the data directory's tree; None when there is none to open."""
    directory = tree_dir(ctx)
    exists = data_layout.has_keyword_tree(directory)
    if not create and not exists:
        return None
    key = str(directory.resolve())
    if not exists:  # a tree removed from disk is not served from memory (nor written back)
        _trees.pop(key, close=False)
    return key


def _opener(ctx: Context) -> Any:
    from treerag.keyword_tree import KeywordTree

    return lambda: KeywordTree(tree_dir(ctx))


def open_tree(ctx: Context, create: bool = False) -> Any | None:
    """Open the data directory's keyword tree once per process; None if there is none.

    Not leased: other tenants can push it out of the table (and close it) while it is used.
    A call that may run beside other tenants (a server's) holds `tree_in_use` instead.
    """
    key = _tree_key(ctx, create)
    return None if key is None else _trees.get_or_open(key, _opener(ctx), ctx.open_stores)


@contextlib.contextmanager
def tree_in_use(ctx: Context, create: bool = False) -> Iterator[Any | None]:
    """Lease the data directory's keyword tree for the block (None if there is none).

    The tree stays open until the block ends, however many other tenants open theirs.
    """
    key = _tree_key(ctx, create)
    if key is None:
        yield None
        return
    with _trees.lease(key, _opener(ctx), ctx.open_stores) as tree:
        yield tree


async def keyword_context(ctx: Context, question: str, agent: Any) -> dict[str, Any] | None:
    """Search the tree (seed 03 §5.1: exact hit, then agent descent) and describe the result.

    Returns a context note: status, the path of names, the number of agent calls and of
    multi-level jumps, the linked infos (their text joins the answer context), the
    candidates on a miss, and the reason; None when there is no tree.

    The tree lives in files (opening it resolves paths and creates folders, lookups read
    infos), so those steps run in worker threads: `langgraph dev` refuses blocking calls on
    its event loop. The agent's calls stay on the loop.
    """
    lease = tree_in_use(ctx)
    tree = await asyncio.to_thread(lease.__enter__)
    try:
        return None if tree is None else await _search(tree, question, agent)
    finally:  # ending the lease may close the tree (files): off the loop too
        await asyncio.to_thread(lease.__exit__, None, None, None)


async def _search(tree: Any, question: str, agent: Any) -> dict[str, Any]:
    """Exact lookup of the question's terms, else the agent's descent (see keyword_context)."""
    by_terms = await asyncio.to_thread(_match_terms, tree, question)
    if by_terms is not None:
        return by_terms
    result = await tree.asearch(question, agent=agent)
    trace = getattr(result, "trace", None)
    steps = trace.steps if trace else []
    note = _note(result.kind, getattr(result, "via", ""), getattr(result, "reason", "") or "")
    note["error"] = getattr(result, "error", None) or ""
    note["agent_calls"] = trace.agent_calls if trace else 0
    note["jumps"] = sum(1 for s in steps if (s.decision.get("jump_depth") or 1) > 1)
    if result.kind == "matched":
        await asyncio.to_thread(_fill_match, tree, note, result.node)
    else:
        note["candidates"] = [n.name for n in result.candidates]
        if result.kind == "not_found" and result.suggested_parent is not None:
            note["path"] = [result.suggested_parent.name]
    return note


def _note(status: str, via: str, reason: str) -> dict[str, Any]:
    return {
        "kind": "keyword",
        "status": status,
        "via": via,
        "reason": reason,
        "agent_calls": 0,
        "jumps": 0,
        "path": [],
        "infos": [],
        "candidates": [],
        "text": "",
    }


def _match_terms(tree: Any, question: str) -> dict[str, Any] | None:
    """Exact lookup of the question's terms: the most specific keyword named in it wins."""
    ids = tree.lookup_terms(question)
    if not ids:
        return None
    nodes = sorted((tree.get_keyword(i) for i in ids), key=lambda n: (-len(n.name), -n.level))
    note = _note("matched", "terms", f"the question names {nodes[0].name!r}")
    note["candidates"] = [n.name for n in nodes[1:]]
    _fill_match(tree, note, nodes[0])
    return note


def _fill_match(tree: Any, note: dict[str, Any], node: Any) -> None:
    """Record the path and the infos linked to the keyword and its children (up to 5)."""
    note["path"] = [n.name for n in tree.get_path(node.id)]
    hits = list(tree.get_infos_of_keyword(node.id, size=MAX_INFOS).items)
    for child in tree.get_children(node.id):  # a heading's sections hold most of its text
        if len(hits) >= MAX_INFOS:
            break
        hits.extend(tree.get_infos_of_keyword(child.id, size=MAX_INFOS).items)
    note["infos"] = [
        {"id": h.info.id, "source": h.info.source, "text": h.info.content[:MAX_INFO_CHARS]}
        for h in hits[:MAX_INFOS]
    ]
    note["text"] = "\n".join(i["text"] for i in note["infos"])


def tree_records(rows: Iterable[dict[str, Any]]) -> list[Any]:
    """Chunk rows as the deriver takes them: under the file, then its headings or record title."""
    from treerag.keyword_tree import ChunkRecord

    return [
        ChunkRecord(
            source_path=source_file(r["source"]),
            heading_path=_headings(r),
            chunk_id=r["id"],
            text=r["text"],
        )
        for r in rows
    ]


def _headings(row: dict[str, Any]) -> tuple[str, ...]:
    """A markdown chunk's heading path; a JSON record's title (records are `file#id`)."""
    headings = tuple((row.get("meta") or {}).get("heading_path") or ())
    if not headings and RECORD_MARK in row["source"] and row.get("title"):
        return (str(row["title"]),)
    return headings


def common_folder(paths: Sequence[str]) -> str | None:
    """The deepest folder holding every path (the tree names files from there)."""
    import os

    if not paths:
        return None
    base = os.path.commonpath(list(paths))
    return str(Path(base).parent) if Path(base).is_file() else base


def derive_from_collection(ctx: Context, root_name: str = "Documents") -> Any:
    """Build folder → file → heading keywords from the ingested chunks, chunks linked as infos.

    Running it again after more ingestion adds what is new; unchanged chunks change nothing.
    """
    from treerag.models import get_embeddings
    from treerag.retrievers.chunk_store import ChunkStore

    store = ChunkStore(ctx, get_embeddings(ctx))
    store.require_data()
    records = tree_records(store.all_rows())
    base = common_folder([r.source_path for r in records])
    with tree_in_use(ctx, create=True) as tree:
        assert tree is not None  # create=True always opens one
        return tree.derive_from_chunks(records, root_name=root_name, base_dir=base)
