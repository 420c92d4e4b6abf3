"""A SIGKILL in the middle of an ingest: the lag is reported, and the next write repairs it."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from treerag.cli import app
from treerag.context import Context
from treerag.models import get_embeddings
from treerag.retrievers.chunk_store import ChunkStore
from treerag.retrievers.sources import open_passage_graph

pytestmark = pytest.mark.slow


def _corpus(root: Path, files: int) -> Path:
    root.mkdir(parents=True)
    for i in range(files):
        (root / f"note{i:04d}.md").write_text(
            f"# Harbour note {i}\n\nCaptain Mira Osk{i % 7} sailed from Port Veyra to "
            f"Salt Point {i % 11} with {i} barrels of tar for the Lamp House.\n",
            encoding="utf-8",
        )
    return root


def _written(data: Path) -> bool:
    wal = data / "milvus.db" / "collections"
    return any(f.is_file() and f.stat().st_size for f in wal.glob("*/wal/*"))


def _manifest(data: Path) -> dict:
    try:
        return json.loads((data / "documents.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}


def test_a_killed_ingest_is_reported_then_repaired_by_the_next_one(tmp_path):
    docs = _corpus(tmp_path / "docs", 1200)
    data = tmp_path / "data"
    env = {**os.environ, "TREERAG_DATA_DIR": str(data)}
    proc = subprocess.Popen(
        [sys.executable, "-m", "treerag", "ingest", str(docs)],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 120
        # Wait until chunks are being written (Milvus Lite logs each write before it lands).
        while time.monotonic() < deadline and not _written(data):
            time.sleep(0.2)
        assert proc.poll() is None, "the ingest finished before it could be killed"
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
    ctx = Context(data_dir=str(data))

    def stored() -> set[str]:
        return {
            i for ids in ChunkStore(ctx, get_embeddings(ctx)).ids_by_source().values() for i in ids
        }

    written = stored()
    assert written, "nothing was written before the kill"
    # The stores never followed the chunks written before the kill: the listing says so.
    listed = CliRunner().invoke(app, ["docs", "list", "--data-dir", str(data), "--json"])
    listing = json.loads(listed.output)
    assert listing["stale"] == {"keyword_tree": True, "knowledge_graph": True}
    assert listing["behind"]["knowledge_graph"]["missing"] == len(written)
    text = CliRunner().invoke(app, ["docs", "list", "--data-dir", str(data)]).output
    assert f"misses {len(written):,} of {len(written):,} chunks" in text
    assert "treerag docs rebuild" in text
    # The same ingest again: every chunk is stored, and the stores hold the same set.
    again = CliRunner().invoke(app, ["ingest", str(docs), "--data-dir", str(data)])
    assert again.exit_code == 0, again.output
    assert len(stored()) == 1200
    graph = open_passage_graph(ctx)
    assert graph.passage_ids() == stored()
    from treerag.retrievers.keyword_tree import open_tree

    tree = open_tree(ctx)
    assert {i for i in tree.index.info_offsets if len(i) == 32} == stored()
    listing = json.loads(
        CliRunner().invoke(app, ["docs", "list", "--data-dir", str(data), "--json"]).output
    )
    assert listing["stale"] == {"keyword_tree": False, "knowledge_graph": False}
    assert not listing["behind"]
    # Every document has its time, those stored before the kill too; no temp file is left.
    assert len(listing["documents"]) == 1200
    assert all(d["ingested_at"] for d in listing["documents"])
    assert not list(data.glob(".documents-*"))
