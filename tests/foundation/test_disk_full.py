"""A full disk for real: a data dir on a small tmpfs, filled, then freed.

The ingest that meets the full disk says so in one line (no traceback) and exits 1, `doctor`
names it, and once space is freed the same ingest brings every chunk in, with the keyword tree
and the graph holding all of them and every document its time. Needs `mount` (root, as in CI);
skipped where the machine does not allow it.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

SIZE_MB = 32
LEFT_KB = 32
"""What the filler leaves free: less than the second ingest's chunks need."""


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    """A tmpfs of SIZE_MB mounted for the test (skips when mounting is not allowed)."""
    mount = shutil.which("mount")
    point = tmp_path / "disk"
    point.mkdir()
    if mount is None or os.geteuid() != 0:
        pytest.skip("mounting a tmpfs needs root")
    made = subprocess.run(
        [mount, "-t", "tmpfs", "-o", f"size={SIZE_MB}m", "tmpfs", str(point)],
        capture_output=True,
        text=True,
    )
    if made.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {made.stderr.strip()}")
    try:
        yield point
    finally:
        subprocess.run(["umount", "-l", str(point)], capture_output=True)


def _corpus(root: Path, files: int, sentences: int) -> Path:
    root.mkdir(parents=True)
    for i in range(files):
        body = " ".join(
            f"The brig Kestrel{i} carried {j} crates of salt to Orlenburg on day {j}."
            for j in range(sentences)
        )
        (root / f"log{i:03d}.md").write_text(f"# Ship log {i}\n\n{body}\n", encoding="utf-8")
    return root


def _treerag(data: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "TREERAG_DATA_DIR": str(data)}
    return subprocess.run(
        [sys.executable, "-m", "treerag", *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )


def test_a_full_disk_is_one_line_and_nothing_is_lost_once_freed(small_disk, tmp_path):
    data = small_disk / "data"
    first = _treerag(data, "ingest", str(_corpus(tmp_path / "a", 5, 2)))
    assert first.returncode == 0, first.stderr[-3000:]
    free_kb = shutil.disk_usage(small_disk).free // 1024
    filler = small_disk / "filler"
    with filler.open("wb") as out:
        out.truncate(0)
        chunk = b"\0" * 1024 * 1024
        left = (free_kb - LEFT_KB) * 1024
        while left > 0:
            left -= out.write(chunk[: min(len(chunk), left)])
    more = _corpus(tmp_path / "b", 60, 30)

    full = _treerag(data, "ingest", str(more))
    said = (full.stdout + full.stderr).strip()
    assert full.returncode == 1, said[-3000:]
    assert "Traceback" not in said and "the disk is full" in said, said[-3000:]
    assert len(said.splitlines()) <= 2, said[-3000:]
    doctor = _treerag(data, "doctor")
    assert doctor.returncode == 1 and "the disk is full" in " ".join(doctor.stdout.split())

    filler.unlink()
    again = _treerag(data, "ingest", str(more))
    assert again.returncode == 0, again.stderr[-3000:]
    listing = json.loads(_treerag(data, "docs", "list", "--json").stdout)
    assert len(listing["documents"]) == 65
    assert listing["stale"] == {"keyword_tree": False, "knowledge_graph": False}
    assert not listing["behind"] and all(d["ingested_at"] for d in listing["documents"])
    assert not list(data.glob(".documents-*"))  # no temp file left by the failed write
