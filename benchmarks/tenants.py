"""Tenant benchmark: what scoping retrieval to one tenant costs, for two ways to store tenants.

Run from the repository root::

    python -m benchmarks.tenants            # 20,000 chunks over 10 tenants
    python -m benchmarks.tenants --quick    # 2,000 chunks (smoke run)
    python -m benchmarks.tenants --write    # also splice the results into BENCHMARKS.md

Synthetic chunks (sentences of a fixed word list, random unit 384-d vectors; the query
embedder is a random stand-in, as in `benchmarks/retrieval.py` section 5), one Milvus Lite
file, hybrid dense + BM25 search fused by RRF(60), top 5, measured after flush:

- baseline: all chunks in one collection, no tenant filter (today's single-tenant search);
- per-tenant collections (what `ChunkStore` does): each tenant's chunks in their own
  collection, searched through `ChunkStore` + `Retriever` with the tenant set;
- partition key: one collection with a `tenant` partition-key field, every request
  filtered by `tenant == "<t>"` (the alternative).

Goal: a tenant-scoped search costs <= 1.2x the unscoped one. p50 ratios are taken against the
baseline of the same run.
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

REPO_ROOT = Path(__file__).resolve().parent.parent
if str(REPO_ROOT) not in sys.path:
    sys.path.insert(0, str(REPO_ROOT))

from benchmarks._report import machine_summary, percentile, publish  # noqa: E402
from benchmarks.retrieval import RandomQueryEmbeddings  # noqa: E402
from treerag.context import Context  # noqa: E402
from treerag.embeddings import DIMENSION  # noqa: E402
from treerag.retrievers.chunk_store import (  # noqa: E402
    ANALYZERS,
    DENSE,
    SCALAR_FIELDS,
    SPARSE,
    TEXT,
    Chunk,
    ChunkStore,
)
from treerag.retrievers.hybrid import Retriever  # noqa: E402

WORDS = (
    "harbour quay ferry guild lantern tide salt market river bridge tower archive ledger "
    "captain fisher beacon storm harvest mill forge council charter voyage island estuary "
    "merchant weaver chapel garrison wharf canal orchard granary cartographer treaty"
).split()
PARAMS = {
    DENSE: {"metric_type": "COSINE", "params": {}},
    SPARSE: {"metric_type": "BM25", "params": {}},
}


def make_chunks(n: int, rng: random.Random) -> list[Chunk]:
    """Synthetic chunks of 3-7 random sentences."""

    def sentence() -> str:
        return " ".join(rng.choices(WORDS, k=rng.randint(8, 16))).capitalize() + "."

    return [
        Chunk(
            id=f"s{i}",
            text=" ".join(sentence() for _ in range(rng.randint(3, 7))),
            source=f"synthetic/{i // 50}.txt",
            title=f"doc {i // 50}",
            chunk_index=i % 50,
            content_hash=f"{i:016x}",
        )
        for i in range(n)
    ]


def vectors(n: int, nrng: np.random.Generator) -> list[list[float]]:
    """Random unit vectors."""
    v = nrng.standard_normal((n, DIMENSION)).astype(np.float32)
    return (v / np.linalg.norm(v, axis=1, keepdims=True)).tolist()


def fill(store: ChunkStore, chunks: list[Chunk], nrng: np.random.Generator) -> None:
    """Create the store's collection and insert chunks in batches, then flush."""
    store.ensure(DIMENSION, [c.text for c in chunks[:3]])
    for s in range(0, len(chunks), 1000):
        part = chunks[s : s + 1000]
        store.insert(part, vectors(len(part), nrng))
    store.flush()


