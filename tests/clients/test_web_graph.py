"""The graph explorer on the page: search → neighbours → passage, and an answer's paths (Chromium).

A real `langgraph dev` over the sample corpus, whose data directory holds the passage graph
every ingest keeps and the sample entity graph (`graph.jsonl`, imported as `treerag demo` does).
"""

from __future__ import annotations

import pytest

from tests.clients.web_support import ask, http, open_page, screenshot

pytestmark = pytest.mark.slow

WIDTHS = {"desktop": (1366, 844), "tablet": (768, 1024), "phone": (390, 844)}


def test_the_graph_routes(server_url):
    status, _, found = http(f"{server_url}/ui/api/graph/search?q=%E5%A5%8E%E7%88%BE%E6%B8%AF")
    assert status == 200 and found["entities"][0]["id"] == "quillhaven"  # 奎爾港, Traditional
    assert found["graphs"] == {"passages": True, "entities": True}
    assert http(f"{server_url}/ui/api/graph/search?q=")[0] == 400
    assert http(f"{server_url}/ui/api/graph/entity?id=no%20such%20thing")[0] == 404
    status, _, view = http(f"{server_url}/ui/api/graph/entity?id=quillhaven")
    links = {n["link"] for n in view["neighbours"]}
    assert status == 200 and links == {"passage", "relation"}
    assert all(n["relation"] != "co-occurs with" for n in view["neighbours"])


@pytest.mark.parametrize("width", list(WIDTHS))
def test_search_an_entity_follow_a_neighbour_and_read_a_passage(browser, server_url, width):
    from playwright.sync_api import expect

    w, h = WIDTHS[width]
    with open_page(browser, server_url, viewport={"width": w, "height": h}) as page:
        page.click("#open-graph")
        expect(page.locator("#graph-explorer")).to_have_attribute("open", "")
        page.fill("#graph-query", "奎爾港")
        page.keyboard.press("Enter")
        hit = page.locator("#graph-results .graph-hit").first
        expect(hit).to_contain_text("Quillhaven · 奎尔港")
        hit.click()
        expect(page.locator("#graph-details .graph-entity-name")).to_have_text(
            "Quillhaven · 奎尔港"
        )
        neighbours = page.locator("#graph-details .graph-neighbour")
        expect(neighbours.first).to_be_visible()
        drawn = page.evaluate("document.querySelectorAll('#graph-canvas canvas').length")
        assert drawn > 0
        box = page.locator("#graph-canvas").bounding_box()
        assert box["width"] > 200 and box["height"] > 150 and box["x"] + box["width"] <= w + 1
        if width == "desktop":
            screenshot(page, "graph-explorer.png")
        # Follow a relation of the entity graph: the neighbour becomes the centre.
        page.locator("#graph-details li", has_text="capital of").locator(".graph-neighbour").click()
        expect(page.locator("#graph-details .graph-entity-name")).to_contain_text("Kessavar")
        # A passage that names it opens in the document viewer, highlighted.
        passage = page.locator("#graph-details .graph-passage").first
        chunk_id = passage.get_attribute("data-chunk-id")
        passage.click()
        shown = page.locator(f"#viewer-body .doc-chunk[data-chunk-id='{chunk_id}']")
        expect(shown).to_have_class("doc-chunk cited")
        expect(shown).to_be_in_viewport()
        if width == "phone":
            screenshot(page, "graph-explorer-phone-passage.png")
        page.click("#close-viewer")
        expect(page.locator("#graph-explorer")).to_have_attribute("open", "")


def test_an_answers_graph_paths_open_in_the_explorer(browser, server_url):
    from playwright.sync_api import expect

    with open_page(browser, server_url, viewport={"width": 1366, "height": 844}) as page:
        ask(page, server_url, "What is the capital of the Kessavar Federation?")
        explore = page.locator(".tree-turn").last.locator(".note.graph .explore-graph").first
        explore.click()
        expect(page.locator("#graph-explorer")).to_have_attribute("open", "")
        expect(page.locator("#graph-details .graph-entity-name")).to_be_visible()
        assert page.evaluate("document.querySelectorAll('#graph-canvas canvas').length") > 0
