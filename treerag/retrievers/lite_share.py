"""One Milvus Lite folder, many processes: the first to open it serves it to the others.

Milvus Lite locks its folder (`<folder>/LOCK`, `fcntl.flock`): a second process that opens it
gets `DataDirLockedError`. The package ships a gRPC server speaking the Milvus protocol
(`milvus_lite.adapter.grpc.server`), and pymilvus already talks to a Lite folder through one
(it starts it in-process on a free loopback port). So the process that opens a folder first
has Milvus Lite serve it, on `127.0.0.1` and a free port, and writes an endpoint file next
to the folder (`<folder>.endpoint`: pid, port, command, folder). Every other process that
finds a live endpoint connects to `http://127.0.0.1:PORT`, the code path of a real Milvus
server: a `langgraph dev` server and `treerag ingest/search/ask/docs/doctor` share one
folder, and a chunk written by one is found by the next search of any other (all of them
reach the same engine, so there is nothing to flush or reload across processes).

- **Election.** Reading the endpoint, opening the folder and writing the endpoint happen
  under an exclusive lock on `<folder>.election`, and so does the owner's exit (stop the
  server, close the folder, remove the endpoint): nobody sees the folder locked with no
  endpoint, or an endpoint whose server is gone, except after a crash.
- **Stale endpoints** (dead pid, closed port, a copied data dir, or a pid that no longer
  holds the folder's lock) are ignored and replaced.
- **Writes are serialized.** Milvus Lite's server docstring: concurrent writes to one
  collection are not yet safe. Every client here runs each call that is not a read under an
  exclusive lock on `<folder>.writes`, whichever process it is in, so two writers (a terminal
  ingest and an upload from the page) take turns. (A program that writes to the endpoint
  without this module, e.g. through `langchain_milvus`, is not serialized.)
- **Serving** goes through Milvus Lite's public entry point, the one pymilvus itself calls for
  a file URI (`milvus_lite.server_manager_instance`, in the package's `__all__`:
  `start_and_get_uri` / `release_server`), so a plain `MilvusClient(path)` in the owner
  process reaches the same server.
- **Failover.** When the owner exits, a client's next call finds it gone, takes part in a
  new election (becoming the owner or connecting to the new one), reloads the collections it
  had loaded, and retries the call once.
- **Where sharing cannot work** (another program holds the folder without an endpoint, e.g.
  plain pymilvus or `milvus-lite server`), `StoreError` says in one line which process
  (pid and command, from `/proc/locks`) holds it.
"""

from __future__ import annotations

import atexit
import contextlib
import fcntl
import functools
import json
import logging
import os
import socket
import sys
import threading
import time
import traceback
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, TypeVar

from treerag.data_layout import election_file, endpoint_file, writes_file
from treerag.retrievers.errors import StoreError

log = logging.getLogger(__name__)
T = TypeVar("T")

LOCK_FILE = "LOCK"
"""Milvus Lite's lock file inside its folder (`milvus_lite.db.LOCK_FILENAME`)."""
ELECTION_TIMEOUT_S = 60.0
"""How long to wait for another process's election (opening a large folder takes a while)."""
CONNECT_TIMEOUT_S = 60.0
"""How long a client waits for the server's channel to be ready. Milvus Lite serves from a
thread of its process, so under load (a busy interpreter, two cores) it can take past
pymilvus's default 10 s to answer its first call."""
LOCKED_WAIT_S = 2.0
"""How long a folder locked without a live endpoint is retried before giving up: an owner
that exits without its exit handler releases the lock as its process ends."""

READ_PREFIXES = ("get", "list_", "describe_", "has_")
READ_METHODS = frozenset(
    {
        "search",
        "hybrid_search",
        "search_iterator",
        "query",
        "query_iterator",
        "run_analyzer",
        # Built on the client, no call to the server:
        "create_schema",
        "create_field_schema",
        "create_struct_field_schema",
        "prepare_index_params",
        "close",
    }
)
"""`MilvusClient` methods that only read (with those named `get…`, `list_…`, `describe_…`,
`has_…`); every other call runs under the folder's write lock."""


def is_read(method: str) -> bool:
    """Whether a `MilvusClient` method only reads (it does not take the write lock)."""
    return method in READ_METHODS or method.startswith(READ_PREFIXES)


@dataclass(frozen=True)
class Endpoint:
    """Where the process serving a Milvus Lite folder listens."""

    pid: int
    port: int
    command: str
    folder: str

    @property
    def uri(self) -> str:
        """The URI a pymilvus client connects to."""
        return f"http://127.0.0.1:{self.port}"


def _folder(path: str | Path) -> str:
    return str(Path(path).expanduser().resolve())


