"""A tenant that shares threads, and a valid upload that stays in its tenant (attack suite, cont.).

The same world as the attack suite (its fixtures, a server of this module): globex
shares threads (`treerag users share globex`), acme does not. b2 reads b1's threads, runs and
search trees and changes nothing of them; a1 and a2 (acme) find nothing of b1's; a2 still
finds nothing of a1's. b1 uploads a document through the page's upload route: globex's
searches find it, acme's searches, answers, document list and chunk route never do. Every
request is a probe in a ledger; the counts of probes and leaks are printed.
"""

from __future__ import annotations

import asyncio
import json
import urllib.parse
from typing import Any

import httpx
import pytest

from tests.clients.server import server_log
from tests.clients.tenancy import (
    NOT_FOUND,
    QUESTION_MARK,
    SECRETS,
    Ledger,
    headers,
    request,
    run_chat,
    run_probes,
    run_rag,
    thread_probes,
)

pytestmark = pytest.mark.slow

UPLOAD_SECRET = "BEACON-GLOBEX-3307"
UPLOAD = (
    "# Corran lighthouse log\n\n"
    f"The keeper of the Corran lighthouse logged the beacon code {UPLOAD_SECRET} on the night "
    "of the great storm. The beacon code of the Corran lighthouse opens the lamp room.\n"
).encode()
UPLOAD_QUESTION = "What beacon code did the keeper of the Corran lighthouse log?"


async def _probe(ledger, http, who, token, method, path, body, allowed, secrets) -> str:
    """Make one request as `who`, record it in the ledger, return its body."""
    status, text = await request(http, method, path, token, body)
    ledger.check(f"{who} {method} {path} {body}", status, text, allowed, secrets)
    return text


async def _reader_reads(ledger, http, tokens, sharer) -> None:
    """b2 reads b1's thread, state, history, runs, joins and trees: what b1 reads, b1's secrets."""
    tid, rid = sharer["runs"][0]
    b2 = tokens["b2"]
    for method, path, body in [
        ("GET", f"/threads/{tid}", None),
        ("GET", f"/threads/{tid}/state", None),
        ("GET", f"/threads/{tid}/history", None),
        ("POST", f"/threads/{tid}/history", {"limit": 10}),
        ("GET", f"/threads/{tid}/runs", None),
        ("GET", f"/threads/{tid}/runs/{rid}", None),
        ("GET", f"/threads/{tid}/runs/{rid}/join", None),
        ("POST", "/threads/search", {"metadata": {"owner": "b1"}}),
    ]:
        text = await _probe(ledger, http, "b2", b2, method, path, body, {200}, [])
        assert tid in text or QUESTION_MARK["globex"] in text, (path, text[:300])
    state = httpx.Response(
        200,
        content=await _probe(
            ledger, http, "b2", b2, "GET", f"/threads/{tid}/state", None, {200}, []
        ),
    ).json()
    assert QUESTION_MARK["globex"] in json.dumps(state) and SECRETS["globex"] in json.dumps(state)
    found = await _probe(
        ledger, http, "b2", b2, "POST", "/threads/search", {"limit": 100}, {200}, []
    )
    assert all(t in found for t in sharer["threads"])  # a plain search lists the tenant's threads
    for tree_id in sharer["trees"]:  # b2 rebuilds b1's trees exactly as b1 does
        mine = await http.get(f"/ui/api/tree/{tree_id}", headers=headers(tokens["b1"]))
        theirs = await _probe(
            ledger, http, "b2", b2, "GET", f"/ui/api/tree/{tree_id}", None, {mine.status_code}, []
        )
        assert theirs == mine.text, tree_id
    first = await http.get(f"/ui/api/tree/{sharer['trees'][0]}", headers=headers(b2))
    assert first.status_code == 200 and QUESTION_MARK["globex"] in first.text


def _reader_writes(tid: str, rid: str) -> list[tuple[str, str, Any, set[int]]]:
    """What a reader must not do to another's thread: change, run on, cancel, delete, copy."""
    run = {"assistant_id": "chat", "input": {"messages": [{"type": "human", "content": "hi"}]}}
    return [
        ("PATCH", f"/threads/{tid}", {"metadata": {"title": "taken by b2"}}, NOT_FOUND),
        ("POST", f"/threads/{tid}/state", {"values": {"messages": []}}, {403}),
        ("POST", f"/threads/{tid}/runs", run, {403, 404}),
        ("POST", f"/threads/{tid}/runs/wait", run, {403, 404}),
        ("POST", f"/threads/{tid}/runs/stream", run, {403, 404}),
        ("POST", f"/threads/{tid}/runs/{rid}/cancel", None, NOT_FOUND),
        ("GET", f"/threads/{tid}/runs/{rid}/stream?cancel_on_disconnect=true", None, {403}),
        ("GET", f"/threads/{tid}/runs/{rid}/join?cancel_on_disconnect=1", None, {403}),
        ("DELETE", f"/threads/{tid}/runs/{rid}", None, NOT_FOUND),
        ("POST", f"/threads/{tid}/copy", {}, {403}),
        ("POST", "/threads", {"thread_id": tid, "if_exists": "do_nothing"}, {409}),
        ("DELETE", f"/threads/{tid}", None, NOT_FOUND),
    ]


