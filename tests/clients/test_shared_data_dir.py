"""`langgraph dev` and the CLI on one data dir at once: one Milvus Lite folder, one history."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from langgraph_sdk import get_client

from tests.clients.server import copy_data, langgraph_server, offline_env, server_log
from treerag.retrievers.lite_share import pid_alive, read_endpoint

pytestmark = pytest.mark.slow

FIRST = "Who led the fishers that founded Quillhaven?"
NEW_DOC = (
    "# Varnholt Observatory\n\n"
    "The Varnholt observatory on Skellan Ridge was founded in 1802 by the astronomer Odile "
    "Frask. Its brass refractor was ground by the Skellan lensmakers.\n"
)
NEW_QUESTION = "Who founded the Varnholt observatory on Skellan Ridge?"
SHALLOW = {"max_depth": 1}


@pytest.fixture(scope="module")
def shared(sample_data, tmp_path_factory) -> Iterator[dict[str, Any]]:
    """A server of its own on a data dir the tests also give the CLI."""
    root = tmp_path_factory.mktemp("shared")
    data = copy_data(sample_data, root / "data")
    with langgraph_server(data) as url:
        yield {"url": url, "data": data, "root": root}


def treerag(data: Path, *args: str) -> subprocess.CompletedProcess:
    """Run the CLI in a child process on `data`; it must succeed without a traceback."""
    done = subprocess.run(
        [sys.executable, "-m", "treerag", *args],
        env=offline_env(data, COLUMNS="200"),
        capture_output=True,
        text=True,
        timeout=300,
    )
    said = done.stdout + done.stderr
    assert done.returncode == 0, (
        f"treerag {' '.join(args)} exited {done.returncode}:\n{said[-4000:]}"
    )
    assert "Traceback" not in said and "DataDirLockedError" not in said, said[-4000:]
    return done


async def ask_server(url: str, question: str) -> dict:
    client = get_client(url=url)
    thread = await client.threads.create()
    output = await client.runs.wait(
        thread["thread_id"], "rag", input={"question": question}, context=SHALLOW
    )
    assert isinstance(output, dict) and output.get("answer"), (output, server_log(url)[-4000:])
    return output


async def chat_turn(url: str, text: str) -> dict:
    client = get_client(url=url)
    thread = await client.threads.create()
    output = await client.runs.wait(
        thread["thread_id"],
        "chat",
        input={"messages": [{"type": "human", "content": text}]},  # type: ignore[dict-item]
        context=SHALLOW,
    )
    assert isinstance(output, dict) and output.get("messages"), (output, server_log(url)[-4000:])
    return output["messages"][-1]["additional_kwargs"]["treerag"]


def page_tree(url: str, thread_id: str) -> dict:
    with httpx.Client(base_url=url, timeout=60) as client:
        response = client.get(f"/ui/api/tree/{thread_id}")
    assert response.status_code == 200, response.text
    return response.json()


def sources(output: dict) -> set[str]:
    found = [*output.get("citations", []), *output.get("evidence", [])]
    return {Path(item["source"]).name for item in found if item.get("source")}


async def test_the_cli_works_while_the_server_serves_the_data_dir(shared) -> None:
    url, data = shared["url"], shared["data"]
    # A run through the server opens the chunk store there first: the server serves it.
    first = await ask_server(url, FIRST)
    endpoint = read_endpoint(str((data / "milvus.db").resolve()))
    assert endpoint is not None and endpoint.pid != os.getpid() and pid_alive(endpoint.pid)

    found = json.loads(treerag(data, "search", "fishers founded Quillhaven", "--json").stdout)
    assert found and any("Quillhaven" in hit["text"] for hit in found)

    new = shared["root"] / "docs" / "varnholt.md"
    new.parent.mkdir()
    new.write_text(NEW_DOC)
    treerag(data, "ingest", str(new))
    listed = treerag(data, "docs", "list").stdout
    assert "varnholt.md" in listed

    doctor = treerag(data, "doctor").stdout
    assert "milvus" in doctor and "FAIL" not in doctor

    asked = json.loads(treerag(data, "ask", NEW_QUESTION, "--json", "--max-depth", "0").stdout)
    assert "Odile Frask" in asked["answer"]

    # The file ingested from the terminal is found by the server's next search, no restart.
    output = await ask_server(url, NEW_QUESTION)
    assert "varnholt.md" in sources(output), output
    assert read_endpoint(str((data / "milvus.db").resolve())) == endpoint  # still the server

    # One history: runs the server ran are listed and rebuilt by the CLI, the same tree the
    # page shows; a chat turn (what the page asks) too.
    turn = await chat_turn(url, FIRST)
    runs = treerag(data, "runs").stdout
    for thread_id in (first["thread_id"], output["thread_id"], turn["tree_thread_id"]):
        assert thread_id in runs, runs
    assert asked["thread_id"] in runs
    for thread_id in (first["thread_id"], turn["tree_thread_id"]):
        rebuilt = json.loads(treerag(data, "tree", thread_id, "--format", "json").stdout)
        assert rebuilt["question"] == FIRST
        assert rebuilt == page_tree(url, thread_id)
