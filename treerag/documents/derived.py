"""Keep the stores derived from chunks (keyword tree, knowledge graph) in step with them.

A document's chunks feed two derived stores: `kw derive` links each chunk as an info under its
file's keyword, and the graph links entities to the chunks they were extracted from. When
chunks go, what was derived from them goes too; when that fails, the store is marked stale
and `rebuild` (CLI `treerag docs rebuild`, `POST /ui/api/docs/rebuild`) sweeps it later.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any, Literal

from treerag.context import Context
from treerag.documents.manifest import mark_stale, read_manifest

log = logging.getLogger(__name__)
Outcome = Literal["updated", "stale", "absent"]
ROOT_NAME = "Documents"
"""The root keyword `treerag demo` and `kw derive` put documents under."""


def forget(ctx: Context, chunk_ids: Iterable[str], sources: Iterable[str]) -> dict[str, Outcome]:
    """Remove what the derived stores hold of deleted chunks; say what became of each store."""
    ids, files = set(chunk_ids), set(sources)
    return {
        "keyword_tree": _guard(ctx, "keyword_tree", _forget_in_tree, ids, files),
        "knowledge_graph": _guard(ctx, "knowledge_graph", _forget_in_graph, ids),
    }


def add_to_tree(ctx: Context, rows: Sequence[dict[str, Any]], base_dir: str | None) -> Outcome:
    """Derive keywords and infos for newly ingested chunk rows (when a keyword tree exists)."""
    return _guard(ctx, "keyword_tree", _derive_rows, rows, base_dir)


def rebuild(ctx: Context, live: dict[str, set[str]]) -> dict[str, Outcome]:
    """Make both derived stores follow the chunks now stored (`live`: source → chunk ids).

    Infos and graph links of chunks no longer stored are removed; chunks the keyword tree
    lacks are derived into it. Clears the stale marks of the stores brought up to date.
    """
    ids = {i for chunk_ids in live.values() for i in chunk_ids}
    out: dict[str, Outcome] = {
        "keyword_tree": _guard(ctx, "keyword_tree", _sweep_tree, live, ids),
        "knowledge_graph": _guard(ctx, "knowledge_graph", _sweep_graph, ids),
    }
    for store, outcome in out.items():
        if outcome != "stale":
            mark_stale(ctx, store, False)
    return out


def stale(ctx: Context) -> dict[str, bool]:
    """Which derived stores are marked as lagging behind the chunks."""
    return dict(read_manifest(ctx)["stale"])


def _guard(ctx: Context, store: str, step: Any, *args: Any) -> Outcome:
    try:
        return step(ctx, *args)
    except Exception:  # the chunks are the truth; a derived store that cannot follow waits
        log.exception("could not update the %s; marked stale", store)
        mark_stale(ctx, store)
        return "stale"


def _forget_in_tree(ctx: Context, ids: set[str], files: set[str]) -> Outcome:
    from treerag.retrievers.keyword_tree import open_tree

    tree = open_tree(ctx)
    if tree is None:
        return "absent"
    tree.forget_chunks(ids, files)
    return "updated"


def _forget_in_graph(ctx: Context, ids: set[str]) -> Outcome:
    from treerag.retrievers.knowledge_graph import graph_dir, load_world

    world = load_world(ctx)
    if world is None:
        return "absent"
    units, entities = world.forget_chunks(ids)
    if units or entities:
        world.save(graph_dir(ctx))
    return "updated"


def _records(rows: Iterable[dict[str, Any]]) -> list[Any]:
    from treerag.keyword_tree import ChunkRecord

    return [
        ChunkRecord(
            source_path=r["source"].split("#", 1)[0],
            heading_path=tuple((r.get("meta") or {}).get("heading_path") or ()),
            chunk_id=r["id"],
            text=r["text"],
        )
        for r in rows
    ]


def _derive_rows(ctx: Context, rows: Sequence[dict[str, Any]], base_dir: str | None) -> Outcome:
    from treerag.retrievers.keyword_tree import open_tree

    tree = open_tree(ctx)
    if tree is None:
        return "absent"
    if rows:
        tree.derive_from_chunks(_records(rows), root_name=ROOT_NAME, base_dir=base_dir)
    return "updated"


def _sweep_tree(ctx: Context, live: dict[str, set[str]], ids: set[str]) -> Outcome:
    from treerag.keyword_tree.derive import info_id_of
    from treerag.models import get_embeddings
    from treerag.retrievers.chunk_store import ChunkStore
    from treerag.retrievers.keyword_tree import open_tree

    tree = open_tree(ctx)
    if tree is None:
        return "absent"
    derived: dict[str, str] = {}  # chunk id → source file, for infos made from chunks
    for info_id in list(tree.index.info_offsets):
        info = tree.get_info(info_id)
        chunk_id = (info.metadata or {}).get("chunk_id")
        if chunk_id:
            derived[chunk_id] = info.source
    gone = [c for c in derived if c not in ids]
    live_files = {s.split("#", 1)[0] for s in live}
    tree.forget_chunks(gone, {derived[c] for c in gone} - live_files)
    missing = sorted(i for i in ids if info_id_of(i) not in tree.index.info_offsets)
    if missing:
        rows = ChunkStore(ctx, get_embeddings(ctx)).get(missing)
        files = [r["source"].split("#", 1)[0] for r in rows]
        base = os.path.commonpath(files) if files else None
        if base and Path(base).is_file():
            base = str(Path(base).parent)
        tree.derive_from_chunks(_records(rows), root_name=ROOT_NAME, base_dir=base)
    return "updated"


def _sweep_graph(ctx: Context, ids: set[str]) -> Outcome:
    from treerag.retrievers.knowledge_graph import graph_dir, load_world

    world = load_world(ctx)
    if world is None:
        return "absent"
    linked = {u.id for u in world.chunks()}
    for entity in world.entities():
        linked.update(entity.chunk_ids)
    units, entities = world.forget_chunks(linked - ids)
    if units or entities:
        world.save(graph_dir(ctx))
    return "updated"
