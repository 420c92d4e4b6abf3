"""A newcomer's first hour, as a script: a fresh clone, the README's commands, one shared data dir.

Run from the repository root::

    python benchmarks/newcomer.py                  # print the table
    python benchmarks/newcomer.py --write          # also splice it into BENCHMARKS.md
    python benchmarks/newcomer.py --with-tests     # also `make test` (20+ minutes on 2 cores)

In a temporary folder, as a new user would:

1. `git clone --no-hardlinks` the repository's committed branch (main by default);
2. `make demo`, timed: the install part (until make starts `treerag demo`), the demo part,
   and the time from the clone to the demo's first answer;
3. with `--with-tests` only, `make test` (off by default: it takes 20 minutes or more);
4. `.venv/bin/langgraph dev --no-browser --host 127.0.0.1 --port PORT` in the clone, as the
   README says, over the demo's `./data`; one `rag` run posted to `POST /runs/wait`, and while
   it runs `treerag ask` from a terminal on the same data dir; then one run on a server
   thread (`POST /threads/ID/runs/wait`, the kind the page makes); `treerag runs` must list
   both server runs' questions and `treerag tree` must rebuild them; the server is stopped.

Every child process gets the environment of this shell without `TREERAG_*`, `OPENAI_*`,
`LANGSMITH_*` and `LANGCHAIN_*` settings (a newcomer has none; nothing leaves the machine), and
a cache folder of its own (`XDG_CACHE_HOME`), so pip's cache and treerag's jieba cache start
cold as on a new machine. pip uses whatever registry is configured for this user. The script
exits non-zero when any step fails; the table says which, and the logs' tails are printed.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from benchmarks._report import machine_summary, publish  # noqa: E402

SERVER_QUESTION = "Which guild built the Saltwren, Aldous Brennick's ship?"
TERMINAL_QUESTION = "Who led the fishers who established Quillhaven?"
THREAD_QUESTION = "Which guild made the tide-clock standard equipment on its ships?"
_DROPPED_ENV = ("TREERAG_", "OPENAI_", "LANGSMITH_", "LANGCHAIN_", "VIRTUAL_ENV")
_ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")
_API_LINE = re.compile(r"API: \S*?http://127\.0\.0\.1:(\d+)")
_PYTEST_SUMMARY = re.compile(r"\d+ (passed|failed|error)")


@dataclass
class Step:
    """One row of the table."""

    name: str
    seconds: float | None
    ok: bool
    note: str = ""


def log(message: str) -> None:
    """Progress on stderr, so that stdout holds the table alone."""
    print(f"[newcomer {time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


def child_env(cache: Path) -> dict[str, str]:
    """The environment of a new user's shell: no treerag or model settings, a cold cache."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(_DROPPED_ENV)}
    venv = os.environ.get("VIRTUAL_ENV")
    if venv:  # the checkout's own venv must not stand in for the clone's
        env["PATH"] = os.pathsep.join(
            p for p in env.get("PATH", "").split(os.pathsep) if not p.startswith(venv)
        )
    env.update(
        {
            "XDG_CACHE_HOME": str(cache),
            "LANGSMITH_TRACING": "false",
            "LANGCHAIN_TRACING_V2": "false",
            "LANGGRAPH_CLI_NO_ANALYTICS": "1",
            "PYTHONUNBUFFERED": "1",
            "COLUMNS": "200",  # rich cuts `treerag runs` questions at the terminal's width
        }
    )
    return env


def tail(text: str, lines: int = 30) -> str:
    """The last lines of a log, for failure messages."""
    return "\n".join(_ANSI.sub("", text).rstrip().splitlines()[-lines:])


