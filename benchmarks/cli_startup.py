"""How fast `treerag` starts: CPU seconds of `--help`, `search` and `ask` on the demo data.

Run from the repository root::

    python benchmarks/cli_startup.py            # print the table
    python benchmarks/cli_startup.py --write    # also splice it into BENCHMARKS.md

The demo data is built once in a temp folder (`treerag demo`). Each command then runs
`--repeat` times (default 5) as a fresh process; the figure is the median of its CPU time
(user + system, from `getrusage` of the finished child), beside the goal and beside the
floor every command pays: a bare interpreter, and the imports (`-X importtime`, summed over
top-level modules; wall time, so above the CPU figure on a busy machine). The jieba
dictionary cache (`treerag.segment`) is warmed by the demo build, as it is on a user's
machine after the first Chinese query.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from benchmarks._report import machine_summary, publish  # noqa: E402

QUESTION = "谁建造了潮汐号"
COMMANDS = {
    "`treerag --help`": (["--help"], 0.25),
    "`treerag search`": (["search", QUESTION], 1.5),
    "`treerag ask` (offline)": (["ask", QUESTION], 3.0),
}


def cpu_seconds(argv: list[str], cwd: Path, env: dict[str, str]) -> tuple[float, str]:
    """CPU time of one child process, and its stderr."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    done = subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True, timeout=600)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(argv)} failed:\n{done.stderr[-2000:]}")
    used = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return used, done.stderr


def import_seconds(stderr: str) -> float:
    """Sum of the top-level modules' cumulative import times in an `-X importtime` log."""
    total = 0
    for line in stderr.splitlines():
        if line.startswith("import time:") and line.count("|") == 2:
            _, cumulative, name = line.split("|")
            if not name.startswith("  ") and cumulative.strip().isdigit():
                total += int(cumulative)
    return total / 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--write", action="store_true", help="splice into BENCHMARKS.md")
    args = parser.parse_args()
    python = sys.executable
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        env = {**os.environ, "TREERAG_DATA_DIR": str(work / "data")}
        env.pop("TREERAG_CHAT_MODEL", None)
        cpu_seconds([python, "-m", "treerag", "demo"], work, env)
        floor = statistics.median(
            cpu_seconds([python, "-c", "pass"], work, env)[0] for _ in range(args.repeat)
        )
        rows = []
        for label, (argv, goal) in COMMANDS.items():
            command = [python, "-m", "treerag", *argv]
            times = [cpu_seconds(command, work, env)[0] for _ in range(args.repeat)]
            _, log = cpu_seconds([python, "-X", "importtime", "-m", "treerag", *argv], work, env)
            median = statistics.median(times)
            rows.append(
                f"| {label} | {median:.2f} | {goal:.2f} | "
                f"{median / goal:.2f} | {import_seconds(log):.2f} | {min(times):.2f}–"
                f"{max(times):.2f} |"
            )
            print(rows[-1], flush=True)
    markdown = "\n".join(
        [
            "## CLI start-up (`benchmarks/cli_startup.py`)",
            "",
            f"Machine: {machine_summary()}. Demo data, question `{QUESTION}`, median of "
            f"{args.repeat} fresh processes; CPU seconds (user + system). A bare interpreter "
            f"costs {floor:.2f} s.",
            "",
            "| command | CPU s (median) | goal | ratio to goal | imports, wall s | range |",
            "|---|---|---|---|---|---|",
            *rows,
            "",
        ]
    )
    publish("cli_startup", markdown, args.write)


if __name__ == "__main__":
    main()