def read_endpoint(folder: str) -> Endpoint | None:
    """The endpoint recorded for `folder` (None when there is none or it is unreadable)."""
    try:
        data = json.loads(endpoint_file(folder).read_text())
        return Endpoint(int(data["pid"]), int(data["port"]), str(data["command"]), data["folder"])
    except (OSError, ValueError, KeyError, TypeError):
        return None


def _write_endpoint(endpoint: Endpoint) -> None:
    path = endpoint_file(endpoint.folder)
    tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
    tmp.write_text(json.dumps(asdict(endpoint)))
    os.replace(tmp, path)


def pid_alive(pid: int) -> bool:
    """Whether a process with this pid exists."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # it exists, under another user
        return True
    return True


def command_of(pid: int) -> str:
    """The command line of a process, shortened for one line ('' when unknown)."""
    try:
        raw = Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        raw = b"\0".join(a.encode() for a in sys.argv) if pid == os.getpid() else b""
    parts = [p.decode(errors="replace") for p in raw.split(b"\0") if p]
    if parts:
        parts[0] = Path(parts[0]).name
    text = " ".join(" ".join(parts).split())  # one line, whatever the arguments hold
    return text if len(text) <= 120 else text[:119] + "…"


def lock_holders(folder: str) -> list[int] | None:
    """Pids holding a flock on the folder's LOCK file (None where /proc/locks is not there)."""
    try:
        stat = os.stat(Path(folder) / LOCK_FILE)
        table = Path("/proc/locks").read_text()
    except FileNotFoundError:
        return None if not Path("/proc/locks").exists() else []
    except OSError:
        return None
    device = f"{os.major(stat.st_dev):02x}:{os.minor(stat.st_dev):02x}:{stat.st_ino}"
    pids = []
    for line in table.splitlines():
        fields = line.split()
        # "1: FLOCK  ADVISORY  WRITE 12345 fe:00:2148665 0 EOF" (blocked waiters add "->").
        if "->" in fields or len(fields) < 6 or fields[1] != "FLOCK":
            continue
        if fields[5] == device:
            pids.append(int(fields[4]))
    return pids


def _port_open(port: int) -> bool:
    with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), timeout=1):
        return True
    return False


def endpoint_alive(endpoint: Endpoint, folder: str) -> bool:
    """Whether `endpoint` serves `folder` now: its process lives, holds the lock, listens."""
    if endpoint.folder != folder or not pid_alive(endpoint.pid):
        return False
    holders = lock_holders(folder)
    if holders is not None and endpoint.pid not in holders:
        return False  # the pid was reused, or the folder was copied with its endpoint file
    return _port_open(endpoint.port)


@contextlib.contextmanager
def _election(folder: str, timeout: float = ELECTION_TIMEOUT_S) -> Iterator[None]:
    """Hold the folder's election lock (across processes and threads) for the block."""
    path = election_file(folder)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_CREAT | os.O_RDWR, 0o644)
    try:
        deadline = time.monotonic() + timeout
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() > deadline:
                    raise StoreError(
                        f"cannot open Milvus Lite at {folder!r}: another process has been "
                        f"starting its server for {timeout:.0f} s ({path} is locked)"
                    ) from None
                time.sleep(0.05)
        yield
    finally:
        os.close(fd)  # closing the descriptor releases the lock


