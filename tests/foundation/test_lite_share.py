"""One Milvus Lite folder used by several processes: the first serves it, the others connect."""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from treerag.retrievers import lite_share
from treerag.retrievers.errors import StoreError
from treerag.retrievers.milvus_client import milvus_client

REPO = Path(__file__).resolve().parents[2]

# A second process: opens the folder first (so it serves it), creates a collection with one
# row, then answers commands on stdin: "ids" prints the ids it finds, "quit" exits.
_OWNER = r"""
import sys
from tests.foundation.test_lite_share import _make_collection
from treerag.retrievers.milvus_client import milvus_client

client = milvus_client(sys.argv[1])
_make_collection(client)
client.insert("t", [{"id": "a", "v": [1.0, 0.0]}])
print("ready", flush=True)
for line in sys.stdin:
    if line.strip() == "ids":
        rows = client.query("t", filter="id != ''", output_fields=["id"])
        print(" ".join(sorted(r["id"] for r in rows)), flush=True)
    else:
        break
"""

# A process that opens the folder with Milvus Lite itself, sharing nothing.
_FOREIGN = r"""
import sys, time
from milvus_lite.db import MilvusLite
db = MilvusLite(sys.argv[1])
print("ready", flush=True)
sys.stdin.readline()
"""


@contextlib.contextmanager
def child(script: str, folder: Path) -> Iterator[subprocess.Popen]:
    """Run `script` on `folder` in a child process until the block ends; wait for 'ready'."""
    proc = subprocess.Popen(
        [sys.executable, "-c", script, str(folder)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": str(REPO)},  # this checkout's treerag
    )
    try:
        line = proc.stdout.readline() if proc.stdout else ""
        if line.strip() != "ready":
            proc.kill()
            pytest.fail(f"child did not start: {line}{proc.stderr.read() if proc.stderr else ''}")
        yield proc
    finally:
        if proc.poll() is None:
            with contextlib.suppress(OSError):
                proc.stdin.write("quit\n")  # type: ignore[union-attr]
                proc.stdin.flush()  # type: ignore[union-attr]
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


def ask(proc: subprocess.Popen, command: str) -> str:
    proc.stdin.write(command + "\n")  # type: ignore[union-attr]
    proc.stdin.flush()  # type: ignore[union-attr]
    return proc.stdout.readline().strip()  # type: ignore[union-attr]


def ids(client) -> str:
    return " ".join(
        sorted(r["id"] for r in client.query("t", filter="id != ''", output_fields=["id"]))
    )


@pytest.mark.slow
def test_a_second_process_shares_the_folder_and_takes_it_over(tmp_path: Path) -> None:
    folder = tmp_path / "milvus.db"
    with child(_OWNER, folder) as owner:
        endpoint = lite_share.read_endpoint(str(folder))
        assert endpoint is not None and endpoint.pid == owner.pid
        assert endpoint.command.startswith("python")
        client = milvus_client(str(folder))
        assert client.endpoint == endpoint  # connected to the owner, not opened here
        client.load_collection("t")
        client.insert("t", [{"id": "b", "v": [0.0, 1.0]}])
        # Written here, seen there at once: both reach the one engine (no flush, no reload).
        assert ask(owner, "ids") == "a b"
        hits = client.search("t", data=[[0.0, 1.0]], limit=1, output_fields=["id"])
        assert hits[0][0]["id"] == "b"
    # The owner is gone (its exit removed the endpoint): the next call elects this process,
    # which loads the collection again and answers from the same data.
    assert ids(client) == "a b"
    assert client.switches == 1
    assert client.endpoint.pid == os.getpid()
    assert lite_share.read_endpoint(str(folder)) == client.endpoint
    assert lite_share.serves(folder)


@pytest.mark.slow
def test_a_read_of_several_pages_starts_over_when_the_owner_exits_in_the_middle(
    tmp_path: Path,
) -> None:
    folder = tmp_path / "milvus.db"
    attempts: list[list[str]] = []
    with child(_OWNER, folder) as owner:
        client = milvus_client(str(folder))
        client.load_collection("t")
        client.insert("t", [{"id": i, "v": [0.0, 1.0]} for i in "bcd"])

        def read() -> list[str]:
            got: list[str] = []
            attempts.append(got)
            it = client.query_iterator("t", filter="id != ''", output_fields=["id"], batch_size=1)
            try:
                while page := it.next():
                    got += [r["id"] for r in page]
                    if len(attempts) == 1:  # the owner exits after the first page
                        owner.stdin.write("quit\n")  # type: ignore[union-attr]
                        owner.stdin.flush()  # type: ignore[union-attr]
                        owner.wait(timeout=20)
            finally:
                with contextlib.suppress(Exception):
                    it.close()
            return got

        # The next page is a call on the gone server's connection: the read starts over.
        assert sorted(client.again_if_lost(read)) == ["a", "b", "c", "d"]
    assert len(attempts) == 2 and len(attempts[0]) == 1
    assert client.switches == 1 and client.endpoint.pid == os.getpid()


def test_a_stale_endpoint_file_is_replaced(tmp_path: Path) -> None:
    folder = tmp_path / "milvus.db"
    dead = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True
    )
    stale = {"pid": int(dead.stdout), "port": 9, "command": "gone", "folder": str(folder.resolve())}
    folder.parent.mkdir(parents=True, exist_ok=True)
    lite_share.endpoint_file(str(folder.resolve())).write_text(json.dumps(stale))
    client = milvus_client(str(folder))
    assert client.endpoint.pid == os.getpid()
    assert client.has_collection("t") is False
    replaced = lite_share.read_endpoint(str(folder.resolve()))
    assert replaced is not None and replaced.pid == os.getpid()


