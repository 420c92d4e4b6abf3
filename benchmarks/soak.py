"""Soak benchmark: many conversations against one `langgraph dev`, minute by minute.

Run from the repository root::

    python -m benchmarks.soak                       # 1,000 conversations over 10 minutes
    python -m benchmarks.soak --conversations 120 --minutes 2   # a short run
    python -m benchmarks.soak --write               # also splice the results into BENCHMARKS.md

A server is started over the demo's data (the sample corpus, its keyword tree and graph, as
`treerag demo` builds them) with the offline reasoner. Conversations are started at an even
pace over the minutes given, by a few concurrent clients (`--clients`): each creates a thread
and asks one of the sample corpus's questions on the `chat` graph (`runs.wait`), a fifth of
them with a second turn that leans on the first ("And who led them?"). Reported per minute (by
start): conversations, failures, latency p50 and p95 of a turn, and the server's resident
memory at the minute's end (VmRSS of its process, from /proc). At the end: the growth per 100
conversations, and the size of what `langgraph dev`'s in-memory runtime keeps (its threads,
runs and checkpoints, which it pickles to `.langgraph_api/` every 10 s and at shutdown: a
measure of what it holds in memory, which grows with every conversation by design), also
printed split into checkpoints and thread/run records.

Goals: p95 <= 3x p50 over the run, and memory flat: the last minute's RSS within 1.25x the
first's (a process that keeps every conversation in memory grows with each).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
if str(REPO_ROOT) not in sys.path:
    sys.path.insert(0, str(REPO_ROOT))

from benchmarks._report import machine_summary, percentile, publish  # noqa: E402
from tests.clients.server import ingest_sample, langgraph_server  # noqa: E402

QUESTIONS_FILE = REPO_ROOT / "treerag" / "sample_corpus" / "questions.jsonl"
SECOND_TURN = {"en": "And who led them?", "zh": "那么是谁领导的？"}


@dataclass
class Turn:
    """One answered (or failed) turn."""

    started: float
    seconds: float
    ok: bool


def _records() -> list[dict]:
    lines = QUESTIONS_FILE.read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines if line.strip()]


def questions() -> list[str]:
    """The sample corpus's questions (the demo's dev set)."""
    return [record["question"] for record in _records()]


def warmup_questions() -> list[str]:
    """The first question of each language of the sample set, asked before measuring.

    A language's first question loads what it alone needs, once per process: for Chinese,
    jieba's part-of-speech dictionary and OpenCC's tables (~58 MB of Python objects, traced
    with tracemalloc in the server). Read after an English question only, the start-up RSS
    left that load to the soak's first minute, where it counted as growth per conversation.
    """
    first: dict[str, str] = {}
    for record in _records():
        first.setdefault(record["lang"], record["question"])
    return list(first.values())


def server_pid(port: int) -> int | None:
    """The pid of the process serving `port` (its command line names it), from /proc."""
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            args = (proc / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if b"langgraph_cli" in b" ".join(args) and str(port).encode() in args:
            return int(proc.name)
    return None


def server_state_mb(data_dir: Path, kind: str = "") -> float:
    """Size of the in-memory runtime's pickled state (`.langgraph_api/` in its working dir).

    Args:
        data_dir: The server's working directory.
        kind: "checkpoint" (its `.langgraph_checkpoint.*.pckl` files), "ops" (threads and
            runs: `.langgraph_ops.pckl`), or "" for all of it (langgraph-runtime-inmem's
            file names, `checkpoint.py` and `database.py`).
    """
    folder = data_dir / ".langgraph_api"
    files = [f for f in folder.rglob("*") if f.is_file()] if folder.is_dir() else []
    return sum(f.stat().st_size for f in files if kind in f.name) / 1e6


def state_split(data_dir: Path) -> str:
    """The runtime's state by kind: checkpoints, threads and runs (MB)."""
    parts = {k: server_state_mb(data_dir, k) for k in ("checkpoint", "ops")}
    return ", ".join(f"{k} {v:.1f} MB" for k, v in parts.items())


