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

# A second process: opens the folder first (so it serves it), creates a collection with one
# row, then answers commands on stdin: "ids" prints the ids it finds, "quit" exits.
_OWNER = r"""
import sys
from pymilvus import DataType
from treerag.retrievers.milvus_client import milvus_client

client = milvus_client(sys.argv[1])
schema = client.create_schema(auto_id=False)
schema.add_field("id", DataType.VARCHAR, is_primary=True, max_length=16)
schema.add_field("v", DataType.FLOAT_VECTOR, dim=2)
index = client.prepare_index_params()
index.add_index("v", index_type="FLAT", metric_type="COSINE")
client.create_collection("t", schema=schema, index_params=index)
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


def test_writes_take_turns_and_reads_do_not_wait() -> None:
    from pymilvus.grpc_gen import milvus_pb2_grpc

    running = {"Insert": 0, "Search": 0}
    most = {"Insert": 0, "Search": 0}
    guard = threading.Lock()

    class Servicer(milvus_pb2_grpc.MilvusServiceServicer):
        def _call(self, name: str) -> None:
            with guard:
                running[name] += 1
                most[name] = max(most[name], running[name])
            time.sleep(0.2)
            with guard:
                running[name] -= 1

        def Insert(self, request, context):  # noqa: N802 - the RPC's name
            self._call("Insert")

        def Search(self, request, context):  # noqa: N802
            self._call("Search")

    servicer = Servicer()
    lite_share._serialize_writes(servicer)
    threads = [
        threading.Thread(target=getattr(servicer, name), args=(None, None))
        for name in ("Insert", "Insert", "Insert", "Search", "Search")
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert most == {"Insert": 1, "Search": 2}
