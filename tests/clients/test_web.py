"""The web chat page in a real headless Chromium against a real `langgraph dev` server.

The server runs over the ingested sample corpus plus one document whose text is markup
(`<script>`, an `onerror` image, an `onmouseover` title) and markdown: the page must show the
markup as text, never run it, and render an answer's markdown.
"""

from __future__ import annotations

import json
import urllib.request
from collections.abc import Iterator
from typing import Any

import pytest

from tests.clients.server import ingest_sample, langgraph_server, server_log
from tests.clients.web_support import (
    ask,
    chat_turn,
    http,
    ingest_docs,
    new_thread,
    open_page,
    screenshot,
)

pytestmark = pytest.mark.slow

# Three hops over the sample corpus (the Varunhal signatory of the Accord, his ship, the guild
# that built it): no chunk answers it whole, so the offline tree recurses to depth 2 (a
# sub-tree the page collapses), the same tree every time.
MULTI_HOP = (
    "Which guild built the ship commanded by the man who signed the Accord of Quillhaven on "
    "behalf of Varunhal?"
)
SCORE_1_RGB = "rgb(178, 106, 0)"  # --s1 in style.css
MARKUP_QUESTION = "What notice did the lamplighter Ysolde Marrick post in Velmora?"
MARKUP_SCRIPT = "<script>window.__pwned = 1</script>"
MARKUP_DOC = f"""# Lantern notice <b onmouseover="window.__pwned = 3">of Velmora</b>

The lamplighter Ysolde Marrick posted the lantern notice in Velmora harbour in 1702.
The notice of Ysolde Marrick was copied into the harbour book verbatim: {MARKUP_SCRIPT} was
written on it, and below that <img src="x" onerror="window.__pwned = 2"> was drawn in ink.
"""
GRAPH_PATH = "Alpha —member of→ Beta ←built by— Gamma"
GRAPH_FOUND = {"kind": "graph", "path": ["Aldous Brennick", "Port Veyra"]}
KEYWORD_FOUND = {"kind": "keyword", "path": ["Documents", "a.md"]}
CANNED_TAIL = "beta [1]\n\n- one `<img src=x onerror=window.__pwned=4>`\n- two <img src=x onerror=window.__pwned=5>"
CANNED_ANSWER = "**Alpha** " + CANNED_TAIL

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
        rebuilt = true;  // the finished answer is re-rendered as markdown with citation links
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


@pytest.fixture(scope="module")
def web_server(tmp_path_factory) -> Iterator[str]:
    """A `langgraph dev` server over the sample corpus plus the markup document."""
    data = ingest_sample(tmp_path_factory.mktemp("web-data"))
    ingest_docs(data, tmp_path_factory.mktemp("web-extra-docs"), {"lantern_notice.md": MARKUP_DOC})
    with langgraph_server(data) as url:
        yield url


@pytest.fixture
def page(browser, web_server) -> Iterator[Any]:
    """A fresh wide page on /ui (CSP bypassed so that the test may evaluate scripts)."""
    with open_page(browser, web_server, init_script=_TOKEN_OBSERVER) as page:
        yield page


def test_page_and_json_routes_are_served(web_server):
    with urllib.request.urlopen(f"{web_server}/ui", timeout=30) as response:
        status, headers, html = response.status, dict(response.headers), response.read().decode()
    assert status == 200 and '<script type="module" src="/ui/static/js/app.js">' in html
    assert "script-src 'self'" in headers["content-security-policy"]
    modules = ["app", "api", "answer-view", "conversations", "diagrams", "documents"]
    modules += ["dom", "markdown", "settings", "tree-view"]
    assets = [f"js/{name}.js" for name in modules]
    assets += ["vendor/marked.esm.js", "vendor/purify.es.js", "style.css"]
    for asset in assets:
        with urllib.request.urlopen(f"{web_server}/ui/static/{asset}", timeout=30) as response:
            assert response.status == 200, asset
            if asset.endswith(".js"):  # module scripts need a JavaScript MIME type
                assert "javascript" in response.headers["content-type"], asset
    assert http(f"{web_server}/ui/api/chunk/not..valid")[0] == 400
    assert http(f"{web_server}/ui/api/chunk/0123456789abcdef")[0] == 404
    assert http(f"{web_server}/ui/api/tree/no-such-thread-t1")[0] == 404
    # The server's startup log names the page, not only the API.
    assert f"treerag chat page: {web_server}/ui" in server_log(web_server)