@pytest.mark.slow
def test_a_holder_that_does_not_share_is_named_in_one_line(tmp_path: Path) -> None:
    folder = tmp_path / "data" / "milvus.db"
    with child(_FOREIGN, folder) as holder:
        with pytest.raises(StoreError) as caught:
            milvus_client(str(folder))
        message = str(caught.value)
        assert f"process {holder.pid} (python -c" in message
        assert "\n" not in message and "Traceback" not in message
        # `treerag doctor` reports it in its table instead of stopping.
        from typer.testing import CliRunner

        from treerag.cli import app

        result = CliRunner().invoke(app, ["doctor", "--data-dir", str(folder.parent)])
        assert result.exit_code == 1, result.output
        assert "FAIL" in result.output and str(holder.pid) in result.output
        assert "Traceback" not in result.output and "DataDirLockedError" not in result.output


# A process that holds the folder's write lock until told to quit.
_WRITER = r"""
import sys
from treerag.retrievers.lite_share import write_turn
with write_turn(sys.argv[1]):
    print("ready", flush=True)
    sys.stdin.readline()
"""


def _make_collection(client) -> None:
    from pymilvus import DataType

    schema = client.create_schema(auto_id=False)
    schema.add_field("id", DataType.VARCHAR, is_primary=True, max_length=16)
    schema.add_field("v", DataType.FLOAT_VECTOR, dim=2)
    index = client.prepare_index_params()
    index.add_index("v", index_type="FLAT", metric_type="COSINE")
    client.create_collection("t", schema=schema, index_params=index)


@pytest.mark.slow
def test_writes_take_turns_across_processes_and_reads_do_not_wait(tmp_path: Path) -> None:
    folder = (tmp_path / "milvus.db").resolve()
    client = milvus_client(str(folder))
    _make_collection(client)
    client.insert("t", [{"id": "a", "v": [1.0, 0.0]}])
    with child(_WRITER, folder) as writer:
        inserted = threading.Thread(
            target=client.insert, args=("t", [{"id": "b", "v": [0.0, 1.0]}])
        )
        inserted.start()
        started = time.monotonic()
        assert ids(client) == "a"  # a read does not wait for the other process's write
        assert time.monotonic() - started < 5
        inserted.join(timeout=1.0)
        assert inserted.is_alive()  # this write waits for its turn
        ask(writer, "quit")
        inserted.join(timeout=20)
        assert not inserted.is_alive()
    assert ids(client) == "a b"


