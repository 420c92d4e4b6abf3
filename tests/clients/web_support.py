"""Helpers of the web page tests: Chromium through playwright, pages, asking, screenshots.

Chromium is Debian's (`.ci/install-chromium.sh`); without it the page tests skip, except in
CI (`CI=true`) where they fail.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from tests.clients.server import REPO, offline_env, server_log

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
ARTIFACTS = REPO / "artifacts" / "web"
RUN_TIMEOUT_MS = 180_000
WIDE = {"width": 1500, "height": 950}

_INGEST_EXTRA = """
import sys
from pathlib import Path
from treerag.context import Context
from treerag.ingest.indexer import ingest
report = ingest([Path(sys.argv[2])], Context(data_dir=sys.argv[1]))
assert not report.skipped and report.total_chunks >= 1, report
"""


def require_chromium() -> None:
    """Skip (fail in CI) when Chromium or python playwright is missing."""
    in_ci = os.environ.get("CI") == "true"
    if not CHROMIUM.exists():
        message = f"{CHROMIUM} is missing: run .ci/install-chromium.sh"
        if in_ci:
            pytest.fail(message)
        pytest.skip(message)
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        message = "python playwright is not installed: pip install -e '.[dev]'"
        if in_ci:
            pytest.fail(message)
        pytest.skip(message)


def ingest_docs(data: Path, docs_dir: Path, docs: dict[str, str]) -> None:
    """Write `docs` (name -> text) into `docs_dir` and ingest them into `data` (child process)."""
    docs_dir.mkdir(parents=True, exist_ok=True)
    for name, text in docs.items():
        (docs_dir / name).write_text(text, encoding="utf-8")
    result = subprocess.run(
        [sys.executable, "-c", _INGEST_EXTRA, str(data), str(docs_dir)],
        env=offline_env(data),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr[-4000:]


@contextmanager
def chromium() -> Iterator[Any]:
    """Headless Debian Chromium driven by python playwright."""
    require_chromium()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=str(CHROMIUM), args=CHROMIUM_FLAGS, headless=True
        )
        try:
            yield browser
        finally:
            browser.close()


@contextmanager
def open_page(
    browser: Any,
    url: str,
    *,
    viewport: dict[str, int] = WIDE,
    bypass_csp: bool = True,
    init_script: str | None = None,
) -> Iterator[Any]:
    """A fresh page on /ui; fails the test on any uncaught error of the page.

    `bypass_csp` lets the test evaluate its own scripts (the page's CSP refuses `eval`);
    tests that need the real policy pass False and wait on selectors only.
    """
    context = browser.new_context(bypass_csp=bypass_csp, viewport=viewport, locale="en-US")
    context.grant_permissions(["clipboard-read", "clipboard-write"], origin=url)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    if init_script:
        page.add_init_script(init_script)
    page.goto(f"{url}/ui")
    page.wait_for_selector("body[data-ready='1']")
    try:
        yield page
    finally:
        context.close()
    assert not errors, f"errors on the page: {errors}"


def wait_idle(page: Any, url: str, timeout: int = RUN_TIMEOUT_MS) -> None:
    """Wait until the page is no longer busy with a run and has an answer box."""
    try:
        page.wait_for_selector("body[data-busy='0'] .msg.ai:not(.streaming)", timeout=timeout)
    except Exception as exc:
        raise AssertionError(f"the run did not finish: {exc}\n{server_log(url)[-6000:]}") from exc


def ask(page: Any, url: str, question: str, *, may_fail: bool = False) -> None:
    """Ask `question` on the page and wait for the turn to end (failing on a failed turn)."""
    before = page.locator(".msg.ai").count()
    page.fill("#question", question)
    page.click("#send")
    page.wait_for_selector(f".msg.ai >> nth={before}", timeout=30_000)
    wait_idle(page, url)
    failed = page.locator(".msg.ai.failed")
    if not may_fail:
        assert failed.count() == 0, f"{failed.first.inner_text()}\n{server_log(url)[-6000:]}"


def http(
    url: str, body: dict[str, Any] | None = None, method: str | None = None
) -> tuple[int, dict[str, str], Any]:
    """A JSON request; returns status, headers and the decoded body."""
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(
        url, data=data, method=method or ("GET" if body is None else "POST")
    )
    request.add_header("content-type", "application/json")
    try:
        with urllib.request.urlopen(request, timeout=180) as response:
            return response.status, dict(response.headers), json.loads(response.read() or b"null")
    except urllib.error.HTTPError as exc:
        return exc.code, dict(exc.headers), json.loads(exc.read() or b"null")


def chat_turn(url: str, thread_id: str, question: str, **context: Any) -> dict[str, Any]:
    """One turn of the chat graph through the API (status and values)."""
    status, _, values = http(
        f"{url}/threads/{thread_id}/runs/wait",
        {
            "assistant_id": "chat",
            "input": {"messages": [{"type": "human", "content": question}]},
            "context": context,
        },
    )
    assert status == 200, values
    return values


def new_thread(url: str) -> str:
    """A new thread of the API; returns its id."""
    status, _, thread = http(f"{url}/threads", {"metadata": {"graph_id": "chat"}})
    assert status == 200, thread
    return str(thread["thread_id"])


def screenshot(page: Any, name: str, *, full_page: bool = False) -> Path:
    """Save a screenshot under artifacts/web/ (for people to look at)."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    path = ARTIFACTS / name
    page.screenshot(path=str(path), full_page=full_page)
    print(f"screenshot: {path}")
    return path
