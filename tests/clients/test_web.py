"""The web chat page in a real headless Chromium against a real `langgraph dev` server.

The server runs over the ingested sample corpus plus one document whose text is markup
(`<script>`, an `onerror` image, an `onmouseover` title): the page must show it as text.
Chromium is Debian's (`.ci/install-chromium.sh`); without it these tests skip, except in CI
(`CI=true`) where they fail.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.clients.server import REPO, ingest_sample, langgraph_server, offline_env, server_log

pytestmark = pytest.mark.slow

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

MULTI_HOP = "Which guild built the Saltwren?"  # recurses offline: no chunk scores 2 at the root
SCORE_1_RGB = "rgb(178, 106, 0)"  # --s1 in style.css
MARKUP_QUESTION = "What notice did the lamplighter Ysolde Marrick post in Velmora?"
MARKUP_SCRIPT = "<script>window.__pwned = 1</script>"
MARKUP_DOC = f"""# Lantern notice <b onmouseover="window.__pwned = 3">of Velmora</b>

The lamplighter Ysolde Marrick posted the lantern notice in Velmora harbour in 1702.
The notice of Ysolde Marrick was copied into the harbour book verbatim: {MARKUP_SCRIPT} was
written on it, and below that <img src="x" onerror="window.__pwned = 2"> was drawn in ink.
"""

_INGEST_EXTRA = """
import sys
from pathlib import Path
from treerag.context import Context
from treerag.ingest.indexer import ingest
report = ingest([Path(sys.argv[2])], Context(data_dir=sys.argv[1]))
assert not report.skipped and report.total_chunks >= 1, report
"""

# Watches the first answer box while it streams: every token sets `data-tokens` (the
# observer sees each change with its old value: N updates leave N records 0..N-1) and appends
# a text node (the running total of their lengths is the answer's length after each update).
# Recording per DOM update, not per observer callback, keeps this independent of how the
# network happens to batch the tokens.
_TOKEN_OBSERVER = """
window.__tokenUpdates = [];
window.__answerGrowth = [];
document.addEventListener("DOMContentLoaded", () => {
  let total = 0;
  let rebuilt = false;
  new MutationObserver((records) => {
    for (const r of records) {
      if (!(r.target instanceof Element) || !r.target.classList.contains("answer")) continue;
      if (r.type === "attributes") {
        window.__tokenUpdates.push(Number(r.oldValue || 0));
      } else if (r.removedNodes.length) {
        rebuilt = true;  // the finished answer is re-rendered with citation links
      } else if (!rebuilt) {
        for (const n of r.addedNodes) {
          if (n.nodeType === Node.TEXT_NODE) window.__answerGrowth.push((total += n.data.length));
        }
      }
    }
  }).observe(document.body, {
    subtree: true, childList: true, attributes: true, attributeOldValue: true,
    attributeFilter: ["data-tokens"],
  });
});
"""


def _require_chromium() -> None:
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


def _http(url: str, body: dict[str, Any] | None = None) -> tuple[int, dict[str, str], Any]:
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(url, data=data, method="GET" if body is None else "POST")
    request.add_header("content-type", "application/json")
    try:
        with urllib.request.urlopen(request, timeout=180) as response:
            return response.status, dict(response.headers), json.loads(response.read() or b"null")
    except urllib.error.HTTPError as exc:
        return exc.code, dict(exc.headers), json.loads(exc.read() or b"null")


@pytest.fixture(scope="module")
def web_server(tmp_path_factory) -> Iterator[str]:
    """A `langgraph dev` server over the sample corpus plus the markup document."""
    data = ingest_sample(tmp_path_factory.mktemp("web-data"))
    extra = tmp_path_factory.mktemp("web-extra-docs")
    (extra / "lantern_notice.md").write_text(MARKUP_DOC, encoding="utf-8")
    result = subprocess.run(
        [sys.executable, "-c", _INGEST_EXTRA, str(data), str(extra)],
        env=offline_env(data),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr[-4000:]
    # The graph's nodes do small synchronous file I/O (caches, SQLite), which `langgraph dev`
    # refuses by default.
    with langgraph_server(data) as url:
        yield url


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """Headless Debian Chromium driven by python playwright."""
    _require_chromium()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=str(CHROMIUM), args=CHROMIUM_FLAGS, headless=True
        )
        yield browser
        browser.close()


@pytest.fixture
def page(browser, web_server) -> Iterator[Any]:
    """A fresh page on /ui; CSP is bypassed so that only the DOM building is under test."""
    context = browser.new_context(
        bypass_csp=True, viewport={"width": 1500, "height": 950}, locale="en-US"
    )
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.add_init_script(_TOKEN_OBSERVER)
    page.goto(f"{web_server}/ui")
    page.wait_for_selector("#thread-list")
    yield page
    context.close()
    assert not errors, f"errors on the page: {errors}"


def _ask(page: Any, url: str, question: str) -> None:
    page.fill("#question", question)
    page.click("#send")
    try:
        page.wait_for_function(
            "document.body.dataset.busy === '0' && document.querySelector('.msg.ai')",
            timeout=RUN_TIMEOUT_MS,
        )
    except Exception as exc:
        raise AssertionError(f"the run did not finish: {exc}\n{server_log(url)[-6000:]}") from exc
    failed = page.locator(".msg.ai.failed")
    assert failed.count() == 0, f"{failed.first.inner_text()}\n{server_log(url)[-6000:]}"


def _chat_turn(url: str, thread_id: str, question: str) -> dict[str, Any]:
    status, _, values = _http(
        f"{url}/threads/{thread_id}/runs/wait",
        {"assistant_id": "chat", "input": {"messages": [{"type": "human", "content": question}]}},
    )
    assert status == 200, values
    return values


def _screenshot(page: Any, name: str) -> Path:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    path = ARTIFACTS / name
    page.screenshot(path=str(path), full_page=False)
    print(f"screenshot: {path}")
    return path


def test_page_and_json_routes_are_served(web_server):
    with urllib.request.urlopen(f"{web_server}/ui", timeout=30) as response:
        status, headers, html = response.status, dict(response.headers), response.read().decode()
    assert status == 200 and '<script src="/ui/static/app.js"' in html
    assert "script-src 'self'" in headers["content-security-policy"]
    for asset in ("app.js", "style.css"):
        with urllib.request.urlopen(f"{web_server}/ui/static/{asset}", timeout=30) as response:
            assert response.status == 200
    assert _http(f"{web_server}/ui/api/chunk/not..valid")[0] == 400
    assert _http(f"{web_server}/ui/api/chunk/0123456789abcdef")[0] == 404
    assert _http(f"{web_server}/ui/api/tree/no-such-thread-t1")[0] == 404


def test_trees_of_api_runs_are_rebuilt_from_the_server_checkpointer(web_server):
    status, _, thread = _http(f"{web_server}/threads", {})
    assert status == 200
    values = _chat_turn(web_server, thread["thread_id"], MULTI_HOP)
    meta = values["messages"][-1]["additional_kwargs"]["treerag"]
    assert meta["tree_thread_id"] == f"{thread['thread_id']}-t1"
    # The API itself refuses the tree's thread ids (not UUIDs): this app's route reads them.
    assert _http(f"{web_server}/threads/{meta['tree_thread_id']}/state")[0] != 200
    status, _, tree = _http(f"{web_server}/ui/api/tree/{meta['tree_thread_id']}")
    assert status == 200, tree
    assert tree["question"] == MULTI_HOP and tree["depth"] == 0 and tree["answer"]
    children = [c for c in tree["chunks"] if c.get("child")]
    assert children, "the multi-hop question should recurse"
    child = children[0]
    assert child["child"]["thread_id"] == child["child_thread_id"]
    status, _, sub = _http(f"{web_server}/ui/api/tree/{child['child_thread_id']}")
    assert status == 200 and sub["depth"] == 1 and sub["question"] == child["followup"]
    status, _, chunk = _http(f"{web_server}/ui/api/chunk/{tree['chunks'][0]['chunk_id']}")
    assert status == 200 and chunk["text"] and chunk["title"] == tree["chunks"][0]["title"]


def test_ask_streams_the_answer_and_draws_the_tree(page, web_server):
    _ask(page, web_server, MULTI_HOP)

    # Tokens streamed in: one DOM update per token, in order, the answer growing each time.
    tokens = int(page.get_attribute(".msg.ai .answer", "data-tokens"))
    assert tokens >= 5
    assert page.evaluate("window.__tokenUpdates") == list(range(tokens))
    growth = page.evaluate("window.__answerGrowth")
    assert len(growth) == tokens and growth == sorted(set(growth))
    answer = page.inner_text(".msg.ai .answer")
    assert "Tidewright" in answer and growth[0] < growth[-1] == len(answer)

    # The tree: the root question, judged chunks coloured by score, sub-runs below chunks.
    assert page.locator(".tree-turn .run.depth-0 .run-text").first.inner_text() == MULTI_HOP
    judged = page.locator(
        ".tree-turn .chunk.score-0, .tree-turn .chunk.score-1, .tree-turn .chunk.score-2"
    )
    assert judged.count() >= 5
    assert page.locator(".chunk.score-pending").count() == 0
    assert page.locator(".chunk.score-1 .followup").count() >= 1
    assert page.locator(".run.depth-1").count() >= 1
    assert page.locator(".run.depth-1 .sub-answer").first.inner_text()
    # Badges take their verdict's colour (which verdicts occur depends on the reasoner's
    # thresholds; the canned-stream test below covers every score).
    badge = page.locator(".chunk.score-1 > .chunk-head .badge").first
    assert badge.evaluate("e => getComputedStyle(e).backgroundColor") == SCORE_1_RGB

    # A chunk expands to its text, fetched from the chunk route.
    first = page.locator(".run.depth-0 > .chunks > .chunk").first
    first.locator(":scope > .chunk-head").click()
    body = first.locator(":scope > .chunk-text .chunk-body")
    body.wait_for(timeout=30_000)
    assert len(body.inner_text()) > 20

    # A citation leads to its chunk in the tree: highlighted, scrolled into view, expanded.
    cite = page.locator(".msg.ai .answer .cite").last
    chunk_id = cite.get_attribute("data-chunk-id")
    cite.click()
    target = page.locator(f".chunk.highlight[data-chunk-id='{chunk_id}']")
    assert target.count() == 1
    target.locator(":scope > .chunk-text .chunk-body").wait_for(timeout=30_000)
    target.locator(":scope > .chunk-head").wait_for(state="visible")
    from playwright.sync_api import expect

    expect(target.locator(":scope > .chunk-head")).to_be_in_viewport()

    # Sub-run answers streamed too; the toggle shows them.
    subruns = page.locator(".msg.ai .subruns")
    assert not subruns.is_visible()
    page.check("#show-subruns")
    assert subruns.is_visible() and page.locator(".subrun .subrun-text").count() >= 1
    _screenshot(page, "chat-multi-hop.png")


def test_thread_list_reopens_a_conversation_with_its_trees(page, web_server):
    status, _, thread = _http(f"{web_server}/threads", {})
    assert status == 200
    thread_id = thread["thread_id"]
    _chat_turn(web_server, thread_id, "Where was Orla Venn born?")
    values = _chat_turn(web_server, thread_id, "What glass is made there?")
    assert len(values["messages"]) == 4

    page.click("#refresh-threads")
    item = page.locator(f".thread-item[data-thread-id='{thread_id}']")
    item.wait_for(timeout=30_000)
    assert "Where was Orla Venn born?" in item.inner_text()
    item.click()
    page.wait_for_function(
        "document.body.dataset.busy === '0' && document.querySelectorAll('.tree-turn').length === 2"
        " && !document.querySelector('.tree-notice')",
        timeout=60_000,
    )
    assert page.locator(".thread-item.active").get_attribute("data-thread-id") == thread_id
    humans = page.locator(".msg.human .body").all_inner_texts()
    assert humans == ["Where was Orla Venn born?", "What glass is made there?"]
    assert "Dunsorrow" in page.locator(".msg.ai .answer").first.inner_text()
    for turn in (1, 2):
        tree = page.locator(f".tree-turn[data-turn='{turn}']")
        assert tree.get_attribute("data-tree-id") == f"{thread_id}-t{turn}"
        assert tree.locator(".run.depth-0 > .chunks > .chunk").count() >= 1
        assert tree.locator(".chunk.score-pending").count() == 0
    # Citations of a reopened turn lead into its rebuilt tree.
    cite = page.locator(".msg.ai[data-turn='2'] .answer .cite").first
    chunk_id = cite.get_attribute("data-chunk-id")
    cite.click()
    highlighted = page.locator(".tree-turn[data-turn='2'] .chunk.highlight")
    assert highlighted.get_attribute("data-chunk-id") == chunk_id
    # The page reopens the conversation named in its address too.
    page.reload()
    page.wait_for_function(
        "document.body.dataset.busy === '0' && document.querySelectorAll('.msg.human').length === 2",
        timeout=60_000,
    )
    _screenshot(page, "chat-reopened.png")


def test_document_markup_is_shown_as_text(page, web_server):
    _ask(page, web_server, MARKUP_QUESTION)
    chunk = page.locator(".run.depth-0 > .chunks > .chunk", has_text="Lantern notice").first
    chunk.locator(":scope > .chunk-head").click()
    body = chunk.locator(":scope > .chunk-text .chunk-body")
    body.wait_for(timeout=30_000)
    assert MARKUP_SCRIPT in body.inner_text()
    assert (
        '<b onmouseover="window.__pwned = 3">'
        in chunk.locator(":scope > .chunk-head .chunk-title").inner_text()
    )
    chunk.locator(":scope > .chunk-head .chunk-title").hover()
    page.wait_for_timeout(300)
    assert page.evaluate("typeof window.__pwned") == "undefined"
    for pane in ("#messages", "#trees", "#thread-list"):
        assert page.locator(f"{pane} script, {pane} img, {pane} b").count() == 0
    _screenshot(page, "chat-markup.png")


def test_a_chinese_question_gets_a_chinese_answer(page, web_server):
    _ask(page, web_server, "沈疑微是谁？")
    answer = page.locator(".msg.ai .answer")
    assert "沈疑微" in answer.inner_text() and answer.get_attribute("lang") == "zh"
    assert page.locator(".run.depth-0 .chunk-title", has_text="沈疑微").count() >= 1
    assert page.locator(".msg.ai .sources li").count() >= 1


def _sse(events: list[tuple[str, dict[str, Any]]]) -> str:
    return "".join(f"event: {kind}\r\ndata: {json.dumps(data)}\r\n\r\n" for kind, data in events)


def _canned_run(root: str) -> list[tuple[str, dict[str, Any]]]:
    """A small run in the stream protocol: a sub-run, a failed judge, structured context."""
    child = f"{root}/2"
    at = {"root_thread_id": root}

    def custom(event: str, thread_id: str, depth: int, **fields: Any) -> tuple[str, dict]:
        return "custom", {"event": event, "thread_id": thread_id, "depth": depth, **at, **fields}

    source = "/docs/alpha.md"
    citation = {"n": 1, "chunk_id": "c1", "source": source, "title": "Alpha"}
    return [
        ("metadata", {"run_id": "canned"}),
        custom("run_started", root, 0, question="Canned?", parent_thread_id="", parent_chunk_id=""),
        custom(
            "chunks_retrieved",
            root,
            0,
            chunks=[
                {"chunk_id": "c1", "rank": 1, "title": "Alpha", "source": source},
                {"chunk_id": "c2", "rank": 2, "title": "Beta", "source": "/docs/beta.md"},
            ],
        ),
        custom("chunk_judged", root, 0, chunk_id="c1", score=2, reason="says it", quote="Q1"),
        custom("chunk_judged", root, 0, chunk_id="c2", score=1, reason="half", followup="F?"),
        custom("subrun_started", root, 0, chunk_id="c2", child_thread_id=child, question="F?"),
        custom("run_started", child, 1, question="F?", parent_thread_id=root, parent_chunk_id="c2"),
        custom("chunks_retrieved", child, 1, chunks=[{"chunk_id": "c3", "rank": 1, "title": "G"}]),
        custom("chunk_judged", child, 1, chunk_id="c3", score=0, error="timeout after 60 s"),
        custom("token", child, 1, text="sub "),
        custom("answer_finished", child, 1, answer="sub answer", citations=[]),
        custom("subrun_finished", root, 0, chunk_id="c2", child_thread_id=child, answer="sub"),
        custom("graph_expanded", root, 0, paths=[{"path": "Alpha -> Beta", "score": 0.9}]),
        custom("keyword_descended", root, 0, status="found", path=["ships", "guilds"]),
        custom("token", root, 0, text="Alpha "),
        custom("token", root, 0, text="beta [1]"),
        custom("answer_finished", root, 0, answer="Alpha beta [1]", citations=[citation]),
        (
            "values",
            {
                "messages": [
                    {"type": "human", "content": "Canned?", "id": "h"},
                    {
                        "type": "ai",
                        "id": "a",
                        "content": "Alpha beta [1]",
                        "additional_kwargs": {
                            "treerag": {
                                "question": "Canned?",
                                "tree_thread_id": root,
                                "citations": [citation],
                                "llm_calls": 4,
                                "reasoner": "canned",
                            }
                        },
                    },
                ]
            },
        ),
    ]


def test_stream_protocol_is_folded_into_the_tree(page, web_server):
    """Every event kind of the protocol, served as canned SSE, lands where it belongs."""
    root = "canned-t1"
    body = _sse(_canned_run(root))
    page.route(
        "**/runs/stream",
        lambda route: route.fulfill(status=200, content_type="text/event-stream", body=body),
    )
    _ask(page, web_server, "Canned?")
    assert page.get_attribute(".msg.ai .answer", "data-tokens") == "2"
    assert page.inner_text(".msg.ai .answer") == "Alpha beta [1]"
    assert page.locator(".msg.ai .meta").inner_text() == f"canned · 4 LLM calls · tree {root}"
    tree = page.locator(f".tree-turn[data-tree-id='{root}']")
    assert tree.locator(".chunk[data-chunk-id='c1'].score-2 .quote").inner_text() == "Q1"
    green = tree.locator(".chunk[data-chunk-id='c1'] > .chunk-head .badge")
    assert green.evaluate("e => getComputedStyle(e).backgroundColor") == "rgb(46, 125, 50)"
    partial = tree.locator(".chunk[data-chunk-id='c2']")
    assert "score-1" in partial.get_attribute("class") and "has-child" in partial.get_attribute(
        "class"
    )
    sub = partial.locator(".child > .run.depth-1")
    assert sub.get_attribute("data-thread-id") == f"{root}/2"
    failed = sub.locator(".chunk.judge-error.score-0 .reason")
    assert failed.inner_text() == "error: timeout after 60 s"
    assert sub.locator(".sub-answer").inner_text() == "sub answer"
    notes = tree.locator(".run.depth-0 > .run-notes")
    assert notes.locator(".graph-path").inner_text() == "Alpha -> Beta"
    assert notes.locator(".keyword .note-text").inner_text() == "found: ships › guilds"
    page.check("#show-subruns")
    assert page.locator(f".subrun[data-thread-id='{root}/2'] .subrun-text").inner_text() == "sub "
    page.click(".msg.ai .answer .cite")
    assert tree.locator(".chunk.highlight").get_attribute("data-chunk-id") == "c1"