def _other_tenant(sharer: dict[str, Any]) -> list[tuple[str, str, Any, set[int]]]:
    """Every thread, run, tree and chunk probe of b1's things, for a user of another tenant."""
    plan = [p for tid in sharer["threads"] for p in thread_probes(tid)]
    plan += [p for tid, rid in sharer["runs"] for p in run_probes(tid, rid)]
    plan += [
        ("GET", f"/threads/{tid}/runs/{rid}/stream?cancel_on_disconnect=true", None, NOT_FOUND)
        for tid, rid in sharer["runs"]
    ]
    plan += [("GET", f"/ui/api/tree/{t}", None, NOT_FOUND) for t in sharer["trees"]]
    plan += [("GET", f"/ui/api/chunk/{c}", None, NOT_FOUND) for c in sharer["chunks"]]
    return plan


def test_a_sharing_tenants_users_read_each_others_threads_and_change_nothing(world, sharer, victim):
    """b2 reads b1's threads and trees; a1, a2 (acme) see none of b1's; a2 none of a1's."""
    tokens = world["tokens"]
    tid, rid = sharer["runs"][0]

    async def go() -> Ledger:
        ledger = Ledger()
        async with httpx.AsyncClient(base_url=world["url"], timeout=120) as http:
            before = (await http.get(f"/threads/{tid}/state", headers=headers(tokens["b1"]))).text
            await _reader_reads(ledger, http, tokens, sharer)
            for method, path, body, allowed in _reader_writes(tid, rid):
                await _probe(ledger, http, "b2", tokens["b2"], method, path, body, allowed, [])
            # The owner keeps every right: the cancelling join is refused to readers only.
            owner_join = f"/threads/{tid}/runs/{rid}/join?cancel_on_disconnect=true"
            await _probe(ledger, http, "b1", tokens["b1"], "GET", owner_join, None, {200}, [])
            for attacker in ("a1", "a2"):  # another tenant: b1's threads do not exist
                for method, path, body, allowed in _other_tenant(sharer):
                    await _probe(
                        ledger,
                        http,
                        attacker,
                        tokens[attacker],
                        method,
                        path,
                        body,
                        allowed,
                        [*sharer["secrets"], UPLOAD_SECRET],
                    )
            # acme does not share: a2 still finds nothing of a1's, and lists none of it.
            for method, path, body, allowed in [
                ("GET", f"/threads/{victim['threads'][0]}", None, NOT_FOUND),
                ("GET", f"/threads/{victim['threads'][0]}/state", None, NOT_FOUND),
                ("GET", f"/ui/api/tree/{victim['trees'][0]}", None, NOT_FOUND),
                ("POST", "/threads/search", {"limit": 100}, {200}),
                ("POST", "/threads/search", {"metadata": {"tenant": "acme"}}, {200}),
            ]:
                text = await _probe(
                    ledger,
                    http,
                    "a2",
                    tokens["a2"],
                    method,
                    path,
                    body,
                    allowed,
                    victim["secrets"][1:],
                )
                if path == "/threads/search":  # a 404 may echo the id it was asked for
                    assert not any(t in text for t in victim["threads"]), text[:300]
            after = await http.get(f"/threads/{tid}/state", headers=headers(tokens["b1"]))
            owned = await http.get(f"/threads/{tid}", headers=headers(tokens["b1"]))
        assert after.status_code == 200 and after.text == before  # b1's thread is untouched
        assert owned.json()["metadata"]["owner"] == "b1"
        assert "taken by b2" not in owned.text
        return ledger

    ledger = asyncio.run(go())
    print(f"\ntenant sharing probes: {ledger.probes} probes, {len(ledger.leaks)} leaks")
    assert not ledger.leaks, "\n".join(ledger.leaks[:20])
    assert not ledger.wrong_status, "\n".join(ledger.wrong_status[:30])


def _upload(url: str, token: str) -> tuple[int, list[dict[str, Any]]]:
    """Upload the lighthouse log through the page's route as the token's user."""
    parts = [("files", ("lighthouse.md", UPLOAD, "application/octet-stream"))]
    with httpx.Client(base_url=url, timeout=300) as client:
        with client.stream(
            "POST", "/ui/api/docs/upload", files=parts, headers=headers(token)
        ) as response:
            response.read()
            if response.status_code != 200:
                return response.status_code, [response.json()]
            return 200, [json.loads(line) for line in response.iter_lines() if line]


