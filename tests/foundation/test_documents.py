"""Documents as one operation: list, ingest with events, delete with derived stores, prune."""

from __future__ import annotations

from pathlib import Path

import pytest

from treerag.context import Context
from treerag.documents import (
    UnknownDocumentError,
    delete_document,
    ingest_files,
    list_documents,
    rebuild,
)
from treerag.ingest.indexer import ingest
from treerag.knowledge_graph import Edge, Entity, HashEmbedder, TextUnit, World
from treerag.models import get_embeddings
from treerag.retrievers.chunk_store import ChunkStore
from treerag.retrievers.keyword_tree import derive_from_collection, open_tree
from treerag.retrievers.knowledge_graph import graph_dir, load_world

from .conftest import DOCS, write_corpus


@pytest.fixture
def library(tmp_path):
    """The small corpus ingested, its keyword tree derived, and a graph linked to its chunks."""
    root = write_corpus(tmp_path / "docs")
    ctx = Context(data_dir=str(tmp_path / "data"), collection="docs")
    ingest([root], ctx)
    derive_from_collection(ctx)
    by_file = _ids_by_file(ctx)
    harbour, cats = (
        sorted(by_file[_src(root, "harbour.md")]),
        sorted(by_file[_src(root, "cats.txt")]),
    )
    world = World(HashEmbedder(64))
    world.add_entities(
        [
            Entity(id="keldmarsh", name="Keldmarsh", chunk_ids=harbour),
            Entity(id="tallow", name="Tallow Beacon", chunk_ids=harbour + cats),
            Entity(id="cat", name="Ship's cat", chunk_ids=cats),
            Entity(id="voss", name="River Voss"),  # imported: linked to no chunk
        ]
    )
    world.add_edges([Edge(id="e1", source="tallow", target="keldmarsh", relation="stands in")])
    world.add_chunks([TextUnit(id=i, text="t") for i in harbour + cats])
    world.save(graph_dir(ctx))
    return root, ctx


def _src(root: Path, rel: str) -> str:
    return (root / rel).resolve().as_posix()


def _ids_by_file(ctx: Context) -> dict[str, set[str]]:
    out: dict[str, set[str]] = {}
    for source, ids in ChunkStore(ctx, get_embeddings(ctx)).ids_by_source().items():
        out.setdefault(source.split("#", 1)[0], set()).update(ids)
    return out


def _tree_sources(ctx: Context) -> tuple[set[str], set[str]]:
    """The sources of the tree's infos, and of its file keywords."""
    tree = open_tree(ctx)
    infos = {tree.get_info(i).source for i in tree.index.info_offsets}
    files = {
        (rec.get("metadata") or {}).get("source_path")
        for rec in tree.index.nodes.values()
        if (rec.get("metadata") or {}).get("kind") == "file"
    }
    return infos, files


def test_list_shows_each_file_with_chunks_time_and_skips(library, tmp_path):
    root, ctx = library
    bad = tmp_path / "bad.txt"
    bad.write_bytes(b"\x00\x01binary")
    ingest([bad], ctx)
    listing = list_documents(ctx)
    by_source = {d.source: d for d in listing.documents}
    assert set(by_source) == {_src(root, rel) for rel in DOCS}
    assert by_source[_src(root, "records.jsonl")].chunks == 2  # two JSON records, one file
    assert all(d.ingested_at and d.ingested_at.endswith("+00:00") for d in listing.documents)
    assert [s["name"] for s in listing.skipped] == ["bad.txt"] and listing.skipped[0]["reason"]
    assert listing.stale == {"keyword_tree": False, "knowledge_graph": False}