def run_logged(
    argv: list[str], cwd: Path, env: dict[str, str], logfile: Path, marks: dict[str, str]
) -> tuple[int, float, dict[str, float]]:
    """Run a command, its output to `logfile`; return its code, wall seconds, and marks.

    `marks` maps a name to a substring; the result gives, for each one seen, the seconds
    from the start to the first output line containing it.
    """
    seen: dict[str, float] = {}
    start = time.monotonic()
    with logfile.open("w", encoding="utf-8") as out:
        proc = subprocess.Popen(
            argv,
            cwd=cwd,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            text=True,
            errors="replace",
        )
        assert proc.stdout is not None
        for line in proc.stdout:
            out.write(line)
            for name, needle in marks.items():
                if name not in seen and needle in line:
                    seen[name] = time.monotonic() - start
        code = proc.wait()
    return code, time.monotonic() - start, seen


def free_port() -> int:
    """A port free on 127.0.0.1 right now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def wait_ready(proc: subprocess.Popen, logfile: Path, port: int, timeout: float) -> str:
    """Poll `/ok` until the server answers (on the port it reports having bound)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        text = _ANSI.sub("", logfile.read_text(errors="replace"))
        if proc.poll() is not None:
            raise RuntimeError(f"langgraph dev exited with {proc.returncode}:\n{tail(text)}")
        found = _API_LINE.search(text)
        url = f"http://127.0.0.1:{found.group(1) if found else port}"
        with contextlib.suppress(OSError):
            with urllib.request.urlopen(f"{url}/ok", timeout=2) as response:
                if response.status == 200:
                    return url
        time.sleep(0.5)
    text = _ANSI.sub("", logfile.read_text(errors="replace"))
    raise TimeoutError(f"langgraph dev did not answer /ok in {timeout:.0f} s:\n{tail(text)}")


def stop_server(proc: subprocess.Popen) -> bool:
    """Stop the server's process group; True when it exited on SIGTERM."""
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGTERM)
    try:
        proc.wait(timeout=30)
        return True
    except subprocess.TimeoutExpired:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=30)
        return False


def post_run(url: str, path: str, question: str, result: dict) -> None:
    """POST a `rag` run to `path` (a `.../runs/wait` route) and fill `result`."""
    body = json.dumps({"assistant_id": "rag", "input": {"question": question}}).encode()
    request = urllib.request.Request(
        f"{url}{path}", data=body, headers={"Content-Type": "application/json"}
    )
    result["start"] = time.monotonic()
    try:
        with urllib.request.urlopen(request, timeout=900) as response:
            result["status"] = response.status
            result["body"] = json.loads(response.read() or b"null")
    except urllib.error.HTTPError as exc:
        result["status"] = exc.code
        result["error"] = exc.read().decode(errors="replace")[:2000]
    except Exception as exc:  # reported in the table
        result["error"] = f"{type(exc).__name__}: {exc}"
    result["end"] = time.monotonic()


def new_thread(url: str) -> str:
    """Create a server thread (as the page does for a conversation); return its id."""
    request = urllib.request.Request(
        f"{url}/threads", data=b"{}", headers={"Content-Type": "application/json"}
    )
    with urllib.request.urlopen(request, timeout=60) as response:
        return str(json.loads(response.read())["thread_id"])


def run_step(name: str, result: dict) -> Step:
    """The table row of a server run: HTTP 200, no error, a non-empty answer."""
    body = result.get("body") if isinstance(result.get("body"), dict) else {}
    ok = result.get("status") == 200 and not body.get("error") and bool(body.get("answer"))
    seconds = result["end"] - result["start"] if "end" in result else None
    note = (
        f"answer {len(body.get('answer') or '')} chars, "
        f"{len(body.get('citations') or [])} citations, thread {body.get('thread_id')}"
        if ok
        else f"HTTP {result.get('status')}: {result.get('error') or body.get('error')}"
    )
    return Step(name, seconds, ok, note)


