"""One shared MilvusClient per URI in a process; a Milvus Lite folder shared between processes.

Milvus Lite locks its folder to one process: `treerag.retrievers.lite_share` lets the first
process serve it over loopback gRPC and every other one connect to that server.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

from treerag.bounded import BoundedCache, Lease
from treerag.milvus_options import LITE_GRPC_OPTIONS
from treerag.retrievers.errors import StoreError


def _close_client(client: Any) -> None:
    """Close a client; a Milvus Lite folder this process serves is released with it."""
    from treerag.bounded import close_value

    close_value(client)
    folder = getattr(client, "folder", None)
    if folder is not None:
        from treerag.retrievers.lite_share import release, serves

        if serves(folder):
            release(folder)


_clients: BoundedCache[str, Any] = BoundedCache("milvus clients", close=_close_client)
"""One client per URI and token; a server's tenants share the data dir's URI (each has its own
collection), so this holds one entry per data dir or Milvus server the process talks to."""


def milvus_client(uri: str, token: str = "", bound: int | None = None) -> Any:
    """Return a shared MilvusClient for a URI (one per process and URI).

    A Milvus Lite path gets a `SharedLiteClient`: this process serves the folder, or talks to
    the process that does (`treerag.retrievers.lite_share`), so several processes (a
    `langgraph dev` server and the CLI) can use one data directory at once.

    Not leased: other data dirs can push it out of the table (and close it) while it is used;
    a call that may run beside other tenants holds `milvus_lease` (a `ChunkStore` does).
    """
    _quiet_pymilvus()
    return _clients.get_or_open(f"{uri}|{token}", lambda: _open_client(uri, token), bound)


def milvus_lease(uri: str, token: str = "", bound: int | None = None) -> Lease[Any]:
    """Lease the shared MilvusClient of a URI (see `milvus_client`) until the lease ends."""
    _quiet_pymilvus()
    return _clients.lease(f"{uri}|{token}", lambda: _open_client(uri, token), bound)


def _quiet_pymilvus() -> None:
    # pymilvus configures its own loggers when first imported (`pymilvus.settings.init_log`
    # sets their levels): import it before quieting them, or that first import undoes it. It
    # warns on every Milvus Lite query iterator and logs a traceback for errors that we turn
    # into messages of our own.
    import pymilvus  # noqa: F401

    for name in ("pymilvus", "pymilvus.milvus_client"):
        logging.getLogger(name).setLevel(logging.CRITICAL)


def _open_client(uri: str, token: str) -> Any:
    from pymilvus import MilvusClient

    if "://" not in uri:
        Path(uri).expanduser().parent.mkdir(parents=True, exist_ok=True)
    try:
        if token:
            return MilvusClient(uri=uri, token=token)
        if "://" not in uri:
            from treerag.retrievers.lite_share import SharedLiteClient

            shared = SharedLiteClient(uri, LITE_GRPC_OPTIONS)
            shared.connect()  # open (or reach) it now: errors belong to the opener
            return shared
        return MilvusClient(uri)
    except StoreError:
        raise
    except Exception as exc:  # pymilvus raises several types for an unreachable URI
        raise StoreError(f"cannot open Milvus at {uri!r} (TREERAG_MILVUS_URI): {exc}") from exc