def partitioned_collection(client: Any, name: str, tenants: int) -> None:
    """The alternative layout: one collection with a `tenant` partition-key field."""
    from pymilvus import DataType, Function, FunctionType

    schema = client.create_schema(auto_id=False)
    schema.add_field("id", DataType.VARCHAR, is_primary=True, max_length=64)
    schema.add_field("tenant", DataType.VARCHAR, max_length=64, is_partition_key=True)
    schema.add_field(
        TEXT,
        DataType.VARCHAR,
        max_length=65_535,
        enable_analyzer=True,
        analyzer_params=ANALYZERS["standard"],
    )
    for field in ("source", "title", "content_hash"):
        schema.add_field(field, DataType.VARCHAR, max_length=1024)
    schema.add_field("chunk_index", DataType.INT64)
    schema.add_field("meta", DataType.JSON)
    schema.add_field(DENSE, DataType.FLOAT_VECTOR, dim=DIMENSION)
    schema.add_field(SPARSE, DataType.SPARSE_FLOAT_VECTOR)
    schema.add_function(
        Function(
            name="bm25",
            function_type=FunctionType.BM25,
            input_field_names=[TEXT],
            output_field_names=[SPARSE],
        )
    )
    index = client.prepare_index_params()
    index.add_index(DENSE, index_type="FLAT", metric_type="COSINE")
    index.add_index(SPARSE, index_type="SPARSE_INVERTED_INDEX", metric_type="BM25")
    client.create_collection(name, schema=schema, index_params=index, num_partitions=tenants)


def hybrid(client: Any, name: str, query: str, embeddings: Any, expr: str = "") -> list:
    """One hybrid RRF search, as `Retriever.hybrid_search` makes it, optionally filtered."""
    from pymilvus import AnnSearchRequest, RRFRanker

    requests = [
        AnnSearchRequest(
            data=[embeddings.embed_query(query) if f == DENSE else query],
            anns_field=f,
            param=PARAMS[f],
            limit=50,
            expr=expr or None,
        )
        for f in (DENSE, SPARSE)
    ]
    return client.hybrid_search(name, requests, RRFRanker(60), limit=5, output_fields=SCALAR_FIELDS)


def timed_ms(fn: Any) -> float:
    """Milliseconds one call takes."""
    start = time.perf_counter()
    fn()
    return (time.perf_counter() - start) * 1000


