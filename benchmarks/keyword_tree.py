"""Keyword tree benchmark: cold start, exact lookup, fsynced writes, compaction, descent calls.

Builds a synthetic tree (100k keywords, 200k infos, 300k links by default) through the
public API, then measures everything on that same store in one run.

    python benchmarks/keyword_tree.py            # full size, print the table
    python benchmarks/keyword_tree.py --small    # 10k / 20k / 30k, for a quick look
    python benchmarks/keyword_tree.py --write    # also update BENCHMARKS.md
"""

from __future__ import annotations

import argparse
import gc
import os
import random
import shutil
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks._report import machine_summary, percentile, publish  # noqa: E402
from treerag.keyword_tree import BranchDecision, DescentView, KeywordTree, TreeConfig  # noqa: E402

WORDS = [
    "机器学习", "网络", "数据库", "操作系统", "编译器", "算法", "安全", "云计算", "前端", "后端",
    "python", "rust", "kernel", "storage", "search", "graph", "vector", "stream", "cache", "index",
]  # fmt: skip


@dataclass
class Sizes:
    keywords: int
    infos: int
    links: int
    fanout: int = 7
    creates: int = 1000
    updates: int = 10_000
    lookups: int = 20_000
    descents: int = 300


FULL = Sizes(100_000, 200_000, 300_000)
SMALL = Sizes(10_000, 20_000, 30_000, creates=300, updates=2_000, lookups=5_000, descents=100)


class OracleAgent:
    """A perfect agent: it knows the target and jumps to its deepest shown ancestor.

    It isolates what the tree and the views cost in agent calls, apart from judgement.
    """

    name = "oracle"

    def __init__(self, path: list[str]) -> None:
        self.path = path

    def pick_branch(self, question: str, view: DescentView) -> BranchDecision:
        shown = view.flat()
        deepest = [i for i in self.path if i in shown][-1]
        action = "match" if deepest == self.path[-1] else "jump"
        return BranchDecision(action=action, node_id=deepest, jump_depth=shown[deepest][1])