def test_trees_of_api_runs_are_rebuilt_from_the_server_checkpointer(web_server):
    thread_id = new_thread(web_server)
    values = chat_turn(web_server, thread_id, MULTI_HOP)
    meta = values["messages"][-1]["additional_kwargs"]["treerag"]
    assert meta["tree_thread_id"] == f"{thread_id}-t1"
    # The API itself refuses the tree's thread ids (not UUIDs): this app's route reads them.
    assert http(f"{web_server}/threads/{meta['tree_thread_id']}/state")[0] != 200
    status, _, tree = http(f"{web_server}/ui/api/tree/{meta['tree_thread_id']}")
    assert status == 200, tree
    assert tree["question"] == MULTI_HOP and tree["depth"] == 0 and tree["answer"]
    children = [c for c in tree["chunks"] if c.get("child")]
    assert children, "the multi-hop question should recurse"
    child = children[0]
    assert child["child"]["thread_id"] == child["child_thread_id"]
    status, _, sub = http(f"{web_server}/ui/api/tree/{child['child_thread_id']}")
    assert status == 200 and sub["depth"] == 1 and sub["question"] == child["followup"]
    status, _, chunk = http(f"{web_server}/ui/api/chunk/{tree['chunks'][0]['chunk_id']}")
    assert status == 200 and chunk["text"] and chunk["title"] == tree["chunks"][0]["title"]


def _clipboard(page: Any) -> str:
    return str(page.evaluate("navigator.clipboard.readText()"))


