"""Stores opened per tenant are bounded (LRU), closed on eviction and at the server's shutdown."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from treerag.bounded import BoundedCache, env_bound, tables
from treerag.context import Context
from treerag.reasoning.base import Judgement
from treerag.reasoning.judge_cache import JudgeCache, judge_cache
from treerag.retrievers.keyword_tree import open_tree
from treerag.retrievers.sources import open_passage_graph

REPO = Path(__file__).resolve().parents[2]


class Handle:
    """A stand-in store that records being closed."""

    def __init__(self, name: str):
        self.name = name
        self.closed = False

    def close(self) -> None:
        self.closed = True


@pytest.fixture(autouse=True)
def _forget_own_entries(tmp_path: Path) -> Iterator[None]:
    """Close what this test opened in the process-wide tables (and nothing of other tests)."""
    yield
    for table in tables():
        for key in table.keys():
            if str(tmp_path) in str(key):
                table.pop(key)


def test_the_oldest_entry_is_closed_on_eviction_and_reopened_on_use() -> None:
    table: BoundedCache[str, Handle] = BoundedCache("test handles", 2)
    opened = {name: table.get_or_open(name, lambda n=name: Handle(n)) for name in "abc"}
    assert opened["a"].closed and not opened["b"].closed and not opened["c"].closed
    assert table.keys() == ["b", "c"] and table.evictions == 1
    again = table.get_or_open("a", lambda: Handle("a"))
    assert again is not opened["a"] and not again.closed
    assert opened["b"].closed  # "a" came back in; "b" was now the least recently used


def test_use_keeps_an_entry_and_a_smaller_bound_closes_the_rest() -> None:
    table: BoundedCache[str, Handle] = BoundedCache("test handles", 3)
    a, b, c = (table.get_or_open(n, lambda n=n: Handle(n)) for n in "abc")
    table.get("a")  # used: "b" is now the oldest
    table.put("d", Handle("d"))
    assert b.closed and not a.closed
    table.resize(1)
    assert a.closed and c.closed and table.keys() == ["d"]
    assert table.clear() == 1 and len(table) == 0


def test_a_failed_open_stores_nothing() -> None:
    table: BoundedCache[str, Handle] = BoundedCache("test handles", 2)

    def fail() -> Handle:
        raise OSError("disk gone")

    with pytest.raises(OSError):
        table.get_or_open("a", fail)
    assert "a" not in table and len(table) == 0


def test_a_leased_entry_evicted_stays_open_until_its_last_lease_ends() -> None:
    table: BoundedCache[str, Handle] = BoundedCache("test handles", 1)
    with table.lease("a", lambda: Handle("a")) as a:
        with table.lease("a", lambda: Handle("a2")) as again:
            assert again is a  # one handle per key, however many leases
        table.get_or_open("b", lambda: Handle("b"))  # pushes "a" out while it is in use
        assert not a.closed and "a" not in table and table.evictions == 1
        # Asked for meanwhile, the key gets the same open handle back (not a second one).
        with table.lease("a", lambda: Handle("a3")) as back:
            assert back is a
        table.get_or_open("b", lambda: Handle("b"))
        assert not a.closed
    assert a.closed and table.in_use() == 0  # its last lease ended: the eviction completes


def test_a_lease_the_collector_ends_does_not_wait_for_an_open_in_progress() -> None:
    # Opening a Milvus Lite client waits for an RPC that a server thread of this process
    # answers; the collector may end a lease in that thread (a store's `weakref.finalize`).
    table: BoundedCache[str, Handle] = BoundedCache("test handles", 1)
    lease = table.lease("a", lambda: Handle("a"))
    table.get_or_open("b", lambda: Handle("b"))  # "a" is evicted, parked while leased
    ended = threading.Event()

    def open_c() -> Handle:  # runs under the table's lock
        collector = threading.Thread(target=lambda: (lease.release_soon(), ended.set()))
        collector.start()
        assert ended.wait(10), "the collector's thread waited for the open's lock"
        collector.join()
        return Handle("c")

    table.get_or_open("c", open_c)
    assert not lease.value.closed  # ended later: at the table's next use
    assert table.in_use() == 0 and lease.value.closed
    other = table.lease("d", lambda: Handle("d"))
    other.release_soon()  # the lock is free: it ends at once
    assert table.in_use() == 0 and other.value.closed is False  # "d" stays in the table


def test_clear_and_pop_close_a_leased_entry_when_its_lease_ends() -> None:
    table: BoundedCache[str, Handle] = BoundedCache("test handles", 4)
    lease = table.lease("a", lambda: Handle("a"))
    b = table.get_or_open("b", lambda: Handle("b"))
    assert table.clear() == 2 and b.closed and not lease.value.closed
    lease.release()
    lease.release()  # once is enough
    assert lease.value.closed
    with table.lease("c", lambda: Handle("c")) as c:
        table.pop("c")
        assert not c.closed
    assert c.closed


class PushingOutAgent:
    """A keyword agent that, while it decides, has other tenants open their trees (bound 2)."""

    def __init__(self, others: list[Context]):
        self.others = others

    def pick_branch(self, question: str, view: object) -> dict:
        import re

        for ctx in self.others:  # the tree in use is now the least recently used, twice over
            open_tree(ctx, create=True)
        text = view.render()  # type: ignore[attr-defined]
        found = re.search(r"\[(\S+)\] Quillhaven", text)
        if found:
            return {"action": "match", "node_id": found.group(1), "reason": "the capital"}
        cities = re.search(r"\[(\S+)\] Cities", text)
        assert cities, text
        return {"action": "jump", "node_id": cities.group(1), "jump_depth": 3, "reason": "a city"}


async def test_a_keyword_descent_in_flight_keeps_its_tree_while_other_tenants_open_theirs(
    tmp_path: Path,
) -> None:
    from treerag.retrievers.keyword_tree import keyword_context

    from ..graph.test_context_nodes import load_toy_tree

    ctxs = [
        Context(data_dir=str(tmp_path / "data"), tenant=f"t{i}", open_stores=2) for i in range(3)
    ]
    load_toy_tree(ctxs[0], tmp_path)
    note = await keyword_context(
        ctxs[0], "Tell me about the seat of the federal government", PushingOutAgent(ctxs[1:])
    )
    assert note is not None and note["error"] == "", note
    assert note["status"] == "matched" and note["path"][-1] == "Quillhaven"
    # The call is over: the tree it held was closed then, as the bound asks.
    assert len([k for k in tables_named("keyword trees") if str(tmp_path) in k]) == 2


def tables_named(name: str) -> list[str]:
    """The keys of the process-wide table called `name`."""
    return next(t for t in tables() if t.name == name).keys()


def test_a_search_in_flight_keeps_its_milvus_lite_server_while_other_data_dirs_open(
    tmp_path: Path,
) -> None:
    from treerag.retrievers import lite_share, milvus_client
    from treerag.retrievers.chunk_store import ChunkStore

    ctxs = [Context(data_dir=str(tmp_path / f"d{i}")) for i in range(2)]
    uris = [c.resolved_milvus_uri for c in ctxs]
    try:
        with ChunkStore(ctxs[0], None) as store:
            assert store.client.list_collections() == []
            milvus_client.milvus_client(uris[1], bound=1).list_collections()  # evicts d0's
            assert lite_share.serves(uris[0])  # still served: this store is using it
            assert store.client.list_collections() == []
            # Another call on d0 meanwhile shares the open client instead of a second server.
            with ChunkStore(ctxs[0], None) as other:
                assert other.client is store.client
            milvus_client.milvus_client(uris[1], bound=1)
        assert not lite_share.serves(uris[0]) and lite_share.serves(uris[1])
    finally:
        milvus_client._clients.resize(16)


def test_the_bound_comes_from_the_setting(monkeypatch: pytest.MonkeyPatch) -> None:
    assert Context().open_stores == 16 == env_bound()
    monkeypatch.setenv("TREERAG_OPEN_STORES", "3")
    assert Context().open_stores == 3 == env_bound()
    assert Context(open_stores=5).open_stores == 5  # explicit over env


def test_more_tenants_than_the_bound_close_the_oldest_stores(tmp_path: Path) -> None:
    ctxs = [
        Context(data_dir=str(tmp_path / "data"), tenant=f"t{i}", open_stores=2) for i in range(3)
    ]
    caches = [judge_cache(c.tenant_path, c.open_stores) for c in ctxs]
    graphs = [open_passage_graph(c, create=True) for c in ctxs]
    trees = [open_tree(c, create=True) for c in ctxs]

    verdict = Judgement(2, "names the founder")
    caches[0].put("k", verdict)  # closed: a cache that was evicted misses and drops writes
    assert caches[0].get("k") is None
    with pytest.raises(Exception, match="closed"):
        graphs[0]._db.execute("select 1")
    assert trees[0]._closed and not trees[2]._closed
    assert not caches[2]._closed

    # Reopened on their next use, and working.
    cache = judge_cache(ctxs[0].tenant_path, 2)
    cache.put("k", verdict)
    assert cache is not caches[0] and cache.get("k") == Judgement(2, "names the founder", calls=0)
    graph = open_passage_graph(ctxs[0])
    assert graph is not graphs[0] and graph._db.execute("select 1").fetchone() == (1,)
    tree = open_tree(ctxs[0])
    assert tree is not trees[0] and not tree._closed


def test_milvus_lite_of_an_evicted_data_dir_is_released_and_reopens(tmp_path: Path) -> None:
    from treerag.retrievers import lite_share, milvus_client

    uris = [str(tmp_path / f"d{i}" / "milvus.db") for i in range(2)]
    first = milvus_client.milvus_client(uris[0], bound=1)
    first.list_collections()
    assert lite_share.serves(uris[0])
    second = milvus_client.milvus_client(uris[1], bound=1)
    second.list_collections()
    assert not lite_share.serves(uris[0]) and lite_share.serves(uris[1])
    again = milvus_client.milvus_client(uris[0], bound=1)
    assert again is not first and again.list_collections() == []
    assert lite_share.serves(uris[0]) and not lite_share.serves(uris[1])
    milvus_client._clients.resize(16)


def test_entries_stay_within_the_bound_however_many_tenants_ask(tmp_path: Path) -> None:
    bound = 4
    for i in range(40):
        ctx = Context(data_dir=str(tmp_path / "data"), tenant=f"t{i}", open_stores=bound)
        judge_cache(ctx.tenant_path, ctx.open_stores).put("k", Judgement(1, "x"))
        open_passage_graph(ctx, create=True)
        open_tree(ctx, create=True)
        ours = [key for table in tables() for key in table.keys() if str(tmp_path) in str(key)]
        assert len(ours) <= 3 * bound
    for table in tables():
        assert len(table) <= table.maxsize


def test_per_question_tables_stay_within_their_bound(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Verdicts: the file keeps at most max_verdicts rows, the newest.
    monkeypatch.setattr("treerag.reasoning.judge_cache.PRUNE_EVERY", 10)
    cache = JudgeCache(tmp_path / "judge_cache.sqlite", max_verdicts=50)
    for i in range(500):
        cache.put(f"q{i}", Judgement(1, "x"))
    assert len(cache) <= 50 and cache.get("q499") is not None and cache.get("q0") is None
    cache.close()


_SHUTDOWN = r"""
import asyncio, sys
from treerag.context import Context
from treerag.reasoning.judge_cache import judge_cache
from treerag.retrievers import lite_share
from treerag.retrievers.keyword_tree import open_tree
from treerag.retrievers.milvus_client import milvus_client
from treerag.retrievers.sources import open_passage_graph
from treerag.bounded import tables
from treerag.web.app import app

