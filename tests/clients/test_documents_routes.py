"""The page's document routes over HTTP, against a real `langgraph dev` on a demo data dir."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from langgraph_sdk import get_client

from tests.clients.server import copy_data, langgraph_server, server_log
from treerag.cli.demo import sample_corpus_dir
from treerag.ingest.loaders import SUPPORTED

pytestmark = pytest.mark.slow

GOOD = (
    b"# Zephyr Lighthouse\n\n"
    b"The Zephyr lighthouse on Corran Point was first lit in 1777 by the keeper Ilsa Wendral. "
    b"Its lamp burned seal oil until the Corran glassworks made it a lens.\n"
)
BAD = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR binary"
QUESTION = "Who first lit the Zephyr lighthouse on Corran Point?"
SHALLOW = {"max_depth": 0}


@pytest.fixture(scope="module")
def docs_data(sample_data, tmp_path_factory) -> Path:
    """The data dir of the documents server: a copy of the demo's."""
    return copy_data(sample_data, tmp_path_factory.mktemp("docs-server") / "data")


@pytest.fixture(scope="module")
def docs_server(docs_data) -> Iterator[str]:
    """A server of its own (the tests change its documents), with a 1 MB upload limit."""
    with langgraph_server(docs_data, env_extra={"TREERAG_UPLOAD_MAX_MB": "1"}) as url:
        yield url


def upload(url: str, files: list[tuple[str, bytes]]) -> tuple[int, list[dict]]:
    parts = [("files", (name, body, "application/octet-stream")) for name, body in files]
    with httpx.Client(base_url=url, timeout=300) as client:
        with client.stream("POST", "/ui/api/docs/upload", files=parts) as response:
            if response.status_code != 200:
                response.read()
                return response.status_code, [response.json()]
            assert response.headers["content-type"].startswith("application/x-ndjson")
            return 200, [json.loads(line) for line in response.iter_lines() if line]


async def ask(url: str, question: str) -> dict:
    client = get_client(url=url)
    thread = await client.threads.create()
    output = await client.runs.wait(
        thread["thread_id"], "rag", input={"question": question}, context=SHALLOW
    )
    assert isinstance(output, dict) and "answer" in output, (output, server_log(url)[-4000:])
    return output


def cited_sources(output: dict) -> set[str]:
    return {Path(c["source"]).name for c in output["citations"]}


async def test_upload_list_ask_delete_ask_again(docs_server):
    url = docs_server
    status, events = upload(url, [("zephyr.md", GOOD), ("photo.txt", BAD)])
    assert status == 200, events
    kinds = [e["event"] for e in events]
    assert kinds.count("file_started") == 2 and kinds[-1] == "finished"
    assert any(e["event"] == "batch" and e["done"] == e["total"] for e in events)
    done = {"event": "file_done", "name": "zephyr.md", "chunks_added": 1, "status": "added"}
    assert done in events
    skipped = next(e for e in events if e["event"] == "file_skipped")
    assert skipped["name"] == "photo.txt" and "binary" in skipped["reason"]
    assert events[-1]["added"] == ["zephyr.md"]
    assert [s["name"] for s in events[-1]["skipped"]] == ["photo.txt"]

    with httpx.Client(base_url=url, timeout=120) as client:
        listing = client.get("/ui/api/docs").json()
        uploaded = [d for d in listing["documents"] if d["source"].endswith("/uploads/zephyr.md")]
        assert len(uploaded) == 1 and uploaded[0]["chunks"] == 1 and uploaded[0]["ingested_at"]
        assert len(listing["documents"]) == 14  # the 13 sample files and the upload
        total = sum(d["chunks"] for d in listing["documents"])
        assert client.get("/ui/api/docs/count").json() == {"chunks": total}
        assert listing["stale"] == {"keyword_tree": False, "knowledge_graph": False}
        assert any(s["name"] == "photo.txt" for s in listing["skipped"])

        before = await ask(url, QUESTION)
        assert "zephyr.md" in cited_sources(before) and "Wendral" in before["answer"]

        source = uploaded[0]["source"]
        deleted = client.delete("/ui/api/docs", params={"source": source})
        assert deleted.status_code == 200
        assert deleted.json() == {
            "source": source,
            "deleted_chunks": 1,
            "keyword_tree": "updated",
            "knowledge_graph": "updated",
        }
        assert client.delete("/ui/api/docs", params={"source": source}).status_code == 404
        assert source not in {d["source"] for d in client.get("/ui/api/docs").json()["documents"]}
        assert client.get("/ui/api/docs/count").json() == {"chunks": total - 1}

    after = await ask(url, QUESTION)
    assert "zephyr.md" not in cited_sources(after) and "Wendral" not in after["answer"]
    # The server runs without --allow-blocking: a blocking call in a route would be logged.
    assert "Blocking call" not in server_log(url)


