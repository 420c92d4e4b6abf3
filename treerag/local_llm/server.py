"""The local model server: started on first use, shared by the process, stopped with it."""

from __future__ import annotations

import atexit
import os
import queue
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from collections import deque
from dataclasses import dataclass, field
from pathlib import Path

from treerag.local_llm.weights import INSTALL_HINT, LocalModelError, ResolvedWeights, verify

START_TIMEOUT_S = 300.0


@dataclass
class LocalServer:
    """A running llama.cpp server child on 127.0.0.1, and what it took to start."""

    weights: ResolvedWeights
    url: str
    sha256: str
    load_s: float
    n_ctx: int
    n_threads: int
    process: subprocess.Popen = field(repr=False)
    log_path: Path = field(repr=False)

    @property
    def base_url(self) -> str:
        """The OpenAI-compatible base URL (`…/v1`)."""
        return f"{self.url}/v1"

    def alive(self) -> bool:
        """Whether the child process is still running."""
        return self.process.poll() is None

    def stop(self) -> None:
        """Close the child's stdin (it exits), then make sure it is gone."""
        if self.process.stdin and not self.process.stdin.closed:
            try:
                self.process.stdin.close()
            except OSError:
                pass
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(timeout=10)
        self.log_path.unlink(missing_ok=True)


_servers: dict[tuple, LocalServer] = {}
_lock = threading.Lock()


def default_threads() -> int:
    """Threads for llama.cpp: half the usable cores (about the physical ones), 1 to 8.

    More threads than free cores is much slower, not faster: with two threads on two busy
    cores generation fell to 0.3–0.8 tokens/s, against 2.3–2.7 with one thread.
    """
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        cores = os.cpu_count() or 2
    return max(1, min(8, cores // 2))


def ensure_server(weights: ResolvedWeights, n_ctx: int, n_threads: int) -> LocalServer:
    """Return the process's server for these weights, starting it on first use."""
    key = (str(weights.path), n_ctx, n_threads)
    with _lock:
        server = _servers.get(key)
        if server is not None and server.alive():
            return server
        server = start_server(weights, n_ctx, n_threads)
        _servers[key] = server
        return server


def running_servers() -> list[LocalServer]:
    """The servers this process has started and that still run."""
    return [s for s in _servers.values() if s.alive()]


@atexit.register
def stop_all() -> None:
    """Stop every server this process started."""
    for server in list(_servers.values()):
        server.stop()
    _servers.clear()


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def start_server(weights: ResolvedWeights, n_ctx: int, n_threads: int) -> LocalServer:
    """Check the file's hash, start the server child, and wait until it answers."""
    try:
        import xllamacpp  # noqa: F401
    except ImportError as exc:
        raise LocalModelError(
            f"TREERAG_CHAT_MODEL=local needs the llama.cpp runtime: run {INSTALL_HINT}"
        ) from exc
    sha256 = verify(weights)
    started = time.perf_counter()
    log = Path(tempfile.mkstemp(prefix="treerag-llama-", suffix=".log")[1])
    with log.open("wb") as out:
        process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "treerag.local_llm.serve",
                str(weights.path),
                weights.alias,
                str(_free_port()),
                str(n_ctx),
                str(n_threads),
            ],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=out,
            text=True,
        )
    url = _wait_ready(process, log)
    return LocalServer(
        weights, url, sha256, time.perf_counter() - started, n_ctx, n_threads, process, log
    )


def _wait_ready(process: subprocess.Popen, log: Path) -> str:
    """Read the child's READY line, then poll /health; a failed load raises one clear line."""
    assert process.stdout is not None
    lines: queue.Queue[str] = queue.Queue()
    stdout = process.stdout
    threading.Thread(target=lambda: lines.put(stdout.readline()), daemon=True).start()
    try:
        line = lines.get(timeout=START_TIMEOUT_S)  # READY, or "" when the child exits
    except queue.Empty:
        process.kill()
        raise LocalModelError(
            f"the local model did not load in {START_TIMEOUT_S:.0f} s: {_reason(log)}"
        ) from None
    if not line.startswith("READY "):
        process.wait(timeout=30)
        raise LocalModelError(
            f"the local model server could not load the model (exit code {process.returncode}): "
            f"{_reason(log)}"
        )
    url = line.split()[1]
    deadline = time.monotonic() + START_TIMEOUT_S
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(f"{url}/health", timeout=5) as response:
                if response.status == 200:
                    return url
        except OSError:
            pass
        if process.poll() is not None:
            raise LocalModelError(f"the local model server exited: {_reason(log)}")
        time.sleep(0.2)
    process.kill()
    raise LocalModelError(f"the local model server did not answer in {START_TIMEOUT_S:.0f} s")


def _reason(log: Path) -> str:
    """The last error line of llama.cpp's log, or its last line."""
    lines: deque[str] = deque(maxlen=40)
    if log.exists():
        lines.extend(log.read_text(errors="replace").splitlines())
    errors = [ln for ln in lines if " E " in ln or "error" in ln.lower()]
    picked = (errors or list(lines) or ["no log"])[0 if errors else -1]
    return picked.strip()[-300:]


def describe(server: LocalServer) -> str:
    """One line for `treerag doctor`: model, file, hash check, load time, address."""
    w = server.weights
    if w.expected_sha256:
        source = "pinned" if w.bundled else "given"
        check = f"sha256 {server.sha256[:12]}… matches the {source} hash"
    else:
        check = f"sha256 {server.sha256[:12]}… (no expected hash given)"
    return (
        f"{w.alias} from {w.path}; {check}; loaded in {server.load_s:.1f} s; "
        f"serving {server.base_url} (n_ctx {server.n_ctx}, {server.n_threads} threads)"
    )
