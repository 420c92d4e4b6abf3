"""Index files into the chunk store idempotently: unchanged files add nothing, changed replace."""

from __future__ import annotations

import hashlib
import unicodedata
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

from treerag.context import Context
from treerag.embedder_choice import AUTO, choose_for_texts
from treerag.ingest.loaders import JsonFields, LoadError, discover, load, unsupported_reason
from treerag.ingest.splitting import split_sections
from treerag.models import embedding_dimension, get_embeddings
from treerag.retrievers.chunk_store import Chunk, ChunkStore
from treerag.retrievers.keyword_tree import common_folder
from treerag.text import source_file

Progress = Callable[[str, int, int], None]
"""Called as progress(stage, done, total): "load" per file read, "embed" per batch written
(its total grows as files are read)."""

WRITE_BATCH = 256
"""Chunks embedded and written together: memory holds one batch of vectors at a time."""
FLUSH_EVERY = 1024
"""Chunks written between flushes. Milvus Lite keeps every unflushed row in an in-process
memtable: flushing only at the end made ingest's peak memory grow with the corpus (traced
peak 12.9 MiB for 500 small files, 50.8 MiB for 2,000; BENCHMARKS.md, ingest)."""
LARGE_FILE_BYTES = 1_000_000
"""Files from this size on get a note that they take a while."""


@dataclass
class FileResult:
    """What happened to one file."""

    path: str
    status: str  # "added" | "updated" | "unchanged" | "duplicate" | "skipped"
    chunks: int = 0
    added: int = 0
    removed: int = 0
    reason: str = ""
    left_out: list[str] = field(default_factory=list)
    """Parts of the file that could not be read and were left out (a JSONL line), each
    with where it is and why; the rest of the file went in."""


@dataclass
class IngestReport:
    """The outcome of one `ingest` call."""

    files: list[FileResult] = field(default_factory=list)
    pruned_sources: list[str] = field(default_factory=list)
    pruned_chunks: int = 0
    total_chunks: int = 0
    derived: dict[str, str] = field(default_factory=dict)
    """What became of the keyword tree and the graph (updated/stale/absent)."""
    interrupted: bool = False
    """Ctrl-C stopped the call: what was written is kept; running it again does the rest."""
    written: int = 0
    """Chunks embedded and written (all of `added` unless interrupted)."""
    derived_changes: dict[str, int] = field(default_factory=dict)
    """Chunks the derived stores took in ("added") and let go ("removed") this call."""

    @property
    def skipped(self) -> list[FileResult]:
        """Files that could not be ingested."""
        return [f for f in self.files if f.status == "skipped"]

    @property
    def left_out(self) -> list[str]:
        """Parts of ingested files that were left out, each said with where it is."""
        return [part for f in self.files for part in f.left_out]

    @property
    def duplicates(self) -> list[FileResult]:
        """Files not stored because another file holds the same text."""
        return [f for f in self.files if f.status == "duplicate"]

    @property
    def added(self) -> int:
        """Chunks written by this call."""
        return sum(f.added for f in self.files)

    @property
    def removed(self) -> int:
        """Chunks deleted by this call (replaced or pruned)."""
        return sum(f.removed for f in self.files) + self.pruned_chunks