def run(n_chunks: int, n_tenants: int, n_queries: int, workdir: Path) -> dict[str, Any]:
    """Fill the three layouts with the same chunks; time the same queries on each."""
    rng, nrng = random.Random(7), np.random.default_rng(7)
    chunks = make_chunks(n_chunks, rng)
    per = n_chunks // n_tenants
    tenants = [f"t{i}" for i in range(n_tenants)]
    embeddings = RandomQueryEmbeddings(seed=11)
    base = dict(data_dir=str(workdir), analyzer="standard", collection="bench_tenants")

    start = time.perf_counter()
    whole = ChunkStore(Context(**base), embeddings, embedding_name="random-384")
    fill(whole, chunks, nrng)
    stores = {}
    for i, tenant in enumerate(tenants):
        stores[tenant] = ChunkStore(Context(**base, tenant=tenant), embeddings, "random-384")
        fill(stores[tenant], chunks[i * per : (i + 1) * per], nrng)
    client = whole.client
    partitioned = "bench_tenants_pk"
    partitioned_collection(client, partitioned, n_tenants)
    for s in range(0, n_chunks, 1000):
        part = chunks[s : s + 1000]
        rows = [
            {
                "id": c.id,
                "tenant": tenants[(s + j) // per],
                TEXT: c.text,
                "source": c.source,
                "title": c.title,
                "chunk_index": c.chunk_index,
                "content_hash": c.content_hash,
                "meta": {},
                DENSE: v,
            }
            for j, (c, v) in enumerate(zip(part, vectors(len(part), nrng), strict=True))
        ]
        client.insert(partitioned, rows)
    client.flush(partitioned)
    client.load_collection(partitioned)
    fill_s = time.perf_counter() - start
    print(f"  filled 3 layouts of {n_chunks} chunks in {fill_s:.0f} s", flush=True)

    queries = [" ".join(rng.choices(WORDS, k=rng.randint(3, 6))) for _ in range(n_queries)]
    retrievers = {
        t: Retriever(
            s,
            topk=5,
            search_type="hybrid",
            ranker_type="rrf",
            ranker_params={"k": 60, "candidates": 50},
        )
        for t, s in stores.items()
    }
    whole_retriever = Retriever(
        whole,
        topk=5,
        search_type="hybrid",
        ranker_type="rrf",
        ranker_params={"k": 60, "candidates": 50},
    )
    # Warm every collection once (the first query after opening pays a load).
    whole_retriever.get_similar_chunk_with_score("warm up")
    for r in retrievers.values():
        r.get_similar_chunk_with_score("warm up")
    hybrid(client, partitioned, "warm up", embeddings, 'tenant == "t0"')

    times: dict[str, list[float]] = {"baseline": [], "per_tenant": [], "partition_key": []}
    leaks = 0
    # Interleave the layouts query by query, so machine noise hits all three alike.
    for i, q in enumerate(queries):
        tenant = tenants[i % n_tenants]
        times["baseline"].append(
            timed_ms(lambda q=q: whole_retriever.get_similar_chunk_with_score(q))
        )
        times["per_tenant"].append(
            timed_ms(lambda q=q, t=tenant: retrievers[t].get_similar_chunk_with_score(q))
        )
        expr = f'tenant == "{tenant}"'
        found: list = []
        times["partition_key"].append(
            timed_ms(
                lambda q=q, e=expr, f=found: f.append(hybrid(client, partitioned, q, embeddings, e))
            )
        )
        lo, hi = tenants.index(tenant) * per, (tenants.index(tenant) + 1) * per
        leaks += sum(1 for hit in found[0][0] if not lo <= int(str(hit["id"])[1:]) < hi)
        own = retrievers[tenant].get_similar_chunk_with_score(q)
        leaks += sum(1 for doc, _ in own if not lo <= int(str(doc.id)[1:]) < hi)
    return {
        "times": times,
        "fill_s": fill_s,
        "leaks": leaks,
        "chunks": n_chunks,
        "tenants": n_tenants,
        "queries": n_queries,
    }


def report(result: dict[str, Any]) -> str:
    """The BENCHMARKS.md section."""
    t = result["times"]
    p50 = {k: percentile(v, 50) for k, v in t.items()}
    p95 = {k: percentile(v, 95) for k, v in t.items()}
    rows = [
        ("one collection, no tenant filter (baseline)", "baseline"),
        ("per-tenant collections (ChunkStore, chosen)", "per_tenant"),
        ("one collection, partition key `tenant` + filter", "partition_key"),
    ]
    lines = [
        "## Tenants: what scoping retrieval to one tenant costs (`benchmarks/tenants.py`)",
        "",
        f"{machine_summary()}; Milvus Lite, {result['chunks']:,} synthetic chunks over "
        f"{result['tenants']} tenants, hybrid dense + BM25 RRF(60), top 5, "
        f"{result['queries']} queries interleaved across layouts, after flush.",
        "",
        "| layout | p50 ms | p95 ms | p50 vs baseline |",
        "|---|---|---|---|",
    ]
    for label, key in rows:
        lines.append(
            f"| {label} | {p50[key]:.1f} | {p95[key]:.1f} | {p50[key] / p50['baseline']:.2f}x |"
        )
    lines += [
        "",
        f"Goal: tenant-scoped p50 <= 1.2x the unscoped one. Per-tenant collections: "
        f"{p50['per_tenant'] / p50['baseline']:.2f}x; partition key: "
        f"{p50['partition_key'] / p50['baseline']:.2f}x. Hits from another tenant: "
        f"{result['leaks']}. Filling the three layouts took {result['fill_s']:.0f} s.",
    ]
    return "\n".join(lines)


def main() -> None:
    """Parse arguments, run, print (and with --write splice) the report."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="2,000 chunks, 20 queries")
    parser.add_argument("--chunks", type=int, default=0)
    parser.add_argument("--tenants", type=int, default=10)
    parser.add_argument("--queries", type=int, default=0)
    parser.add_argument("--write", action="store_true", help="splice into BENCHMARKS.md")
    args = parser.parse_args()
    chunks = args.chunks or (2000 if args.quick else 20_000)
    queries = args.queries or (20 if args.quick else 60)
    with tempfile.TemporaryDirectory(prefix="treerag-bench-tenants-") as tmp:
        result = run(chunks, args.tenants, queries, Path(tmp))
    publish("tenants", report(result), args.write)


if __name__ == "__main__":
    main()
