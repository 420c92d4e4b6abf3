"""The conversation list, failed turns, keyboard-only use and a narrow window, in Chromium.

A real `langgraph dev` server over the sample corpus; turns that fail do so for real: their
run asks for another embedding model than the one the sample store was built with (its
settings pass the check before a run starts; the search fails on the store). A run whose
settings cannot work is refused before it starts, and the page says why.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from tests.clients.server import ingest_sample, langgraph_server
from tests.clients.web_support import (
    ask,
    chat_turn,
    http,
    new_thread,
    open_page,
    screenshot,
    wait_idle,
)

pytestmark = pytest.mark.slow

MULTI_HOP = "Which guild built the Saltwren?"
NOTHING_LISTENS = "http://127.0.0.1:9/v1"  # the discard port: the connection is refused
FAILING = {"embedding_model": "openai:unreachable", "embedding_base_url": NOTHING_LISTENS}
FAILED = "was built with embeddings '"  # the sample corpus's recorded embedder, not the endpoint
LONG = "What did the harbour master of Velmora write down about the lantern notice in 1702"


@pytest.fixture(scope="module")
def web_server(tmp_path_factory) -> Iterator[str]:
    """A `langgraph dev` server over the sample corpus; FAILING's endpoint needs some key."""
    data = ingest_sample(tmp_path_factory.mktemp("web-conv"))
    with langgraph_server(data, env_extra={"OPENAI_API_KEY": "sk-unused"}) as url:
        yield url


@pytest.fixture
def page(browser, web_server) -> Iterator[Any]:
    with open_page(browser, web_server) as page:
        yield page


def _titles(page: Any) -> dict[str, str]:
    items = page.locator(".thread")
    return {
        items.nth(i).get_attribute("data-thread-id"): items.nth(i)
        .locator(".thread-title")
        .inner_text()
        for i in range(items.count())
    }


def test_a_new_chat_is_listed_at_once_then_renamed_and_deleted(page, web_server):
    from playwright.sync_api import expect

    page.fill("#question", MULTI_HOP)
    page.click("#send")
    # Listed while its run is still going, titled with the question.
    pending = page.locator(".thread", has_text="running…")
    pending.wait_for(timeout=20_000)
    assert page.get_attribute("body", "data-busy") == "1"
    assert pending.locator(".thread-title").inner_text() == MULTI_HOP
    screenshot(page, "conversation-pending.png")
    wait_idle(page, web_server)
    thread_id = page.locator(".thread.active").get_attribute("data-thread-id")
    item = page.locator(f".thread[data-thread-id='{thread_id}']")
    expect(item.locator(".thread-when")).to_contain_text("1 turn")

    # Rename: the title is the thread's metadata on the server, kept across reloads.
    item.locator(".rename").click()
    page.fill(".rename-input", "Saltwren builders")
    page.keyboard.press("Enter")
    expect(item.locator(".thread-title")).to_have_text("Saltwren builders")
    status, _, thread = http(f"{web_server}/threads/{thread_id}")
    assert status == 200 and thread["metadata"]["title"] == "Saltwren builders"
    page.reload()
    page.wait_for_selector("body[data-ready='1']")
    expect(item.locator(".thread-title")).to_have_text("Saltwren builders")
    # Escape leaves the title as it was.
    item.locator(".rename").click()
    page.fill(".rename-input", "something else")
    page.keyboard.press("Escape")
    expect(item.locator(".thread-title")).to_have_text("Saltwren builders")

    # Delete asks once more, then the thread is gone from the list and the server.
    assert page.locator(".msg.ai").count() == 1  # the reload reopened it
    item.locator(".delete").click()
    expect(item.locator(".delete")).to_have_text("delete?")
    item.locator(".delete").click()
    expect(item).to_have_count(0)
    assert http(f"{web_server}/threads/{thread_id}")[0] == 404
    assert page.locator(".msg.ai").count() == 0  # the open conversation was the deleted one


