"""What a run works around is said under its answer on the page (Chromium, real `langgraph dev`).

A damaged passage graph: the question is answered from the chunks and the answer carries the
run's one sentence about it (`nodes.chat`: the reply's `notice`); the page had dropped it.
"""

from __future__ import annotations

import contextlib
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.clients.server import ingest_sample, langgraph_server
from tests.clients.web_support import ask, open_page, screenshot

pytestmark = pytest.mark.slow

PAGE = 4096


@pytest.fixture(scope="module")
def damaged_server(tmp_path_factory) -> Iterator[str]:
    """A server over the sample data whose passage graph file is damaged."""
    data = ingest_sample(tmp_path_factory.mktemp("web-notice"))
    path = Path(data) / "knowledge_graph" / "passages.sqlite"
    with contextlib.closing(sqlite3.connect(path)) as db:
        db.execute("pragma wal_checkpoint(truncate)")
    body = path.read_bytes()
    path.write_bytes(body[:PAGE] + b"\xff" * (len(body) - PAGE))
    with langgraph_server(data) as url:
        yield url


def test_the_answer_says_which_store_it_went_without(browser, damaged_server):
    from playwright.sync_api import expect

    with open_page(browser, damaged_server, viewport={"width": 390, "height": 844}) as page:
        ask(page, damaged_server, "Where was Orla Venn born?")
        answer = page.locator(".msg.ai").last
        notice = answer.locator(".answer-notice")
        expect(notice).to_be_visible()
        expect(notice).to_contain_text("The knowledge graph could not be read")
        assert answer.locator(".answer").inner_text().strip()  # answered all the same
        screenshot(page, "notice-390.png")