def test_a_valid_upload_is_searched_by_its_tenant_only(world):
    """b1 uploads a document: globex searches and lists it; acme's every read misses it."""
    tokens = world["tokens"]
    status, events = _upload(world["url"], tokens["b1"])
    assert status == 200, events
    done = {"event": "file_done", "name": "lighthouse.md", "chunks_added": 1, "status": "added"}
    assert done in events, events
    assert events[-1]["event"] == "finished" and events[-1]["added"] == ["lighthouse.md"]

    async def go() -> Ledger:
        ledger = Ledger()
        async with httpx.AsyncClient(base_url=world["url"], timeout=180) as http:
            own = await run_rag(http, tokens["b1"], UPLOAD_QUESTION)
            assert UPLOAD_SECRET in json.dumps(own["values"]), (own, server_log(world["url"]))
            cited = own["values"]["citations"]
            ids = [c["chunk_id"] for c in cited if c["source"].endswith("lighthouse.md")]
            docs = await http.get("/ui/api/docs", headers=headers(tokens["b2"]))
            uploaded = [
                d["source"]
                for d in docs.json()["documents"]
                if d["source"].endswith("lighthouse.md")
            ]
            assert len(uploaded) == 1 and ids, (docs.text, ids)
            source = urllib.parse.quote(uploaded[0], safe="")
            for attacker in ("a1", "a2"):
                token = tokens[attacker]
                for method, path, allowed in [
                    ("GET", "/ui/api/docs", {200}),
                    *[("GET", f"/ui/api/chunk/{c}", NOT_FOUND) for c in ids],
                    ("DELETE", f"/ui/api/docs?source={source}", NOT_FOUND),
                ]:
                    text = await _probe(
                        ledger,
                        http,
                        attacker,
                        token,
                        method,
                        path,
                        None,
                        allowed,
                        [UPLOAD_SECRET, "lighthouse"],
                    )
                rag = await run_rag(http, token, UPLOAD_QUESTION)
                chat = await run_chat(http, token, UPLOAD_QUESTION)
                for name, values in (("rag", rag["values"]), ("chat", chat["values"])):
                    text = json.dumps(values)
                    ledger.check(f"{attacker} {name} run", 200, text, {200}, [UPLOAD_SECRET])
                    assert "lighthouse.md" not in text, text[:500]
            docs_after = await http.get("/ui/api/docs", headers=headers(tokens["b1"]))
            assert uploaded[0] in docs_after.text  # acme's delete did not remove globex's file
        return ledger

    ledger = asyncio.run(go())
    print(f"\ntenant upload probes: {ledger.probes} probes, {len(ledger.leaks)} leaks")
    assert not ledger.leaks, "\n".join(ledger.leaks[:20])
    assert not ledger.wrong_status, "\n".join(ledger.wrong_status[:30])


def test_the_page_shows_a_teammates_thread_read_only_and_asks_in_a_chat_of_ones_own(world, sharer):
    """In Chromium as b2: b1's chat is listed as shared (no rename/delete), opens with its
    answer and search tree; a question then starts b2's own chat, and b1's thread is unchanged."""
    from tests.clients.web_support import CHROMIUM, CHROMIUM_FLAGS, require_chromium

    require_chromium()
    from playwright.sync_api import sync_playwright

    tid = sharer["threads"][0]
    b1 = headers(world["tokens"]["b1"])
    before = httpx.get(f"{world['url']}/threads/{tid}/state", headers=b1, timeout=60).text
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=str(CHROMIUM), args=CHROMIUM_FLAGS, headless=True
        )
        page = browser.new_page(bypass_csp=True)  # lets the test evaluate its wait predicates
        page.on("dialog", lambda dialog: dialog.accept(world["tokens"]["b2"]))
        page.goto(f"{world['url']}/ui")
        item = page.wait_for_selector(f'li.thread[data-thread-id="{tid}"]', timeout=60_000)
        listed = item.inner_text()
        buttons = len(item.query_selector_all(".rename, .delete"))
        item.query_selector(".thread-item").click()
        page.wait_for_function(
            "document.body.dataset.busy === '0' && document.querySelector('.msg.ai')"
            " && document.querySelector('#trees .chunk-head')",
            timeout=120_000,
        )
        answer = page.inner_text(".msg.ai .answer")
        status = page.inner_text("#status")
        page.fill("#question", "Who wrote the launch plan?")
        page.click("#send")
        page.wait_for_function(
            f"document.body.dataset.busy === '0' && location.hash.includes('thread=')"
            f" && !location.hash.includes('{tid}') && document.querySelector('.msg.ai .answer')",
            timeout=180_000,
        )
        own = urllib.parse.unquote(page.evaluate("location.hash").split("thread=", 1)[1])
        browser.close()
    assert "shared by b1" in listed and buttons == 0, listed
    assert SECRETS["globex"] in answer
    assert "read-only" in status, status
    made = httpx.get(f"{world['url']}/threads/{own}", headers=b1, timeout=60)
    assert made.status_code == 200 and made.json()["metadata"]["owner"] == "b2"  # shared, b2's
    after = httpx.get(f"{world['url']}/threads/{tid}/state", headers=b1, timeout=60).text
    assert after == before