def test_titles_are_shortened_and_told_apart(page, web_server):
    ids = {}
    for key, question in {
        "a": f"{LONG} and who signed it?",
        "b": f"{LONG} and who copied it into the book?",
        "c": "Who is Orla Venn?",
        "d": "Who is Orla Venn?",
    }.items():
        status, _, thread = http(
            f"{web_server}/threads",
            {"metadata": {"graph_id": "chat", "first_question": question}},
        )
        assert status == 200
        ids[key] = thread["thread_id"]
    page.click("#refresh-threads")
    page.wait_for_selector(f".thread[data-thread-id='{ids['d']}']")
    titles = _titles(page)
    a, b = titles[ids["a"]], titles[ids["b"]]
    # Both start like the question and show where they differ.
    assert a.startswith("What did the harbour") and a.endswith("… signed it?")
    assert b.startswith("What did the harbour") and "… copied it" in b
    c, d = titles[ids["c"]], titles[ids["d"]]
    assert c != d and {c, d} == {"Who is Orla Venn? (1)", "Who is Orla Venn? (2)"}
    for thread_id in ids.values():
        assert http(f"{web_server}/threads/{thread_id}", method="DELETE")[0] in (200, 204)


def test_a_failed_turn_is_marked_and_shows_its_error_when_reopened(page, web_server):
    from playwright.sync_api import expect

    thread_id = new_thread(web_server)
    chat_turn(web_server, thread_id, "Where was Orla Venn born?")
    status, _, out = http(
        f"{web_server}/threads/{thread_id}/runs/wait",
        {
            "assistant_id": "chat",
            "input": {"messages": [{"type": "human", "content": "What glass is made there?"}]},
            "context": FAILING,
        },
    )
    assert FAILED in json.dumps(out), out

    page.click("#refresh-threads")
    item = page.locator(f".thread[data-thread-id='{thread_id}']")
    expect(item.locator(".failed-mark")).to_have_text(" · ⚠ 1 failed")
    item.locator(".thread-item").click()
    page.wait_for_selector("body[data-busy='0'] .tree-turn[data-turn='2'] .tree-body > *")
    assert page.locator(".msg.ai").count() == 2
    first, second = page.locator(".msg.ai").nth(0), page.locator(".msg.ai").nth(1)
    assert "failed" not in first.get_attribute("class")
    assert "failed" in second.get_attribute("class")
    assert FAILED in second.locator(".error").inner_text()
    # Its tree: whatever was saved before the failure, or a notice saying nothing was.
    tree = page.locator(".tree-turn[data-turn='2']")
    assert tree.locator(".run").count() >= 1 or tree.locator(".tree-notice").count() == 1
    screenshot(page, "failed-turn-reopened.png")

    # A turn that fails live is marked at once, and so is its conversation.
    def failing(route: Any) -> None:
        body = json.loads(route.request.post_data)
        body["context"] = {**body.get("context", {}), **FAILING}
        route.continue_(post_data=json.dumps(body))

    page.route("**/runs/stream", failing)
    ask(page, web_server, "And who blew it?", may_fail=True)
    live = page.locator(".msg.ai").nth(2)
    assert "failed" in live.get_attribute("class")
    assert FAILED in live.locator(".error").inner_text()
    expect(item.locator(".failed-mark")).to_have_text(" · ⚠ 2 failed")


def test_a_refused_run_says_why_and_leaves_no_conversation(page, web_server):
    from playwright.sync_api import expect

    def top_k_0(route: Any) -> None:
        body = json.loads(route.request.post_data)
        body["context"] = {**body.get("context", {}), "top_k": 0}
        route.continue_(post_data=json.dumps(body))

    def server_threads() -> set[str]:
        status, _, threads = http(f"{web_server}/threads/search", {"limit": 100})
        assert status == 200, threads
        return {t["thread_id"] for t in threads}

    before = server_threads()
    page.route("**/runs/stream", top_k_0)
    ask(page, web_server, "Who is Orla Venn?", may_fail=True)
    reply = page.locator(".msg.ai").last
    assert "failed" in reply.get_attribute("class")
    expect(reply.locator(".error")).to_have_text(
        "the run was not started: TREERAG_TOP_K=0 must be at least 1 "
        "(set by this run's settings: top_k)"
    )
    # No tree is drawn for it, and the conversation made for it is gone, here and on the server.
    assert page.locator(".tree-turn").count() == 0
    expect(page.locator(".thread", has_text="running…")).to_have_count(0)
    assert server_threads() == before and set(_titles(page)) <= before
    screenshot(page, "refused-run.png")

    # With the settings put right the same question is answered, in a new conversation.
    page.unroute("**/runs/stream")
    ask(page, web_server, "Who is Orla Venn?", may_fail=True)  # the refused turn stays shown
    assert "failed" not in page.locator(".msg.ai").last.get_attribute("class")
    assert page.locator(".tree-turn").count() == 1
    assert "Turn 1" in page.locator(".tree-turn .turn-no").inner_text()
    thread_id = page.locator(".thread.active").get_attribute("data-thread-id")
    assert thread_id and thread_id not in before
    assert [
        m["type"] for m in http(f"{web_server}/threads/{thread_id}/state")[2]["values"]["messages"]
    ] == ["human", "ai"]


