"""Index files into the chunk store idempotently: unchanged files add nothing, changed replace."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from treerag.context import Context
from treerag.ingest.loaders import JsonFields, LoadError, discover, load
from treerag.ingest.splitting import split_sections
from treerag.models import embedding_dimension, get_embeddings
from treerag.retrievers.chunk_store import Chunk, ChunkStore

Progress = Callable[[str, int, int], None]
"""Called as progress(stage, done, total) with stage "load" or "embed"."""


@dataclass
class FileResult:
    """What happened to one file."""

    path: str
    status: str  # "added" | "updated" | "unchanged" | "skipped"
    chunks: int = 0
    added: int = 0
    removed: int = 0
    reason: str = ""


@dataclass
class IngestReport:
    """The outcome of one `ingest` call."""

    files: list[FileResult] = field(default_factory=list)
    pruned_sources: list[str] = field(default_factory=list)
    pruned_chunks: int = 0
    total_chunks: int = 0
    derived: dict[str, str] = field(default_factory=dict)
    """After pruning: what became of the keyword tree and the graph (updated/stale/absent)."""

    @property
    def skipped(self) -> list[FileResult]:
        """Files that could not be ingested."""
        return [f for f in self.files if f.status == "skipped"]

    @property
    def added(self) -> int:
        """Chunks written by this call."""
        return sum(f.added for f in self.files)

    @property
    def removed(self) -> int:
        """Chunks deleted by this call (replaced or pruned)."""
        return sum(f.removed for f in self.files) + self.pruned_chunks


def _file_of(source: str) -> str:
    """The file a stored source belongs to (JSON records are stored as `file#id`)."""
    return source.split("#", 1)[0]


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
) -> IngestReport:
    """Ingest files and folders; bad files are reported and skipped, the rest go in.

    Chunk ids derive from (source, text), so re-ingesting an unchanged file writes nothing,
    and a changed file has exactly its vanished chunks deleted and its new chunks added.
    With `prune`, chunks of files under the given folders that no longer exist are deleted.
    """
    files = discover([Path(p) for p in paths], include, exclude)
    embeddings = embeddings or get_embeddings(ctx)
    store = ChunkStore(ctx, embeddings)
    report = IngestReport()
    loaded: list[tuple[Path, list[Chunk]]] = []
    for i, path in enumerate(files):
        try:
            chunks = split_sections(load(path, json_fields), ctx.chunk_size, ctx.chunk_overlap)
            loaded.append((path, chunks))
        except LoadError as exc:
            report.files.append(FileResult(str(path), "skipped", reason=str(exc)))
        if progress:
            progress("load", i + 1, len(files))
    if loaded:
        store.ensure(embedding_dimension(embeddings), [c.text for _, cs in loaded for c in cs[:3]])
    existing = store.ids_by_source() if store.exists() else {}
    existing_by_file: dict[str, set[str]] = {}
    for source, ids in existing.items():
        existing_by_file.setdefault(_file_of(source), set()).update(ids)

    to_write: list[Chunk] = []
    to_delete: list[str] = []
    for path, chunks in loaded:
        old = existing_by_file.get(path.as_posix(), set())
        new_ids = {c.id for c in chunks}
        fresh = [c for c in chunks if c.id not in old]
        stale = old - new_ids
        to_write.extend(fresh)
        to_delete.extend(stale)
        status = "added" if not old else ("updated" if fresh or stale else "unchanged")
        report.files.append(FileResult(str(path), status, len(chunks), len(fresh), len(stale)))
    _write(store, embeddings, to_write, progress)
    store.delete(to_delete)
    pruned: list[str] = []
    if prune and store.exists():
        report.pruned_sources, pruned = _prune(store, paths, existing)
        report.pruned_chunks = len(pruned)
    if store.exists():
        store.flush()
        report.total_chunks = store.count()
    # Imported here: treerag.documents builds on this module.
    from treerag.documents import derived, manifest

    if pruned:  # what the keyword tree and the graph derived from pruned files goes too
        report.derived = derived.forget(ctx, pruned, map(_file_of, report.pruned_sources))
    manifest.record_ingest(ctx, report)
    return report


def _write(store: ChunkStore, embeddings, chunks: list[Chunk], progress: Progress | None) -> None:
    batch = 256
    for start in range(0, len(chunks), batch):
        part = chunks[start : start + batch]
        vectors = embeddings.embed_documents([c.text for c in part])
        store.insert(part, vectors)
        if progress:
            progress("embed", min(start + batch, len(chunks)), len(chunks))


def _prune(
    store: ChunkStore, roots: Sequence[Path], existing: dict[str, set[str]]
) -> tuple[list[str], list[str]]:
    dirs = [Path(r).resolve() for r in roots if Path(r).is_dir()]
    gone = [
        source
        for source in existing
        if any(Path(_file_of(source)).is_relative_to(d) for d in dirs)
        and not Path(_file_of(source)).exists()
    ]
    ids = [i for s in gone for i in existing[s]]
    store.delete(ids)
    return sorted(gone), ids
