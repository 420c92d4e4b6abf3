"""The page on a phone, a tablet and a laptop, and before any document is in (Chromium).

At every width the header is one row, the answer is in view when the run ends, nothing
scrolls sideways and diagrams scroll inside their box; in one column (below 900 px) the
question and its answer come first, the tree below them one tap away (the header's Tree).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.clients.server import langgraph_server
from tests.clients.web_support import ask, http, open_page, screenshot

pytestmark = pytest.mark.slow

QUESTION = "Which guild built the ship commanded by the man who signed the Accord of Quillhaven?"
ONE_ROW = 48
"""Header height in px that one row of buttons fits in (two rows take 70 or more)."""


@pytest.mark.parametrize("width", [390, 768, 1366])
def test_every_width_keeps_the_answer_in_view(browser, server_url, width):
    from playwright.sync_api import expect

    with open_page(browser, server_url, viewport={"width": width, "height": 844}) as page:
        assert page.locator(".topbar").bounding_box()["height"] <= ONE_ROW
        for button in page.locator(".topbar button:visible").all():  # none cut off at the right
            edge = button.bounding_box()
            assert edge["x"] + edge["width"] <= width, button.inner_text()
        expect(page.locator("#tree-hint")).to_be_visible()  # the tree pane explains itself

        ask(page, server_url, QUESTION)
        answer = page.locator(".msg.ai").last
        expect(answer).to_be_in_viewport()
        expect(page.locator("#tree-hint")).to_be_hidden()
        assert page.evaluate("document.documentElement.scrollWidth") <= width
        assert page.locator(".topbar").bounding_box()["height"] <= ONE_ROW
        chat = page.locator(".chat-pane").bounding_box()
        tree = page.locator(".tree-pane").bounding_box()
        for box in page.locator(".diagram-scroll").all():
            right = box.bounding_box()
            assert right["x"] + right["width"] <= tree["x"] + tree["width"] + 1
        screenshot(page, f"screen-{width}.png")

        if width < 900:  # one column: question and answer, then the tree, then conversations
            threads = page.locator(".threads-pane").bounding_box()
            assert chat["y"] + chat["height"] <= tree["y"] + 1 <= threads["y"] + 1
            page.click("#jump-tree")
            expect(page.locator(".tree-pane .run.depth-0").first).to_be_in_viewport()
            screenshot(page, f"screen-{width}-tree.png")
        else:
            expect(page.locator("#jump-tree")).to_be_hidden()


@pytest.fixture(scope="module")
def empty_server(tmp_path_factory) -> Iterator[tuple[str, Path]]:
    """A server over a data dir where nothing was ingested."""
    data = tmp_path_factory.mktemp("empty") / "data"
    with langgraph_server(data) as url:
        yield url, data


@pytest.mark.parametrize(
    ("question", "said"),
    [("Where was Orla Venn born?", "No documents yet"), ("渔民从哪里来？", "还没有文档")],
)
def test_a_question_before_any_document_says_how_to_add_some(empty_server, browser, question, said):
    from playwright.sync_api import expect

    url, _ = empty_server
    with open_page(browser, url, viewport={"width": 390, "height": 844}) as page:
        page.fill("#question", question)
        page.click("#send")
        notice = page.locator(".msg.notice")
        expect(notice).to_contain_text(said)
        expect(page.locator("body")).to_have_attribute("data-busy", "0")
        assert not page.locator(".msg.ai.failed").count()
        screenshot(page, "empty-data-dir.png")
        notice.locator("button").click()
        page.wait_for_selector("#docs-dialog[open]")
        expect(page.locator("#docs-list")).to_contain_text("No documents yet")
    # Nothing was started: no thread, so no run in `treerag runs`.
    status, _, threads = http(f"{url}/threads/search", {"limit": 10})
    assert status == 200 and threads == [], threads