def history_steps(
    bin_dir: Path, clone: Path, env: dict[str, str], work: Path, runs: dict[str, dict]
) -> list[Step]:
    """`treerag runs` lists each server run's question; `treerag tree` rebuilds each one."""
    steps: list[Step] = []
    runs_log = work / "runs.log"
    code, runs_s, _ = run_logged([str(bin_dir / "treerag"), "runs"], clone, env, runs_log, {})
    runs_text = runs_log.read_text(errors="replace")
    terminal = "listed" if TERMINAL_QUESTION[:40] in runs_text else "missing"
    for label, (question, result) in runs.items():
        listed = question[:40] in runs_text
        steps.append(
            Step(
                f"`treerag runs` lists the {label}",
                runs_s,
                code == 0 and listed,
                f"exit {code}; question {'listed' if listed else 'missing'} (the terminal's "
                f"question: {terminal})",
            )
        )
        body = result.get("body") if isinstance(result.get("body"), dict) else {}
        thread_id = body.get("thread_id")
        if not thread_id:
            continue
        tree_log = work / "tree.log"
        argv = [str(bin_dir / "treerag"), "tree", str(thread_id), "--format", "json"]
        tree_code, tree_s, _ = run_logged(argv, clone, env, tree_log, {})
        tree_text = tree_log.read_text(errors="replace")
        tree_ok = tree_code == 0 and question in tree_text
        note = f"exit {tree_code}" if tree_ok else f"exit {tree_code}: {tail(tree_text, 3)}"
        steps.append(Step(f"`treerag tree` rebuilds the {label}", tree_s, tree_ok, note))
    if not all(s.ok for s in steps):
        log(f"treerag runs:\n{tail(runs_text)}")
    return steps


def server_steps(clone: Path, env: dict[str, str], work: Path, timeout: float) -> list[Step]:
    """Step 4: the server and the terminal on the demo's data dir."""
    steps: list[Step] = []
    bin_dir = clone / ".venv" / "bin"
    logfile = work / "server.log"
    port = free_port()
    argv = [str(bin_dir / "langgraph"), "dev", "--no-browser"]
    argv += ["--port", str(port), "--host", "127.0.0.1"]
    log(f"starting {' '.join(argv[1:])} in the clone")
    start = time.monotonic()
    with logfile.open("wb") as out:
        proc = subprocess.Popen(
            argv,
            cwd=clone,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            start_new_session=True,
        )
    try:
        try:
            url = wait_ready(proc, logfile, port, timeout)
        except (RuntimeError, TimeoutError) as exc:
            steps.append(Step("`langgraph dev` answers `/ok`", None, False, str(exc)))
            log(str(exc))
            return steps
        steps.append(Step("`langgraph dev` answers `/ok`", time.monotonic() - start, True, url))
        log(f"server up at {url}; posting a run and asking from the terminal meanwhile")

        stateless: dict = {}
        args = (url, "/runs/wait", SERVER_QUESTION, stateless)
        thread = threading.Thread(target=post_run, args=args)
        thread.start()
        time.sleep(1.0)  # let the request reach the server before the terminal starts
        ask_log = work / "ask.log"
        ask_start = time.monotonic()
        argv = [str(bin_dir / "treerag"), "ask", "--json", TERMINAL_QUESTION]
        code, ask_s, _ = run_logged(argv, clone, env, ask_log, {})
        ask_end = time.monotonic()
        thread.join(timeout=900)
        steps.append(run_step("server run (`POST /runs/wait`, no thread)", stateless))

        ask_text = ask_log.read_text(errors="replace")
        ask_ok, ask_note = code == 0, f"exit {code}"
        try:
            answer = json.loads(ask_text[ask_text.index("{") :])
            ask_ok = ask_ok and not answer.get("error") and bool(answer.get("answer"))
            ask_note += f", answer {len(answer.get('answer') or '')} chars"
            if answer.get("error"):
                ask_note += f", error: {answer['error']}"
        except ValueError:
            ask_ok = False
            ask_note += f": {tail(ask_text, 8)}"
        if "end" in stateless:
            overlap = ask_start < stateless["end"] and stateless["start"] < ask_end
            ask_note += (
                "; ran while the server run ran"
                if overlap
                else "; the server run had ended before it started"
            )
        steps.append(Step("`treerag ask` while the server serves", ask_s, ask_ok, ask_note))
        if not ask_ok:
            log(f"treerag ask failed:\n{tail(ask_text)}")

        # The page runs its questions on server threads; check that kind of run too.
        on_thread: dict = {}
        try:
            post_run(url, f"/threads/{new_thread(url)}/runs/wait", THREAD_QUESTION, on_thread)
        except (OSError, ValueError, KeyError) as exc:
            on_thread["error"] = f"creating a thread: {type(exc).__name__}: {exc}"
        steps.append(run_step("server run on a thread (`POST /threads/ID/runs/wait`)", on_thread))

        runs = {
            "server run (no thread)": (SERVER_QUESTION, stateless),
            "server run on a thread": (THREAD_QUESTION, on_thread),
        }
        steps += history_steps(bin_dir, clone, env, work, runs)
    finally:
        stop_start = time.monotonic()
        clean = stop_server(proc)
        steps.append(
            Step(
                "server stopped",
                time.monotonic() - stop_start,
                clean,
                "on SIGTERM" if clean else "needed SIGKILL",
            )
        )
        server_log = _ANSI.sub("", logfile.read_text(errors="replace"))
        errors = [ln for ln in server_log.splitlines() if "Traceback" in ln or " ERROR " in ln]
        if errors:
            log(f"server log has {len(errors)} error line(s):\n{tail(server_log, 40)}")
    return steps