def test_ask_streams_the_answer_and_draws_a_readable_tree(page, web_server):
    from playwright.sync_api import expect

    ask(page, web_server, MULTI_HOP)

    # Tokens streamed in: one DOM update per token, in order, the answer growing each time.
    tokens = int(page.get_attribute(".msg.ai .answer", "data-tokens"))
    assert tokens >= 5
    assert page.evaluate("window.__tokenUpdates") == list(range(tokens))
    growth = page.evaluate("window.__answerGrowth")
    assert len(growth) == tokens and growth == sorted(set(growth))
    answer = page.locator(".msg.ai .answer")
    assert "Varunhal" in answer.inner_text() and growth[0] < growth[-1]
    # The finished answer is rendered markdown: paragraphs, citation buttons.
    assert answer.locator("p").count() >= 1 and answer.locator(".cite").count() >= 1

    # The turn shows the question once; the root run does not repeat it.
    turn = page.locator(".tree-turn").first
    assert turn.locator(".turn-question").inner_text() == MULTI_HOP
    assert turn.locator(".run.depth-0 > .run-question").is_hidden()
    # Sub-runs show their own follow-up, not the question they continue.
    subs = turn.locator(".run.depth-1 > .run-question")
    assert subs.count() >= 1
    for i in range(subs.count()):
        shown = subs.nth(i).locator(".run-text").inner_text()
        full = subs.nth(i).get_attribute("title")
        assert shown and not shown.startswith(MULTI_HOP)
        assert full == shown or (full.startswith(MULTI_HOP) and shown.startswith("… "))
    assert turn.locator(".run.depth-1 > .run-answer .sub-answer").first.inner_text()

    # Chunks: judged, coloured by score, one line each (score, title, reason) until opened.
    judged = turn.locator(".chunk.score-0, .chunk.score-1, .chunk.score-2")
    assert judged.count() >= 5 and turn.locator(".chunk.score-pending").count() == 0
    assert turn.locator(".chunk.score-1 .followup").count() >= 1
    badge = turn.locator(".chunk.score-1 > .chunk-head .badge").first
    assert badge.evaluate("e => getComputedStyle(e).backgroundColor") == SCORE_1_RGB
    first = turn.locator(".run.depth-0 > .chunks > .chunk").first
    head = first.locator(":scope > .chunk-head")
    assert head.locator(".reason-line").inner_text().startswith("offline")
    assert head.bounding_box()["height"] < 30
    assert first.locator(":scope > .chunk-detail").is_hidden()
    head.click()
    body = first.locator(":scope > .chunk-detail .chunk-body")
    body.wait_for(timeout=30_000)
    assert len(body.inner_text()) > 20
    assert first.locator(":scope > .chunk-detail .reason").inner_text().startswith("offline")

    # Sub-trees below depth 1 start collapsed, with a count.
    subtrees = turn.locator("details.subtree:not([hidden])")
    assert subtrees.count() >= 1
    summary = subtrees.first.locator(":scope > summary").inner_text()
    assert summary.startswith("sub-tree: ") and " chunk" in summary
    closed = turn.locator("details.subtree:not([hidden]):not([open])")
    assert closed.count() >= 1
    assert closed.first.locator(".run").first.is_hidden()

    # The cited chunks are marked, and so is the way to them from the root.
    cited = turn.locator(".chunk.cited")
    assert cited.count() >= 1
    for i in range(cited.count()):
        chunk = cited.nth(i)
        assert chunk.is_visible()
        depth = chunk.evaluate(
            "e => { let n = 0; for (let p = e.parentElement.closest('.chunk');"
            " p; p = p.parentElement.closest('.chunk')) n++; return n; }"
        )
        on_path = chunk.evaluate(
            "e => { let n = 0; for (let p = e.parentElement.closest('.chunk');"
            " p; p = p.parentElement.closest('.chunk'))"
            " n += p.classList.contains('on-path'); return n; }"
        )
        assert on_path == depth

    # Thread ids stay out of sight; a copy button hands them out.
    thread_id = page.evaluate("decodeURIComponent(location.hash.split('=')[1])")
    assert thread_id and thread_id not in page.inner_text("#trees")
    assert thread_id not in page.inner_text("#messages")
    turn.locator(".tree-title .copy").click()
    assert _clipboard(page) == f"{thread_id}-t1"

    # A citation previews its chunk on hover and leads to it on click.
    cite = answer.locator(".cite").last
    chunk_id = cite.get_attribute("data-chunk-id")
    cite.hover()
    preview = page.locator("#cite-preview")
    expect(preview).to_be_visible()
    expect(preview.locator(".preview-source")).to_be_visible(timeout=30_000)
    assert len(preview.locator(".preview-body").inner_text()) > 20
    screenshot(page, "ask-citation-preview.png")
    cite.click()
    expect(preview).to_be_hidden()
    target = turn.locator(f".chunk.highlight[data-chunk-id='{chunk_id}']")
    assert target.count() == 1
    target.locator(":scope > .chunk-detail .chunk-body").wait_for(timeout=30_000)
    expect(target.locator(":scope > .chunk-head")).to_be_in_viewport()
    # ... and opens its document in the viewer at that chunk, the cited sentences marked.
    shown = page.locator(f"#viewer-body .doc-chunk.cited[data-chunk-id='{chunk_id}']")
    expect(shown).to_be_in_viewport()
    assert shown.locator("mark").count() >= 1
    page.keyboard.press("Escape")
    expect(page.locator("#doc-viewer")).not_to_have_attribute("open", "")

    # The answer's copy button hands out the answer as written (markdown).
    page.locator(".msg.ai .who .copy").click()
    assert _clipboard(page).startswith("[offline extractive answer]")

    # Sub-run answers streamed too; the toggle shows them.
    subruns = page.locator(".msg.ai .subruns")
    assert not subruns.is_visible()
    page.check("#show-subruns")
    assert subruns.is_visible() and page.locator(".subrun .subrun-text").count() >= 1
    page.uncheck("#show-subruns")
    screenshot(page, "ask-multi-hop.png")