def _tab_to(page: Any, selector: str, limit: int = 40, key: str = "Tab") -> None:
    target = page.locator(selector)
    for _ in range(limit):
        if target.evaluate("e => e === document.activeElement"):
            return
        page.keyboard.press(key)
    raise AssertionError(f"{selector} is not reachable with Tab")


def test_keyboard_only_ask_under_the_real_content_security_policy(browser, web_server):
    from playwright.sync_api import expect

    with open_page(browser, web_server, bypass_csp=False) as page:
        _tab_to(page, "#question")
        page.keyboard.type(MULTI_HOP)
        page.keyboard.press("Enter")
        page.wait_for_selector("body[data-busy='1']", timeout=10_000)
        wait_idle(page, web_server)
        answer = page.locator(".msg.ai .answer")
        assert "Tidewright" in answer.inner_text() and answer.locator("p").count() >= 1
        # A citation is reached with (Shift+)Tab, previews on focus, Enter leads to its chunk.
        _tab_to(page, ".msg.ai .answer .cite >> nth=0", key="Shift+Tab")
        expect(page.locator("#cite-preview")).to_be_visible()
        page.keyboard.press("Enter")
        highlighted = page.locator(".chunk.highlight")
        expect(highlighted).to_have_count(1)
        expect(highlighted.locator(":scope > .chunk-detail .chunk-body")).to_be_visible()
        # It opened the document viewer too (focus inside it); Escape closes it.
        expect(page.locator("#doc-viewer")).to_have_attribute("open", "")
        page.keyboard.press("Escape")
        expect(page.locator("#doc-viewer")).not_to_have_attribute("open", "")
        # A chunk opens and closes from the keyboard.
        closed = page.locator(".run.depth-0 > .chunks > .chunk:not(.expanded)").first
        chunk_id = closed.get_attribute("data-chunk-id")
        head = page.locator(
            f".run.depth-0 > .chunks > .chunk[data-chunk-id='{chunk_id}'] > .chunk-head"
        )
        head.focus()
        page.keyboard.press("Enter")
        expect(head).to_have_attribute("aria-expanded", "true")
        page.keyboard.press("Enter")
        expect(head).to_have_attribute("aria-expanded", "false")
        screenshot(page, "keyboard-ask.png")


def test_a_narrow_window(browser, web_server):
    with open_page(browser, web_server, viewport={"width": 390, "height": 844}) as page:
        ask(page, web_server, "Where was Orla Venn born?")
        width = page.evaluate("document.documentElement.scrollWidth")
        assert width <= 390, f"the page scrolls sideways: {width} px"
        chat = page.locator(".chat-pane").bounding_box()
        tree = page.locator(".tree-pane").bounding_box()
        assert chat["width"] > 340 and tree["y"] >= chat["y"] + chat["height"] - 1  # stacked
        screenshot(page, "narrow.png")
        page.locator(".tree-pane").scroll_into_view_if_needed()
        screenshot(page, "narrow-tree.png")
        page.click("#open-docs")
        page.wait_for_selector("#docs-dialog[open]")
        box = page.locator("#docs-dialog").bounding_box()
        assert box["x"] >= 0 and box["x"] + box["width"] <= 390
        screenshot(page, "narrow-documents.png")
