"""Start a real `langgraph dev` server on 127.0.0.1 over an ingested copy of the sample corpus.

Reusable by any client test: `ingest_sample(dir)` fills a data directory once (in a child
process, so no Milvus Lite handle stays open in the test process), `copy_data(src, dst)` gives
each process its own copy (Milvus Lite opens a data file from one process only), and
`langgraph_server(data_dir)` runs the server and yields its base URL.

The in-memory server keeps its state in `.langgraph_api/` under its working directory: the
server runs in the data directory, as `make serve` runs it, so a data dir's conversations
stay with it. `langgraph.json` names the graphs, the page and the auth by module, so it
serves from any working directory.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]

# Settings of the developer's shell must not leak into the server (a configured chat model
# would need the network); tracing and analytics stay off so that nothing leaves the machine.
_DROPPED_ENV = ("TREERAG_", "OPENAI_", "LANGSMITH_", "LANGCHAIN_")
_OFFLINE_ENV = {
    "LANGSMITH_TRACING": "false",
    "LANGCHAIN_TRACING_V2": "false",
    "LANGGRAPH_CLI_NO_ANALYTICS": "1",
    "TOKENIZERS_PARALLELISM": "false",
    "PYTHONUNBUFFERED": "1",
    # A server stuck in a test is sent SIGABRT (`server_stacks`) and prints every thread's stack.
    "PYTHONFAULTHANDLER": "1",
}
_ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")
_API_LINE = re.compile(r"API: \S*?http://127\.0\.0\.1:(\d+)")

_LOGS: dict[str, Path] = {}
_PROCS: dict[str, subprocess.Popen] = {}

# Exactly what `treerag demo` builds: chunks, the derived keyword tree, the imported graph.
_INGEST = """
import sys
from treerag.cli.demo import _build_structures, sample_corpus_dir
from treerag.context import Context
from treerag.ingest.indexer import ingest
ctx = Context(data_dir=sys.argv[1])
report = ingest([sample_corpus_dir()], ctx)
assert not report.skipped and report.total_chunks > 10, report
_build_structures(ctx)
assert (ctx.data_path / "keyword_tree").is_dir() and (ctx.data_path / "knowledge_graph").is_dir()
"""


def offline_env(data_dir: Path | str, **extra: str) -> dict[str, str]:
    """Return a copy of the environment for a child process on `data_dir`, kept offline."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(_DROPPED_ENV)}
    env.update(_OFFLINE_ENV)
    env["TREERAG_DATA_DIR"] = str(data_dir)
    env.update(extra)
    return env


def ingest_sample(data_dir: Path) -> Path:
    """Build `data_dir` as `treerag demo` does (in a child process); return it.

    The sample corpus is ingested, the keyword tree derived and the sample graph imported,
    so that the server works with every store present.
    """
    result = subprocess.run(
        [sys.executable, "-c", _INGEST, str(data_dir)],
        env=offline_env(data_dir),
        capture_output=True,
        text=True,
        timeout=300,
    )
    if result.returncode != 0:
        raise RuntimeError(f"ingesting the sample corpus failed:\n{result.stderr[-4000:]}")
    return data_dir


def copy_data(src: Path, dst: Path) -> Path:
    """Copy an ingested data directory for one more process; return the copy."""
    shutil.copytree(src, dst)
    return dst


def free_port() -> int:
    """Return a port that is free on 127.0.0.1 right now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _workdir(repo: Path, into: Path) -> Path:
    # Link the repository's visible entries (not .git, .venv, caches or a local .env), and not
    # the ./data that `make demo` leaves in a checkout: the server gets the test's own data.
    into.mkdir(parents=True, exist_ok=True)
    for entry in repo.iterdir():
        if not entry.name.startswith(".") and entry.name != "data":
            (into / entry.name).symlink_to(entry)
    return into


def _read_log(log: Path) -> str:
    return _ANSI.sub("", log.read_text(errors="replace")) if log.exists() else ""


def _wait_ready(proc: subprocess.Popen, log: Path, port: int, timeout: float) -> str:
    """Poll `/ok` until it answers; the port is the one the server reports it bound."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"langgraph dev exited with {proc.returncode}:\n{_read_log(log)}")
        # `langgraph dev` falls back to another port when the asked one is taken.
        found = _API_LINE.search(_read_log(log))
        url = f"http://127.0.0.1:{found.group(1) if found else port}"
        with contextlib.suppress(OSError):
            with urllib.request.urlopen(f"{url}/ok", timeout=2) as response:
                if response.status == 200:
                    return url
        time.sleep(0.5)
    raise TimeoutError(f"langgraph dev did not answer /ok in {timeout:.0f} s:\n{_read_log(log)}")