def test_uploads_are_limited_checked_and_kept_under_the_data_dir(docs_server, docs_data):
    big = b"a" * (1024 * 1024 + 10)
    status, body = upload(docs_server, [("big.txt", big)])
    assert status == 413 and "1 MB" in body[0]["error"]
    # A file over the limit is refused alone: the good file sent with it goes in.
    small = b"# Brine ledger\n\nThe brine ledger of Corran lists salt barrels.\n"
    status, events = upload(docs_server, [("big.txt", big), ("ledger.md", small)])
    assert status == 200, events
    reasons = {e["name"]: e["reason"] for e in events if e["event"] == "file_skipped"}
    assert list(reasons) == ["big.txt"] and "1 MB" in reasons["big.txt"]
    assert events[-1]["added"] == ["ledger.md"]

    status, events = upload(
        docs_server,
        [("../escape.md", b"# x\n\ntext"), ("notes.exe", b"MZ"), ("fake.pdf", b"hello")],
    )
    assert status == 200
    reasons = {e["name"]: e["reason"] for e in events if e["event"] == "file_skipped"}
    assert set(reasons) == {"../escape.md", "notes.exe", "fake.pdf"}
    assert "unsafe file name" in reasons["../escape.md"]
    assert "unsupported" in reasons["notes.exe"] and "PDF" in reasons["fake.pdf"]
    assert events[-1]["added"] == []
    # Refused files are not kept: the uploads folder holds what went in.
    kept = {p.name for p in (docs_data / "uploads").iterdir()}
    assert "ledger.md" in kept and kept.isdisjoint({"big.txt", "notes.exe", "fake.pdf"}), kept


def test_a_copy_of_a_stored_file_is_reported_as_its_duplicate(docs_server, docs_data):
    original = sample_corpus_dir() / "people" / "orla_venn.md"
    status, events = upload(docs_server, [("venn copy.md", original.read_bytes())])
    assert status == 200, events
    duplicate = next(e for e in events if e["event"] == "file_duplicate")
    assert duplicate["name"] == "venn copy.md" and "orla_venn.md" in duplicate["reason"]
    assert not any(e["event"] == "file_done" for e in events)  # never "added, 0 chunks"
    assert events[-1]["added"] == [] and events[-1]["duplicates"] == [
        {"name": "venn copy.md", "reason": duplicate["reason"]}
    ]
    with httpx.Client(base_url=docs_server, timeout=120) as client:
        listing = client.get("/ui/api/docs").json()
    assert not any(d["source"].endswith("venn copy.md") for d in listing["documents"])
    assert not (docs_data / "uploads" / "venn copy.md").exists()
    said = [s["reason"] for s in listing["skipped"] if s["name"] == "venn copy.md"]
    assert said == [duplicate["reason"]]  # the list says why it is not among the documents


def test_settings_and_rebuild(docs_server):
    with httpx.Client(base_url=docs_server, timeout=120) as client:
        settings = client.get("/ui/api/settings").json()
        assert settings == {
            "top_k": 5,
            "max_depth": 2,
            "search_modes": ["hybrid", "dense", "sparse"],
            "search_mode": "hybrid",
            "chat_models": [""],
            "chat_model": "",
            "formats": sorted(SUPPORTED),  # what the page's upload hint lists
        }
        rebuilt = client.post("/ui/api/docs/rebuild").json()
        assert rebuilt == {"keyword_tree": "updated", "knowledge_graph": "updated"}


async def test_a_failed_turn_keeps_its_error_when_reopened(docs_server, tmp_path):
    (tmp_path / "not-a-folder").write_text("x")
    client = get_client(url=docs_server)
    thread = await client.threads.create()
    context = {"milvus_uri": str(tmp_path / "not-a-folder" / "milvus.db"), "max_depth": 0}
    await client.runs.wait(
        thread["thread_id"],
        "chat",
        input={"messages": [{"type": "human", "content": QUESTION}]},
        context=context,
    )
    # Reopened: the conversation's last message is the failed turn, with its error.
    state = await client.threads.get_state(thread["thread_id"])
    meta = state["values"]["messages"][-1]["additional_kwargs"]["treerag"]
    assert "FileExistsError" in meta["error"]
    with httpx.Client(base_url=docs_server, timeout=60) as http:
        tree = http.get(f"/ui/api/tree/{meta['tree_thread_id']}").json()
    assert tree["question"] == QUESTION and "FileExistsError" in tree["error"]