class CountingTree(KeywordTree):
    """A store that counts its compactions and snapshots (periodic upkeep included)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self.counts = {"compactions": 0, "snapshots": 0}
        super().__init__(*args, **kwargs)

    def compact_storage(self) -> Any:
        self.counts["compactions"] += 1
        return super().compact_storage()

    def snapshot(self) -> str:
        self.counts["snapshots"] += 1
        return super().snapshot()


def build(
    path: Path, sizes: Sizes, rng: random.Random, config: TreeConfig | None = None
) -> tuple[list[str], float, dict[str, int]]:
    """Create the synthetic store through batch operations.

    Returns the leaf ids, the seconds taken and how many compactions and snapshots the
    store's periodic upkeep ran meanwhile.
    """
    started = time.perf_counter()
    tree = CountingTree(path, config=config)
    ids: list[str] = []
    frontier: list[str | None] = [None]
    batch: list[dict[str, object]] = []
    while len(ids) < sizes.keywords:
        next_frontier: list[str | None] = []
        for parent in frontier:
            for _ in range(sizes.fanout):
                if len(ids) >= sizes.keywords:
                    break
                node_id = f"k{len(ids)}"
                name = f"{WORDS[len(ids) % len(WORDS)]}{len(ids)}"
                batch.append(
                    {
                        "id": node_id,
                        "name": name,
                        "parent_id": parent,
                        "description": f"about {name}",
                    }
                )
                ids.append(node_id)
                next_frontier.append(node_id)
            if len(batch) >= 10_000:
                tree.batch_create_keywords(batch)
                batch = []
        frontier = next_frontier
    tree.batch_create_keywords(batch)
    leaves = [i for i in ids if not tree.index.child_ids(i)]
    extra_links = sizes.links - sizes.infos
    items = []
    for n in range(sizes.infos):
        targets = [rng.choice(leaves)]
        if n < extra_links:
            other = rng.choice(ids)
            if other != targets[0]:
                targets.append(other)
        items.append({"id": f"i{n}", "content": f"synthetic info {n} " * 6, "keyword_ids": targets})
        if len(items) == 20_000:
            tree.batch_create_infos(items)
            items = []
    if items:
        tree.batch_create_infos(items)
    tree.close()
    return leaves, time.perf_counter() - started, tree.counts


def cold_start(path: Path, repeats: int = 3) -> tuple[float, float, dict[str, int]]:
    """Return median (wall s, CPU s) to open the store, and its counts.

    The timing includes one full garbage collection after opening: loading pauses the
    collector, and its first run afterwards is part of what a cold start costs.
    """
    walls, cpus = [], []
    counts: dict[str, int] = {}
    for _ in range(repeats):
        gc.collect()
        wall, cpu = time.perf_counter(), time.process_time()
        tree = KeywordTree(path)
        gc.collect()
        walls.append(time.perf_counter() - wall)
        cpus.append(time.process_time() - cpu)
        counts = tree.counts()
        tree.storage.close()  # leave without writing checkpoints or caches
        tree._closed = True
        del tree
    return statistics.median(walls), statistics.median(cpus), counts


def lookups(tree: KeywordTree, sizes: Sizes, rng: random.Random) -> dict[str, float]:
    """Time exact_lookup on names never queried before, then again (normalization cached)."""
    names = [
        tree.index.nodes[f"k{rng.randrange(sizes.keywords)}"]["name"] for _ in range(sizes.lookups)
    ]
    names = list(dict.fromkeys(names))
    out: dict[str, float] = {}
    for label in ("first", "repeat"):
        samples = []
        for name in names:
            started = time.perf_counter_ns()
            hits = tree.exact_lookup(name)
            samples.append((time.perf_counter_ns() - started) / 1000)
            assert len(hits) == 1
        out[f"{label}_p50"] = percentile(samples, 50)
        out[f"{label}_p99"] = percentile(samples, 99)
    return out


def creates(tree: KeywordTree, sizes: Sizes, rng: random.Random) -> dict[str, float]:
    """Time create_keyword with fsync on every write."""
    parents = list(tree.index.nodes)
    samples = []
    for n in range(sizes.creates):
        parent = rng.choice(parents)
        started = time.perf_counter()
        tree.create_keyword(f"新关键词 new {n}", parent_id=parent, description="bench")
        samples.append((time.perf_counter() - started) * 1000)
    return {
        "p50_ms": percentile(samples, 50),
        "p99_ms": percentile(samples, 99),
        "per_s": 1000 / statistics.fmean(samples),
    }


def raw_fsync(workdir: Path, count: int = 200) -> float:
    """Return the p50 ms of appending 200 bytes + fdatasync: the disk's floor for a write."""
    fd = os.open(workdir / "fsync-probe", os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
    samples = []
    try:
        for _ in range(count):
            started = time.perf_counter()
            os.write(fd, b"x" * 199 + b"\n")
            os.fdatasync(fd)
            samples.append((time.perf_counter() - started) * 1000)
    finally:
        os.close(fd)
    return percentile(samples, 50)


def compaction(tree: KeywordTree, sizes: Sizes, rng: random.Random) -> dict[str, float]:
    """Write old versions (description updates), then compact."""
    for n in range(sizes.updates):
        tree.update_keyword(f"k{rng.randrange(sizes.keywords)}", {"description": f"revised {n}"})
    report = tree.compact_storage()
    return {
        "seconds": report.seconds,
        "mb_before": report.bytes_before / 2**20,
        "mb_after": report.bytes_after / 2**20,
    }


def descents(
    tree: KeywordTree, leaves: list[str], sizes: Sizes, rng: random.Random
) -> list[tuple[str, float, float, float]]:
    """Agent calls per descent to random leaves: one level per call vs multi-level views."""
    targets = [rng.choice(leaves) for _ in range(sizes.descents)]
    rows = []
    for label, depth, budget in (
        ("one level per call", 1, 120),
        ("multi-level, ≤3 levels / 120 nodes (default)", 3, 120),
        ("multi-level, ≤3 levels / 400 nodes", 3, 400),
    ):
        tree.config.view_max_depth, tree.config.view_max_nodes = depth, budget
        calls, seconds = [], []
        for target in targets:
            started = time.perf_counter()
            result = tree.descend(
                "q", agent=OracleAgent(tree.index.path_ids(target)), use_cache=False
            )
            seconds.append((time.perf_counter() - started) * 1000)
            assert result.kind == "matched" and result.node.id == target
            calls.append(result.trace.agent_calls)
        rows.append((label, statistics.fmean(calls), max(calls), statistics.fmean(seconds)))
    tree.config = TreeConfig()
    return rows


def _secs(timing: tuple[float, float, object]) -> str:
    return f"{timing[0]:.2f} s wall, {timing[1]:.2f} s CPU"


def run(sizes: Sizes, workdir: Path) -> str:
    rng = random.Random(7)
    path = workdir / "kt"
    figures: dict[str, Any] = {"load": os.getloadavg()[0]}
    # Baseline: the same build with periodic snapshots and compaction off.
    quiet = TreeConfig(snapshot_every_bytes=0, compact_growth=0)
    _, figures["build_plain_s"], _ = build(workdir / "kt-plain", sizes, random.Random(7), quiet)
    shutil.rmtree(workdir / "kt-plain")
    leaves, figures["build_s"], figures["upkeep"] = build(path, sizes, rng)
    figures["start_ckpt"] = cold_start(path)
    manifest = path / "indexes" / "manifest.json"
    saved = manifest.read_bytes()
    manifest.unlink()
    figures["start_full"] = cold_start(path, repeats=1)
    manifest.write_bytes(saved)
    tree = KeywordTree(path)
    figures["look"] = lookups(tree, sizes, rng)
    figures["made"] = creates(tree, sizes, rng)
    figures["comp"] = compaction(tree, sizes, rng)
    figures["depth_rows"] = descents(tree, leaves, sizes, rng)
    tree.close()
    del tree  # its objects would otherwise be scanned by the collections timed below
    gc.collect()
    figures["start_after"] = cold_start(path)
    figures["fsync_ms"] = raw_fsync(workdir)
    return table(sizes, figures)


def table(sizes: Sizes, f: dict[str, Any]) -> str:
    """Return the markdown report."""
    c, look, made, comp = f["start_ckpt"][2], f["look"], f["made"], f["comp"]
    lines = [
        f"Machine: {machine_summary()}; shared with other jobs "
        f"(1-min load average {f['load']:.1f} at start, {os.getloadavg()[0]:.1f} at the end).",
        f"Store: {c['keywords']:,} keywords (fanout {sizes.fanout}), {c['infos']:,} infos, "
        f"{c['links']:,} links, built through batch operations in {f['build_s']:.1f} s.",
        "",
        f"Periodic upkeep during that build: {f['upkeep']['compactions']} compactions and "
        f"{f['upkeep']['snapshots']} snapshots; the same build with both off took "
        f"{f['build_plain_s']:.1f} s (ratio {f['build_s'] / f['build_plain_s']:.2f}).",
        "",
        "| measure | result | goal |",
        "|---|---|---|",
        f"| cold start from the index checkpoint (median of 3) | {_secs(f['start_ckpt'])} "
        "| < 2 s |",
        f"| cold start, indexes rebuilt from the JSONL files | {_secs(f['start_full'])} "
        "| (baseline) |",
        f"| cold start after compaction (median of 3) | {_secs(f['start_after'])} | < 2 s |",
        f"| exact_lookup p50, first time each query | {look['first_p50']:.1f} µs "
        f"(p99 {look['first_p99']:.0f}) | < 20 µs |",
        f"| exact_lookup p50, repeated query | {look['repeat_p50']:.1f} µs "
        f"(p99 {look['repeat_p99']:.0f}) | < 20 µs |",
        f"| create_keyword, fsync per write (data file, then log) | p50 {made['p50_ms']:.2f} ms, "
        f"p99 {made['p99_ms']:.2f} ms, {made['per_s']:.0f}/s | (report) |",
        f"| raw append + fdatasync of 200 bytes, same disk | p50 {f['fsync_ms']:.2f} ms "
        "| (floor) |",
        f"| compact_storage after {sizes.updates:,} updates | {comp['seconds']:.2f} s "
        f"({comp['mb_before']:.0f} → {comp['mb_after']:.0f} MB) | (report) |",
        "",
        f"Agent calls per descent to {sizes.descents} random leaves, with a perfect agent "
        "(the figure measures the views, not judgement):",
        "",
        "| views | calls per descent (mean) | max | engine time per descent |",
        "|---|---|---|---|",
    ]
    lines += [
        f"| {label} | {mean:.2f} | {top} | {ms:.1f} ms |"
        for label, mean, top, ms in f["depth_rows"]
    ]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--small", action="store_true", help="10k keywords instead of 100k")
    parser.add_argument(
        "--write", action="store_true", help="update the keyword_tree section of BENCHMARKS.md"
    )
    parser.add_argument("--dir", type=Path, help="work directory (default: a temporary one)")
    args = parser.parse_args()
    workdir = args.dir or Path(tempfile.mkdtemp(prefix="kt-bench-"))
    try:
        table = run(SMALL if args.small else FULL, workdir)
    finally:
        if args.dir is None:
            shutil.rmtree(workdir, ignore_errors=True)
    markdown = "## Keyword knowledge tree\n\n" + table
    publish("keyword_tree", markdown, args.write)


if __name__ == "__main__":
    main()