def _stop(proc: subprocess.Popen) -> None:
    # The server runs workers and reloaders as children: signal its whole process group.
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGTERM)
    try:
        proc.wait(timeout=15)
    except subprocess.TimeoutExpired:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=15)


@contextlib.contextmanager
def langgraph_server(
    data_dir: Path | str,
    *,
    repo: Path = REPO,
    port: int | None = None,
    timeout: float = 120.0,
    extra_args: tuple[str, ...] = (),
    relative_data: bool = False,
    env_extra: dict[str, str] | None = None,
) -> Iterator[str]:
    """Run `langgraph dev` over `data_dir` on 127.0.0.1 and yield its base URL.

    The server serves `<repo>/langgraph.json` (graphs and the `http` app) offline, without
    reloading, with its state in a temporary directory. On a failed start the server log is
    in the exception; at exit the process group is stopped and the temporary files removed.
    With `relative_data`, the data directory is reached as `./data` from the server's
    working directory, as after `make demo` in a clone (a relative path resolves through
    the working directory, a call `langgraph dev` refuses on its event loop).
    """
    with tempfile.TemporaryDirectory(prefix="treerag-server-") as tmp:
        env = offline_env(data_dir, **(env_extra or {}))
        # As `make serve` runs it: from the data directory, which then holds the server's
        # own state (`.langgraph_api/`: threads, runs) beside treerag's.
        workdir = Path(data_dir).resolve()
        workdir.mkdir(parents=True, exist_ok=True)
        if relative_data:
            workdir = _workdir(repo, Path(tmp) / "app")
            (workdir / "data").symlink_to(Path(data_dir).resolve())
            env["TREERAG_DATA_DIR"] = "data"
        log = Path(tmp) / "server.log"
        port = port or free_port()
        args = [
            sys.executable,
            "-m",
            "langgraph_cli",
            "dev",
            "--no-browser",
            "--no-reload",
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
            "--n-jobs-per-worker",
            "10",
            "--config",
            str(repo / "langgraph.json"),
            *extra_args,
        ]
        with log.open("wb") as out:
            proc = subprocess.Popen(
                args,
                cwd=workdir,
                env=env,
                stdout=out,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                start_new_session=True,
            )
        url = ""
        try:
            url = _wait_ready(proc, log, port, timeout)
            _LOGS[url] = log
            _PROCS[url] = proc
            yield url
        finally:
            _LOGS.pop(url, None)
            _PROCS.pop(url, None)
            _stop(proc)


def kill_server(url: str) -> None:
    """SIGKILL a server started by `langgraph_server` (its whole process group), as a crash."""
    proc = _PROCS[url]
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait(timeout=30)


def server_stacks(url: str, wait: float = 15.0) -> str:
    """Abort a stuck server and return its log, which ends with every thread's Python stack.

    The server runs with PYTHONFAULTHANDLER set: on SIGABRT, faulthandler writes each
    thread's traceback to stderr (the log) before the process dies. For failure messages of
    a test whose calls did not come back; the server is gone afterwards.
    """
    proc = _PROCS.get(url)
    if proc is None:
        return server_log(url)
    with contextlib.suppress(ProcessLookupError):
        os.kill(proc.pid, signal.SIGABRT)
    with contextlib.suppress(subprocess.TimeoutExpired):
        proc.wait(timeout=wait)
    return server_log(url)


def server_log(url: str) -> str:
    """Return the log so far of a server started by `langgraph_server` (for failure messages)."""
    return _read_log(_LOGS[url]) if url in _LOGS else ""
