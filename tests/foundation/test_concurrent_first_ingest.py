"""Two first ingests into one new data dir: both succeed, nothing is lost (the creation race)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from treerag.context import Context
from treerag.models import get_embeddings
from treerag.retrievers.chunk_store import ChunkStore
from treerag.retrievers.sources import open_passage_graph

pytestmark = pytest.mark.slow


def _docs(root: Path, prefix: str, files: int) -> Path:
    root.mkdir(parents=True)
    for i in range(files):
        (root / f"{prefix}{i:03d}.md").write_text(
            f"# {prefix.title()} note {i}\n\nThe keeper of lamp {i} at {prefix} harbour "
            f"lit it at dusk for {i + 3} years.\n",
            encoding="utf-8",
        )
    return root


def test_two_first_ingests_race_and_both_land(tmp_path):
    data = tmp_path / "data"
    env = {**os.environ, "TREERAG_DATA_DIR": str(data)}
    folders = [_docs(tmp_path / name, name, 40) for name in ("north", "south")]
    procs = [
        subprocess.Popen(
            [sys.executable, "-m", "treerag", "ingest", str(folder)],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for folder in folders
    ]
    outs = [p.communicate(timeout=600) for p in procs]
    for proc, (_out, err) in zip(procs, outs, strict=True):
        assert proc.returncode == 0, err[-2000:]
        assert "Traceback" not in err, err[-3000:]
    ctx = Context(data_dir=str(data))
    stored = {
        i for ids in ChunkStore(ctx, get_embeddings(ctx)).ids_by_source().values() for i in ids
    }
    assert len(stored) == 80
    # Whichever finished last brought the graph up to every chunk, the other's included.
    assert open_passage_graph(ctx).passage_ids() == stored
