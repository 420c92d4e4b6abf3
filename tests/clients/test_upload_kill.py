"""A server SIGKILLed in the middle of an upload loses nothing the next write cannot repair.

A real `langgraph dev` ingests an upload of many files; it is killed once some have gone in.
The chunks written before the kill stay; the keyword tree and the graph may miss some, and
the next write (an ingest from the terminal) brings them back in step: every chunk in the
collection is in both stores, and the listing says nothing is behind.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import httpx
import pytest

from tests.clients.server import copy_data, kill_server, langgraph_server, offline_env

pytestmark = pytest.mark.slow

FILES = 20  # the most one upload may carry (web/documents.py MAX_FILES)


def _file(i: int) -> tuple[str, bytes]:
    body = " ".join(
        f"The sloop Wren{i} carried {j} casks of lamp oil to the Heyan lighthouse on day {j}."
        for j in range(40)
    )
    return f"cargo{i:02d}.md", f"# Cargo log {i}\n\n{body}\n".encode()


def _treerag(data: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "treerag", *args],
        env=offline_env(data),
        capture_output=True,
        text=True,
        timeout=600,
    )


def test_a_server_killed_mid_upload_is_repaired_by_the_next_write(sample_data, tmp_path):
    data = copy_data(sample_data, tmp_path / "data")
    done = 0
    with langgraph_server(data) as url:
        parts = [
            ("files", (name, body, "text/markdown")) for name, body in map(_file, range(FILES))
        ]
        with httpx.Client(base_url=url, timeout=300) as client:
            with client.stream("POST", "/ui/api/docs/upload", files=parts) as response:
                assert response.status_code == 200
                for line in response.iter_lines():
                    if line and json.loads(line)["event"] == "file_done":
                        done += 1
                    if done == 3:  # some files are in, most are not
                        kill_server(url)
                        break
    assert done == 3

    # The next write: a file from the terminal. It reconciles the stores with the collection.
    note = tmp_path / "docs" / "note.md"
    note.parent.mkdir()
    note.write_text("# Keeper's note\n\nThe Heyan lamp was trimmed at dusk.\n", encoding="utf-8")
    after = _treerag(data, "ingest", str(note))
    assert after.returncode == 0, after.stderr[-3000:]
    listing = json.loads(_treerag(data, "docs", "list", "--json").stdout)
    uploaded = [d for d in listing["documents"] if "/uploads/cargo" in d["source"]]
    assert len(uploaded) >= 3  # what went in before the kill is still there
    assert listing["stale"] == {"keyword_tree": False, "knowledge_graph": False}
    assert not listing["behind"], listing["behind"]
    assert all(d["ingested_at"] for d in listing["documents"] if d["source"] != str(note))
    assert os.path.isdir(data / "uploads")