def main() -> int:
    """Run the newcomer's steps; print (and with --write publish) the table."""
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--repo", type=Path, default=ROOT, help="repository to clone")
    parser.add_argument("--branch", default="main", help="committed branch to clone")
    parser.add_argument(
        "--with-tests",
        action="store_true",
        help="also run `make test` in the clone (off by default: 20+ minutes on 2 cores)",
    )
    parser.add_argument(
        "--server-timeout", type=float, default=300.0, help="seconds to wait for /ok"
    )
    parser.add_argument("--keep", action="store_true", help="keep the temp folder (printed)")
    parser.add_argument("--write", action="store_true", help="splice into BENCHMARKS.md")
    args = parser.parse_args()

    load = os.getloadavg()[0]
    steps: list[Step] = []
    tmp = Path(tempfile.mkdtemp(prefix="treerag-newcomer-"))
    clone, cache = tmp / "treerag", tmp / "cache"
    env = child_env(cache)
    commit = "?"
    try:
        log(f"cloning {args.repo} ({args.branch}) into {clone}")
        t0 = time.monotonic()
        argv = ["git", "clone", "--no-hardlinks", "--branch", args.branch, str(args.repo)]
        done = subprocess.run([*argv, str(clone)], capture_output=True, text=True, env=env)
        clone_s = time.monotonic() - t0
        steps.append(Step("`git clone`", clone_s, done.returncode == 0, done.stderr.strip()[-200:]))
        if done.returncode != 0:
            raise _Stop
        commit = subprocess.run(
            ["git", "-C", str(clone), "rev-parse", "--short", "HEAD"],
            capture_output=True,
            text=True,
        ).stdout.strip()
        steps[-1].note = f"commit {commit}"

        log("make demo (creates .venv, installs, runs treerag demo)")
        demo_log = tmp / "make-demo.log"
        marks = {"demo": "treerag demo", "asked": "treerag ask:", "answer": "`treerag tree "}
        code, demo_s, seen = run_logged(["make", "demo"], clone, env, demo_log, marks)
        demo_text = demo_log.read_text(errors="replace")
        install_s = seen.get("demo")
        steps.append(
            Step(
                "`make demo`: install (venv + `pip install -e .`)",
                install_s,
                install_s is not None,
                "" if install_s is not None else "make never started `treerag demo`",
            )
        )
        answered = "answer" in seen
        steps.append(
            Step(
                "`make demo`: `treerag demo` (ingest, search, ask)",
                demo_s - install_s if install_s is not None else None,
                code == 0 and answered,
                (
                    f"the question took {seen['answer'] - seen['asked']:.0f} s"
                    if answered and "asked" in seen
                    else f"exit {code}"
                ),
            )
        )
        first_answer = clone_s + seen["answer"] if answered else None
        steps.append(
            Step(
                "**time to the first answer** (clone → demo's answer)",
                first_answer,
                code == 0 and answered,
                f"`make demo` ended at {clone_s + demo_s:.0f} s",
            )
        )
        if code != 0 or not answered:
            log(f"make demo failed (exit {code}):\n{tail(demo_text)}")
            raise _Stop

        if args.with_tests:
            log("make test (20+ minutes)")
            test_log = tmp / "make-test.log"
            code, test_s, _ = run_logged(["make", "test"], clone, env, test_log, {})
            test_text = _ANSI.sub("", test_log.read_text(errors="replace"))
            summary = [
                ln.strip("= ") for ln in test_text.splitlines() if _PYTEST_SUMMARY.search(ln)
            ]
            steps.append(
                Step("`make test`", test_s, code == 0, summary[-1] if summary else f"exit {code}")
            )
            if code != 0:
                log(f"make test failed (exit {code}):\n{tail(test_text, 60)}")

        if not (clone / ".venv" / "bin" / "langgraph").exists():
            steps.append(
                Step(
                    "`.venv/bin/langgraph` present (README: `make demo`, then `langgraph dev`)",
                    None,
                    False,
                    "missing: `make demo` does not install langgraph-cli; added by `make install`",
                )
            )
            log(".venv/bin/langgraph is missing after make demo; running make install")
            code, install_s, _ = run_logged(
                ["make", "install"], clone, env, tmp / "make-install.log", {}
            )
            steps.append(Step("`make install` (the dev extra)", install_s, code == 0))
            if code != 0:
                raise _Stop
        steps += server_steps(clone, env, tmp, args.server_timeout)
    except _Stop:
        pass
    finally:
        if args.keep:
            log(f"kept {tmp}")
        else:
            shutil.rmtree(tmp, ignore_errors=True)

    def cell(seconds: float | None) -> str:
        return "—" if seconds is None else f"{seconds:.1f}"

    rows = [
        f"| {s.name} | {cell(s.seconds)} | {'pass' if s.ok else '**FAIL**'} | "
        f"{s.note.replace('|', '/').replace(chr(10), ' ')[:300]} |"
        for s in steps
    ]
    tests = "with `make test`" if args.with_tests else "without `make test` (`--with-tests`)"
    markdown = "\n".join(
        [
            "## A newcomer's first hour (`benchmarks/newcomer.py`)",
            "",
            f"Machine: {machine_summary()}; load average {load:.1f} at the start. A fresh "
            f"`git clone` of {args.branch} (commit {commit}), then the README's commands in "
            f"order, {tests}; cold pip and treerag caches. The server step runs `langgraph dev` "
            f"in the clone over the demo's `./data`, posts `{SERVER_QUESTION}` to "
            f'`/runs/wait` and meanwhile runs `treerag ask "{TERMINAL_QUESTION}"`, then posts '
            f"`{THREAD_QUESTION}` on a server thread, as the page does. Wall seconds.",
            "",
            "| step | s | result | note |",
            "|---|---|---|---|",
            *rows,
            "",
        ]
    )
    publish("newcomer", markdown, args.write)
    return 0 if steps and all(s.ok for s in steps) else 1


class _Stop(Exception):
    """A step failed in a way the later steps cannot go on from."""


if __name__ == "__main__":
    sys.exit(main())