def ingest(
    paths: Sequence[Path],
    ctx: Context,
    *,
    include: Sequence[str] = (),
    exclude: Sequence[str] = (),
    prune: bool = False,
    json_fields: JsonFields | None = None,
    progress: Progress | None = None,
    embeddings=None,
    notify: Callable[[str], None] | None = None,
    tree_base: str | None = None,
    renew_derived: bool = True,
) -> IngestReport:
    """Ingest files and folders; bad files are reported and skipped, the rest go in.

    Chunk ids derive from (source, text), so re-ingesting an unchanged file writes nothing,
    and a changed file has exactly its vanished chunks deleted and its new chunks added.
    A file whose normalized text equals a file already stored (or met earlier in this call)
    is not stored again: it is reported as a duplicate and remembered as a copy.
    With `prune`, chunks of files under the given folders that no longer exist are deleted.

    Files are read one at a time and their chunks embedded and written in batches of
    WRITE_BATCH, so memory holds one batch of vectors and the first chunks are searchable
    while later files are still being read. On KeyboardInterrupt (Ctrl-C) what was written
    is flushed and kept, the report says `interrupted`, and the next call does the rest.

    Args:
        paths: Files and folders to ingest.
        ctx: The settings (collection, chunk size and overlap).
        include: Globs of paths to keep.
        exclude: Globs of paths to skip.
        prune: Delete chunks of files under the folders that no longer exist.
        json_fields: Which JSON keys hold a record's text, title and id.
        progress: Called per file read and per batch written.
        embeddings: The embedder (default: the one the settings name).
        notify: Called with a sentence when a file is large, or a derived store is built
            again from every chunk (it takes a while).
        tree_base: The folder the keyword tree names files relative to (default: the
            common folder of the files ingested).
        renew_derived: Build a keyword tree or graph that older rules built again from
            every chunk (`documents.derived.reconcile`); False only keeps it in step.

    The keyword tree and the passage-entity graph are then brought up to the collection
    (`treerag.documents.derived.reconcile`): what this call wrote and deleted, and what an
    earlier write that was killed or failed left them missing.
    """
    unsupported: list[Path] = []
    files = discover([Path(p) for p in paths], include, exclude, unsupported)
    choose = embeddings is None and ctx.embedding_model == AUTO
    embeddings = embeddings or get_embeddings(ctx)
    store = ChunkStore(ctx, embeddings)
    report = IngestReport()
    for path in unsupported:
        report.files.append(FileResult(str(path), "skipped", reason=unsupported_reason(path)))
    existing = store.ids_by_source() if store.exists() else {}
    existing_by_file: dict[str, set[str]] = {}
    for source, ids in existing.items():
        existing_by_file.setdefault(source_file(source), set()).update(ids)
    writer = _Writer(store, embeddings, progress, choose_embedder=choose, notify=notify)
    dedup = _Duplicates(store)
    pruned: list[str] = []
    # Imported here: treerag.documents builds on this module.
    from treerag.documents import derived, manifest

    try:
        for i, path in enumerate(files):
            _ingest_file(path, ctx, json_fields, existing_by_file, writer, dedup, report, notify)
            if progress:
                progress("load", i + 1, len(files))
        writer.finish()
        if prune and store.exists():
            report.pruned_sources, pruned = _prune(store, paths, existing)
            report.pruned_chunks = len(pruned)
            dedup.forget(source_file(s) for s in report.pruned_sources)
    except KeyboardInterrupt:
        report.interrupted = True
    finally:
        dedup.save()
        if store.exists():
            store.flush()
            report.total_chunks = store.count()
    report.written = writer.written
    base = tree_base if tree_base is not None else common_folder([f.as_posix() for f in files])
    removed = [*writer.deleted, *pruned]
    manifest.record_ingest(ctx, report)
    report.derived = dict(
        derived.reconcile(ctx, rows=writer.rows, base_dir=base, renew=renew_derived, notify=notify)
    )
    report.derived_changes = {"added": len(writer.rows), "removed": len(removed)}
    return report


def _ingest_file(
    path: Path,
    ctx: Context,
    json_fields: JsonFields | None,
    existing_by_file: dict[str, set[str]],
    writer: _Writer,
    dedup: _Duplicates,
    report: IngestReport,
    notify: Callable[[str], None] | None,
) -> None:
    size = path.stat().st_size
    if notify and size >= LARGE_FILE_BYTES:
        notify(
            f"{path.name} is large ({size / 1e6:.1f} MB, about {size // ctx.chunk_size:,} "
            "chunks): reading, embedding and writing it takes a while"
        )
    left_out: list[str] = []
    try:
        sections = load(path, json_fields, left_out)
        chunks = split_sections(sections, ctx.chunk_size, ctx.chunk_overlap)
    except LoadError as exc:
        report.files.append(FileResult(str(path), "skipped", reason=str(exc)))
        return
    old = existing_by_file.get(path.as_posix(), set())
    digest = text_hash(s.text for s in sections)
    original = dedup.original_of(path.as_posix(), digest, stored=bool(old))
    if original is not None:
        report.files.append(
            FileResult(str(path), "duplicate", len(chunks), reason=f"same text as {original}")
        )
        return
    for chunk in chunks:
        chunk.meta["file_hash"] = digest
    writer.sample(chunks)
    new_ids = {c.id for c in chunks}
    fresh = [c for c in chunks if c.id not in old]
    stale = old - new_ids
    writer.add(fresh)
    writer.delete(stale)
    status = "added" if not old else ("updated" if fresh or stale else "unchanged")
    report.files.append(
        FileResult(str(path), status, len(chunks), len(fresh), len(stale), left_out=left_out)
    )


def text_hash(texts: Iterable[str]) -> str:
    """Hash of a document's text, normalized so that copies match.

    NFKC folds full-width and compatibility forms; whitespace runs count as one space,
    so a copy saved with other line ends or indentation is still a copy.
    """
    digest = hashlib.sha256()
    for text in texts:
        digest.update(" ".join(unicodedata.normalize("NFKC", text).split()).encode())
        digest.update(b"\x00")
    return digest.hexdigest()[:32]