@contextlib.contextmanager
def write_turn(folder: str) -> Iterator[None]:
    """Hold the folder's write lock (across processes and threads) for the block.

    `flock` locks belong to an open file description, so two threads of one process that
    each open the file exclude each other as two processes do (flock(2)).
    """
    fd = os.open(writes_file(folder), os.O_CREAT | os.O_RDWR, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # closing the descriptor releases the lock


# -- the owner's side ------------------------------------------------------------------------


@dataclass
class _Served:
    endpoint: Endpoint


_served: dict[str, _Served] = {}
_served_lock = threading.Lock()


def _serve(folder: str) -> _Served:
    """Serve `folder` from this process on a free loopback port (Milvus Lite's own server).

    `start_and_get_uri` is what pymilvus calls for a file URI: it opens the folder, starts a
    gRPC server on 127.0.0.1 and a free port, and returns its URI (the same one again for a
    folder it already serves). It logs a failure and returns None; opening the folder here
    then raises the cause (`DataDirLockedError` when another process holds it).
    """
    from milvus_lite import server_manager_instance

    # Its failures come back as None and are raised below: its traceback would only repeat them.
    logging.getLogger("milvus_lite.server_manager").setLevel(logging.CRITICAL)
    uri = server_manager_instance.start_and_get_uri(folder)
    if uri is None:
        from milvus_lite.db import MilvusLite

        MilvusLite(folder).close()  # raises what kept the server from starting
        raise StoreError(f"cannot open Milvus Lite at {folder!r}: its server did not start")
    port = int(uri.rsplit(":", 1)[1])
    # Whoever stops it (`_release`, or Milvus Lite's own exit handler), a call arriving then
    # leaves no traceback behind.
    _install_quiet_hook()
    return _Served(Endpoint(os.getpid(), port, command_of(os.getpid()), folder))


def _quiet_stopped_pool(args: threading.ExceptHookArgs) -> None:
    """Drop the error grpc's serving thread raises for a call that arrives while it stops.

    `server.stop` shuts the server's thread pool down while its serving thread may still take
    a call from another process (grpc/_server.py `_handle_unary_unary` submits it to the
    pool: "cannot schedule new futures after shutdown"). That client fails over to the next
    server (`SharedLiteClient._lost`); the stopping process has nothing to report.
    """
    stack = traceback.extract_tb(args.exc_traceback) if args.exc_traceback else []
    stopping = args.exc_type is RuntimeError and "cannot schedule new futures" in str(
        args.exc_value
    )
    if stopping and any(f"grpc{os.sep}_server.py" in frame.filename for frame in stack):
        log.debug("a call reached the Milvus Lite server while it stopped: %s", args.exc_value)
        return
    _thread_hook(args)


_thread_hook = threading.excepthook


def _install_quiet_hook() -> None:
    """Put `_quiet_stopped_pool` before whatever thread hook is set now (once)."""
    global _thread_hook
    if threading.excepthook is not _quiet_stopped_pool:
        _thread_hook = threading.excepthook
        threading.excepthook = _quiet_stopped_pool


def _release(folder: str) -> None:
    """Stop serving `folder` (this process's exit): server, folder lock, endpoint file."""
    with _served_lock:
        served = _served.get(folder)
        if served is None or served.endpoint.pid != os.getpid():
            return  # not ours (a forked child inherits the table, not the server)
        del _served[folder]
    with contextlib.ExitStack() as stack:
        with contextlib.suppress(StoreError):
            stack.enter_context(_election(folder, timeout=5))
        with contextlib.suppress(Exception):
            from milvus_lite import server_manager_instance

            server_manager_instance.release_server(folder)  # stops the server, closes the folder
        current = read_endpoint(folder)
        if current is not None and current.pid == os.getpid():
            endpoint_file(folder).unlink(missing_ok=True)


def release(path: str | Path) -> None:
    """Stop serving the folder `path` here; a later `elect` serves it again."""
    _release(_folder(path))


def release_all() -> None:
    """Stop serving every folder this process serves (its shutdown, or its exit)."""
    for folder in list(_served):
        _release(folder)


def _release_first_at_exit() -> None:
    """Run `release_all` at exit before Milvus Lite stops its servers on its own.

    Exit handlers run last registered first (atexit docs); the server manager registers its
    own when it is imported, so ours is registered again after that, under the election lock.
    """
    atexit.unregister(release_all)
    atexit.register(release_all)


atexit.register(release_all)


def _held_message(folder: str) -> str:
    holders = [p for p in (lock_holders(folder) or []) if p != os.getpid()]
    who = (
        ", ".join(f"process {pid} ({command_of(pid) or 'command unknown'})" for pid in holders)
        if holders
        else "another process"
    )
    return (
        f"cannot open Milvus Lite at {folder!r}: {who} holds it without sharing it "
        "(no endpoint file); stop that process, or set TREERAG_MILVUS_URI to a Milvus server"
    )


def elect(path: str | Path) -> Endpoint:
    """Return the endpoint serving the folder `path`: a live one, or this process's own.

    Raises:
        StoreError: Another process holds the folder without serving it (the message names
            it), or an election took longer than `ELECTION_TIMEOUT_S`.
    """
    from milvus_lite.exceptions import DataDirLockedError

    folder = _folder(path)
    with _election(folder):
        with _served_lock:
            served = _served.get(folder)
        if served is not None and served.endpoint.pid == os.getpid():
            return served.endpoint
        found = read_endpoint(folder)
        if found is not None and found.pid != os.getpid() and endpoint_alive(found, folder):
            return found
        deadline = time.monotonic() + LOCKED_WAIT_S
        while True:
            try:
                served = _serve(folder)
                break
            except DataDirLockedError:
                if time.monotonic() > deadline:
                    raise StoreError(_held_message(folder)) from None
                time.sleep(0.1)
        with _served_lock:
            _served[folder] = served
        _release_first_at_exit()
        _write_endpoint(served.endpoint)
        log.info("serving Milvus Lite %s on %s", folder, served.endpoint.uri)
        return served.endpoint


def serves(path: str | Path) -> bool:
    """Whether this process serves the folder `path`."""
    served = _served.get(_folder(path))
    return served is not None and served.endpoint.pid == os.getpid()


# -- the client's side -----------------------------------------------------------------------


class SharedLiteClient:
    """A pymilvus `MilvusClient` for a Milvus Lite folder, whichever process serves it.

    Attribute access goes to the client of the current endpoint. A call that fails while the
    serving process has gone (another process's server) is retried once after a new election;
    the collections loaded through this client are loaded again on the new server.
    """

    def __init__(self, path: str | Path, grpc_options: dict[str, Any]):
        self.folder = _folder(path)
        self._grpc_options = grpc_options
        self._lock = threading.RLock()
        self._client: Any = None
        self._endpoint: Endpoint | None = None
        self._loaded: set[str] = set()
        self.switches = 0
        """How many times the client moved to another server (tests and diagnostics)."""

    @property
    def endpoint(self) -> Endpoint | None:
        """The endpoint this client talks to (None before the first call)."""
        return self._endpoint

    def connect(self, stale: Endpoint | None = None) -> Any:
        """Return the MilvusClient of the live endpoint, electing one when needed."""
        with self._lock:
            current = self._endpoint
            if (
                self._client is not None
                and current is not None
                and current != stale
                and (current.pid == os.getpid() or pid_alive(current.pid))
            ):
                return self._client
            endpoint = elect(self.folder)
            if self._client is not None and endpoint == current:
                return self._client
            from pymilvus import MilvusClient

            old = self._client
            try:
                # A connection of its own (pymilvus shares one per address otherwise): a
                # server started on the port of one stopped earlier is not reached through
                # the old server's connection.
                client = MilvusClient(
                    endpoint.uri,
                    grpc_options=self._grpc_options,
                    timeout=CONNECT_TIMEOUT_S,
                    dedicated=True,
                )
            except Exception as exc:  # pymilvus raises several types for a refused connection
                raise StoreError(
                    f"cannot open Milvus Lite at {self.folder!r} through {endpoint.uri} "
                    f"(process {endpoint.pid}, {endpoint.command}): {exc}"
                ) from exc
            if old is not None:
                with contextlib.suppress(Exception):
                    old.close()
                self.switches += 1
                for name in sorted(self._loaded):  # the new server opened the folder afresh
                    with contextlib.suppress(Exception):
                        client.load_collection(name)
            self._client, self._endpoint = client, endpoint
            return client

    def again_if_lost(self, read: Callable[[], T]) -> T:
        """Run `read` (one call, or several: an iterator's pages); again once if the server went.

        Every call made through this client goes through it (`__getattr__`); a read of several
        calls is passed whole, as an iterator's next page is a call on the old server's
        connection: the whole read starts over on the new one.
        """
        self.connect()
        endpoint = self._endpoint
        try:
            return read()
        except Exception:
            if not self._lost(endpoint):
                raise
            log.info("Milvus Lite server %s is gone: electing a new one", endpoint)
            self.connect(stale=endpoint)
            return read()

    def _lost(self, endpoint: Endpoint | None) -> bool:
        """Whether the server of `endpoint` (not this process's own) is gone."""
        if endpoint is None or endpoint.pid == os.getpid():
            return False
        # The owner stops its server under the election lock (`_release`): a call that failed
        # while it was stopping waits for it to finish, and finds the endpoint gone.
        with contextlib.suppress(StoreError), _election(self.folder, timeout=10):
            pass
        return not endpoint_alive(endpoint, self.folder)

    def _track(self, name: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
        collection = kwargs.get("collection_name", args[0] if args else None)
        if not isinstance(collection, str):
            return
        if name == "load_collection" or (name == "create_collection" and "index_params" in kwargs):
            self._loaded.add(collection)
        elif name in ("release_collection", "drop_collection"):
            self._loaded.discard(collection)

    def __getattr__(self, name: str) -> Any:
        attr = getattr(self.connect(), name)
        if name.startswith("_") or not callable(attr):
            return attr

        @functools.wraps(attr)
        def call(*args: Any, **kwargs: Any) -> Any:
            turn = contextlib.nullcontext() if is_read(name) else write_turn(self.folder)
            with turn:
                result = self.again_if_lost(lambda: getattr(self.connect(), name)(*args, **kwargs))
            self._track(name, args, kwargs)
            return result

        return call

    def close(self) -> None:
        """Close the connection (the folder stays served while this process lives)."""
        with self._lock:
            if self._client is not None:
                with contextlib.suppress(Exception):
                    self._client.close()
            self._client = self._endpoint = None


__all__ = [
    "Endpoint",
    "SharedLiteClient",
    "elect",
    "endpoint_alive",
    "endpoint_file",
    "lock_holders",
    "read_endpoint",
    "serves",
    "write_turn",
]