def rss_mb(pid: int | None) -> float:
    """Resident memory of a process in MB (nan when it cannot be read)."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except (OSError, TypeError):
        return float("nan")
    kb = next(int(line.split()[1]) for line in status.splitlines() if line.startswith("VmRSS"))
    return kb / 1024


async def conversation(client: object, question: str, second: bool, turns: list[Turn]) -> None:
    """One thread: a question, and sometimes a second turn that leans on the first."""
    thread = await client.threads.create()  # type: ignore[attr-defined]
    asked = [question, SECOND_TURN["zh" if any(ord(c) > 0x3000 for c in question) else "en"]]
    for text in asked[: 2 if second else 1]:
        start = time.monotonic()
        ok = True
        try:
            out = await client.runs.wait(  # type: ignore[attr-defined]
                thread["thread_id"],
                "chat",
                input={"messages": [{"type": "human", "content": text}]},
            )
            ok = isinstance(out, dict) and bool(out.get("messages"))
        except Exception:  # counted as a failure; the soak goes on
            ok = False
        turns.append(Turn(start, time.monotonic() - start, ok))


async def soak(url: str, pid: int | None, total: int, minutes: float, clients: int) -> dict:
    """Run the conversations at an even pace; sample memory each minute."""
    from langgraph_sdk import get_client

    client = get_client(url=url)
    asked = questions()
    interval = minutes * 60 / total
    turns: list[Turn] = []
    memory: list[float] = []
    begin = time.monotonic()
    queue: asyncio.Queue[int] = asyncio.Queue()
    for i in range(total):
        queue.put_nowait(i)

    async def worker() -> None:
        while not queue.empty():
            i = queue.get_nowait()
            await asyncio.sleep(max(0.0, begin + i * interval - time.monotonic()))
            await conversation(client, asked[i % len(asked)], i % 5 == 4, turns)

    async def sampler() -> None:
        while True:
            await asyncio.sleep(60)
            memory.append(rss_mb(pid))

    sampling = asyncio.create_task(sampler())
    await asyncio.gather(*(worker() for _ in range(clients)))
    sampling.cancel()
    memory.append(rss_mb(pid))
    return {"turns": turns, "memory": memory, "begin": begin, "seconds": time.monotonic() - begin}


def report(
    result: dict,
    total: int,
    minutes: float,
    clients: int,
    start_rss: float,
    state: tuple[float, float] = (float("nan"), float("nan")),
) -> str:
    """The section: one row a minute, then the run's totals and goals."""
    turns: list[Turn] = result["turns"]
    rows = [
        "| minute | turns | failed | p50 (s) | p95 (s) | server RSS at its end (MB) |",
        "|---|---|---|---|---|---|",
    ]
    buckets: dict[int, list[Turn]] = {}
    for turn in turns:
        buckets.setdefault(int((turn.started - result["begin"]) // 60), []).append(turn)
    memory = result["memory"]
    for minute in sorted(buckets):
        got = buckets[minute]
        secs = sorted(t.seconds for t in got if t.ok)
        rss = memory[min(minute, len(memory) - 1)] if memory else float("nan")
        p50 = percentile(secs, 50) if secs else float("nan")
        p95 = percentile(secs, 95) if secs else float("nan")
        failed = sum(not t.ok for t in got)
        rows.append(f"| {minute + 1} | {len(got)} | {failed} | {p50:.2f} | {p95:.2f} | {rss:.0f} |")
    secs = sorted(t.seconds for t in turns if t.ok)
    p50, p95 = percentile(secs, 50), percentile(secs, 95)
    first, last = (memory[0], memory[-1]) if memory else (float("nan"), float("nan"))
    failed = sum(not t.ok for t in turns)
    slope = (last - start_rss) / total * 100
    before_state, after_state = state
    return "\n".join(
        [
            "## Soak: conversations against one `langgraph dev` (`benchmarks/soak.py`)",
            "",
            f"{machine_summary()}. {total:,} conversations ({len(turns):,} turns, a fifth with "
            f"a second turn) started at an even pace over {minutes:g} minutes by {clients} "
            "clients on the `chat` graph, offline reasoner, default settings, over the demo's "
            f"data; the run took {result['seconds']:.0f} s. Server RSS after start-up and a "
            f"warm-up question in each language: {start_rss:.0f} MB.",
            "",
            *rows,
            "",
            f"Whole run: p50 {p50:.2f} s, p95 {p95:.2f} s ({p95 / p50:.2f}x p50), {failed} "
            f"failed. Goals: p95 <= 3x p50: {'✅' if p95 <= 3 * p50 else '❌'}; memory flat "
            f"(last minute within 1.25x the first, {first:.0f} → {last:.0f} MB): "
            f"{'✅' if last <= 1.25 * first else '❌'}. Growth from start-up to the end: "
            f"{slope:.0f} MB per 100 conversations. The in-memory runtime's pickled state "
            f"(`.langgraph_api/`) went from {before_state:.1f} to {after_state:.1f} MB "
            f"({(after_state - before_state) * 1000 / total:.0f} KB per conversation).",
        ]
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--conversations", type=int, default=1000)
    parser.add_argument("--minutes", type=float, default=10.0)
    parser.add_argument("--clients", type=int, default=4, help="concurrent clients")
    parser.add_argument("--write", action="store_true", help="splice into BENCHMARKS.md")
    parser.add_argument(
        "--malloc-arena-max",
        type=int,
        default=0,
        help="run the server with MALLOC_ARENA_MAX set (glibc's arenas; 0 = the default)",
    )
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="treerag-soak-") as tmp:
        data = ingest_sample(Path(tmp) / "data")
        env = {"MALLOC_ARENA_MAX": str(args.malloc_arena_max)} if args.malloc_arena_max else {}
        with langgraph_server(data, env_extra=env) as url:
            port = int(url.rsplit(":", 1)[1])
            pid = server_pid(port)

            async def warm() -> None:
                from langgraph_sdk import get_client

                for question in warmup_questions():
                    await conversation(get_client(url=url), question, False, [])

            asyncio.run(warm())
            time.sleep(11)  # one flush of the runtime's state (every 10 s) before measuring
            start_rss, start_state = rss_mb(pid), server_state_mb(data)
            result = asyncio.run(soak(url, pid, args.conversations, args.minutes, args.clients))
        # After the server stopped: it writes its whole state at shutdown; a file read while
        # it runs may be one it is rewriting (its flush of ~100 MB takes seconds here).
        end_state = server_state_mb(data)
        print(f"runtime state at the end: {state_split(data)}", flush=True)
    publish(
        "soak",
        report(
            result,
            args.conversations,
            args.minutes,
            args.clients,
            start_rss,
            (start_state, end_state),
        ),
        args.write,
    )


if __name__ == "__main__":
    main()