def test_delete_removes_chunks_tree_entries_and_graph_links(library):
    root, ctx = library
    harbour = _src(root, "harbour.md")
    assert harbour in _tree_sources(ctx)[0] and harbour in _tree_sources(ctx)[1]
    done = delete_document(ctx, harbour)

    assert done.deleted_chunks > 0
    assert (done.keyword_tree, done.knowledge_graph) == ("updated", "updated")
    assert harbour not in _ids_by_file(ctx)
    infos, files = _tree_sources(ctx)
    assert harbour not in infos and harbour not in files
    assert _src(root, "cats.txt") in infos  # the others stay
    world = load_world(ctx)
    assert world.get_entity("keldmarsh") is None  # extracted only from the deleted file
    assert world.get_entity("tallow").chunk_ids  # still has the cats chunks
    assert world.get_entity("voss") is not None  # imported, never linked to chunks
    assert world.get_edge("e1") is None  # went with keldmarsh
    assert harbour not in {d.source for d in list_documents(ctx).documents}
    with pytest.raises(UnknownDocumentError):
        delete_document(ctx, harbour)


def test_prune_makes_the_tree_and_graph_follow_the_chunks(library):
    root, ctx = library
    cats = _src(root, "cats.txt")
    (root / "cats.txt").unlink()
    report = ingest([root], ctx, prune=True)

    assert report.pruned_sources == [cats]
    assert report.derived == {"keyword_tree": "updated", "knowledge_graph": "updated"}
    infos, files = _tree_sources(ctx)
    assert cats not in infos and cats not in files
    assert load_world(ctx).get_entity("cat") is None


def test_rebuild_sweeps_what_a_bypassing_delete_left(library):
    root, ctx = library
    store = ChunkStore(ctx, get_embeddings(ctx))
    cats = _src(root, "cats.txt")
    store.delete(_ids_by_file(ctx)[cats])  # behind the documents module's back
    store.flush()
    assert cats in _tree_sources(ctx)[0]

    assert rebuild(ctx) == {"keyword_tree": "updated", "knowledge_graph": "updated"}
    assert cats not in _tree_sources(ctx)[0]
    assert load_world(ctx).get_entity("cat") is None


def test_ingest_files_reports_events_per_file_and_batch(library, tmp_path):
    _, ctx = library
    good = tmp_path / "up" / "lamps.md"
    good.parent.mkdir()
    good.write_text("# Lamps\n\n" + "The lamp keepers of Orrin trimmed wicks at dusk. " * 200)
    odd = tmp_path / "up" / "page.xyz"
    odd.write_text("hello")
    events: list[dict] = []
    finished = ingest_files([good, odd], ctx, on_event=events.append, tree_base=str(tmp_path))

    kinds = [e["event"] for e in events]
    assert kinds[0] == "file_started" and kinds[-1] == "finished" and events[-1] == finished
    batches = [e for e in events if e["event"] == "batch"]
    assert batches and batches[-1]["done"] == batches[-1]["total"] > 1
    done = next(e for e in events if e["event"] == "file_done")
    assert done["name"] == "lamps.md" and done["chunks_added"] == batches[-1]["total"]
    assert finished["added"] == ["lamps.md"]
    assert (
        finished["skipped"][0]["name"] == "page.xyz" and ".xyz" in finished["skipped"][0]["reason"]
    )
    # The keyword tree got the new file at once, under its folder relative to tree_base.
    infos, files = _tree_sources(ctx)
    assert good.resolve().as_posix() in files


def test_a_store_that_cannot_follow_is_marked_stale_not_failed(library):
    root, ctx = library
    (graph_dir(ctx) / "world.json").write_text("{ not json", encoding="utf-8")
    done = delete_document(ctx, _src(root, "cats.txt"))

    assert done.deleted_chunks and done.keyword_tree == "updated"
    assert done.knowledge_graph == "stale"  # the chunks are gone all the same
    assert list_documents(ctx).stale == {"keyword_tree": False, "knowledge_graph": True}
    assert rebuild(ctx)["knowledge_graph"] == "stale"  # still unreadable: stays marked
    assert list_documents(ctx).stale["knowledge_graph"] is True


