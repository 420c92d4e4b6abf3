"""Keep the stores derived from chunks (keyword tree, knowledge graph) in step with them.

A document's chunks feed two derived stores, both updated by every ingest (CLI, upload,
`treerag eval`) with no model: the keyword tree links each chunk as an info under its file's
keyword and its heading or record title, and the graph's passage-entity index links each
chunk to the entities it names (`treerag.knowledge_graph.passage_graph`); an extracted or
imported entity graph (`kg build`, `kg import`) links entities to chunks too. When chunks
go, what was derived from them goes too. When a store cannot follow, it is marked stale with
the reason, and `rebuild` (CLI `treerag docs rebuild`, `POST /ui/api/docs/rebuild`) brings
it back in step later. An ingest marks both stores stale before it writes and clears the
marks once they have followed, so a process killed midway leaves them marked, never
silently behind.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Sequence
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


def begin(ctx: Context) -> None:
    """Mark both stores stale before chunks change: cleared by `follow` once they are in step."""
    for store in ("keyword_tree", "knowledge_graph"):
        if not stale(ctx).get(store):
            mark_stale(ctx, store, reason="an ingest was writing chunks and did not finish")


def follow(
    ctx: Context,
    added: Sequence[dict[str, Any]],
    removed: Iterable[str],
    removed_files: Iterable[str],
    base_dir: str | None,
) -> dict[str, Outcome]:
    """Bring both stores in step with an ingest: derive what was added, drop what was removed.

    Creates the keyword tree and the passage-entity graph when the data directory has none.
    Clears the stale mark `begin` set on each store that followed; one that could not keeps a
    mark with the reason.
    """
    ids, files = set(removed), set(removed_files)
    out = {
        "keyword_tree": _guard(ctx, "keyword_tree", _follow_tree, added, ids, files, base_dir),
        "knowledge_graph": _guard(ctx, "knowledge_graph", _follow_graph, added, ids),
    }
    for store, outcome in out.items():
        if outcome != "stale":
            mark_stale(ctx, store, False)
    return out


def _follow_tree(
    ctx: Context,
    added: Sequence[dict[str, Any]],
    ids: set[str],
    files: set[str],
    base_dir: str | None,
) -> Outcome:
    from treerag.retrievers.keyword_tree import open_tree, tree_records

    tree = open_tree(ctx, create=bool(added))
    if tree is None:
        return "absent"
    if ids:
        tree.forget_chunks(ids, files)
    if added:
        tree.derive_from_chunks(tree_records(added), root_name=ROOT_NAME, base_dir=base_dir)
    return "updated"


def _follow_graph(ctx: Context, added: Sequence[dict[str, Any]], ids: set[str]) -> Outcome:
    from treerag.retrievers.sources import open_passage_graph

    graph = open_passage_graph(ctx, create=bool(added))
    if graph is not None:
        graph.remove(ids - {r["id"] for r in added})
        graph.add(_passages(added))
    _forget_in_world(ctx, ids)
    if graph is not None and graph.reset:
        return "stale"  # emptied on opening (an older format): only a rebuild fills it again
    return "updated" if graph is not None else "absent"


def _passages(rows: Iterable[dict[str, Any]]) -> list[Any]:
    from treerag.knowledge_graph.passage_graph import Passage

    return [Passage(r["id"], r["text"], _title(r), r["source"]) for r in rows]


def _title(row: dict[str, Any]) -> str:
    """A chunk's title for the graph: its record title, its last heading or its file's name."""
    headings = (row.get("meta") or {}).get("heading_path") or ()
    if headings:
        return str(headings[-1])
    return str(row.get("title") or "")


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
    except Exception as exc:  # the chunks are the truth; a derived store that cannot follow waits
        log.exception("could not update the %s; marked stale", store)
        mark_stale(ctx, store, reason=f"{type(exc).__name__}: {exc}")
        return "stale"


def _forget_in_tree(ctx: Context, ids: set[str], files: set[str]) -> Outcome:
    from treerag.retrievers.keyword_tree import open_tree

    tree = open_tree(ctx)
    if tree is None:
        return "absent"
    tree.forget_chunks(ids, files)
    return "updated"


def _forget_in_graph(ctx: Context, ids: set[str]) -> Outcome:
    from treerag.retrievers.sources import open_passage_graph

    graph = open_passage_graph(ctx)
    if graph is not None:
        graph.remove(ids)
    world = _forget_in_world(ctx, ids)
    return "updated" if graph is not None or world else "absent"


def _forget_in_world(ctx: Context, ids: set[str]) -> bool:
    """Drop deleted chunks from an extracted or imported entity graph; False when none."""
    from treerag.retrievers.knowledge_graph import graph_dir, load_world

    world = load_world(ctx)
    if world is None:
        return False
    if ids:
        units, entities = world.forget_chunks(ids)
        if units or entities:
            world.save(graph_dir(ctx))
    return True


def _sweep_tree(ctx: Context, live: dict[str, set[str]], ids: set[str]) -> Outcome:
    from treerag.keyword_tree.derive import info_id_of
    from treerag.models import get_embeddings
    from treerag.retrievers.chunk_store import ChunkStore
    from treerag.retrievers.keyword_tree import common_folder, open_tree, tree_records

    tree = open_tree(ctx, create=bool(ids))
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
        records = tree_records(ChunkStore(ctx, get_embeddings(ctx)).get(missing))
        base = common_folder([r.source_path for r in records])
        tree.derive_from_chunks(records, root_name=ROOT_NAME, base_dir=base)
    return "updated"


def _sweep_graph(ctx: Context, ids: set[str]) -> Outcome:
    from treerag.models import get_embeddings
    from treerag.retrievers.chunk_store import ChunkStore
    from treerag.retrievers.knowledge_graph import graph_dir, load_world
    from treerag.retrievers.sources import open_passage_graph

    graph = open_passage_graph(ctx, create=bool(ids))
    if graph is not None:
        held = graph.passage_ids()
        graph.remove(held - ids)
        missing = sorted(ids - held)
        store = ChunkStore(ctx, get_embeddings(ctx))
        # One add: each add scans the stored passages for the names it brings.
        graph.add(
            _passages(
                r for at in range(0, len(missing), 500) for r in store.get(missing[at : at + 500])
            )
        )
        graph.reset = False  # every stored chunk is in it again
    world = load_world(ctx)
    if world is None:
        return "updated" if graph is not None else "absent"
    linked = {u.id for u in world.chunks()}
    for entity in world.entities():
        linked.update(entity.chunk_ids)
    units, entities = world.forget_chunks(linked - ids)
    if units or entities:
        world.save(graph_dir(ctx))
    return "updated"
