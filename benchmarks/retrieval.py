"""Retrieval benchmark: embedding throughput, ingest time, query latency, recall, Milvus at 20k.

Run from the repository root::

    python benchmarks/retrieval.py            # full run on shared/datasets/hotpotqa_100
    python benchmarks/retrieval.py --quick    # smoke run (20 questions, ~200 passages, 2k chunks)
    python benchmarks/retrieval.py --write    # also splice the results into BENCHMARKS.md

Every figure is printed next to its baseline, measured in the same run where possible:

1. Embedding throughput of the offline default (all-MiniLM-L6-v2 int8 ONNX) on the passages,
   length-sorted batching vs input order (goal: sorted >= 2x unsorted).
2. Ingest time of the passages through ``treerag.ingest.indexer.ingest`` (one passage = one chunk).
3. Query latency p50/p95 of dense, sparse and hybrid search through ``Retriever``, next to
   numpy / bm25s brute force over the same data.
4. Recall@2 / @5 of the gold supporting titles per mode, next to brute force: numpy cosine over
   the same embeddings, bm25s (English stopwords), and RRF(k=60) of their top-100 lists
   (goal: Milvus hybrid recall@5 within 0.02 of brute-force RRF).
5. Hybrid p50 over synthetic chunks (20k; random unit vectors, sentences of corpus words) before
   and after flush (goal: <= 150 ms after flush).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

REPO_ROOT = Path(__file__).resolve().parent.parent
if str(REPO_ROOT) not in sys.path:
    sys.path.insert(0, str(REPO_ROOT))

from benchmarks._report import (  # noqa: E402
    machine_summary,
    percentile,
    publish,
    read_hotpotqa,
    write_section,
)
from treerag.context import Context  # noqa: E402
from treerag.embeddings import DIMENSION, MAX_TOKENS, OnnxMiniLMEmbeddings  # noqa: E402
from treerag.ingest.indexer import ingest  # noqa: E402
from treerag.retrievers.chunk_store import DENSE, SCALAR_FIELDS, SPARSE, Chunk, ChunkStore  # noqa: E402
from treerag.retrievers.hybrid import Retriever  # noqa: E402

DEFAULT_DATASET = REPO_ROOT.parent / "shared" / "datasets" / "hotpotqa_100"
MODES = ("dense", "sparse", "hybrid")
KS = (2, 5)
RRF_K = 60
HYBRID_CANDIDATES = Context().hybrid_candidates
FUSION_POOL = 100
# Passage recall@k of brute force on hotpotqa_100 recorded in design/LANDMINES.md.
LANDMINES_RECALL = {
    "dense": {2: 0.625, 5: 0.785},
    "sparse": {2: 0.600, 5: 0.760},
    "hybrid": {2: 0.615, 5: 0.810},
}
RECALL_TOLERANCE = 0.02
SORT_SPEEDUP_GOAL = 2.0
HYBRID_20K_GOAL_MS = 150.0


# -- data ----------------------------------------------------------------------------------
@dataclass
class Dataset:
    """Passages (title -> text) and questions with their gold supporting titles."""

    titles: list[str]
    texts: list[str]
    questions: list[str]
    gold: list[set[str]]


def _p50_p95(values: list[float]) -> str:
    return f"{percentile(values, 50):.1f} / {percentile(values, 95):.1f}"


def load_dataset(path: Path, max_questions: int | None = None) -> Dataset:
    """Load a HotpotQA-style corpus.json + questions.json pair.

    With ``max_questions`` only those questions are kept, and the corpus is cut down to the
    union of their context paragraphs (every gold title stays in it).
    """
    corpus, records = read_hotpotqa(path)
    if max_questions is not None:
        records = records[:max_questions]
        keep = {title for r in records for title, _ in r["context"]}
        corpus = {t: s for t, s in corpus.items() if t in keep}
    titles = list(corpus)
    return Dataset(
        titles=titles,
        texts=["".join(corpus[t]) for t in titles],
        questions=[r["question"] for r in records],
        gold=[{title for title, _ in r["supporting_facts"]} for r in records],
    )


# -- measuring helpers -----------------------------------------------------------------------
def recall_at(ranked_titles: Sequence[str], gold: set[str], k: int) -> float:
    """Fraction of gold titles among the first k distinct titles of a ranking."""
    seen: list[str] = []
    for title in ranked_titles:
        if title not in seen:
            seen.append(title)
        if len(seen) == k:
            break
    return len(gold.intersection(seen)) / len(gold)


def timed(fn: Callable[[], Any]) -> tuple[Any, float]:
    """Run fn and return (result, milliseconds)."""
    start = time.perf_counter()
    out = fn()
    return out, (time.perf_counter() - start) * 1000


@dataclass
class ModeResult:
    """Latencies (ms) and per-question recall of one retrieval mode."""

    latencies: list[float] = field(default_factory=list)
    recall: dict[int, list[float]] = field(default_factory=lambda: {k: [] for k in KS})

    def mean_recall(self, k: int) -> float:
        """Recall@k averaged over questions."""
        values = self.recall[k]
        return sum(values) / len(values) if values else float("nan")


# -- 1. embedding throughput -----------------------------------------------------------------
def bench_embedding(texts: list[str]) -> tuple[dict[str, float], np.ndarray, OnnxMiniLMEmbeddings]:
    """Passages/s with length-sorted and with input-order batching; returns the sorted vectors."""
    rates: dict[str, float] = {}
    vectors = np.zeros((0, DIMENSION), dtype=np.float32)
    sorted_embedder = OnnxMiniLMEmbeddings(sort_by_length=True)
    for name, embedder in (
        ("sorted", sorted_embedder),
        ("unsorted", OnnxMiniLMEmbeddings(sort_by_length=False)),
    ):
        embedder.embed_array(["warm-up: load the model before timing"])
        out, ms = timed(lambda e=embedder: e.embed_array(texts))
        rates[name] = len(texts) / (ms / 1000)
        print(
            f"  embed {name:>8}: {len(texts)} passages in {ms / 1000:.1f} s "
            f"= {rates[name]:.1f} passages/s",
            flush=True,
        )
        if name == "sorted":
            vectors = out
    return rates, vectors, sorted_embedder


def padded_tokens(texts: Sequence[str], batch_size: int) -> dict[str, int]:
    """Tokens the model runs on (each batch padded to its longest text), per batching order.

    A load-independent view of what length sorting saves: "unsorted" is input order,
    "sorted" is the embedder's order (by character length), "token-sorted" the best case.
    """
    from importlib import resources

    from tokenizers import Tokenizer

    path = resources.files("treerag.embedding_data") / "minilm-tokenizer.json"
    tokenizer = Tokenizer.from_str(path.read_text(encoding="utf-8"))
    tokenizer.enable_truncation(max_length=MAX_TOKENS)
    tokenizer.no_padding()
    lengths = [len(e.ids) for e in tokenizer.encode_batch(list(texts))]

    def padded(order: list[int]) -> int:
        return sum(
            max(lengths[i] for i in order[s : s + batch_size]) * len(order[s : s + batch_size])
            for s in range(0, len(order), batch_size)
        )

    order = list(range(len(texts)))
    return {
        "actual": sum(lengths),
        "unsorted": padded(order),
        "sorted": padded(sorted(order, key=lambda i: len(texts[i]))),
        "token-sorted": padded(sorted(order, key=lambda i: lengths[i])),
    }


# -- 2. ingest -------------------------------------------------------------------------------
def bench_ingest(
    data: Dataset, workdir: Path, embeddings: OnnxMiniLMEmbeddings
) -> tuple[ChunkStore, int, float]:
    """Ingest the passages as one JSONL file; return the store, chunk count and seconds."""
    corpus_file = workdir / "corpus.jsonl"
    with corpus_file.open("w", encoding="utf-8") as fh:
        for i, (title, text) in enumerate(zip(data.titles, data.texts, strict=True)):
            fh.write(json.dumps({"id": f"p{i}", "title": title, "text": text}) + "\n")
    ctx = Context(
        data_dir=str(workdir / "data"),
        collection="bench_hotpot",
        chunk_size=4000,
        chunk_overlap=0,
        analyzer="standard",
    )
    report, ms = timed(lambda: ingest([corpus_file], ctx, embeddings=embeddings))
    if report.skipped:
        raise SystemExit(f"ingest skipped files: {[f.reason for f in report.skipped]}")
    print(f"  ingest: {report.total_chunks} chunks in {ms / 1000:.1f} s", flush=True)
    return ChunkStore(ctx, embeddings), report.total_chunks, ms / 1000


# -- 3 + 4. queries and recall through Retriever ----------------------------------------------
def bench_milvus_queries(store: ChunkStore, data: Dataset) -> dict[str, ModeResult]:
    """Run every question through Retriever per mode: latency at top 5, recall at 2 and 5.

    Latency is timed at topk=5 (the default top_k). Recall@k runs the retriever with topk=k;
    hybrid search lets each side contribute the product's default candidate pool.
    """
    results: dict[str, ModeResult] = {}
    for mode in MODES:
        res = ModeResult()
        for k in KS:
            retriever = Retriever(
                store,
                topk=k,
                search_type=mode,
                ranker_type="rrf",
                ranker_params={"k": RRF_K, "candidates": HYBRID_CANDIDATES},
            )
            retriever.get_similar_chunk_with_score("warm-up query")
            for question, gold in zip(data.questions, data.gold, strict=True):
                hits, ms = timed(lambda r=retriever, q=question: r.get_similar_chunk_with_score(q))
                if k == max(KS):
                    res.latencies.append(ms)
                res.recall[k].append(recall_at([d.metadata["title"] for d, _ in hits], gold, k))
        results[mode] = res
        print(
            f"  milvus {mode:>6}: p50 {percentile(res.latencies, 50):.1f} ms, "
            f"R@2 {res.mean_recall(2):.3f}, R@5 {res.mean_recall(5):.3f}",
            flush=True,
        )
    return results


def bench_milvus_hybrid_pool(store: ChunkStore, data: Dataset, pool: int) -> ModeResult:
    """Hybrid RRF with `pool` candidates per side, fused to top k (direct pymilvus call).

    `Retriever.hybrid_search` asks each side for `topk` candidates only; this mirrors its
    request but with a larger per-side limit, to show what a candidate pool would give.
    """
    from pymilvus import AnnSearchRequest, RRFRanker

    res = ModeResult()
    params = {
        DENSE: {"metric_type": "COSINE", "params": {}},
        SPARSE: {"metric_type": "BM25", "params": {}},
    }
    for question, gold in zip(data.questions, data.gold, strict=True):

        def run(q: str = question) -> list[dict]:
            vector = store.embeddings.embed_query(q)
            requests = [
                AnnSearchRequest(data=[vector], anns_field=DENSE, param=params[DENSE], limit=pool),
                AnnSearchRequest(data=[q], anns_field=SPARSE, param=params[SPARSE], limit=pool),
            ]
            out = store.client.hybrid_search(
                store.name, requests, RRFRanker(RRF_K), limit=max(KS), output_fields=SCALAR_FIELDS
            )
            return list(out[0])

        hits, ms = timed(run)
        res.latencies.append(ms)
        titles = [h["entity"]["title"] for h in hits]
        for k in KS:
            res.recall[k].append(recall_at(titles, gold, k))
    print(
        f"  milvus hybrid pool {pool}: p50 {percentile(res.latencies, 50):.1f} ms, "
        f"R@2 {res.mean_recall(2):.3f}, R@5 {res.mean_recall(5):.3f}",
        flush=True,
    )
    return res


# -- 4. brute-force baselines ----------------------------------------------------------------
def rrf(rankings: Sequence[Sequence[int]], k: int = RRF_K) -> list[int]:
    """Reciprocal rank fusion (rank counted from 1) of several rankings of document indices."""
    scores: dict[int, float] = {}
    for ranking in rankings:
        for rank, doc in enumerate(ranking, 1):
            scores[doc] = scores.get(doc, 0.0) + 1.0 / (k + rank)
    return sorted(scores, key=lambda d: -scores[d])


def bench_brute_force(
    data: Dataset, docs: list[str], vectors: np.ndarray, embedder: OnnxMiniLMEmbeddings, label: str
) -> dict[str, ModeResult]:
    """Numpy cosine, bm25s (English stopwords) and their RRF over `docs` (one per passage)."""
    import bm25s

    bm25 = bm25s.BM25()
    bm25.index(bm25s.tokenize(docs, stopwords="en", show_progress=False), show_progress=False)
    results = {mode: ModeResult() for mode in MODES}
    embedder.embed_query("warm-up")
    for question, gold in zip(data.questions, data.gold, strict=True):

        def dense(q: str = question) -> np.ndarray:
            sims = vectors @ np.asarray(embedder.embed_query(q), dtype=np.float32)
            return np.argsort(-sims, kind="stable")[:FUSION_POOL]

        def sparse(q: str = question) -> np.ndarray:
            tokens = bm25s.tokenize([q], stopwords="en", return_ids=False, show_progress=False)
            scores = bm25.get_scores(tokens[0])
            return np.argsort(-scores, kind="stable")[:FUSION_POOL]

        dense_rank, dense_ms = timed(dense)
        sparse_rank, sparse_ms = timed(sparse)
        fused, fuse_ms = timed(lambda d=dense_rank, s=sparse_rank: rrf([d.tolist(), s.tolist()]))
        for mode, ranking, ms in (
            ("dense", dense_rank.tolist(), dense_ms),
            ("sparse", sparse_rank.tolist(), sparse_ms),
            ("hybrid", fused, dense_ms + sparse_ms + fuse_ms),
        ):
            results[mode].latencies.append(ms)
            titles = [data.titles[i] for i in ranking[: max(KS)]]
            for k in KS:
                results[mode].recall[k].append(recall_at(titles, gold, k))
    for mode, res in results.items():
        print(
            f"  brute ({label}) {mode:>6}: p50 {percentile(res.latencies, 50):.1f} ms, "
            f"R@2 {res.mean_recall(2):.3f}, R@5 {res.mean_recall(5):.3f}",
            flush=True,
        )
    return results


# -- 5. synthetic collection -----------------------------------------------------------------
class RandomQueryEmbeddings:
    """Stand-in embedder for the synthetic collection: a fresh random unit vector per call."""

    def __init__(self, seed: int = 0):
        self.rng = np.random.default_rng(seed)

    def embed_query(self, text: str) -> list[float]:
        """Return a random unit vector (the text is ignored)."""
        v = self.rng.standard_normal(DIMENSION).astype(np.float32)
        return (v / np.linalg.norm(v)).tolist()

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        """Return one random unit vector per text."""
        return [self.embed_query(t) for t in texts]


@dataclass
class SyntheticResult:
    """Timings of the synthetic collection."""

    chunks: int
    insert_s: float
    unflushed: dict[str, list[float]]
    flushed: dict[str, list[float]]


def bench_synthetic(
    words: list[str], n_chunks: int, n_queries: int, n_unflushed: int, workdir: Path
) -> SyntheticResult:
    """Insert synthetic chunks, time queries before and after flush."""
    rng = random.Random(7)
    nrng = np.random.default_rng(7)
    ctx = Context(
        data_dir=str(workdir / "synthetic"), collection="bench_synthetic", analyzer="standard"
    )
    embeddings = RandomQueryEmbeddings(seed=11)
    store = ChunkStore(ctx, embeddings, embedding_name="random-384")

    def sentence() -> str:
        return " ".join(rng.choices(words, k=rng.randint(8, 16))).capitalize() + "."

    chunks = [
        Chunk(
            id=f"s{i}",
            text=" ".join(sentence() for _ in range(rng.randint(3, 7))),
            source=f"synthetic/{i // 50}.txt",
            title=f"doc {i // 50}",
            chunk_index=i % 50,
            content_hash=f"{i:016x}",
        )
        for i in range(n_chunks)
    ]
    start = time.perf_counter()
    store.ensure(DIMENSION, [c.text for c in chunks[:3]])
    batch = 1000
    for s in range(0, n_chunks, batch):
        part = chunks[s : s + batch]
        vecs = nrng.standard_normal((len(part), DIMENSION)).astype(np.float32)
        vecs /= np.linalg.norm(vecs, axis=1, keepdims=True)
        store.insert(part, vecs.tolist())
    insert_s = time.perf_counter() - start
    print(f"  synthetic: inserted {n_chunks} chunks in {insert_s:.1f} s", flush=True)
    queries = [" ".join(rng.choices(words, k=rng.randint(3, 6))) for _ in range(n_queries)]

    def run(count: int) -> dict[str, list[float]]:
        out: dict[str, list[float]] = {}
        for mode in MODES:
            retriever = Retriever(
                store, topk=5, search_type=mode, ranker_type="rrf", ranker_params={"k": RRF_K}
            )
            retriever.get_similar_chunk_with_score("warm up")
            out[mode] = [
                timed(lambda r=retriever, q=q: r.get_similar_chunk_with_score(q))[1]
                for q in queries[:count]
            ]
        return out

    unflushed = run(n_unflushed) if n_unflushed else {}
    if unflushed:
        print(
            "  synthetic unflushed p50: "
            + ", ".join(f"{m} {percentile(v, 50):.0f} ms" for m, v in unflushed.items()),
            flush=True,
        )
    store.flush()
    flushed = run(n_queries)
    print(
        "  synthetic flushed p50: "
        + ", ".join(f"{m} {percentile(v, 50):.0f} ms" for m, v in flushed.items()),
        flush=True,
    )
    return SyntheticResult(n_chunks, insert_s, unflushed, flushed)


def corpus_words(texts: Sequence[str]) -> list[str]:
    """Word occurrences of the corpus (sampling from them follows natural word frequencies)."""
    import re

    return [w.lower() for t in texts for w in re.findall(r"[A-Za-z]{2,}", t)]


# -- report ----------------------------------------------------------------------------------
def mark(ok: bool) -> str:
    """Pass/fail mark."""
    return "PASS" if ok else "FAIL"


def build_rows(
    args: argparse.Namespace,
    data: Dataset,
    rates: dict[str, float],
    tokens: dict[str, int],
    ingest_chunks: int,
    ingest_s: float,
    milvus: dict[str, ModeResult],
    pooled: ModeResult | None,
    brute: dict[str, ModeResult],
    brute_titled: dict[str, ModeResult],
    synth: SyntheticResult,
) -> list[tuple[str, str, str, str, str]]:
    """Rows of (figure, measured, baseline, goal, status)."""
    rows: list[tuple[str, str, str, str, str]] = []
    n = len(data.texts)
    ratio = rates["sorted"] / rates["unsorted"]
    rows += [
        (
            f"Embed {n} passages, length-sorted batches",
            f"{rates['sorted']:.1f} passages/s",
            "",
            "",
            "",
        ),
        (f"Embed {n} passages, input order", f"{rates['unsorted']:.1f} passages/s", "", "", ""),
        (
            "Sorted / unsorted throughput",
            f"{ratio:.2f}x",
            "1.00x (input order)",
            f">= {SORT_SPEEDUP_GOAL:.0f}x",
            mark(ratio >= SORT_SPEEDUP_GOAL),
        ),
        (
            "Padded tokens run, unsorted / sorted (by chars)",
            f"{tokens['unsorted']:,} / {tokens['sorted']:,} = "
            f"{tokens['unsorted'] / tokens['sorted']:.2f}x",
            f"{tokens['actual']:,} unpadded; sorted by tokens {tokens['token-sorted']:,} = "
            f"{tokens['unsorted'] / tokens['token-sorted']:.2f}x",
            "",
            "",
        ),
        (
            f"ingest() {n} passages (JSONL, chunk_size 4000)",
            f"{ingest_s:.1f} s, {ingest_chunks} chunks ({n / ingest_s:.1f} passages/s)",
            f"embedding alone: {n / rates['sorted']:.1f} s",
            "",
            "" if ingest_chunks == n else f"FAIL: {ingest_chunks} chunks != {n}",
        ),
    ]
    for mode in MODES:
        m, b = milvus[mode], brute[mode]
        rows.append(
            (
                f"Query {mode} p50 / p95 (Retriever, top 5, {len(m.latencies)} questions)",
                f"{percentile(m.latencies, 50):.1f} / {percentile(m.latencies, 95):.1f} ms",
                f"brute force {_p50_p95(b.latencies)} ms",
                "",
                "",
            )
        )
    label = {"dense": "dense", "sparse": "sparse (BM25)", "hybrid": "hybrid RRF(60)"}
    for mode in MODES:
        for k in KS:
            got, base = milvus[mode].mean_recall(k), brute[mode].mean_recall(k)
            ref = LANDMINES_RECALL[mode][k]
            goal, status = "", ""
            titled = brute_titled[mode].mean_recall(k)
            if mode == "hybrid" and k == 5:
                # ingest() indexes a record's title with its text: title+text is the like baseline.
                goal = f">= title+text - {RECALL_TOLERANCE:.2f}"
                status = mark(got >= titled - RECALL_TOLERANCE)
            rows.append(
                (
                    f"Recall@{k} {label[mode]} (Milvus)",
                    f"{got:.3f}",
                    f"brute {base:.3f}; title+text {titled:.3f} (LANDMINES {ref:.3f})",
                    goal,
                    status,
                )
            )
    if pooled is not None:
        base = brute["hybrid"].mean_recall(5)
        for k in KS:
            got = pooled.mean_recall(k)
            goal, status = "", ""
            if k == 5:
                goal = f">= brute - {RECALL_TOLERANCE:.2f}"
                status = mark(got >= base - RECALL_TOLERANCE)
            rows.append(
                (
                    f"Recall@{k} hybrid RRF(60), {args.pool} per side (direct pymilvus)",
                    f"{got:.3f}",
                    f"brute {brute['hybrid'].mean_recall(k):.3f}",
                    goal,
                    status,
                )
            )
        rows.append(
            (
                f"Query hybrid p50 / p95, {args.pool} per side (direct pymilvus)",
                f"{_p50_p95(pooled.latencies)} ms",
                "",
                "",
                "",
            )
        )
    s = synth.chunks
    if synth.unflushed:
        for mode in MODES:
            v = synth.unflushed[mode]
            rows.append(
                (
                    f"{s // 1000}k chunks, {mode} p50 before flush ({len(v)} queries)",
                    f"{percentile(v, 50):.0f} ms",
                    "",
                    "",
                    "",
                )
            )
    landmine_ms = {"dense": "~67", "sparse": "~19", "hybrid": "~100"}
    for mode in MODES:
        v = synth.flushed[mode]
        p50 = percentile(v, 50)
        goal = f"<= {HYBRID_20K_GOAL_MS:.0f} ms" if mode == "hybrid" else ""
        status = mark(p50 <= HYBRID_20K_GOAL_MS) if mode == "hybrid" else ""
        rows.append(
            (
                f"{s // 1000}k chunks, {mode} p50 / p95 after flush ({len(v)} queries)",
                f"{p50:.0f} / {percentile(v, 95):.0f} ms",
                f"LANDMINES 20k: {landmine_ms[mode]} ms",
                goal,
                status,
            )
        )
    return rows


def render_text(rows: list[tuple[str, str, str, str, str]]) -> str:
    """Rows as an aligned plain-text table."""
    header = ("Figure", "Measured", "Baseline", "Goal", "Status")
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(5)]
    lines = [
        "  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip()
        for r in [header, *rows]
    ]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)


def render_markdown(
    rows: list[tuple[str, str, str, str, str]],
    data: Dataset,
    args: argparse.Namespace,
    total_s: float,
    pool_note: str,
) -> str:
    """Rows and context as the BENCHMARKS.md section."""
    out = [
        "## Retrieval (`benchmarks/retrieval.py`)",
        "",
        f"Machine: {machine_summary()}. Shared with other jobs while measuring, so absolute "
        f"times are noisy; the whole run took {total_s / 60:.1f} min.",
        "",
        f"Data: `{args.dataset.name}` — {len(data.texts)} passages, {len(data.questions)} "
        "questions, recall counts a question's gold supporting titles among the top k distinct "
        f"titles. Embedder: all-MiniLM-L6-v2 int8 ONNX (the offline default). Synthetic: "
        f"{args.synthetic} chunks of random sentences of corpus words with random unit 384-d "
        "vectors, Milvus Lite, queried through `Retriever` (top 5).",
        "",
        "Brute force baselines (same run): numpy cosine over the same passage embeddings; "
        "bm25s (Lucene BM25, English stopwords, no stemming); RRF(k=60) of the two top-100 "
        "lists. Milvus hybrid (through `Retriever`, as the product runs it) fuses "
        f"{HYBRID_CANDIDATES} candidates per side (TREERAG_HYBRID_CANDIDATES) with RRF k=60. "
        "'title+text' runs the same brute force on `title + \\n + text` per passage: it "
        "reproduces the LANDMINES.md figures, and it is what `ingest()` indexes for a JSON "
        "record (the title with the text), so it is the baseline of the recall goal.",
        "",
        f"Load average (1 min) at start / end: {args.load_start:.1f} / {args.load_end:.1f}.",
        "",
        "| Figure | Measured | Baseline | Goal | Status |",
        "|---|---|---|---|---|",
        *(f"| {' | '.join(r)} |" for r in rows),
    ]
    if pool_note:
        out += ["", pool_note]
    return "\n".join(out)


def main(argv: Sequence[str] | None = None) -> int:
    """Parse arguments, run every part, print the table, optionally write BENCHMARKS.md."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--dataset",
        type=Path,
        default=DEFAULT_DATASET,
        help="folder with corpus.json and questions.json "
        "(default: ../shared/datasets/hotpotqa_100 from the repo root)",
    )
    parser.add_argument(
        "--quick",
        action="store_true",
        help="smoke run: 20 questions (~200 passages), 2,000 synthetic chunks",
    )
    parser.add_argument(
        "--synthetic",
        type=int,
        default=None,
        help="synthetic chunks (default 20000, 2000 with --quick)",
    )
    parser.add_argument("--synthetic-queries", type=int, default=50)
    parser.add_argument(
        "--unflushed-queries",
        type=int,
        default=None,
        help="queries per mode before flush (default 5, 3 with --quick; 0 skips)",
    )
    parser.add_argument(
        "--pool",
        type=int,
        default=FUSION_POOL,
        help="per-side candidates of the extra hybrid run (0 skips it)",
    )
    parser.add_argument(
        "--write",
        action="store_true",
        help="splice the results into BENCHMARKS.md (section 'retrieval')",
    )
    parser.add_argument(
        "--fusion",
        default="",
        help="instead, measure language-aware fusion for comma-separated embedder:set runs, "
        "set = rgb | rgbN (every N-th rgb_zh_300 question with its pool) | hotpot, e.g. "
        "minilm:rgb,minilm:hotpot,use-m3:rgb10, or 'whole' for each embedder on both "
        "whole sets, MiniLM on Chinese aside (section 'retrieval-fusion')",
    )
    parser.add_argument(
        "--brute-only",
        action="store_true",
        help="with --fusion: brute force only, without the product's Retriever on Milvus Lite",
    )
    args = parser.parse_args(argv)
    if args.fusion:
        from benchmarks._fusion import run

        report = run(args.fusion.split(","), with_product=not args.brute_only)
        publish("retrieval-fusion", report, args.write)
        return 0
    args.synthetic = args.synthetic or (2000 if args.quick else 20000)
    if args.unflushed_queries is None:
        args.unflushed_queries = 3 if args.quick else 5
    args.dataset = args.dataset.expanduser().resolve()

    began = time.perf_counter()
    args.load_start = os.getloadavg()[0]
    data = load_dataset(args.dataset, max_questions=20 if args.quick else None)
    print(f"{len(data.texts)} passages, {len(data.questions)} questions from {args.dataset}")
    with tempfile.TemporaryDirectory(prefix="treerag-bench-") as tmp:
        workdir = Path(tmp)
        print("1. embedding throughput", flush=True)
        rates, vectors, embedder = bench_embedding(data.texts)
        tokens = padded_tokens(data.texts, embedder.batch_size)
        print("2. ingest", flush=True)
        store, chunks, ingest_s = bench_ingest(data, workdir, embedder)
        print("3-4. queries and recall", flush=True)
        milvus = bench_milvus_queries(store, data)
        pooled = bench_milvus_hybrid_pool(store, data, args.pool) if args.pool else None
        brute = bench_brute_force(data, data.texts, vectors, embedder, "text")
        titled = [f"{t}\n{x}" for t, x in zip(data.titles, data.texts, strict=True)]
        brute_titled = bench_brute_force(
            data, titled, embedder.embed_array(titled), embedder, "title+text"
        )
        print("5. synthetic collection", flush=True)
        synth = bench_synthetic(
            corpus_words(data.texts),
            args.synthetic,
            args.synthetic_queries,
            args.unflushed_queries,
            workdir,
        )
    total_s = time.perf_counter() - began
    args.load_end = os.getloadavg()[0]

    rows = build_rows(
        args, data, rates, tokens, chunks, ingest_s, milvus, pooled, brute, brute_titled, synth
    )
    pool_note = ""
    if pooled is not None:
        pool_note = (
            f"The '{args.pool} per side' rows call `MilvusClient.hybrid_search` directly with "
            f"a {args.pool}-hit pool per side, next to the Retriever's default of "
            f"{HYBRID_CANDIDATES}."
        )
    print()
    print(render_text(rows))
    print(f"\ntotal run time {total_s:.0f} s")
    if args.write:
        write_section("retrieval", render_markdown(rows, data, args, total_s, pool_note))
        print("wrote section 'retrieval' of BENCHMARKS.md")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
