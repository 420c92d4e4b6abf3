"""The server's checkpointer routes each thread to its tenant's file, and only there.

A real users file, real SQLite checkpointers in a tmp data dir and a real graph run through
the saver with the config the server gives a run (its user under `langgraph_auth_user`).
The server itself is exercised in tests/clients (test_server_checkpointer, test_tenants).
"""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import Iterator
from typing import Any, TypedDict

import pytest
from langgraph.graph import END, START, StateGraph

from treerag.bounded import close_all
from treerag.server import checkpointer as server_checkpointer
from treerag.server.checkpointer import TenantSaver, checkpointer
from treerag.server.identity import directory
from treerag.server.thread_tenants import OwnershipError
from treerag.server.users import add_user


class _State(TypedDict, total=False):
    count: int


def _graph(saver: TenantSaver) -> Any:
    builder = StateGraph(_State)
    builder.add_node("step", lambda state: {"count": state.get("count", 0) + 1})
    builder.add_edge(START, "step")
    builder.add_edge("step", END)
    return builder.compile(checkpointer=saver)


def _as(user: str, tenant: str, thread_id: str) -> dict[str, Any]:
    """A run's config as the server builds it: the thread and the authenticated user."""
    who = {"identity": user, "tenant": tenant, "is_authenticated": True}
    return {"configurable": {"thread_id": thread_id, "langgraph_auth_user": who}}


def _threads(path: Any) -> set[str]:
    with sqlite3.connect(path) as conn:
        return {r[0] for r in conn.execute("SELECT DISTINCT thread_id FROM checkpoints")}


@pytest.fixture
def served(tmp_path, monkeypatch) -> Iterator[Any]:
    """A data dir and a users file with tenants acme and globex, as the server sees them."""
    users = tmp_path / "users.yaml"
    add_user(users, "a1", "acme")
    add_user(users, "b1", "globex")
    monkeypatch.setenv("TREERAG_AUTH_FILE", str(users))
    monkeypatch.setenv("TREERAG_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.delenv("TREERAG_CHECKPOINTER_URI", raising=False)
    directory.cache_clear()
    server_checkpointer._uri_of.cache_clear()
    try:
        yield tmp_path / "data"
    finally:
        close_all()
        directory.cache_clear()
        server_checkpointer._uri_of.cache_clear()


async def _scenario(data: Any) -> None:
    async with checkpointer() as saver:
        graph = _graph(saver)
        await graph.ainvoke({"count": 0}, _as("a1", "acme", "t-acme"))
        await graph.ainvoke({"count": 5}, _as("b1", "globex", "t-globex"))
        # Reads carry only the thread: each finds its tenant's file.
        plain = {"configurable": {"thread_id": "t-acme"}}
        assert (await graph.aget_state(plain)).values == {"count": 1}
        other = {"configurable": {"thread_id": "t-globex"}}
        assert (await graph.aget_state(other)).values == {"count": 6}
        # Another tenant's run on a claimed thread is refused, and writes nothing.
        with pytest.raises(OwnershipError):
            await graph.ainvoke({"count": 9}, _as("b1", "globex", "t-acme"))
        assert (await graph.aget_state(plain)).values == {"count": 1}
        # A copy stays in the source's tenant; a delete empties the thread there.
        await saver.acopy_thread("t-acme", "t-acme-copy")
        assert (await graph.aget_state({"configurable": {"thread_id": "t-acme-copy"}})).values == {
            "count": 1
        }
        await saver.adelete_thread("t-acme")
        assert (await graph.aget_state(plain)).values == {}


def test_each_thread_is_kept_in_its_tenants_file(served):
    asyncio.run(_scenario(served))
    acme = _threads(served / "tenants" / "acme" / "checkpoints.sqlite")
    globex = _threads(served / "tenants" / "globex" / "checkpoints.sqlite")
    assert acme == {"t-acme-copy"} and globex == {"t-globex"}
    assert not (served / "checkpoints.sqlite").exists()  # no tenant-less file under auth


def test_without_a_users_file_every_thread_is_the_data_dirs(tmp_path, monkeypatch):
    monkeypatch.delenv("TREERAG_AUTH_FILE", raising=False)
    monkeypatch.delenv("TREERAG_CHECKPOINTER_URI", raising=False)
    monkeypatch.setenv("TREERAG_DATA_DIR", str(tmp_path))
    directory.cache_clear()
    server_checkpointer._uri_of.cache_clear()

    async def run() -> dict[str, Any]:
        async with checkpointer() as saver:
            graph = _graph(saver)
            config: Any = {"configurable": {"thread_id": "t1"}}
            await graph.ainvoke({"count": 2}, config)
            return (await graph.aget_state(config)).values

    try:
        assert asyncio.run(run()) == {"count": 3}
        assert _threads(tmp_path / "checkpoints.sqlite") == {"t1"}
    finally:
        close_all()
        server_checkpointer._uri_of.cache_clear()