def test_a_file_already_stored_is_reported_as_a_duplicate_not_added(library, tmp_path):
    root, ctx = library
    copy = tmp_path / "up" / "harbour copy.md"
    copy.parent.mkdir()
    copy.write_bytes((root / "harbour.md").read_bytes())
    events: list[dict] = []
    finished = ingest_files([copy], ctx, on_event=events.append)

    duplicate = next(e for e in events if e["event"] == "file_duplicate")
    assert duplicate["name"] == "harbour copy.md"
    assert _src(root, "harbour.md") in duplicate["reason"]
    assert not any(e["event"] == "file_done" for e in events)
    assert finished["added"] == [] and finished["duplicates"] == [
        {"name": "harbour copy.md", "reason": duplicate["reason"]}
    ]
    # Not listed as a document, but listed with its reason among the files not stored.
    listing = list_documents(ctx)
    assert copy.resolve().as_posix() not in {d.source for d in listing.documents}
    assert {"name": "harbour copy.md", "reason": duplicate["reason"]}.items() <= next(
        s for s in listing.skipped if s["name"] == "harbour copy.md"
    ).items()


def test_a_document_is_found_by_relative_path_or_unique_base_name(library, monkeypatch):
    from treerag.documents import resolve_document

    root, ctx = library
    harbour = _src(root, "harbour.md")
    assert resolve_document(ctx, harbour) == harbour
    monkeypatch.chdir(root)
    assert resolve_document(ctx, "harbour.md") == harbour  # from its own folder
    monkeypatch.chdir(root / "zh")
    assert resolve_document(ctx, "../cats.txt") == _src(root, "cats.txt")
    assert resolve_document(ctx, "harbour.md") == harbour  # the one file of that name
    with pytest.raises(UnknownDocumentError, match="no document 'zh/harbour.md'"):
        resolve_document(ctx, "zh/harbour.md")  # a path is taken as a path
    (root / "zh" / "harbour.md").write_text("# Other\n\nAnother harbour, the one of Brand.\n")
    ingest([root / "zh" / "harbour.md"], ctx)
    assert resolve_document(ctx, "harbour.md") == _src(root, "zh/harbour.md")  # the path first
    monkeypatch.chdir(root.parent)
    with pytest.raises(UnknownDocumentError, match="names 2 ingested files"):
        resolve_document(ctx, "harbour.md")


def _older_release(ctx: Context, monkeypatch: pytest.MonkeyPatch) -> str:
    """Make the stores look as an older release's rules left them; return the graph's chunk."""
    from treerag.documents.manifest import update_manifest
    from treerag.keyword_tree import keyword_ops
    from treerag.retrievers.sources import open_passage_graph

    graph = open_passage_graph(ctx)
    chunk = sorted(graph.passage_ids())[0]
    graph._db.execute("insert into names values ('zzold', 'Zzold', 'name', 'zzold')")
    graph._db.execute("insert into mentions values ('zzold', ?)", (chunk,))
    graph._cache.clear()
    with monkeypatch.context() as patch:
        patch.setattr(keyword_ops, "normalized_forms", lambda name, aliases=(): [f"~{name}"])
        open_tree(ctx).create_keyword("Lighthouses", use_agent=False)

    def older(data):
        old = {"keyword_tree": "0ld0ld0ld0ld", "knowledge_graph": "0ld0ld0ld0ld"}
        data["built_with"][ctx.collection] = old

    update_manifest(ctx, older)
    return chunk


def test_stores_built_by_older_rules_are_reported_then_rebuilt(library, monkeypatch):
    from treerag.documents import built_with, derived
    from treerag.documents.health import StoreProblem, derived_stores
    from treerag.retrievers.sources import open_passage_graph

    _, ctx = library
    assert built_with.outdated(ctx) == set()  # the ingest recorded today's rules
    chunk = _older_release(ctx, monkeypatch)

    listing = list_documents(ctx)
    assert listing.stale == {"keyword_tree": True, "knowledge_graph": True}
    assert listing.behind["knowledge_graph"]["old_rules"] is True
    with pytest.raises(StoreProblem, match="built by an older release's rules"):
        derived_stores(ctx)

    assert rebuild(ctx) == {"keyword_tree": "rebuilt", "knowledge_graph": "rebuilt"}
    assert "Zzold" not in open_passage_graph(ctx).entities_of(chunk)
    assert [n.name for n in open_tree(ctx).exact_lookup("lighthouses")] == ["Lighthouses"]
    assert built_with.outdated(ctx) == set()
    assert list_documents(ctx).stale == {"keyword_tree": False, "knowledge_graph": False}
    assert "all" in derived_stores(ctx)
    assert derived.lag(ctx)["knowledge_graph"].old_rules is False


