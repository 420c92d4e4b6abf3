"""Upload benchmark: one large text file through the web page's upload route vs `treerag ingest`.

Run from the repository root::

    python -m benchmarks.upload            # a 5 MB file
    python -m benchmarks.upload --mb 1     # a smaller file on a busy machine
    python -m benchmarks.upload --write    # also splice the results into BENCHMARKS.md

Both sides ingest the same generated file (unique paragraphs of English prose) into an empty
data directory, in the same run: the baseline is `treerag ingest FILE` as a user types it
(a fresh process: start-up and model load included); the route side is `POST
/ui/api/docs/upload` to a running `langgraph dev`, timed from the request to the `finished`
event (upload, checks, write under the data dir, ingestion, NDJSON progress). Throughput is
chunks per second; the goal is route >= 0.9x the CLI.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
if str(REPO_ROOT) not in sys.path:
    sys.path.insert(0, str(REPO_ROOT))

from benchmarks._report import machine_summary, publish  # noqa: E402
from tests.clients.server import langgraph_server, offline_env  # noqa: E402

WORDS = (
    "harbour lighthouse keeper guild charter river island federation ship captain assembly "
    "glass lens beacon ferry salt tide clock chart academy flood wall market festival ledger "
    "council merchant harvest storm season archive letter bridge quarry timber iron copper"
).split()


def make_file(path: Path, megabytes: float, seed: int = 7) -> Path:
    """Write unique paragraphs of prose up to the size asked (deterministic)."""
    rng = random.Random(seed)
    target = int(megabytes * 1024 * 1024)
    parts, size, n = [], 0, 0
    while size < target:
        n += 1
        words = " ".join(rng.choice(WORDS) for _ in range(rng.randint(40, 120)))
        para = f"Record {n}: the {words}.\n\n"
        parts.append(para)
        size += len(para.encode())
    path.write_text("".join(parts), encoding="utf-8")
    return path


def time_cli(file: Path, data: Path, timeout: float) -> tuple[float, int]:
    """`treerag ingest FILE` in a fresh process; return (seconds, chunks in the collection)."""
    started = time.perf_counter()
    subprocess.run(
        [
            str(Path(sys.executable).parent / "treerag"),
            "ingest",
            str(file),
            "--data-dir",
            str(data),
        ],
        env=offline_env(data),
        check=True,
        capture_output=True,
        timeout=timeout,
    )
    elapsed = time.perf_counter() - started
    listing = subprocess.run(
        [
            str(Path(sys.executable).parent / "treerag"),
            "docs",
            "list",
            "--json",
            "--data-dir",
            str(data),
        ],
        env=offline_env(data),
        check=True,
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    chunks = sum(d["chunks"] for d in json.loads(listing.stdout)["documents"])
    return elapsed, chunks


def time_route(file: Path, data: Path, timeout: float) -> tuple[float, int, int]:
    """Upload FILE to a running server; return (seconds, chunks added, batch events)."""
    import httpx

    with langgraph_server(data, env_extra={"TREERAG_UPLOAD_MAX_MB": "100"}) as url:
        body = file.read_bytes()
        events = []
        with httpx.Client(base_url=url, timeout=timeout) as client:
            started = time.perf_counter()
            parts = [("files", (file.name, body, "text/plain"))]
            with client.stream("POST", "/ui/api/docs/upload", files=parts) as response:
                response.raise_for_status()
                events = [json.loads(line) for line in response.iter_lines() if line]
            elapsed = time.perf_counter() - started
    done = [e for e in events if e["event"] == "file_done"]
    if not done:
        raise SystemExit(f"the upload did not ingest the file: {events[-3:]}")
    return elapsed, done[0]["chunks_added"], sum(e["event"] == "batch" for e in events)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--mb", type=float, default=5.0, help="size of the text file in MB")
    parser.add_argument("--timeout", type=float, default=1200, help="seconds per side")
    parser.add_argument("--repeats", type=int, default=2, help="timed runs per side (ABBA order)")
    parser.add_argument("--write", action="store_true", help="splice into BENCHMARKS.md")
    args = parser.parse_args()
    cli_runs: list[tuple[float, int]] = []
    route_runs: list[tuple[float, int, int]] = []
    with tempfile.TemporaryDirectory(prefix="treerag-upload-bench-") as tmp:
        file = make_file(Path(tmp) / "large.txt", args.mb)
        size_mb = file.stat().st_size / 2**20
        # ABBA order (CLI, route, route, CLI, ...): drift of a shared machine's load cancels.
        order = ["cli", "route", "route", "cli"] * ((args.repeats + 1) // 2)
        for i, side in enumerate(order[: 2 * args.repeats]):
            data = Path(tmp) / f"{side}-{i}"
            if side == "cli":
                cli_runs.append(time_cli(file, data, args.timeout))
                print(
                    f"treerag ingest: {cli_runs[-1][0]:.1f} s, {cli_runs[-1][1]} chunks", flush=True
                )
            else:
                route_runs.append(time_route(file, data, args.timeout))
                print(
                    f"upload route: {route_runs[-1][0]:.1f} s, {route_runs[-1][1]} chunks",
                    flush=True,
                )
    cli_s = statistics.median(r[0] for r in cli_runs)
    route_s = statistics.median(r[0] for r in route_runs)
    cli_chunks, route_chunks, batches = cli_runs[0][1], route_runs[0][1], route_runs[0][2]
    cli_rate, route_rate = cli_chunks / cli_s, route_chunks / route_s
    ratio = route_rate / cli_rate
    markdown = "\n".join(
        [
            "## Upload through the web page vs `treerag ingest`",
            "",
            f"{machine_summary()}. One generated {size_mb:.1f} MB text file (unique English "
            "paragraphs), ingested into an empty data directory by each side in the same run; "
            "offline MiniLM embeddings, Milvus Lite. `python -m benchmarks.upload"
            + (f" --mb {args.mb:g}" if args.mb != 5.0 else "")
            + "`.",
            "",
            f"Median of {args.repeats} runs per side, in ABBA order.",
            "",
            "| side | seconds | chunks | chunks/s |",
            "|---|---:|---:|---:|",
            f"| `treerag ingest FILE` (fresh process) | {cli_s:.1f} | {cli_chunks} "
            f"| {cli_rate:.1f} |",
            f"| `POST /ui/api/docs/upload` (running server, {batches} progress events) "
            f"| {route_s:.1f} | {route_chunks} | {route_rate:.1f} |",
            "",
            f"Route throughput: **{ratio:.2f}x** the CLI's (goal >= 0.9x). The CLI time includes "
            "its start-up and model load; the route's includes the upload, the checks, the copy "
            "under `<data_dir>/uploads/` and the NDJSON stream.",
        ]
    )
    print()
    publish("upload", markdown, args.write)


if __name__ == "__main__":
    main()
