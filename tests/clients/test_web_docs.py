"""Documents managed from the page, in Chromium against a real `langgraph dev` server.

Upload one good and one bad file (button, drag and drop, keyboard), follow the progress,
read the list, ask what only the new document answers, delete it, ask again.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.clients.server import ingest_sample, langgraph_server
from tests.clients.web_support import ask, http, open_page, screenshot

pytestmark = pytest.mark.slow

GOOD_NAME = "quillwhistle_ferry.md"
GOOD_DOC = """# The ferry Quillwhistle

The ferry Quillwhistle crossed the Brannow strait twice a day from 1744 to 1761.
Her only captain was Maren Oddleigh, who kept the ferry's log in green ink.
Maren Oddleigh retired to Halsey Point when the Quillwhistle was broken up in 1761.
"""
BAD_NAME = "installer.exe"
QUESTION = "Who captained the ferry Quillwhistle?"

# Every status the upload rows show, in order (the NDJSON events as the page drew them).
_STATUS_LOG = """
window.__statuses = [];
document.addEventListener("DOMContentLoaded", () => {
  new MutationObserver((records) => {
    for (const r of records) {
      const row = r.target.closest && r.target.closest(".upload");
      const status = row && row.querySelector(".upload-status");
      if (status) window.__statuses.push([row.dataset.name, status.textContent]);
    }
  }).observe(document.getElementById("upload-progress"), { subtree: true, childList: true });
});
"""


@pytest.fixture(scope="module")
def web_server(tmp_path_factory) -> Iterator[str]:
    """A server of its own: these tests add and remove documents."""
    with langgraph_server(ingest_sample(tmp_path_factory.mktemp("web-docs"))) as url:
        yield url


@pytest.fixture
def files(tmp_path) -> list[Path]:
    good = tmp_path / GOOD_NAME
    good.write_text(GOOD_DOC, encoding="utf-8")
    bad = tmp_path / BAD_NAME
    bad.write_bytes(b"MZ\x90\x00 not a document")
    return [good, bad]


def _sources(page: Any) -> list[str]:
    paths = page.locator(".msg.ai >> nth=-1").locator(".sources .source-path").all_inner_texts()
    return [p.strip() for p in paths]


def _wait_uploaded(page: Any) -> None:
    page.wait_for_selector("#docs-dialog[data-uploading='0'] .upload.done", timeout=180_000)


def _check_upload(page: Any) -> None:
    from playwright.sync_api import expect

    good = page.locator(f".upload[data-name='{GOOD_NAME}']")
    bad = page.locator(f".upload[data-name='{BAD_NAME}']")
    expect(good).to_have_class("upload done")
    assert good.locator(".upload-status").inner_text().startswith("added ")
    expect(bad).to_have_class("upload skipped")
    reason = bad.locator(".upload-status").inner_text()
    assert reason.startswith("skipped: ") and len(reason) > len("skipped: ")
    skipped = page.locator(f"#docs-skipped li[data-name='{BAD_NAME}']").first
    expect(skipped).to_be_visible()
    assert skipped.locator(".skipped-reason").inner_text().strip(" —")
    row = page.locator("#docs-list tr", has_text=GOOD_NAME)
    expect(row).to_have_count(1)
    assert int(row.locator(".doc-chunks").inner_text()) >= 1
    assert row.locator(".doc-when").inner_text() != "—"
    assert page.locator("#docs-list tr", has_text=BAD_NAME).count() == 0


def _delete(page: Any, name: str) -> None:
    from playwright.sync_api import expect

    row = page.locator("#docs-list tr", has_text=name)
    row.locator(".delete").click()
    expect(row.locator(".delete")).to_have_text("Really delete?")
    row.locator(".delete").click()
    expect(page.locator("#docs-list tr", has_text=name)).to_have_count(0, timeout=60_000)
    expect(page.locator("#docs-message")).to_contain_text(f"Deleted {name}")
    if page.locator("#docs-stale").is_visible():
        page.click("#docs-rebuild")
        expect(page.locator("#docs-stale")).to_be_hidden(timeout=120_000)


def test_upload_ask_delete_ask_again(browser, web_server, files):
    from playwright.sync_api import expect

    with open_page(browser, web_server, init_script=_STATUS_LOG) as page:
        page.click("#open-docs")
        expect(page.locator("#docs-dialog")).to_be_visible()
        expect(page.locator("#docs-list tr").first).to_be_visible(timeout=60_000)
        before = page.locator("#docs-list tr").count()
        with page.expect_file_chooser() as chooser:
            page.click("#docs-choose")
        chooser.value.set_files([str(f) for f in files])
        _wait_uploaded(page)
        _check_upload(page)
        assert page.locator("#docs-list tr").count() == before + 1
        statuses = [s for name, s in page.evaluate("window.__statuses") if name == GOOD_NAME]
        assert any(s.startswith("chunks ") for s in statuses), statuses  # per chunk batch
        assert statuses[-1].startswith("added "), statuses
        screenshot(page, "documents-uploaded.png")
        page.click("#close-docs")

        ask(page, web_server, QUESTION)
        assert GOOD_NAME in _sources(page)
        assert "Maren Oddleigh" in page.locator(".msg.ai .answer").last.inner_text()
        screenshot(page, "documents-cited.png")

        page.click("#open-docs")
        _delete(page, GOOD_NAME)
        status, _, listing = http(f"{web_server}/ui/api/docs")
        assert status == 200
        assert not [d for d in listing["documents"] if d["source"].endswith(GOOD_NAME)]
        screenshot(page, "documents-deleted.png")
        page.click("#close-docs")

        page.click("#new-chat")
        ask(page, web_server, QUESTION)
        assert GOOD_NAME not in _sources(page)
        assert "Maren Oddleigh" not in page.locator(".msg.ai .answer").last.inner_text()


def test_keyboard_only_upload_and_drag_and_drop(browser, web_server, files):
    from playwright.sync_api import expect

    with open_page(browser, web_server, bypass_csp=False) as page:
        button = page.locator("#open-docs")
        for _ in range(20):
            if button.evaluate("e => e === document.activeElement"):
                break
            page.keyboard.press("Tab")
        page.keyboard.press("Enter")
        expect(page.locator("#docs-dialog")).to_be_visible()
        # The list loads after the dialog opens; tab once it is drawn, so the focus order holds.
        expect(page.locator("#docs-list tr").first).to_be_visible(timeout=60_000)
        choose = page.locator("#docs-choose")
        for _ in range(30):
            if choose.evaluate("e => e === document.activeElement"):
                break
            page.keyboard.press("Tab")
        assert choose.evaluate("e => e === document.activeElement"), "Tab never reached Choose"
        # Enter on Choose must open the file chooser, i.e. click the panel's file input. The
        # click is recorded rather than awaited as a chooser event, which headless Chromium
        # did not always deliver on a loaded machine; the files then go in through that input.
        page.evaluate(
            "() => { window.__chooser = false; document.getElementById('docs-file')"
            ".addEventListener('click', () => { window.__chooser = true; }); }"
        )
        page.keyboard.press("Enter")
        for _ in range(100):
            if page.evaluate("() => window.__chooser === true"):
                break
            page.wait_for_timeout(100)
        assert page.evaluate("() => window.__chooser === true"), "Enter did not open the chooser"
        page.set_input_files("#docs-file", [str(f) for f in files])
        _wait_uploaded(page)
        _check_upload(page)
        _delete(page, GOOD_NAME)
        page.keyboard.press("Escape")
        expect(page.locator("#docs-dialog")).to_be_hidden()

    # Files dropped on the page open the panel and upload.
    with open_page(browser, web_server) as page:
        transfer = page.evaluate_handle(
            """([name, text]) => {
              const dt = new DataTransfer();
              dt.items.add(new File([text], name, { type: "text/markdown" }));
              return dt;
            }""",
            [GOOD_NAME, GOOD_DOC],
        )
        page.dispatch_event("#messages", "dragenter", {"dataTransfer": transfer})
        expect(page.locator(".drop-overlay")).to_be_visible()
        screenshot(page, "documents-drag-over.png")
        page.dispatch_event("#messages", "drop", {"dataTransfer": transfer})
        expect(page.locator("#docs-dialog")).to_be_visible()
        _wait_uploaded(page)
        expect(page.locator("#docs-list tr", has_text=GOOD_NAME)).to_have_count(1)
        _delete(page, GOOD_NAME)


def test_a_delete_armed_while_the_list_reloads_stays_armed(browser, web_server):
    """Reopening the dialog reloads the list; a Delete clicked meanwhile is not lost."""
    from playwright.sync_api import expect

    with open_page(browser, web_server) as page:
        page.click("#open-docs")
        first = page.locator("#docs-list tr .delete").first
        expect(first).to_be_visible(timeout=60_000)
        page.click("#close-docs")
        held: list[Any] = []
        page.route("**/ui/api/docs", lambda route: held.append(route))
        page.click("#open-docs")  # the old rows show while the reload is held
        first.click()
        expect(first).to_have_text("Really delete?")
        assert held, "the dialog did not reload its list"
        old = first.element_handle()
        with page.expect_response("**/ui/api/docs"):
            held[0].continue_()
        page.unroute("**/ui/api/docs")
        page.wait_for_function("(old) => !old.isConnected", arg=old)  # the rows were replaced
        expect(page.locator("#docs-list tr .delete").first).to_have_text("Really delete?")