class _Writer:
    """Embeds and writes chunks in batches; deletes stale ids after the writes before them."""

    def __init__(
        self,
        store: ChunkStore,
        embeddings,
        progress: Progress | None,
        choose_embedder: bool = False,
        notify: Callable[[str], None] | None = None,
    ):
        self.store, self.embeddings, self.progress = store, embeddings, progress
        self.choose_embedder = choose_embedder
        """Pick a new collection's embedder from its first chunks (setting `auto`)."""
        self.notify = notify
        self.pending: list[Chunk] = []
        self.stale: list[str] = []
        self.deleted: list[str] = []
        """Ids deleted by this call (the derived stores let them go)."""
        self.rows: list[dict] = []
        """Chunks written by this call, as the derived stores take them (no vectors)."""
        self.samples: list[str] = []
        self.queued = 0
        self.written = 0
        self.flushed = 0
        self.ready = False

    def sample(self, chunks: list[Chunk]) -> None:
        """Note a file's first chunks; check an existing collection at once.

        A new collection is created at the first write, its BM25 analyzer chosen from the
        first chunks of every file read until then.
        """
        if self.ready:
            return
        self.samples.extend(c.text for c in chunks[:3])
        # A collection an interrupted creation left without its record is made again at the
        # first write, as a new one: from these samples, not the first file's alone.
        if self.store.exists() and self.store.info():
            self._open()

    def _open(self) -> None:
        self.store.discard_interrupted()
        if self.choose_embedder and not self.store.exists():
            self._choose_embedder()
        self.store.ensure(embedding_dimension(self.embeddings), self.samples)
        self.ready = True

    def _choose_embedder(self) -> None:
        name = choose_for_texts(self.samples)
        if name == self.store.embedding_name:
            return
        self.embeddings = get_embeddings(replace(self.store.ctx, embedding_model=name))
        self.store.embeddings, self.store.embedding_name = self.embeddings, name
        if self.notify:
            self.notify(
                f"new collection of documents that are not all English: embedding with {name} "
                "(multilingual; set TREERAG_EMBEDDING_MODEL to choose another)"
            )

    def add(self, chunks: list[Chunk]) -> None:
        self.pending.extend(chunks)
        self.queued += len(chunks)
        while len(self.pending) >= WRITE_BATCH:
            self._write(self.pending[:WRITE_BATCH])
            del self.pending[:WRITE_BATCH]

    def delete(self, ids: Iterable[str]) -> None:
        self.stale.extend(ids)

    def finish(self) -> None:
        if self.pending:
            self._write(self.pending)
            self.pending = []
        if self.stale:
            self.store.delete(self.stale)
            self.deleted.extend(self.stale)
            self.stale = []

    def _write(self, part: list[Chunk]) -> None:
        if not self.ready:
            self._open()
        vectors = self.embeddings.embed_documents([c.text for c in part])
        self.store.insert(part, vectors)
        self.rows.extend(
            {"id": c.id, "text": c.text, "title": c.title, "source": c.source, "meta": c.meta}
            for c in part
        )
        self.written += len(part)
        if self.written - self.flushed >= FLUSH_EVERY:
            self.store.flush()
            self.flushed = self.written
        if self.progress:
            self.progress("embed", self.written, self.queued)


class _Duplicates:
    """Finds files whose text is already stored under another path, and remembers copies."""

    def __init__(self, store: ChunkStore):
        self.store = store
        self.seen: dict[str, str] = {}
        """Text hash → file, for files met in this call."""
        exists = store.exists()
        self.copies = store.copies() if exists else {}
        self.stored = store.files_by_hash() if exists else {}
        """Text hash → files stored with it (read once: one query, not one per file)."""
        self.changed = False

    def original_of(self, path: str, digest: str, stored: bool) -> str | None:
        """The file that already holds this text, or None (and remember this one)."""
        original = self.seen.get(digest)
        if original is None and not stored:
            others = sorted(f for f in self.stored.get(digest, ()) if f != path)
            original = next((f for f in others if Path(f).exists()), None)
        if original is None or stored:
            self.seen.setdefault(digest, path)
            self.forget([path])
            return None
        if self.copies.get(path) != original:
            self.copies[path] = original
            self.changed = True
        return original

    def forget(self, paths: Iterable[str]) -> None:
        for path in paths:
            if self.copies.pop(path, None) is not None:
                self.changed = True

    def save(self) -> None:
        if self.changed and self.store.exists():
            self.store.set_copies(self.copies)


def _prune(
    store: ChunkStore, roots: Sequence[Path], existing: dict[str, set[str]]
) -> tuple[list[str], list[str]]:
    dirs = [Path(r).resolve() for r in roots if Path(r).is_dir()]
    gone = [
        source
        for source in existing
        if any(Path(source_file(source)).is_relative_to(d) for d in dirs)
        and not Path(source_file(source)).exists()
    ]
    ids = [i for s in gone for i in existing[s]]
    store.delete(ids)
    return sorted(gone), ids
