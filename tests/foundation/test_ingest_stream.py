"""Ingestion streams: duplicates stored once, progress per file and batch, Ctrl-C keeps what was written."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from treerag.cli import app
from treerag.context import Context
from treerag.ingest import indexer
from treerag.ingest.indexer import ingest
from treerag.models import get_embeddings
from treerag.retrievers.chunk_store import ChunkStore

runner = CliRunner()
PARAGRAPH = "The Tallow Beacon of Keldmarsh was lit in 1712 by the lamp guild. "


def _ctx(tmp_path: Path, name: str) -> Context:
    return Context(
        data_dir=str(tmp_path / "data"), collection=name, chunk_size=200, chunk_overlap=0
    )


def test_same_text_under_two_paths_is_stored_once_and_both_remembered(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    (docs / "copies").mkdir(parents=True)
    (docs / "a.md").write_text("# Beacon\n\n" + PARAGRAPH * 3, encoding="utf-8")
    # The same text with other line ends and spacing is the same document.
    (docs / "copies" / "b.md").write_text(
        "# Beacon\r\n\r\n  " + PARAGRAPH * 3 + "\n\n", encoding="utf-8"
    )
    (docs / "c.md").write_text(
        "# Ferry\n\nA ferry crosses the estuary twice a day.", encoding="utf-8"
    )
    ctx = _ctx(tmp_path, "dedup")
    report = ingest([docs], ctx)
    status = {Path(f.path).name: f.status for f in report.files}
    assert status == {"a.md": "added", "b.md": "duplicate", "c.md": "added"}
    dup = report.duplicates[0]
    assert dup.reason == f"same text as {(docs / 'a.md').resolve().as_posix()}"
    store = ChunkStore(ctx, None)
    sources = {Path(s).name for s in store.ids_by_source()}
    assert sources == {"a.md", "c.md"}
    assert store.copies() == {
        (docs / "copies" / "b.md").resolve().as_posix(): (docs / "a.md").resolve().as_posix()
    }
    again = ingest([docs], ctx)
    assert again.added == 0 and [Path(f.path).name for f in again.duplicates] == ["b.md"]
    # A copy met in a later call is found in the store.
    later = tmp_path / "later"
    later.mkdir()
    (later / "copy.md").write_text("# Beacon\n\n" + PARAGRAPH * 3, encoding="utf-8")
    third = ingest([later], ctx)
    assert [f.status for f in third.files] == ["duplicate"]
    assert "a.md" in third.files[0].reason
    assert len(store.copies()) == 2


def test_progress_streams_per_batch_and_notes_large_files(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setattr(indexer, "WRITE_BATCH", 4)
    monkeypatch.setattr(indexer, "LARGE_FILE_BYTES", 2000)
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "big.txt").write_text(PARAGRAPH * 40, encoding="utf-8")  # one line, ~2.7 KB
    for i in range(5):
        (docs / f"small{i}.txt").write_text(f"Note {i}: " + PARAGRAPH * 4, encoding="utf-8")
    events: list[tuple[str, int, int]] = []
    notes: list[str] = []
    report = ingest(
        [docs], _ctx(tmp_path, "stream"), progress=lambda *e: events.append(e), notify=notes.append
    )
    embeds = [e for e in events if e[0] == "embed"]
    loads = [e for e in events if e[0] == "load"]
    assert len(embeds) >= report.added // 4 and embeds[-1][1] == report.added
    assert [e[1] for e in loads] == list(range(1, 7))
    # Streaming: the first batch is written before the last file is read.
    assert events.index(embeds[0]) < events.index(loads[-1])
    assert len(notes) == 1 and "big.txt is large" in notes[0]


def test_ctrl_c_keeps_what_was_written_and_the_next_run_finishes(
    tmp_path: Path, monkeypatch
) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setattr(indexer, "WRITE_BATCH", 4)
    docs = tmp_path / "docs"
    docs.mkdir()
    for i in range(6):
        (docs / f"n{i}.txt").write_text(f"Record {i}. " + PARAGRAPH * 5, encoding="utf-8")
    clean = ingest([docs], _ctx(tmp_path, "clean"))

    def interrupt(stage: str, done: int, total: int) -> None:
        if stage == "embed" and done >= 8:
            raise KeyboardInterrupt

    ctx = _ctx(tmp_path, "interrupted")
    stopped = ingest([docs], ctx, progress=interrupt)
    assert stopped.interrupted and stopped.written == 8
    store = ChunkStore(ctx, None)
    assert store.count() == stopped.total_chunks == 8  # what was written stays, flushed
    finished = ingest([docs], ctx)
    assert not finished.interrupted
    assert finished.added == clean.added - 8
    assert finished.total_chunks == clean.total_chunks
    assert sum(len(ids) for ids in store.ids_by_source().values()) == clean.total_chunks


def test_cli_says_what_an_interrupted_ingest_kept(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setattr(indexer, "WRITE_BATCH", 4)
    docs = tmp_path / "docs"
    docs.mkdir()
    for i in range(4):
        (docs / f"n{i}.txt").write_text(f"Record {i}. " + PARAGRAPH * 5, encoding="utf-8")
    embeddings = get_embeddings(Context())
    real = type(embeddings).embed_documents
    calls = {"n": 0}

    def embed_then_stop(self, texts):  # type: ignore[no-untyped-def]
        calls["n"] += 1
        if calls["n"] == 2:
            raise KeyboardInterrupt
        return real(self, texts)

    monkeypatch.setattr(type(embeddings), "embed_documents", embed_then_stop)
    result = runner.invoke(
        app,
        [
            "ingest",
            str(docs),
            "--data-dir",
            str(tmp_path / "data"),
            "--chunk-size",
            "200",
            "--chunk-overlap",
            "0",
        ],
    )
    assert result.exit_code == 130, result.output
    said = " ".join(result.output.split())
    assert "interrupted: the 4 chunks written so far are kept" in said
    assert "run the same command again" in said


@pytest.mark.parametrize("size", [1, 3])
def test_peak_vectors_in_memory_is_one_batch(tmp_path: Path, monkeypatch, size: int) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setattr(indexer, "WRITE_BATCH", 4)
    docs = tmp_path / "docs"
    docs.mkdir()
    for i in range(size * 4):
        (docs / f"n{i}.txt").write_text(f"Record {i}. " + PARAGRAPH * 3, encoding="utf-8")
    embeddings = get_embeddings(Context())
    real = type(embeddings).embed_documents
    largest = {"n": 0}

    def watch(self, texts):  # type: ignore[no-untyped-def]
        largest["n"] = max(largest["n"], len(texts))
        return real(self, texts)

    monkeypatch.setattr(type(embeddings), "embed_documents", watch)
    report = ingest([docs], _ctx(tmp_path, f"peak{size}"))
    assert report.added > 4 and largest["n"] <= 4


def test_a_long_ingest_flushes_as_it_goes_so_memory_does_not_grow_with_the_corpus(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Milvus Lite holds unflushed rows in memory: a flush after every FLUSH_EVERY chunks."""
    docs = tmp_path / "docs"
    docs.mkdir()
    for i in range(12):
        (docs / f"note{i}.md").write_text(f"# Note {i}\n\n{PARAGRAPH} Entry {i}.", encoding="utf-8")
    monkeypatch.setattr(indexer, "WRITE_BATCH", 2)
    monkeypatch.setattr(indexer, "FLUSH_EVERY", 4)
    flushes: list[int] = []
    original = ChunkStore.flush

    def counting_flush(self: ChunkStore) -> None:
        flushes.append(self.count() if self.exists() else 0)
        original(self)

    monkeypatch.setattr(ChunkStore, "flush", counting_flush)
    report = ingest([docs], _ctx(tmp_path, "flushes"))
    assert report.written == 12
    # Flushed after chunks 4, 8 and 12 while writing, and once more at the end.
    assert len(flushes) >= 4, flushes
