"""A SIGKILL in the middle of an ingest leaves the derived stores marked stale, never behind."""

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


def test_killed_ingest_leaves_stores_marked_then_rebuild_brings_them_in_step(tmp_path):
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
    manifest = _manifest(data)
    assert manifest["stale"] == {"keyword_tree": True, "knowledge_graph": True}
    assert "did not finish" in manifest["stale_reasons"]["knowledge_graph"]

    listed = CliRunner().invoke(app, ["docs", "list", "--data-dir", str(data)])
    assert "stale" in listed.output.lower()
    rebuilt = CliRunner().invoke(app, ["docs", "rebuild", "--data-dir", str(data)])
    assert rebuilt.exit_code == 0, rebuilt.output
    assert _manifest(data)["stale"] == {"keyword_tree": False, "knowledge_graph": False}
    ctx = Context(data_dir=str(data))
    stored = {
        i for ids in ChunkStore(ctx, get_embeddings(ctx)).ids_by_source().values() for i in ids
    }
    assert stored and open_passage_graph(ctx).passage_ids() == stored
