"""Web page overhead: time to first token and to the full answer, page vs CLI client.

Run from the repository root::

    python -m benchmarks.web_page            # 4 questions x 3 rounds
    python -m benchmarks.web_page --write    # also splice the results into BENCHMARKS.md

One `langgraph dev` server over the sample corpus (offline reasoner) serves both clients.
Each question is asked once through the web page in headless Chromium (timed in the page:
from the form's submit to the first answer token drawn, and to the answer rendered) and
once through the client `treerag chat --url` uses (`RemoteBackend`, timed from the call to
the first answer token event, and to the final `values` event), on fresh threads; the order
alternates between rounds so that caches warmed by one client favour neither. The page's
overhead is the median of the paired differences (goal: <= 100 ms).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

REPO_ROOT = Path(__file__).resolve().parent.parent
if str(REPO_ROOT) not in sys.path:
    sys.path.insert(0, str(REPO_ROOT))

from benchmarks._report import machine_summary, publish  # noqa: E402
from tests.clients.server import ingest_sample, langgraph_server  # noqa: E402
from tests.clients.web_support import CHROMIUM, CHROMIUM_FLAGS  # noqa: E402
from treerag.cli.chat_backends import RemoteBackend  # noqa: E402

QUESTIONS = [
    "Where was Orla Venn born?",
    "Which guild built the Saltwren?",
    "What glass is made in Dunsorrow?",
    "沈疑微是谁？",
]

# What the page sends as the run context with its default settings: the client sends it too.
PAGE_CONTEXT = {"top_k": 5, "max_depth": 2, "search_mode": "hybrid"}

# Page-side clock: the submit, the first root-answer token drawn, the rendered answer.
_PAGE_CLOCK = """
window.__bench = [];
window.__streamAt = 0;
const pageFetch = window.fetch.bind(window);
window.fetch = (url, init) => {
  if (String(url).endsWith("/runs/stream")) window.__streamAt = performance.now();
  return pageFetch(url, init);
};
document.addEventListener("DOMContentLoaded", () => {
  let t0 = 0, first = 0;
  document.getElementById("ask-form").addEventListener("submit", () => {
    t0 = performance.now(); first = 0;
  }, true);
  new MutationObserver((records) => {
    for (const r of records) {
      const el = r.target;
      if (!(el instanceof Element)) continue;
      if (r.type === "attributes" && r.attributeName === "data-tokens" && !first) {
        first = performance.now();
      }
      if (r.type === "attributes" && r.attributeName === "aria-busy"
          && el.classList.contains("msg") && el.getAttribute("aria-busy") === "false") {
        const now = performance.now();
        window.__bench.push({ ttft: first - t0, total: now - t0, setup: window.__streamAt - t0 });
      }
    }
  }).observe(document.body, { subtree: true, attributes: true,
                              attributeFilter: ["data-tokens", "aria-busy"] });
});
"""


def browser_cpu_s() -> float:
    """CPU seconds used so far by every Chromium process on this machine (from /proc)."""
    tick = os.sysconf("SC_CLK_TCK")
    total = 0.0
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            if b"chrom" not in (entry / "cmdline").read_bytes()[:200]:
                continue
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += (int(fields[11]) + int(fields[12])) / tick  # utime + stime
    return total


def ask_page(page: Any, question: str) -> dict[str, float]:
    """Ask on the page in a new chat; return its own timings in ms and the browser's CPU."""
    page.click("#new-chat")
    cpu = browser_cpu_s()
    before = page.evaluate("window.__bench.length")
    page.fill("#question", question)
    page.click("#send")
    page.wait_for_function(f"window.__bench.length > {before}", timeout=300_000)
    page.wait_for_selector("body[data-busy='0']")
    timings = dict(page.evaluate("window.__bench[window.__bench.length - 1]"))
    timings["browser_cpu"] = (browser_cpu_s() - cpu) * 1000
    # The page reloads its conversation list after a turn: let that finish before the next
    # question (a person does not ask within milliseconds), so it does not load the next run.
    page.wait_for_function(
        "!(document.querySelector('.thread.active') || {textContent: ''})"
        ".textContent.includes('running')",
        timeout=60_000,
    )
    return timings


async def ask_client(url: str, question: str) -> dict[str, float]:
    """Ask through the CLI's server client on a new thread; return timings in ms."""
    backend = RemoteBackend(url, dict(PAGE_CONTEXT))
    await backend.open()
    try:
        thread_id = await backend.new_thread()
        t0 = time.perf_counter()
        first = 0.0
        async for kind, data in backend.stream(thread_id, question):
            is_token = kind == "custom" and isinstance(data, dict)
            if is_token and data.get("event") == "token" and not data.get("depth") and not first:
                first = time.perf_counter()
        total = time.perf_counter()
    finally:
        await backend.close()
    return {"ttft": (first - t0) * 1000, "total": (total - t0) * 1000}