ctx = Context(data_dir=sys.argv[1], tenant="acme")
cache = judge_cache(ctx.tenant_path)
graph = open_passage_graph(ctx, create=True)
tree = open_tree(ctx, create=True)
client = milvus_client(ctx.resolved_milvus_uri)
client.list_collections()
assert lite_share.serves(ctx.resolved_milvus_uri)

async def serve_and_stop():
    async with app.router.lifespan_context(app):
        assert sum(len(t) for t in tables()) >= 4
asyncio.run(serve_and_stop())

assert sum(len(t) for t in tables()) == 0, [(t.name, t.keys()) for t in tables()]
assert cache._closed and tree._closed and not lite_share.serves(ctx.resolved_milvus_uri)
try:
    graph._db.execute("select 1")
except Exception as exc:
    assert "closed" in str(exc)
else:
    raise AssertionError("the passage graph is still open")
print("closed")
"""


def test_the_server_shutdown_closes_every_store(tmp_path: Path) -> None:
    # In a child process: the shutdown closes every table of the process it runs in.
    result = subprocess.run(
        [sys.executable, "-c", _SHUTDOWN, str(tmp_path / "data")],
        capture_output=True,
        text=True,
        timeout=180,
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(REPO)},  # this checkout's treerag
    )
    assert result.returncode == 0 and result.stdout.strip() == "closed", result.stderr[-3000:]


def test_a_data_dir_reopened_after_eviction_loads_its_collection_again(tmp_path: Path) -> None:
    """A closed client's Milvus Lite server is gone: the next one finds the collection released."""
    from treerag.ingest.indexer import ingest
    from treerag.retrievers import milvus_client
    from treerag.retrievers.chunk_store import ChunkStore
    from treerag.retrievers.hybrid import Retriever

    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "q.md").write_text(
        "# Quillhaven\n\nQuillhaven is the seat of the federal government.\n"
    )
    ctxs = [Context(data_dir=str(tmp_path / f"d{i}")) for i in range(2)]
    ingest([docs], ctxs[0])
    try:
        for _ in range(2):  # the second time round, d0's client is a new one
            with ChunkStore(ctxs[0], None) as store:
                hits = Retriever(store, search_type="sparse").search("seat of government")
                assert [h.metadata["title"] for h in hits] == ["Quillhaven"]
            milvus_client.milvus_client(ctxs[1].resolved_milvus_uri, bound=1)  # evicts d0's
    finally:
        milvus_client._clients.resize(16)