def test_thread_list_reopens_a_conversation_with_its_trees(page, web_server):
    thread_id = new_thread(web_server)
    chat_turn(web_server, thread_id, "Where was Orla Venn born?")
    values = chat_turn(web_server, thread_id, "What glass is made there?")
    assert len(values["messages"]) == 4

    page.click("#refresh-threads")
    item = page.locator(f".thread[data-thread-id='{thread_id}'] .thread-item")
    item.wait_for(timeout=30_000)
    assert "Where was Orla Venn born?" in item.inner_text()
    item.click()
    page.wait_for_function(
        "document.body.dataset.busy === '0' && document.querySelectorAll('.tree-turn').length === 2"
        " && !document.querySelector('.tree-notice')",
        timeout=60_000,
    )
    assert page.locator(".thread.active").get_attribute("data-thread-id") == thread_id
    humans = page.locator(".msg.human .body").all_inner_texts()
    assert humans == ["Where was Orla Venn born?", "What glass is made there?"]
    assert "Dunsorrow" in page.locator(".msg.ai .answer").first.inner_text()
    for turn in (1, 2):
        tree = page.locator(f".tree-turn[data-turn='{turn}']")
        assert tree.get_attribute("data-tree-id") == f"{thread_id}-t{turn}"
        assert tree.locator(".run.depth-0 > .chunks > .chunk").count() >= 1
        assert tree.locator(".chunk.score-pending").count() == 0
        assert tree.locator(".chunk.cited").count() >= 1
    # The follow-up turn shows the question as written; the search, rewritten, says so.
    second = page.locator(".tree-turn[data-turn='2']")
    assert second.locator(".turn-question").inner_text() == "What glass is made there?"
    root_head = second.locator(".run.depth-0 > .run-question")
    if root_head.is_visible():
        assert root_head.locator(".run-depth").inner_text() == "searched as"
    # Citations of a reopened turn lead into its rebuilt tree.
    cite = page.locator(".msg.ai[data-turn='2'] .answer .cite").first
    chunk_id = cite.get_attribute("data-chunk-id")
    cite.click()
    highlighted = page.locator(".tree-turn[data-turn='2'] .chunk.highlight")
    assert highlighted.get_attribute("data-chunk-id") == chunk_id
    page.keyboard.press("Escape")  # the document viewer it opened too
    # The page reopens the conversation named in its address too.
    page.reload()
    page.wait_for_function(
        "document.body.dataset.busy === '0' && document.querySelectorAll('.msg.human').length === 2",
        timeout=60_000,
    )
    screenshot(page, "reopened.png")


def test_document_markup_is_shown_as_text(page, web_server):
    ask(page, web_server, MARKUP_QUESTION)
    chunk = page.locator(".run.depth-0 > .chunks > .chunk", has_text="Lantern notice").first
    chunk.locator(":scope > .chunk-head").click()
    body = chunk.locator(":scope > .chunk-detail .chunk-body")
    body.wait_for(timeout=30_000)
    assert MARKUP_SCRIPT in body.inner_text()
    assert (
        '<b onmouseover="window.__pwned = 3">'
        in chunk.locator(":scope > .chunk-head .chunk-title").inner_text()
    )
    chunk.locator(":scope > .chunk-head .chunk-title").hover()
    # The answer quotes the document: its markup is rendered as text, not as elements.
    answer = page.locator(".msg.ai .answer")
    assert "Ysolde Marrick" in answer.inner_text()
    for cite in answer.locator(".cite").all():
        cite.hover()
    page.wait_for_timeout(300)
    assert page.evaluate("typeof window.__pwned") == "undefined"
    for pane in ("#messages", "#trees", "#thread-list", "#cite-preview"):
        assert page.locator(f"{pane} script, {pane} img, {pane} b").count() == 0
    screenshot(page, "markup-as-text.png")


def test_a_chinese_question_gets_a_chinese_answer(page, web_server):
    ask(page, web_server, "沈疑微是谁？")
    answer = page.locator(".msg.ai .answer")
    assert "沈疑微" in answer.inner_text() and answer.get_attribute("lang") == "zh"
    assert page.locator(".run.depth-0 .chunk-title", has_text="沈疑微").count() >= 1
    assert page.locator(".msg.ai .sources li").count() >= 1


def _sse(events: list[tuple[str, dict[str, Any]]]) -> str:
    return "".join(f"event: {kind}\r\ndata: {json.dumps(data)}\r\n\r\n" for kind, data in events)