def test_stores_built_by_todays_rules_are_not_rebuilt_by_a_write(library):
    from treerag.retrievers.sources import open_passage_graph

    root, ctx = library
    graph = open_passage_graph(ctx)
    chunk = sorted(graph.passage_ids())[0]
    # Nothing rebuilds a current graph: a name written behind its back survives a write.
    graph._db.execute("insert into names values ('zzkept', 'Zzkept', 'name', 'zzkept')")
    graph._db.execute("insert into mentions values ('zzkept', ?)", (chunk,))
    graph._cache.clear()
    (root / "more.txt").write_text("The Voss ferry was rebuilt in 1921.", encoding="utf-8")
    assert ingest([root], ctx).derived == {"keyword_tree": "updated", "knowledge_graph": "updated"}
    assert "Zzkept" in open_passage_graph(ctx).entities_of(chunk)


def test_a_page_upload_keeps_older_rules_stores_in_step_and_leaves_the_rebuild(
    library, monkeypatch, tmp_path
):
    from treerag.documents import built_with
    from treerag.retrievers.sources import open_passage_graph

    _, ctx = library
    chunk = _older_release(ctx, monkeypatch)
    new = tmp_path / "up" / "ferry.txt"
    new.parent.mkdir()
    new.write_text("The Voss ferry was rebuilt in 1921 by the Keldmarsh yard.", encoding="utf-8")
    done = ingest_files([new], ctx)
    assert done["added"] == ["ferry.txt"]
    graph = open_passage_graph(ctx)
    assert "Zzold" in graph.entities_of(chunk)  # not built again by an upload
    assert new.resolve().as_posix() in {p for p in _ids_by_file(ctx)}
    assert built_with.outdated(ctx) == {"keyword_tree", "knowledge_graph"}
    assert list_documents(ctx).behind["knowledge_graph"]["old_rules"] is True


def test_each_collection_records_the_rules_its_own_stores_were_built_by(library, tmp_path):
    from dataclasses import replace

    from treerag.documents import built_with
    from treerag.documents.manifest import update_manifest

    root, ctx = library
    other = replace(ctx, collection="other")
    update_manifest(ctx, lambda d: d["built_with"].update({"other": {"knowledge_graph": "0ld"}}))
    assert built_with.outdated(ctx) == set()  # this collection's stores are today's
    assert built_with.outdated(other) == {"keyword_tree", "knowledge_graph"}


def test_a_reconcile_waits_for_another_process_s_and_reads_the_ids_after_it(library):
    import threading

    from treerag.data_layout import reconcile_lock_file
    from treerag.documents import derived
    from treerag.keyword_tree.locking import FileLock

    root, ctx = library
    store = ChunkStore(ctx, get_embeddings(ctx))
    cats = _src(root, "cats.txt")
    other = FileLock(str(reconcile_lock_file(ctx.stores_path)))  # another open file: as a process
    outcome: dict[str, str] = {}
    with other.hold():
        worker = threading.Thread(target=lambda: outcome.update(derived.reconcile(ctx)))
        worker.start()
        # While the other holds the stores, a write lands behind this reconcile's back.
        store.delete(_ids_by_file(ctx)[cats])
        store.flush()
        worker.join(timeout=1.0)
        assert worker.is_alive()  # it waits: it has read nothing yet
    worker.join(timeout=120)
    other.close()
    assert outcome == {"keyword_tree": "updated", "knowledge_graph": "updated"}
    # It read the ids after the write: the deleted file's chunks are gone from the stores.
    assert cats not in _tree_sources(ctx)[0]