def client_in_thread(url: str, question: str) -> dict[str, float]:
    """`ask_client` on its own thread (playwright's sync API holds this thread's loop)."""
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, ask_client(url, question)).result()


def measure(url: str, rounds: int) -> list[dict[str, Any]]:
    """Paired timings of every question on both clients, order alternating per round."""
    from playwright.sync_api import sync_playwright

    rows = []
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=str(CHROMIUM), args=CHROMIUM_FLAGS, headless=True
        )
        # CSP bypassed only so that the clock can be read with wait_for_function.
        context = browser.new_context(viewport={"width": 1500, "height": 950}, bypass_csp=True)
        page = context.new_page()
        page.add_init_script(_PAGE_CLOCK)
        page.goto(f"{url}/ui")
        page.wait_for_selector("body[data-ready='1']")
        # Warm the server's caches (judge verdicts, loaded stores) for every question first,
        # so that neither client profits from the other's run.
        for question in QUESTIONS:
            ask_page(page, question)
            client_in_thread(url, question)
        for r in range(rounds):
            for question in QUESTIONS:
                if r % 2 == 0:
                    on_page = ask_page(page, question)
                    on_cli = client_in_thread(url, question)
                else:
                    on_cli = client_in_thread(url, question)
                    on_page = ask_page(page, question)
                rows.append({"question": question, "page": on_page, "cli": on_cli})
                print(f"{question}: page {on_page} cli {on_cli}", flush=True)
        browser.close()
    return rows


def report(rows: list[dict[str, Any]], rounds: int) -> str:
    """The BENCHMARKS.md section."""

    def med(key: str, side: str) -> float:
        return statistics.median(r[side][key] for r in rows)

    def diff(key: str) -> float:
        return statistics.median(r["page"][key] - r["cli"][key] for r in rows)

    lines = [
        "## Web page vs CLI client (`benchmarks/web_page.py`)",
        "",
        f"{machine_summary()}. One `langgraph dev` server over the sample corpus, offline "
        f"reasoner; {len(QUESTIONS)} questions x {rounds} rounds, each asked on a fresh "
        "thread through the page (headless Chromium, timed in the page from submit) and "
        "through `RemoteBackend` (the client of `treerag chat --url`), order alternating.",
        "",
        "| | page median (ms) | CLI client median (ms) | page − CLI, median of pairs (ms) |",
        "|---|---:|---:|---:|",
    ]
    for key, label in (("ttft", "first answer token"), ("total", "full answer")):
        lines.append(
            f"| {label} | {med(key, 'page'):.0f} | {med(key, 'cli'):.0f} | {diff(key):+.0f} |"
        )
    setup = statistics.median(r["page"]["setup"] for r in rows)
    cpu = statistics.median(r["page"]["browser_cpu"] / r["page"]["total"] for r in rows)
    lines += [
        "",
        f"The page's own set-up before its run request (creating the thread on the first "
        f"question, listing it): median {setup:.0f} ms. Each question was asked once on both "
        "clients before timing, to warm the server's caches. While the page drew a run, "
        f"Chromium itself used a median {cpu:.0%} of one core ({machine_summary().split(', ')[2]} "
        "shared with the server): on one machine the page's drawing competes with the "
        "server for CPU, a likely (not isolated here) source of the difference on large trees.",
    ]
    spread = sorted(r["page"]["total"] - r["cli"]["total"] for r in rows)
    lines += [
        "",
        f"Paired full-answer differences ranged from {spread[0]:+.0f} to {spread[-1]:+.0f} ms: "
        "on this shared machine the run-to-run noise of the server is far larger than 100 ms, "
        "so the medians above say little more than that the page adds no systematic seconds.",
    ]
    worst = max(diff("ttft"), diff("total"))
    verdict = "met" if worst <= 100 else "missed"
    lines += [
        "",
        f"Goal: the page adds <= 100 ms: {verdict} (worst median difference {worst:+.0f} ms).",
    ]
    return "\n".join(lines)


def main() -> None:
    """Measure and print (and with --write, publish) the section."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--write", action="store_true", help="splice into BENCHMARKS.md")
    args = parser.parse_args()
    if not CHROMIUM.exists():
        print(f"skipped: {CHROMIUM} is missing (see .ci/install-chromium.sh)")
        return
    with tempfile.TemporaryDirectory(prefix="treerag-bench-web-") as tmp:
        data = ingest_sample(Path(tmp) / "data")
        with langgraph_server(data) as url:
            rows = measure(url, args.rounds)
    publish("web_page", report(rows, args.rounds), args.write)


if __name__ == "__main__":
    main()
