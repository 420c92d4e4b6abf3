"""The document viewer: a cited source opens its document at the cited passage (Chromium).

A real `langgraph dev` over the sample corpus. The viewer shows the document chunk by chunk as
ingested, the cited chunk highlighted and in view, the answer's sentences from it marked, and
the conversation's other questions that cite the same document; its API answers 404 for a
chunk the caller's tenant does not hold (tests/clients/test_tenants.py probes it across
tenants).
"""

from __future__ import annotations

import pytest

from tests.clients.web_support import ask, http, open_page, screenshot

pytestmark = pytest.mark.slow

FIRST = "Where was Orla Venn born?"
SECOND = "What did Orla Venn invent?"


def test_the_document_route(server_url):
    assert http(f"{server_url}/ui/api/chunk/not..valid/document")[0] == 400
    assert http(f"{server_url}/ui/api/chunk/0123456789abcdef/document")[0] == 404


def test_a_cited_source_opens_its_document_at_the_passage(browser, server_url):
    from playwright.sync_api import expect

    with open_page(browser, server_url, viewport={"width": 1366, "height": 844}) as page:
        ask(page, server_url, FIRST)
        ask(page, server_url, SECOND)
        answer = page.locator(".msg.ai").last
        opener = answer.locator(".sources .source-open", has_text="orla_venn.md").first
        chunk_id = opener.get_attribute("data-chunk-id")
        opener.click()
        page.wait_for_selector("#doc-viewer[open] .doc-chunk")
        cited = page.locator(f"#viewer-body .doc-chunk[data-chunk-id='{chunk_id}']")
        expect(cited).to_have_class("doc-chunk cited")
        expect(cited).to_be_in_viewport()
        marks = cited.locator("mark").all_inner_texts()
        said = " ".join(answer.inner_text().split())
        assert marks and all(" ".join(m.split()) in said for m in marks), marks
        indexes = [
            int(i)
            for i in page.locator("#viewer-body .doc-chunk").evaluate_all(
                "nodes => nodes.map(n => n.dataset.chunkIndex)"
            )
        ]
        assert indexes == sorted(indexes)  # the document in its own order
        status, _, doc = http(f"{server_url}/ui/api/chunk/{chunk_id}/document")
        assert status == 200 and chunk_id in {c["chunk_id"] for c in doc["chunks"]}
        # The first answer cites her document too; the viewer says so.
        expect(page.locator("#viewer-citing")).to_contain_text(FIRST)
        screenshot(page, "document-viewer.png")
        page.click("#close-viewer")
        expect(page.locator("#doc-viewer")).not_to_have_attribute("open", "")

        # A chunk of the tree opens its document too, at that chunk.
        chunk = page.locator(".tree-turn").last.locator(".run.depth-0 > .chunks > .chunk").first
        tree_chunk = chunk.get_attribute("data-chunk-id")
        chunk.locator(":scope > .chunk-head").click()
        chunk.locator(".open-doc").click()
        shown = page.locator(f"#viewer-body .doc-chunk[data-chunk-id='{tree_chunk}']")
        expect(shown).to_have_class("doc-chunk cited")
        expect(shown).to_be_in_viewport()