def _canned_run(root: str, history: list[dict[str, Any]] | None = None) -> list[tuple[str, dict]]:
    """A small run in the stream protocol: a sub-run, a failed judge, structured context.

    `history` is the conversation before this turn (its messages), for a second turn.
    """
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
                {"chunk_id": "c4", "rank": 3, "title": "Delta", "found_by": GRAPH_FOUND},
                {"chunk_id": "c5", "rank": 4, "title": "Epsilon", "found_by": KEYWORD_FOUND},
            ],
        ),
        custom(
            "chunk_judged",
            root,
            0,
            chunk_id="c1",
            score=2,
            reason="says it",
            quote="Q1",
            cached=True,
        ),
        custom("chunk_judged", root, 0, chunk_id="c2", score=1, reason="half", followup="F?"),
        custom("chunk_judged", root, 0, chunk_id="c4", score=1, reason="part", followup="H?"),
        custom("chunk_judged", root, 0, chunk_id="c5", score=0, reason="no"),
        custom("followup_not_asked", root, 0, chunk_id="c4", not_asked="max_subqueries=1 reached"),
        custom("subrun_started", root, 0, chunk_id="c2", child_thread_id=child, question="F?"),
        custom("run_started", child, 1, question="F?", parent_thread_id=root, parent_chunk_id="c2"),
        custom("chunks_retrieved", child, 1, chunks=[{"chunk_id": "c3", "rank": 1, "title": "G"}]),
        custom("chunk_judged", child, 1, chunk_id="c3", score=0, error="timeout after 60 s"),
        custom("token", child, 1, text="sub "),
        custom("answer_finished", child, 1, answer="sub answer", citations=[]),
        custom("subrun_finished", root, 0, chunk_id="c2", child_thread_id=child, answer="sub"),
        custom("graph_expanded", root, 0, paths=[{"path": GRAPH_PATH, "score": 0.9}]),
        custom("keyword_descended", root, 0, status="found", path=["ships", "guilds"]),
        custom("token", root, 0, text="**Alpha** "),
        custom("token", root, 0, text=CANNED_TAIL),
        custom("answer_finished", root, 0, answer=CANNED_ANSWER, citations=[citation]),
        (
            "values",
            {
                "messages": [
                    *(history or []),
                    {"type": "human", "content": "Canned?", "id": "h"},
                    {
                        "type": "ai",
                        "id": "a",
                        "content": CANNED_ANSWER,
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
    sent: list[dict[str, Any]] = []

    def fulfill(route: Any) -> None:
        sent.append(json.loads(route.request.post_data))
        route.fulfill(status=200, content_type="text/event-stream", body=body)

    page.route("**/runs/stream", fulfill)
    ask(page, web_server, "Canned?")
    # The run carries the page's settings as its context.
    assert sent[0]["context"] == {"top_k": 5, "max_depth": 2, "search_mode": "hybrid"}
    answer = page.locator(".msg.ai .answer")
    assert answer.get_attribute("data-tokens") == "2"
    # Markdown renders; HTML in the answer is text, inline code stays code.
    assert answer.locator("strong").inner_text() == "Alpha"
    assert answer.locator("li").count() == 2
    assert answer.locator("li code").inner_text() == "<img src=x onerror=window.__pwned=4>"
    assert "<img src=x onerror=window.__pwned=5>" in answer.locator("li").nth(1).inner_text()
    assert answer.locator("img").count() == 0
    assert page.evaluate("typeof window.__pwned") == "undefined"
    # The tree's LLM calls, and the verdicts the judge cache gave without one.
    meta = page.locator(".msg.ai .meta").inner_text()
    assert meta == "canned · 4 LLM calls · 1 verdict from the judge cache"
    tree = page.locator(f".tree-turn[data-tree-id='{root}']")
    c1 = tree.locator(".chunk[data-chunk-id='c1']")
    assert "score-2" in c1.get_attribute("class") and "cited" in c1.get_attribute("class")
    assert c1.locator(".quote").inner_text() == "Q1"
    green = c1.locator(":scope > .chunk-head .badge")
    assert green.evaluate("e => getComputedStyle(e).backgroundColor") == "rgb(46, 125, 50)"
    partial = tree.locator(".chunk[data-chunk-id='c2']")
    classes = partial.get_attribute("class")
    assert "score-1" in classes and "has-child" in classes
    sub = partial.locator(".child > .run.depth-1")
    assert sub.get_attribute("data-thread-id") == f"{root}/2"
    assert sub.locator(":scope > .run-question .run-text").inner_text() == "F?"
    failed = sub.locator(".chunk.judge-error.score-0")
    assert failed.locator(".reason-line").inner_text() == "error: timeout after 60 s"
    assert sub.locator(".sub-answer").inner_text() == "sub answer"
    # A follow-up with no sub-run says why.
    tree.locator(".chunk[data-chunk-id='c4'] > .chunk-head").click()
    unasked = tree.locator(".chunk[data-chunk-id='c4'] .followup")
    why = unasked.evaluate("e => getComputedStyle(e, '::after').content")
    assert why == '" (not asked: max_subqueries=1 reached)"'
    # Chunks found by the graph or the keyword tree carry the path that led to them.
    badges = {
        cid: tree.locator(f".chunk[data-chunk-id='{cid}'] > .chunk-head .found-by").inner_text()
        for cid in ("c4", "c5")
    }
    assert badges == {
        "c4": "via graph: Aldous Brennick → Port Veyra",
        "c5": "via keyword: Documents › a.md",
    }
    assert c1.locator(".found-by").count() == 0  # a hybrid hit has none
    # The knowledge-graph path is drawn: entities as nodes, relations as labelled edges.
    notes = tree.locator(".run.depth-0 > .run-notes")
    graph = notes.locator("svg.graph-diagram")
    assert graph.locator(".diagram-node text").all_text_contents() == ["Alpha", "Beta", "Gamma"]
    labels = graph.locator(".diagram-edge-label").all_text_contents()
    assert [label.strip() for label in labels] == ["member of", "built by"]
    assert graph.locator("line.diagram-edge").count() == 2
    assert notes.locator(".graph-path").text_content() == GRAPH_PATH
    keyword = notes.locator("svg.keyword-diagram")
    assert keyword.locator(".diagram-node text").all_text_contents() == ["root", "ships", "guilds"]
    assert keyword.locator(".diagram-node.matched text").text_content() == "guilds"
    assert notes.locator(".keyword .note-text").inner_text() == "found"
    page.check("#show-subruns")
    assert page.locator(f".subrun[data-thread-id='{root}/2'] .subrun-text").inner_text() == "sub "
    page.click(".msg.ai .answer .cite")
    assert tree.locator(".chunk.highlight").get_attribute("data-chunk-id") == "c1"
    page.keyboard.press("Escape")  # the document viewer the citation opened
    screenshot(page, "canned-diagrams.png")


def test_the_tree_pane_shows_each_new_turn(page, web_server):
    """The second turn's tree is scrolled to the top of the tree pane, not left below turn 1."""
    history = [
        {"type": "human", "content": "Canned?", "id": "h1"},
        {"type": "ai", "content": CANNED_ANSWER, "id": "a1"},
    ]
    bodies = [_sse(_canned_run("canned-t1")), _sse(_canned_run("canned-t2", history))]
    page.route(
        "**/runs/stream",
        lambda route: route.fulfill(
            status=200, content_type="text/event-stream", body=bodies.pop(0)
        ),
    )
    ask(page, web_server, "Canned?")
    ask(page, web_server, "Canned?")
    top, scrolled = page.evaluate(
        """() => {
          const pane = document.getElementById("trees");
          const turn = pane.querySelector(".tree-turn[data-turn='2']");
          return [turn.getBoundingClientRect().top - pane.getBoundingClientRect().top, pane.scrollTop];
        }"""
    )
    assert scrolled > 0 and 0 <= top <= 16, (top, scrolled)
    screenshot(page, "second-turn-tree.png")


@pytest.mark.parametrize("width", [420, 320])
def test_a_narrow_window_shows_the_whole_ask_button(browser, web_server, width):
    from playwright.sync_api import expect

    from treerag.ingest.loaders import SUPPORTED

    with open_page(browser, web_server, viewport={"width": width, "height": 760}) as page:
        # The upload hint and the file picker list what the loader accepts, from the server.
        expect(page.locator("#docs-formats")).to_have_text(", ".join(sorted(SUPPORTED)))
        assert page.locator("#docs-file").get_attribute("accept") == ",".join(sorted(SUPPORTED))
        page.click("#run-settings summary")
        send = page.locator("#send")
        send.scroll_into_view_if_needed()
        box, pane = send.bounding_box(), page.locator(".chat-pane").bounding_box()
        assert box["width"] >= 40 and pane["x"] <= box["x"]
        assert box["x"] + box["width"] <= pane["x"] + pane["width"] <= width, (box, pane)
        middle = (box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
        assert page.evaluate("([x, y]) => document.elementFromPoint(x, y).id", middle) == "send"
        screenshot(page, f"narrow-ask-{width}.png")
