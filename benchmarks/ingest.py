"""Ingestion throughput: one large single-line file and many small files, against embedding alone.

Run from the repository root::

    python -m benchmarks.ingest               # 5 MB file + 2,000 small files
    python -m benchmarks.ingest --scale 0.25  # a quarter of both (loaded machines)
    python -m benchmarks.ingest --write       # also splice the results into BENCHMARKS.md

For each corpus, in the same run:

1. chunks/s of ``ingest()`` (read, split, embed, write to Milvus Lite, flush) next to chunks/s
   of embedding the same chunk texts alone with the same embedder and batch size
   (goal: ingest >= 0.8x embedding alone);
2. time to the first searchable chunk: from the call to the first search that finds a chunk
   of the corpus (asked from the progress callback after each written batch);
3. peak Python memory (tracemalloc) of ingesting the corpus at a quarter and at full size
   (goal: flat in corpus size for many files: batches stream, vectors are never all held).

Text: sentences of ``../shared/datasets/hotpotqa_100/corpus.json`` when present, else the
shipped sample corpus, repeated to size.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
import tracemalloc
from collections.abc import Sequence
from pathlib import Path

from benchmarks._report import machine_summary, publish

ROOT = Path(__file__).resolve().parent.parent
DATASET = ROOT.parent / "shared" / "datasets" / "hotpotqa_100" / "corpus.json"


def source_sentences() -> list[str]:
    """Sentences to build documents from (the dev corpus, or the shipped sample corpus)."""
    if DATASET.is_file():
        corpus = json.loads(DATASET.read_text(encoding="utf-8"))
        return [s.strip() for sentences in corpus.values() for s in sentences if s.strip()]
    docs = ROOT / "treerag" / "sample_corpus" / "docs"
    text = " ".join(p.read_text(encoding="utf-8") for p in sorted(docs.rglob("*.md")))
    return [s.strip() + "." for s in text.split(".") if s.strip()]


def write_large_file(folder: Path, size: int, sentences: list[str]) -> Path:
    """One file of `size` bytes on a single line (the shape that took 13 minutes)."""
    folder.mkdir(parents=True, exist_ok=True)
    parts, total, i = [], 0, 0
    while total < size:
        s = sentences[i % len(sentences)]
        parts.append(s)
        total += len(s.encode()) + 1
        i += 1
    path = folder / "huge_line.txt"
    path.write_text(" ".join(parts), encoding="utf-8")
    return path


def write_small_files(folder: Path, count: int, sentences: list[str]) -> Path:
    """`count` notes of 3-8 sentences each, in 20 sub-folders."""
    for n in range(count):
        path = folder / f"part{n % 20:02d}" / f"note{n:05d}.md"
        path.parent.mkdir(parents=True, exist_ok=True)
        start = (n * 7) % len(sentences)
        body = " ".join(sentences[(start + j) % len(sentences)] for j in range(3 + n % 6))
        path.write_text(f"# Note {n}\n\n{body}\n", encoding="utf-8")
    return folder


def chunk_texts(folder: Path, ctx) -> list[str]:
    """The chunk texts ingest() would write for a folder (for the embedding-alone baseline)."""
    from treerag.ingest.loaders import discover, load
    from treerag.ingest.splitting import split_sections

    return [
        c.text
        for path in discover([folder])
        for c in split_sections(load(path), ctx.chunk_size, ctx.chunk_overlap)
    ]


def embed_alone(texts: list[str], embeddings, batch: int) -> float:
    """Seconds to embed the texts in batches of `batch`, as ingest() does."""
    start = time.perf_counter()
    for i in range(0, len(texts), batch):
        embeddings.embed_documents(texts[i : i + batch])
    return time.perf_counter() - start


def run_ingest(folder: Path, data: Path, name: str, embeddings, probe: str) -> dict:
    """Ingest a folder into a fresh collection; time it and the first searchable chunk."""
    from treerag.context import Context
    from treerag.ingest.indexer import ingest
    from treerag.retrievers.chunk_store import ChunkStore
    from treerag.retrievers.hybrid import from_context

    ctx = Context(data_dir=str(data), collection=name)
    start = time.perf_counter()
    first: dict[str, float] = {}

    def progress(stage: str, done: int, total: int) -> None:
        if stage == "embed" and "searchable" not in first:
            hits = from_context(ChunkStore(ctx, embeddings), topk=1, mode="sparse")
            if hits.get_similar_chunk_with_score(probe):
                first["searchable"] = time.perf_counter() - start

    report = ingest([folder], ctx, embeddings=embeddings, progress=progress)
    seconds = time.perf_counter() - start
    return {
        "chunks": report.added,
        "seconds": seconds,
        "first_s": first.get("searchable", float("nan")),
        "files": len(report.files),
    }


MEMORY_BATCH = 32
"""Write batch of the memory runs: small, so that both corpora span many batches."""


def peak_memory(folder: Path, data: Path, name: str, embeddings) -> float:
    """Peak traced Python memory (MiB) of one ingest() call, writing MEMORY_BATCH at a time."""
    from treerag.context import Context
    from treerag.ingest import indexer

    ctx = Context(data_dir=str(data), collection=name)
    batch, indexer.WRITE_BATCH = indexer.WRITE_BATCH, MEMORY_BATCH
    tracemalloc.start()
    try:
        indexer.ingest([folder], ctx, embeddings=embeddings)
        return tracemalloc.get_traced_memory()[1] / 2**20
    finally:
        tracemalloc.stop()
        indexer.WRITE_BATCH = batch


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", type=float, default=1.0, help="Fraction of 5 MB / 2,000 files.")
    parser.add_argument("--write", action="store_true", help="Splice results into BENCHMARKS.md.")
    args = parser.parse_args(argv)

    from treerag.context import Context
    from treerag.ingest.indexer import WRITE_BATCH
    from treerag.models import get_embeddings

    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    began = time.perf_counter()
    load_start = os.getloadavg()[0]
    sentences = source_sentences()
    embeddings = get_embeddings(Context())
    embeddings.embed_documents(["warm up"])
    size, count = int(5_000_000 * args.scale), int(2_000 * args.scale)
    rows, notes = [], []
    with tempfile.TemporaryDirectory(prefix="treerag-ingest-bench-") as tmp:
        work = Path(tmp)
        corpora = {
            f"one {size / 1e6:.2f} MB single-line file": write_large_file(
                work / "large", size, sentences
            ).parent,
            f"{count:,} small markdown files": write_small_files(work / "small", count, sentences),
        }
        for n, (label, folder) in enumerate(corpora.items()):
            texts = chunk_texts(folder, Context())
            alone_s = embed_alone(texts, embeddings, WRITE_BATCH)
            result = run_ingest(folder, work / f"data{n}", f"bench{n}", embeddings, texts[0][:60])
            ingest_rate, alone_rate = result["chunks"] / result["seconds"], len(texts) / alone_s
            ratio = ingest_rate / alone_rate
            rows.append(
                f"| {label} | {result['chunks']:,} | {result['seconds']:.1f} s, "
                f"{ingest_rate:.1f} chunks/s | {alone_s:.1f} s, {alone_rate:.1f} chunks/s | "
                f"**{ratio:.2f}x** (goal >= 0.8x) {'met' if ratio >= 0.8 else 'NOT met'} | "
                f"{result['first_s']:.1f} s |"
            )
        quarter = write_small_files(work / "quarter", max(1, count // 4), sentences)
        small_peak = peak_memory(quarter, work / "mem0", "mem0", embeddings)
        full_peak = peak_memory(corpora[list(corpora)[1]], work / "mem1", "mem1", embeddings)
        growth, quarter_count = full_peak / small_peak, max(1, count // 4)
        notes.append(
            f"Peak traced Python memory of ingest(): {small_peak:.1f} MiB for {quarter_count:,} "
            f"small files, {full_peak:.1f} MiB for {count:,} (**{growth:.2f}x** for 4x the corpus; "
            f"goal: flat, {'met' if growth < 1.5 else 'NOT met'}), both written {MEMORY_BATCH} "
            f"chunks at a time so that each spans many batches (ingest() writes {WRITE_BATCH}); "
            "vectors are never all held."
        )
    minutes = (time.perf_counter() - began) / 60
    scaled = (
        ""
        if args.scale == 1.0
        else f" Scaled down to {args.scale:g} of the 5 MB / 2,000-file goal corpus (machine load)."
    )
    markdown = "\n".join(
        [
            "## Ingestion throughput (`benchmarks/ingest.py`)",
            "",
            f"Machine: {machine_summary()}. Load average (1 min) at start / end: "
            f"{load_start:.1f} / {os.getloadavg()[0]:.1f}; the run took {minutes:.1f} min.{scaled}",
            "",
            "Embedder: all-MiniLM-L6-v2 int8 ONNX (the offline default), chunk size 800, "
            "Milvus Lite. 'Embedding alone' embeds the same chunk texts in the same batches, "
            "in the same run; 'first searchable' is the time from the call to the first BM25 "
            "search that finds a chunk of the corpus.",
            "",
            "| Corpus | Chunks | ingest() | Embedding alone | Ingest / embedding | "
            "First searchable |",
            "|---|---|---|---|---|---|",
            *rows,
            "",
            *notes,
        ]
    )
    publish("ingest", markdown, args.write)
    return 0


if __name__ == "__main__":
    sys.exit(main())
