"""Structured retrieval's cost: query overhead, the passage graph at scale, ingest with it.

Run from the repository root::

    python -m benchmarks.structure                              # 20k chunks, 100k graph
    python -m benchmarks.structure --data-dir /tmp/treerag-structure  # keep the 20k collection
    python -m benchmarks.structure --chunks 5000 --graph 20000  # a quicker look
    python -m benchmarks.structure --write                      # also update BENCHMARKS.md

Every ingest builds, besides the Milvus chunks, two stores with no model: the keyword tree
and the passage-entity graph (`treerag.documents.derived.follow`); every run's candidates
are the hybrid top_k plus up to `structure_k` from them (`treerag.retrievers.sources.gather`).
In one run this measures:

1. query overhead: p50/p95 of `gather` with structure=none and structure=both on a
   collection of `--chunks` encyclopedia-like records (goal: the structured part <= 100 ms
   p50 at 20k chunks), next to the time of the keyword and graph sources alone;
2. the passage graph alone at `--graph` passages (no Milvus): build time (`add` in
   batches), size on disk, `named_in` + `rank` p50/p95 (goal: no slower than goal 1);
3. `ingest()` of the same files with the derived stores and with `derived.begin` /
   `derived.follow` replaced by no-ops, in ABBA order (goal: <= 1.3x).

The corpus is synthetic and seeded: records with a title (a person, place, organisation
or work, each title unique) and 3-7 sentences naming other records' titles (Zipf-like
popularity, so some names are hubs) and names no record is about, written as JSONL
{id, title, text} files of 1,000 records. Questions are HotpotQA-shaped and name one or
two of the titles.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import json
import os
import pstats
import random
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from itertools import accumulate
from pathlib import Path
from typing import Any

from benchmarks._report import machine_summary, percentile, publish

SEED = 7
RECORDS_PER_FILE = 1_000
CHUNK_SIZE = 4_000
"""Large enough that every record is one chunk."""
UPLOAD = 10
"""Passages of the small upload added to the full graph."""
GOAL_MS = 100.0
INGEST_GOAL = 1.3

# -- a synthetic encyclopedia -------------------------------------------------------------------

SYLLABLES = (
    "al an ar as bel bran cal cor dal dor el en fal fen gar gor hal hen is jor kal kel lan "
    "lor mar mel mor nal nel or per quin ral ren ros sal sel tam tor ul val ver wen yr zan"
).split()
FIRST = (
    "Anna Arthur Beatrice Carl Clara Daniel Edith Elena Felix George Hannah Henry Iris Jacob "
    "James Julia Karl Laura Leo Lucy Margaret Martin Mary Nora Oscar Paul Peter Rosa Samuel "
    "Sofia Thomas Victor Walter William"
).split()
COUNTRIES = (
    "France Germany Italy Spain Canada Norway Sweden Poland Austria Ireland Scotland Wales "
    "Portugal Denmark Finland Australia"
).split()
NATIONALITY = dict(
    zip(
        COUNTRIES,
        "French German Italian Spanish Canadian Norwegian Swedish Polish Austrian Irish "
        "Scottish Welsh Portuguese Danish Finnish Australian".split(),
        strict=True,
    )
)
PROFESSIONS = (
    "painter composer novelist architect physicist politician actor film director "
    "footballer historian singer poet engineer journalist".split()
)
GENRES = "drama comedy thriller documentary musical western horror romance".split()
FILLER = [
    "The area has a mild climate and its economy depends on farming, fishing and tourism.",
    "Critics praised the work for its careful structure and its unusual use of colour.",
    "Most of the early records were lost in a fire, so much of this history is uncertain.",
    "It was restored twice in the twentieth century and is now open to visitors in summer.",
    "The population grew quickly after the railway arrived and then declined after the war.",
    "Several of the original buildings survive and are listed as protected monuments.",
    "The collection includes letters, drawings and photographs donated by the family.",
    "A second edition appeared a few years later with a new preface and corrected tables.",
    "The project was delayed for years by disputes over funding and the choice of site.",
    "Local tradition holds that the name comes from an old word for a river crossing.",
]


def _word(rng: random.Random) -> str:
    return "".join(rng.choice(SYLLABLES) for _ in range(rng.choice((2, 2, 3)))).capitalize()


def _title(kind: str, rng: random.Random) -> str:
    if kind == "person":
        return f"{rng.choice(FIRST)} {_word(rng)}"
    if kind == "place":
        pattern = rng.choice(("Port {}", "{} Valley", "Lake {}", "Mount {}", "{} Bay", "{}"))
        return pattern.format(_word(rng))
    if kind == "org":
        pattern = rng.choice(
            ("{} University", "Bank of {}", "{} Records", "{} Football Club", "Church of {}")
        )
        return pattern.format(_word(rng))
    return f"The {_word(rng)} of {_word(rng)}"


def corpus(count: int, seed: int = SEED) -> list[dict[str, str]]:
    """`count` records {id, title, text}: titles unique, texts naming other records' titles."""
    rng = random.Random(seed)
    kinds = ("person", "person", "place", "org", "work")
    titles: list[tuple[str, str]] = []
    used: set[str] = set()
    while len(titles) < count:
        kind = rng.choice(kinds)
        title = _title(kind, rng)
        if title.lower() not in used:
            used.add(title.lower())
            titles.append((kind, title))
    # Names no record is about (people and places mentioned in passing).
    extras = [_title(rng.choice(("person", "place")), rng) for _ in range(max(10, count // 4))]
    by_kind: dict[str, list[str]] = {}
    for kind, title in titles:
        by_kind.setdefault(kind, []).append(title)
    cumulative = {
        k: list(accumulate(1 / (i + 1) ** 0.7 for i in range(len(v)))) for k, v in by_kind.items()
    }

    def pick(kind: str) -> str:
        if rng.random() < 0.25 and kind in ("person", "place"):
            return rng.choice(extras)
        return rng.choices(by_kind[kind], cum_weights=cumulative[kind])[0]

    records = []
    for n, (kind, title) in enumerate(titles):
        year = rng.randint(1820, 2015)
        country = rng.choice(COUNTRIES)
        if kind == "person":
            text = (
                f"{title} (born {year}) is a {NATIONALITY[country]} {rng.choice(PROFESSIONS)} "
                f"from {pick('place')}. After studying at {pick('org')}, {title.split()[0]} "
                f"worked with {pick('person')} and {pick('person')}. The best known of these "
                f"works is {pick('work')}, completed in {year + rng.randint(20, 40)}."
            )
        elif kind == "place":
            text = (
                f"{title} is a town in the north of {country}, on the road to {pick('place')}. "
                f"It was founded in {year} by {pick('person')} and is home to {pick('org')}. "
                f"The writer {pick('person')} lived there until moving to {pick('place')}."
            )
        elif kind == "org":
            text = (
                f"{title} is an institution founded in {year} by {pick('person')} in "
                f"{pick('place')}, {country}. Its first director was {pick('person')}, "
                f"followed by {pick('person')}. It later merged with {pick('org')}."
            )
        else:
            text = (
                f"{title} is a {year} {NATIONALITY[country]} {rng.choice(GENRES)} directed by "
                f"{pick('person')} and starring {pick('person')} and {pick('person')}. It was "
                f"produced by {pick('org')} and filmed in {pick('place')}."
            )
        text += " " + " ".join(rng.sample(FILLER, rng.randint(1, 3)))
        records.append({"id": f"r{n:06d}", "title": title, "text": text})
    return records


def questions(records: Sequence[dict[str, str]], count: int, seed: int = SEED) -> list[str]:
    """HotpotQA-shaped questions naming one or two record titles."""
    rng = random.Random(seed + 1)
    shapes = (
        "Who founded the institution where the director of {a} studied?",
        "In which country was {a} born, and did {b} work with them?",
        "Which town is home to the club that {a} played for?",
        "Are {a} and {b} both located in the same country?",
        "What year was the film starring {a} released?",
        "Who directed {a}, and where was it filmed?",
    )
    out = []
    for _ in range(count):
        a, b = rng.sample(list(records), 2)
        out.append(rng.choice(shapes).format(a=a["title"], b=b["title"]))
    return out


def write_jsonl(records: Sequence[dict[str, str]], folder: Path) -> Path:
    """The records as JSONL files of RECORDS_PER_FILE records each."""
    folder.mkdir(parents=True, exist_ok=True)
    for start in range(0, len(records), RECORDS_PER_FILE):
        path = folder / f"part{start // RECORDS_PER_FILE:03d}.jsonl"
        with path.open("w", encoding="utf-8") as fh:
            for r in records[start : start + RECORDS_PER_FILE]:
                fh.write(json.dumps(r, ensure_ascii=False) + "\n")
    return folder


# -- measuring ----------------------------------------------------------------------------------


def _ms(values: Sequence[float]) -> tuple[float, float]:
    return percentile(list(values), 50) * 1000, percentile(list(values), 95) * 1000


def _context(data: Path, **overrides: Any) -> Any:
    from treerag.context import Context

    return Context(
        data_dir=str(data),
        collection="bench_structure",
        chunk_size=CHUNK_SIZE,
        embedding_model="minilm",
        **overrides,
    )


def _top(profile: cProfile.Profile, lines: int = 12) -> str:
    out = io.StringIO()
    pstats.Stats(profile, stream=out).sort_stats("cumulative").print_stats(lines)
    text = out.getvalue()
    return text[text.find("ncalls") :].rstrip()


def _own_time(profile: cProfile.Profile, lines: int = 3) -> str:
    """The functions with the most own time, as `name (file:line) N s`."""
    stats = pstats.Stats(profile)
    rows = sorted(stats.stats.items(), key=lambda kv: kv[1][2], reverse=True)[:lines]
    return ", ".join(
        f"`{func}` ({Path(file).name}:{line}) {own:.2f} s" if line else f"`{func}` {own:.2f} s"
        for (file, line, func), (_, _, own, *_) in rows
    )


def _timed(record: list[float], fn: Callable[..., Any]) -> Callable[..., Any]:
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        start = time.perf_counter()
        try:
            return fn(*args, **kwargs)
        finally:
            record.append(time.perf_counter() - start)

    return wrapper


# -- 1. query overhead --------------------------------------------------------------------------


OPENING_WORDS = 8


class OpeningVectors:
    """MiniLM vectors of each passage's first words (its title and a few more), for setup.

    Embedding 20k whole passages takes most of an hour on a loaded two-core machine; the
    opening words take minutes and keep the vectors in MiniLM's space, so questions that
    name a title still find its record by dense search. Queries are embedded whole.
    """

    def __init__(self, embeddings: Any) -> None:
        self.embeddings = embeddings

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        """Vectors of the texts' opening words."""
        opening = [" ".join(t.split()[:OPENING_WORDS]) for t in texts]
        return self.embeddings.embed_documents(opening)

    def embed_query(self, text: str) -> list[float]:
        """A query's vector (whole)."""
        return self.embeddings.embed_query(text)


def prepare_collection(data: Path, chunks: int, embeddings: Any) -> dict[str, Any]:
    """The collection of `chunks` records in `data`, ingested unless a previous run left it.

    Passage vectors are `OpeningVectors`; the keyword tree and the graph are built by
    ingest() as always.
    """
    from treerag.ingest.indexer import ingest

    marker = data / "structure-bench.json"
    want = {"chunks": chunks, "seed": SEED, "chunk_size": CHUNK_SIZE, "vectors": "opening-8"}
    if marker.is_file() and json.loads(marker.read_text())["corpus"] == want:
        return json.loads(marker.read_text())
    if data.exists():
        shutil.rmtree(data)
    folder = write_jsonl(corpus(chunks), data / "corpus")
    ctx = _context(data)
    print(f"ingesting {chunks:,} records into {data} ...", flush=True)
    start = time.perf_counter()

    def progress(stage: str, done: int, total: int) -> None:
        if stage == "embed" and done % 2048 < 256:
            print(f"  {done:,} chunks written, {time.perf_counter() - start:.0f} s", flush=True)

    from treerag.documents import derived

    real, follow = derived.follow, []
    derived.follow = _timed(follow, real)
    try:
        report = ingest([folder], ctx, embeddings=OpeningVectors(embeddings), progress=progress)
    finally:
        derived.follow = real
    info = {
        "corpus": want,
        "stored": report.total_chunks,
        "ingest_s": time.perf_counter() - start,
        "follow_s": sum(follow),
        "derived": report.derived,
    }
    marker.write_text(json.dumps(info))
    return {**info, "fresh": True}


def query_overhead(data: Path, count: int, embeddings: Any) -> dict[str, Any]:
    """Time `gather` with structure none and both on the same questions, order alternating."""
    from treerag.retrievers import sources

    records = corpus(json.loads((data / "structure-bench.json").read_text())["corpus"]["chunks"])
    asked = questions(records, count)
    none, both = _context(data, structure="none"), _context(data, structure="both")
    times: dict[str, list[float]] = {"none": [], "both": [], "keyword": [], "graph": []}
    original = sources.KeywordSource.find, sources.PassageGraphSource.find
    added = 0
    cold: list[float] = []
    first = cProfile.Profile()
    for q in asked[:3]:  # warm up: embedder session, Milvus, the tree's index, the name matcher
        sources.gather(none, q)
        if not cold:
            first.enable()
        start = time.perf_counter()
        sources.gather(both, q)
        cold.append(time.perf_counter() - start)
        first.disable()
    profile = cProfile.Profile()
    sources.KeywordSource.find = _timed(times["keyword"], original[0])
    sources.PassageGraphSource.find = _timed(times["graph"], original[1])
    try:
        for n, q in enumerate(asked):
            for mode in ("none", "both") if n % 2 == 0 else ("both", "none"):
                ctx = none if mode == "none" else both
                if mode == "both":
                    profile.enable()
                start = time.perf_counter()
                found = sources.gather(ctx, q)
                times[mode].append(time.perf_counter() - start)
                profile.disable()
                if mode == "both":
                    added += sum(1 for c in found if "found_by" in c)
    finally:
        sources.KeywordSource.find, sources.PassageGraphSource.find = original
    structured = [k + g for k, g in zip(times["keyword"], times["graph"], strict=True)]
    return {
        "times": times,
        "structured": structured,
        "added": added,
        "profile": profile,
        "questions": len(asked),
        "cold": cold[0],
        "cold_profile": first,
        "top_k": both.top_k,
        "structure_k": both.structure_k,
    }


# -- 2. the passage graph alone -----------------------------------------------------------------


def graph_at_scale(size: int, batch: int, count: int) -> dict[str, Any]:
    """Build a passage graph of `size` passages in batches; time named_in + rank on it."""
    from treerag.knowledge_graph.passage_graph import Passage, PassageGraph

    records = corpus(size, seed=SEED + 1)
    rng = random.Random(SEED + 2)
    by_title = {r["title"]: r["id"] for r in records}
    batches: list[float] = []
    with tempfile.TemporaryDirectory(prefix="treerag-graph-bench-") as tmp:
        path = Path(tmp) / "passages.sqlite"
        graph = PassageGraph(path)
        build = cProfile.Profile()
        build.enable()
        for start in range(0, size, batch):
            part = records[start : start + batch]
            began = time.perf_counter()
            graph.add(
                [Passage(r["id"], r["text"], r["title"], f"part.jsonl#{r['id']}") for r in part]
            )
            batches.append(time.perf_counter() - began)
            print(f"  graph: {start + len(part):,} passages, batch {batches[-1]:.1f} s", flush=True)
        build.disable()
        graph._db.execute("pragma wal_checkpoint(truncate)")
        disk = sum(f.stat().st_size for f in Path(tmp).iterdir())
        names = graph._db.execute("select count(*) from names").fetchone()[0]
        links = graph._db.execute("select count(*) from mentions").fetchone()[0]
        graph.close()
        graph = PassageGraph(path)  # a fresh process's first query builds the name matcher
        asked = questions(records, count, seed=SEED + 3)
        began = time.perf_counter()
        graph.named_in(asked[0])
        cold = time.perf_counter() - began
        named, ranked, total = [], [], []
        query = cProfile.Profile()
        for q in asked:
            # Seeds as a first retrieval would give them: the records the question names and
            # a few others (top_k = 5).
            seeds = [by_title[t] for t in by_title if t in q][:2]
            seeds += [rng.choice(records)["id"] for _ in range(5 - len(seeds))]
            query.enable()
            began = time.perf_counter()
            entities = graph.named_in(q)
            middle = time.perf_counter()
            graph.rank(seeds, entities, limit=3, exclude=seeds)
            end = time.perf_counter()
            query.disable()
            named.append(middle - began)
            ranked.append(end - middle)
            total.append(end - began)
        # A small upload into the full graph: its add, then the next query's matcher rebuild.
        upload = [
            Passage(f"u{r['id']}", r["text"], r["title"], f"upload.jsonl#{r['id']}")
            for r in corpus(UPLOAD, seed=SEED + 5)
        ]
        began = time.perf_counter()
        graph.add(upload)
        small_add = time.perf_counter() - began
        began = time.perf_counter()
        graph.rank([upload[0].id], graph.named_in(asked[0]), limit=3)
        after_add = time.perf_counter() - began
        graph.close()
    return {
        "size": size,
        "batch": batch,
        "batches": batches,
        "disk": disk,
        "names": names,
        "links": links,
        "cold": cold,
        "small_add": small_add,
        "after_add": after_add,
        "named": named,
        "rank": ranked,
        "total": total,
        "build_profile": build,
        "query_profile": query,
    }


# -- 3. ingest with and without the derived stores ----------------------------------------------


def ingest_ratio(size: int, work: Path, embeddings: Any, rounds: int) -> dict[str, Any]:
    """Wall and CPU seconds of ingest() of the same files without and with the derived stores.

    In ABBA order; this process's CPU time (all its threads, the embedder's included) is
    less disturbed than wall time by other work on a shared machine.
    """
    from treerag.documents import derived
    from treerag.ingest.indexer import ingest

    records = corpus(size, seed=SEED + 4)
    folder = write_jsonl(records, work / "ingest-corpus")
    # Untimed warm-up: the first ingest of a process pays one-off costs (imports, jieba).
    ingest([write_jsonl(records[:50], work / "warm-corpus")], _context(work / "warm"))
    real = derived.begin, derived.follow
    seconds: dict[str, list[float]] = {"without": [], "with": []}
    cpu: dict[str, list[float]] = {"without": [], "with": []}
    follow: list[float] = []
    order = ["without", "with", "with", "without"] * rounds
    for n, mode in enumerate(order[: 2 * rounds]):
        if mode == "without":
            derived.begin = lambda ctx, *a, **k: None
            derived.follow = lambda ctx, *a, **k: {}
        else:
            derived.begin, derived.follow = real[0], _timed(follow, real[1])
        try:
            start, used = time.perf_counter(), time.process_time()
            report = ingest([folder], _context(work / f"ingest{n}"), embeddings=embeddings)
            seconds[mode].append(time.perf_counter() - start)
            cpu[mode].append(time.process_time() - used)
        finally:
            derived.begin, derived.follow = real
        print(
            f"  ingest {mode} derived stores: {report.added:,} chunks, {seconds[mode][-1]:.1f} s, "
            f"CPU {cpu[mode][-1]:.1f} s",
            flush=True,
        )
        shutil.rmtree(work / f"ingest{n}", ignore_errors=True)
    return {"size": size, "seconds": seconds, "cpu": cpu, "follow": follow}


# -- the report ---------------------------------------------------------------------------------


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chunks", type=int, default=20_000, help="Records of the collection.")
    parser.add_argument("--questions", type=int, default=100, help="Questions timed.")
    parser.add_argument("--graph", type=int, default=100_000, help="Passages of the graph alone.")
    parser.add_argument("--graph-batch", type=int, default=10_000, help="Passages per graph add.")
    parser.add_argument("--ingest", type=int, default=1_000, help="Records ingested twice.")
    parser.add_argument("--rounds", type=int, default=2, help="Ingest pairs (2 = ABBA order).")
    parser.add_argument(
        "--data-dir", type=Path, help="Keep the collection here between runs (default: temp)."
    )
    parser.add_argument("--write", action="store_true", help="Splice results into BENCHMARKS.md.")
    args = parser.parse_args(argv)

    from treerag.models import get_embeddings

    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    began = time.perf_counter()
    load_start = os.getloadavg()
    embeddings = get_embeddings(_context(Path(tempfile.gettempdir())))
    embeddings.embed_documents(["warm up"])
    with tempfile.TemporaryDirectory(prefix="treerag-structure-bench-") as tmp:
        work = Path(tmp)
        data = args.data_dir or work / "collection"
        print(f"1. collection of {args.chunks:,} records", flush=True)
        collection = prepare_collection(data, args.chunks, embeddings)
        overhead = query_overhead(data, args.questions, embeddings)
        print(f"2. passage graph of {args.graph:,} passages", flush=True)
        graph = graph_at_scale(args.graph, args.graph_batch, args.questions)
        print(
            f"3. ingest of {args.ingest:,} records with and without the derived stores", flush=True
        )
        ratio = ingest_ratio(args.ingest, work, embeddings, args.rounds)
    minutes = (time.perf_counter() - began) / 60
    load_end = os.getloadavg()

    t = overhead["times"]
    none50, none95 = _ms(t["none"])
    both50, both95 = _ms(t["both"])
    st50, st95 = _ms(overhead["structured"])
    kw50, kw95 = _ms(t["keyword"])
    gr50, gr95 = _ms(t["graph"])
    met = st50 <= GOAL_MS
    g50, g95 = _ms(graph["total"])
    n50, n95 = _ms(graph["named"])
    r50, r95 = _ms(graph["rank"])
    graph_met = g50 <= GOAL_MS
    build = sum(graph["batches"])
    without, with_ = (statistics.mean(ratio["seconds"][m]) for m in ("without", "with"))
    cpu_without, cpu_with = (statistics.mean(ratio["cpu"][m]) for m in ("without", "with"))
    follow = statistics.mean(ratio["follow"])
    times_slower, cpu_slower = with_ / without, cpu_with / cpu_without
    ingest_met = max(times_slower, cpu_slower) <= INGEST_GOAL
    ingested = (
        ("ingested in this run" if collection.get("fresh") else "ingested by an earlier run")
        + f" in {collection['ingest_s'] / 60:.1f} min"
        + (
            f", {collection['follow_s']:.0f} s of it `derived.follow` (the keyword tree and the "
            f"graph taking all {collection['stored']:,} chunks at once)"
            if "follow_s" in collection
            else ""
        )
        + ("" if collection.get("fresh") else "; reused here")
    )
    rows = [
        f"| `gather`, structure=none (hybrid top_k) | {none50:.1f} | {none95:.1f} | |",
        f"| `gather`, structure=both | {both50:.1f} | {both95:.1f} | |",
        f"| difference of the two | {both50 - none50:.1f} | {both95 - none95:.1f} | |",
        f"| structured part alone (keyword + graph source, timed inside structure=both) | "
        f"**{st50:.1f}** | {st95:.1f} | <= {GOAL_MS:.0f} ms p50: {'met' if met else 'NOT met'} |",
        f"| of which `KeywordSource.find` | {kw50:.1f} | {kw95:.1f} | |",
        f"| of which `PassageGraphSource.find` (`named_in`, `rank`, fetch) | {gr50:.1f} | "
        f"{gr95:.1f} | |",
        f"| graph alone at {graph['size']:,} passages: `named_in` + `rank` | **{g50:.1f}** | "
        f"{g95:.1f} | <= {GOAL_MS:.0f} ms p50: {'met' if graph_met else 'NOT met'} |",
        f"| of which `named_in` | {n50:.1f} | {n95:.1f} | |",
        f"| of which `rank` (PPR over the 2-hop neighbourhood) | {r50:.1f} | {r95:.1f} | |",
    ]
    notes = [
        f"The first structure=both `gather` of a process (after a structure=none one) took "
        f"{overhead['cold'] * 1000:.0f} ms: it opens the keyword tree and the graph, loads jieba's "
        f"dictionary and builds the name matcher (most own time: "
        f"{_own_time(overhead['cold_profile'])}).",
        "",
        f"Passage graph of {graph['size']:,} passages built by `PassageGraph.add` in batches of "
        f"{graph['batch']:,} (one ingest each): {build:.0f} s in all, first batch "
        f"{graph['batches'][0]:.1f} s, last {graph['batches'][-1]:.1f} s (each add scans every "
        f"stored passage for the names the batch brings); {graph['names']:,} names, "
        f"{graph['links']:,} passage-name links, {graph['disk'] / 2**20:.0f} MiB on disk. "
        f"First `named_in` of a fresh process (builds the name matcher): "
        f"{graph['cold'] * 1000:.0f} ms. A small upload of {UPLOAD} passages into the full "
        f"graph: `add` {graph['small_add']:.1f} s (the scan of every stored passage for the "
        f"names it brings), then the next `named_in` + `rank` {graph['after_add'] * 1000:.0f} ms "
        "(every `add` clears the name matcher, so the first query after an ingest rebuilds it).",
        "",
        f"`ingest()` of {ratio['size']:,} records in {-(-ratio['size'] // RECORDS_PER_FILE)} "
        f"JSONL file(s), fresh data dir each time"
        + (f", {len(ratio['seconds']['with'])} runs each in ABBA order" if args.rounds > 1 else "")
        + f": with `derived.begin` and `follow` as no-ops {without:.1f} s wall / {cpu_without:.1f} "
        f"s CPU, with them {with_:.1f} s / {cpu_with:.1f} s: **{times_slower:.2f}x** wall, "
        f"**{cpu_slower:.2f}x** CPU (goal <= {INGEST_GOAL}x: {'met' if ingest_met else 'NOT met'}"
        f"). `follow` itself took {follow:.1f} s, {follow / without:.1%} of the no-op ingest's "
        "wall time (wall time on these shared cores varies by more than that between runs).",
    ]
    slow = []
    if not met:
        slow.append(f"structured query part: {_own_time(overhead['profile'])}")
    if not graph_met:
        slow.append(f"graph query at scale: {_own_time(graph['query_profile'])}")
    if slow:
        notes += ["", "Most own time (cProfile): " + "; ".join(slow) + "."]
    markdown = "\n".join(
        [
            "## Structured retrieval cost (`benchmarks/structure.py`)",
            "",
            f"Machine: {machine_summary()}. Load average (1/5/15 min) at start "
            f"{load_start[0]:.1f}/{load_start[1]:.1f}/{load_start[2]:.1f}, at end "
            f"{load_end[0]:.1f}/{load_end[1]:.1f}/{load_end[2]:.1f} (other work shared the "
            f"cores); the run took {minutes:.1f} min.",
            "",
            f"Collection: {collection['stored']:,} chunks, one per synthetic encyclopedia record "
            f"(a unique title, 3-7 sentences naming other records' titles and names no record "
            f"is about; JSONL files of {RECORDS_PER_FILE:,}) in Milvus Lite, {ingested}; passage "
            f"vectors are all-MiniLM-L6-v2 (int8 ONNX) vectors of each record's first "
            f"{OPENING_WORDS} words (its title and a few more: whole passages would take most of "
            "an hour to embed here), questions are embedded whole as in use. "
            f"{overhead['questions']} HotpotQA-shaped questions naming "
            f"one or two titles, each asked with structure=none and structure=both in "
            f"alternating order; top_k {overhead['top_k']}, structure_k "
            f"{overhead['structure_k']}; the structured sources added "
            f"{overhead['added'] / overhead['questions']:.1f} candidates per question.",
            "",
            "| Query | p50 ms | p95 ms | Goal |",
            "|---|---|---|---|",
            *rows,
            "",
            *notes,
        ]
    )
    for label, profile in (
        ("the first structure=both query", overhead["cold_profile"]),
        ("structure=both queries", overhead["profile"]),
        (f"graph queries at {graph['size']:,}", graph["query_profile"]),
        (f"graph build at {graph['size']:,}", graph["build_profile"]),
    ):
        print(f"\ncProfile, {label} (cumulative):\n{_top(profile)}\n")
    publish("structure", markdown, args.write)
    return 0


if __name__ == "__main__":
    sys.exit(main())