def test_the_owner_serves_through_milvus_lite_so_pymilvus_in_process_reaches_it(
    tmp_path: Path,
) -> None:
    from pymilvus import MilvusClient

    folder = (tmp_path / "milvus.db").resolve()
    client = milvus_client(str(folder))
    _make_collection(client)
    assert lite_share.serves(folder)
    # pymilvus opens a file URI through Milvus Lite's server manager, which serves it already.
    plain = MilvusClient(str(folder))
    assert plain.list_collections() == ["t"]
    plain.close()
    lite_share.release(folder)
    assert not lite_share.serves(folder) and lite_share.read_endpoint(str(folder)) is None
    # Released: the folder is free for another opener (the lock went with the server).
    from milvus_lite import MilvusLite

    MilvusLite(str(folder)).close()


def test_the_serving_process_uses_no_private_milvus_lite_name() -> None:
    import re

    source = Path(lite_share.__file__).read_text()
    assert not re.search(r"(milvus_lite|server_manager_instance)[\w.]*\._", source)


def test_a_new_server_on_a_port_an_old_one_left_is_reached_at_once(tmp_path: Path) -> None:
    """A stopped server's failed connection is not what a client of the next one meets.

    gRPC shares subchannels by address in a process; the kernel may hand a new Milvus Lite
    server the loopback port of one stopped a moment ago (the suite starts hundreds).
    """
    from milvus_lite.adapter.grpc.server import start_server_in_thread
    from pymilvus import MilvusClient

    from treerag.milvus_options import LITE_GRPC_OPTIONS

    server, db, port = start_server_in_thread(str(tmp_path / "a.db"))
    old = MilvusClient(f"http://127.0.0.1:{port}", grpc_options=LITE_GRPC_OPTIONS, timeout=10)
    assert old.list_collections() == []
    server.stop(grace=0)
    db.close()
    deadline = time.monotonic() + 1
    while time.monotonic() < deadline:  # the old client's calls fail: its connection is down
        with contextlib.suppress(Exception):
            old.list_collections(timeout=0.2)
    server, db, again = start_server_in_thread(str(tmp_path / "b.db"), port=port)
    try:
        assert again == port
        new = MilvusClient(f"http://127.0.0.1:{port}", grpc_options=LITE_GRPC_OPTIONS, timeout=10)
        assert new.list_collections() == []
        new.close()
    finally:
        old.close()
        server.stop(grace=0)
        db.close()


def _thread_error(message: str, filename: str) -> threading.ExceptHookArgs:
    code = compile(f"raise RuntimeError({message!r})", filename, "exec")
    try:
        exec(code)
    except RuntimeError as exc:
        return threading.ExceptHookArgs((RuntimeError, exc, exc.__traceback__, None))
    raise AssertionError("unreachable")


def test_only_a_call_reaching_a_stopping_server_is_kept_off_stderr(monkeypatch) -> None:
    seen: list[str] = []
    monkeypatch.setattr(lite_share, "_thread_hook", lambda args: seen.append(str(args.exc_value)))
    grpc_file = os.path.join("site-packages", "grpc", "_server.py")
    stopping = "cannot schedule new futures after shutdown"
    lite_share._quiet_stopped_pool(_thread_error(stopping, grpc_file))
    assert seen == []  # grpc's serving thread, as the server stops: nothing to report
    lite_share._quiet_stopped_pool(_thread_error("disk full", grpc_file))
    lite_share._quiet_stopped_pool(_thread_error(stopping, "my_worker.py"))
    assert seen == ["disk full", stopping]  # any other error, or from elsewhere, is shown
