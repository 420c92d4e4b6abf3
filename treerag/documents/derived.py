"""Keep the stores derived from chunks (keyword tree, knowledge graph) in step with them.

The chunk collection is the source of truth. Two stores are derived from it with no model:
the keyword tree links each chunk as an info under its file's keyword and its heading or
record title, and the graph's passage-entity index links each chunk to the entities it names
(`treerag.knowledge_graph.passage_graph`); an extracted or imported entity graph (`kg build`,
`kg import`) links entities to chunks too.

Every write (ingest, upload, `docs rm`, `ingest --prune`, `docs rebuild`) ends with one
`reconcile`: the chunk ids in the collection against the chunk ids each store holds, what a
store misses is added, what is gone is dropped. So a write that was interrupted (a killed
process, a full disk) or that ran beside another one is repaired by the next write, and
`lag` tells `doctor` and `docs list` what a store misses until then. A store that cannot
follow keeps a stale mark with the reason (in the documents manifest) until one does. A
store built by other rules than this release's (an upgrade: `documents.built_with`) is
built again by the next write, and `lag` says so until then.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Literal

from treerag.context import Context
from treerag.data_layout import damaged_sqlite, reconcile_lock_file
from treerag.documents import built_with
from treerag.documents.manifest import mark_stale, now_iso, read_manifest, update_manifest
from treerag.keyword_tree.locking import FileLock
from treerag.text import source_file

log = logging.getLogger(__name__)
Outcome = Literal["updated", "rebuilt", "stale", "absent"]
Notify = Callable[[str], None] | None
"""What became of a derived store: kept in step with the chunks, made again from all of them
(its rules changed, or its file was damaged), marked stale (it could not follow), or none."""
STORES = ("keyword_tree", "knowledge_graph")
ROOT_NAME = "Documents"
"""The root keyword `treerag demo` and `kw derive` put documents under."""
_CHUNK_ID = re.compile(r"[0-9a-f]{32}")
"""A chunk's id (`ingest.splitting.chunk_id`): the keyword tree's info made from it has it too."""
FETCH_BATCH = 500


def live_chunks(ctx: Context) -> dict[str, set[str]]:
    """The chunk ids the collection holds, by file (empty when there is no collection)."""
    store = _store(ctx)
    out: dict[str, set[str]] = {}
    if store.exists():
        for source, ids in store.ids_by_source().items():
            out.setdefault(source_file(source), set()).update(ids)
    return out


def reconcile(
    ctx: Context,
    removed: set[str] | frozenset[str] = frozenset(),
    rows: Sequence[dict[str, Any]] = (),
    base_dir: str | None = None,
    renew: bool = True,
    notify: Callable[[str], None] | None = None,
) -> dict[str, Outcome]:
    """Bring both derived stores up to the chunk collection; say what became of each.

    One process at a time (`data_layout.reconcile_lock_file`, an flock the kernel drops when
    its holder dies): two writers (two `ingest` runs, an upload beside a `docs rm`) would each
    read the ids, and the one that read first could drop the other's new chunks as gone.

    Args:
        ctx: The settings (data dir, collection, stores dir).
        removed: Chunk ids the caller has just deleted from the collection, which may list
            them until its deletes are seen.
        rows: Chunk rows the caller holds (an ingest's new chunks): not fetched again.
        base_dir: The folder the keyword tree names new files relative to (default: the
            common folder of the files it takes in).
        renew: Build a store again from every chunk when older rules built it (it reads
            every chunk again: minutes for thousands). False (a page's upload or delete)
            only keeps it in step; `lag` goes on saying it was built by older rules.
        notify: Told, in a sentence, before a store is built again from every chunk.
    """
    with _reconciling(ctx):
        # The ids are read under the lock: a view from before another process's write would
        # drop that write's chunks from the stores as gone.
        live = {source: kept for source, ids in live_chunks(ctx).items() if (kept := ids - removed)}
        return _reconcile(ctx, live, rows, base_dir, renew, notify)


@contextmanager
def _reconciling(ctx: Context) -> Iterator[None]:
    """Hold the stores directory's reconcile lock for the block (waits for another holder)."""
    ctx.stores_path.mkdir(parents=True, exist_ok=True)
    lock = FileLock(str(reconcile_lock_file(ctx.stores_path)))
    try:
        with lock.hold():
            yield
    finally:
        lock.close()


def _reconcile(
    ctx: Context,
    live: dict[str, set[str]],
    rows: Sequence[dict[str, Any]],
    base_dir: str | None,
    renew: bool,
    notify: Notify,
) -> dict[str, Outcome]:
    """`reconcile` under its lock, with the collection's ids by file."""
    _date_unrecorded(ctx, set(live))
    ids = {i for chunk_ids in live.values() for i in chunk_ids}
    fetch = _Rows(ctx, rows)
    again = built_with.outdated(ctx) if renew else set()
    tree_renew, graph_renew = "keyword_tree" in again, "knowledge_graph" in again
    out: dict[str, Outcome] = {
        "keyword_tree": _guard(
            ctx, "keyword_tree", _reconcile_tree, live, ids, fetch, base_dir, tree_renew
        ),
        "knowledge_graph": _guard(
            ctx, "knowledge_graph", _reconcile_graph, ids, fetch, graph_renew, notify
        ),
    }
    built_with.record(ctx, {store for store in again if out[store] in ("updated", "rebuilt")})
    for store, outcome in out.items():
        if outcome != "stale" and stale(ctx).get(store):
            mark_stale(ctx, store, False)
    return out


@dataclass
class Lag:
    """What a derived store misses of the collection, and holds that the collection lost."""

    missing: int = 0
    extra: int = 0
    old_rules: bool = False
    """Whether the store was built by other rules than this release's (`built_with`)."""
    unreadable: str = ""
    """Why the store's file cannot be read (damaged), "" when it can."""

    @property
    def behind(self) -> bool:
        """Whether the store is out of step with the chunks."""
        return bool(self.missing or self.extra or self.old_rules or self.unreadable)


def lag(ctx: Context, live: dict[str, set[str]] | None = None) -> dict[str, Lag]:
    """How far each existing derived store is from the chunk collection (read only)."""
    from treerag.retrievers.keyword_tree import tree_in_use
    from treerag.retrievers.sources import passage_graph_in_use

    live = live_chunks(ctx) if live is None else live
    ids = {i for chunk_ids in live.values() for i in chunk_ids}
    # A store that does not exist while chunks do was never written: it misses them all.
    with tree_in_use(ctx) as tree:
        held: dict[str, set[str] | str] = {
            "keyword_tree": _tree_chunks(tree) if tree is not None else set()
        }
    try:
        with passage_graph_in_use(ctx) as graph:
            held["knowledge_graph"] = graph.passage_ids() if graph is not None else set()
    except Exception as exc:
        if not damaged_sqlite(exc):
            raise
        held["knowledge_graph"] = f"{type(exc).__name__}: {exc}"
    # A store holding nothing has nothing the old rules made.
    old = built_with.outdated(ctx)
    return {
        store: Lag(unreadable=h)
        if isinstance(h, str)
        else Lag(len(ids - h), len(h - ids), bool(h) and store in old)
        for store, h in held.items()
    }


def stale(ctx: Context) -> dict[str, bool]:
    """Which derived stores are marked as unable to follow the chunks."""
    return dict(read_manifest(ctx)["stale"])


def _date_unrecorded(ctx: Context, files: set[str]) -> None:
    """Give a stored file that no write recorded (one killed before its record) a time."""
    missing = files - set(read_manifest(ctx)["documents"])
    if not missing:
        return
    when = now_iso()

    def change(data: dict[str, Any]) -> None:
        for source in missing:
            data["documents"].setdefault(source, {"ingested_at": when})

    try:
        update_manifest(ctx, change)
    except OSError as exc:  # a full disk: the next write dates them
        log.warning("could not record when %d files went in: %s", len(missing), exc)


def _store(ctx: Context) -> Any:
    from treerag.models import get_embeddings
    from treerag.retrievers.chunk_store import ChunkStore

    return ChunkStore(ctx, get_embeddings(ctx))


class _Rows:
    """Chunk rows by id: the caller's first, the rest fetched from the collection in batches."""

    def __init__(self, ctx: Context, rows: Sequence[dict[str, Any]]):
        self.ctx = ctx
        self.known = {r["id"]: r for r in rows}

    def get(self, ids: Sequence[str]) -> list[dict[str, Any]]:
        wanted = [i for i in ids if i not in self.known]
        if wanted:
            store = _store(self.ctx)
            for at in range(0, len(wanted), FETCH_BATCH):
                self.known.update((r["id"], r) for r in store.get(wanted[at : at + FETCH_BATCH]))
        return [self.known[i] for i in ids if i in self.known]


def _guard(ctx: Context, store: str, step: Any, *args: Any) -> Outcome:
    try:
        return step(ctx, *args)
    except Exception as exc:  # the chunks are the truth; a derived store that cannot follow waits
        log.warning(
            "could not update the %s (%s: %s); marked stale", store, type(exc).__name__, exc
        )
        mark_stale(ctx, store, reason=f"{type(exc).__name__}: {exc}")
        return "stale"


def _tree_chunks(tree: Any) -> set[str]:
    """The chunk ids the keyword tree holds infos of (an info made from a chunk has its id)."""
    return {i for i in tree.index.info_offsets if _CHUNK_ID.fullmatch(i)}


def _reconcile_tree(
    ctx: Context,
    live: dict[str, set[str]],
    ids: set[str],
    rows: _Rows,
    base_dir: str | None,
    renew: bool,
) -> Outcome:
    from treerag.retrievers.keyword_tree import tree_in_use

    with tree_in_use(ctx, create=bool(ids)) as tree:
        if tree is None:
            return "absent"
        # Keywords found by the forms older rules wrote: today's forms, nothing else.
        renormalized = renew and tree.renormalize().operation_id is not None
        followed = _follow_tree(tree, live, ids, rows, base_dir)
        return "rebuilt" if renormalized else followed


def _follow_tree(
    tree: Any, live: dict[str, set[str]], ids: set[str], rows: _Rows, base_dir: str | None
) -> Outcome:
    from treerag.retrievers.keyword_tree import common_folder, tree_records

    held = _tree_chunks(tree)
    gone = held - ids
    if gone:
        emptied = {tree.get_info(i).source for i in gone} - set(live)
        tree.forget_chunks(gone, emptied)
    missing = sorted(ids - held)
    if missing:
        records = tree_records(rows.get(missing))
        base = base_dir if base_dir is not None else common_folder([r.source_path for r in records])
        tree.derive_from_chunks(records, root_name=ROOT_NAME, base_dir=base)
    return "updated"


def _reconcile_graph(
    ctx: Context, ids: set[str], rows: _Rows, renew: bool, notify: Notify
) -> Outcome:
    from treerag.retrievers.sources import set_passage_graph_aside

    try:
        gone, rebuilt = _follow_graph(ctx, ids, rows, renew, notify)
    except Exception as exc:
        if not damaged_sqlite(exc):
            raise
        # Derived from the chunks: a damaged file is kept aside and the graph made again.
        set_passage_graph_aside(ctx)
        gone, _ = _follow_graph(ctx, ids, rows, True, notify)
        rebuilt = True
    world = _forget_in_world(ctx, gone or set())
    if gone is None:
        return "updated" if world else "absent"
    return "rebuilt" if rebuilt else "updated"


def _follow_graph(
    ctx: Context, ids: set[str], rows: _Rows, renew: bool, notify: Notify
) -> tuple[set[str] | None, bool]:
    """Bring the passage graph up to `ids`.

    Returns the chunks it dropped (None: there is no graph), and whether it was built again
    from every chunk (older rules had built what it held).
    """
    from treerag.retrievers.sources import passage_graph_in_use

    with passage_graph_in_use(ctx, create=bool(ids)) as graph:
        if graph is None:
            return None, False
        held = graph.passage_ids()
        gone = held - ids
        if renew:  # names read by older rules, or a new file: every chunk, one transaction
            if held and notify:
                notify(
                    f"the knowledge graph is built again from all {len(ids):,} chunks: this "
                    "release reads names otherwise (about 10 s per 1,000 chunks on two cores)"
                )
            graph.rebuild(_passages(rows.get(sorted(ids))))
        else:
            graph.remove(gone)
            # One add: each add scans the stored passages for the names it brings.
            graph.add(_passages(rows.get(sorted(ids - held))))
        graph.reset = False  # every stored chunk is in it again
        return gone, renew and bool(held)


def _forget_in_world(ctx: Context, gone: set[str]) -> bool:
    """Drop chunks the collection lost from an extracted or imported entity graph.

    Only chunks the passage graph held (ingested chunks): an imported graph's own text units
    need not be in the collection. False when there is no entity graph.
    """
    from treerag.retrievers.knowledge_graph import graph_dir, load_world

    world = load_world(ctx)
    if world is None:
        return False
    if gone:
        units, entities = world.forget_chunks(gone)
        if units or entities:
            world.save(graph_dir(ctx))
    return True


def _passages(rows: Iterable[dict[str, Any]]) -> list[Any]:
    from treerag.knowledge_graph.passage_graph import Passage

    return [Passage(r["id"], r["text"], _title(r), r["source"]) for r in rows]


def _title(row: dict[str, Any]) -> str:
    """A chunk's title for the graph: its record title, its last heading or its file's name."""
    headings = (row.get("meta") or {}).get("heading_path") or ()
    if headings:
        return str(headings[-1])
    return str(row.get("title") or "")
