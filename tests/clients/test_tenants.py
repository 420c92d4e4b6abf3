"""Attack suite: users of one tenant try every path to another's threads, trees and chunks.

A real `langgraph dev` with a users file, real Milvus Lite holding two tenants whose
documents share titles and most of their text. Users a1, a2 (tenant acme, threads private) and
b1, b2 (tenant globex, which shares threads among its own users: its users' read filter is
the tenant, and it must still stop at the tenant). a1 runs questions; then b1, b2 (other
tenant) and a2 (same tenant, other owner) probe a1's thread ids, run ids, tree ids and chunk ids through the API, the web
routes and crafted tenant names. Every probe must answer with the right status and not one
byte of a1's secrets; the counts of probes and leaks are printed.
"""

from __future__ import annotations

import asyncio
import json
import sqlite3
import subprocess
import sys
import urllib.parse
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.clients.server import offline_env, server_log
from tests.clients.tenancy import (
    NOT_FOUND,
    QUESTION_MARK,
    SECRETS,
    Ledger,
    headers,
    request,
    run_probes,
    run_rag,
    thread_probes,
)

pytestmark = pytest.mark.slow

CRAFTED_TENANTS = [
    "acme",
    "ACME",
    "Acme",
    "../acme",
    "acme/..",
    "..",
    "tenants/acme",
    "/acme",
    "ａｃｍｅ",  # fullwidth: NFKC folds it to "acme"
    "\u0430cme",  # Cyrillic а: looks like "acme"
    "",
    "a" * 5000,
    "acme\x00",
]
REFUSED = {401, 403, 404}


def web_probes(victim: dict[str, Any], same_tenant: bool) -> list[tuple[str, str, Any, set[int]]]:
    """Probes of the web routes: trees and chunks of another's runs.

    Documents belong to the tenant: a user of the same tenant reads its chunks (200), only
    another tenant's user must find nothing.
    """
    chunk_status = {200} if same_tenant else NOT_FOUND
    out = [("GET", f"/ui/api/tree/{t}", None, NOT_FOUND) for t in victim["trees"]]
    out += [("GET", f"/ui/api/chunk/{c}", None, chunk_status) for c in victim["chunks"]]
    out += [("GET", f"/ui/api/chunk/{c}/document", None, chunk_status) for c in victim["chunks"]]
    # The graph explorer reads the caller's own graphs: a chunk id is no entity, and a search
    # of a name both tenants use answers from the caller's documents (no secret in it).
    out += [("GET", "/ui/api/graph/search?q=launch%20plan", None, {200})]
    out += [("GET", f"/ui/api/graph/entity?id={c}", None, {404}) for c in victim["chunks"][:1]]
    out += [
        # Encoded, so the client does not fold the `..` away before the server sees it.
        ("GET", f"/ui/api/tree/..%2F{victim['trees'][0]}", None, {400, 404}),
        ("GET", f"/ui/api/tree/%2e%2e%2Facme%2F{victim['trees'][0]}", None, {400, 404}),
        ("GET", f"/ui/api/tree/acme/{victim['trees'][0]}", None, {400, 404}),
        ("GET", f"/ui/api/tree/{victim['threads'][0]}-t1%2F..%2F1", None, {400, 404}),
        ("GET", f"/ui/api/chunk/..%2F{victim['chunks'][0]}", None, {400, 404}),
    ]
    return out


def document_probes(acme_plan: str) -> list[tuple[str, str, Any, set[int]]]:
    """The document routes: list, delete and upload aimed at acme's files, rebuild, settings."""
    quoted = urllib.parse.quote(acme_plan, safe="")
    return [
        ("GET", "/ui/api/docs", None, {200}),
        ("GET", "/ui/api/docs/count", None, {200}),
        ("DELETE", f"/ui/api/docs?source={quoted}", None, NOT_FOUND),
        ("DELETE", "/ui/api/docs?source=plan.md", None, NOT_FOUND),
        (
            "DELETE",
            f"/ui/api/docs?source={urllib.parse.quote('../acme/plan.md')}",
            None,
            {400, 404},
        ),
        ("POST", "/ui/api/docs/rebuild", None, {200}),
        ("GET", "/ui/api/settings", None, {200}),
    ]


def context_probes(own_thread: str) -> list[tuple[str, str, Any, set[int]]]:
    """Runs on the attacker's own thread asking, through the run context, for acme's data."""
    out = []
    for tenant in CRAFTED_TENANTS:
        for key, value in (
            ("tenant", tenant),
            ("collection", f"treerag_chunks__t_{tenant[:40]}"),
            ("data_dir", f"./data/tenants/{tenant[:40]}"),
        ):
            body = {
                "assistant_id": "rag",
                "input": {"question": "What is the launch plan code name?"},
                "context": {key: value, "max_depth": 0},
            }
            out.append(("POST", f"/threads/{own_thread}/runs/wait", body, {200, 422}))
    return out


async def probe_all(http, ledger, attacker, token, victim, own_thread, secrets, acme_plan) -> None:
    """Make every probe as `attacker`; record statuses and leaks in the ledger."""
    plan = [p for tid in victim["threads"] for p in thread_probes(tid)]
    plan += [p for tid, rid in victim["runs"] for p in run_probes(tid, rid)]
    plan += web_probes(victim, same_tenant=attacker.startswith("a"))
    if attacker.startswith("b"):  # another tenant: its runs must never see acme's chunks
        plan += context_probes(own_thread)
        plan += document_probes(acme_plan)
    for method, path, body, allowed in plan:
        status, text = await request(http, method, path, token, body)
        ledger.check(f"{attacker} {method} {path} {body}", status, text, allowed, secrets)


async def probe_credentials(http, ledger, victim, tokens, secrets) -> None:
    """Requests without a valid token: all 401 on the API and on the web routes."""
    a1_hash = __import__("hashlib").sha256(tokens["a1"].encode()).hexdigest()
    tid = victim["threads"][0]
    paths = [
        ("GET", f"/threads/{tid}"),
        ("POST", "/threads/search"),
        ("GET", f"/ui/api/tree/{victim['trees'][0]}"),
        ("GET", f"/ui/api/chunk/{victim['chunks'][0]}"),
        ("GET", f"/ui/api/chunk/{victim['chunks'][0]}/document"),
        ("GET", "/ui/api/docs"),
        ("POST", "/ui/api/docs/rebuild"),
        ("GET", "/ui/api/settings"),
    ]
    bad_headers = [
        {},
        {"Authorization": "Bearer"},
        {"Authorization": f"Basic {tokens['a1']}"},
        {"Authorization": f"Bearer {a1_hash}"},
        {"Authorization": f"Bearer {tokens['a1']}x"},
        {"Authorization": "Bearer " + "x" * 10_000},
        {"x-auth-scheme": "langsmith"},
        {"x-auth-scheme": "langsmith", "Authorization": "Bearer nope"},
    ]
    for method, path in paths:
        for hdrs in bad_headers:
            body = "{}" if method == "POST" else None
            response = await http.request(method, path, headers=hdrs, content=body)
            ledger.check(
                f"bad-credentials {method} {path}",
                response.status_code,
                response.text,
                {401},
                secrets,
            )


def test_no_probe_reaches_another_users_data(world, victim):
    """≥ 200 probes by b1, b2 (other tenant) and a2 (same tenant): 0 leaks, right statuses."""
    tokens = world["tokens"]

    async def attack() -> Ledger:
        ledger = Ledger()
        async with httpx.AsyncClient(base_url=world["url"], timeout=120) as http:
            for attacker in ("b1", "b2", "a2"):
                own = await http.post("/threads", headers=headers(tokens[attacker]), json={})
                assert own.status_code == 200, own.text
                assert own.json()["metadata"]["owner"] == attacker
                secrets = (
                    [*victim["secrets"], "/docs/acme/"]
                    if attacker[0] == "b"
                    else victim["secrets"][1:]
                )
                await probe_all(
                    http,
                    ledger,
                    attacker,
                    tokens[attacker],
                    victim,
                    own.json()["thread_id"],
                    secrets,
                    world["acme_plan"],
                )
            await probe_credentials(http, ledger, victim, tokens, victim["secrets"])
            # After all of it, a1's threads and documents are intact and still a1's.
            docs = await http.get("/ui/api/docs", headers=headers(tokens["a1"]))
            assert world["acme_plan"] in docs.text, docs.text
            for tid in victim["threads"]:
                mine = await http.get(f"/threads/{tid}/state", headers=headers(tokens["a1"]))
                assert mine.status_code == 200 and QUESTION_MARK["acme"] in mine.text
        return ledger

    ledger = asyncio.run(attack())
    print(f"\ntenant attack suite: {ledger.probes} probes, {len(ledger.leaks)} leaks")
    assert not ledger.leaks, "\n".join(ledger.leaks[:20])
    assert not ledger.wrong_status, "\n".join(ledger.wrong_status[:30])
    assert ledger.probes >= 200


def test_a_thread_created_with_forged_metadata_is_stamped_with_its_real_owner(world):
    async def go() -> dict:
        async with httpx.AsyncClient(base_url=world["url"], timeout=60) as http:
            forged = {"metadata": {"owner": "a1", "tenant": "acme"}}
            made = await http.post("/threads", headers=headers(world["tokens"]["b1"]), json=forged)
            return made.json()

    assert go_meta(asyncio.run(go())) == {"owner": "b1", "tenant": "globex"}


def test_each_tenants_checkpoints_are_in_its_own_file(world, victim, sharer):
    """The server writes a1's threads and trees to acme's file alone, b1's to globex's alone."""

    def threads_in(tenant: str) -> set[str]:
        path = world["data"] / "tenants" / tenant / "checkpoints.sqlite"
        with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as conn:
            return {r[0] for r in conn.execute("SELECT DISTINCT thread_id FROM checkpoints")}

    acme, globex = threads_in("acme"), threads_in("globex")
    ours = set(victim["threads"]) | {t for t in victim["trees"] if "/" not in t}
    theirs = set(sharer["threads"]) | {t for t in sharer["trees"] if "/" not in t}
    assert ours <= acme and theirs <= globex
    assert not any(t.startswith(tuple(ours)) for t in globex)
    assert not any(t.startswith(tuple(theirs)) for t in acme)


def go_meta(thread: dict) -> dict:
    return {k: thread["metadata"][k] for k in ("owner", "tenant")}


def test_the_other_tenant_answers_from_its_own_documents(world):
    """The same question by b1 finds globex's plan (same title), never acme's."""

    async def go() -> dict:
        async with httpx.AsyncClient(base_url=world["url"], timeout=120) as http:
            return await run_rag(http, world["tokens"]["b1"], "What is the launch plan code name?")

    values = asyncio.run(go())["values"]
    text = str(values)
    assert SECRETS["globex"] in text and SECRETS["acme"] not in text


def test_revoked_token_is_refused_at_once(world):
    token = world["tokens"]["r1"]

    async def search() -> int:
        async with httpx.AsyncClient(base_url=world["url"], timeout=60) as http:
            return (await http.post("/threads/search", headers=headers(token), json={})).status_code

    assert asyncio.run(search()) == 200
    revoke("r1", world["users_file"])
    assert asyncio.run(search()) == 401


def revoke(name: str, users_file: Path) -> None:
    subprocess.run(
        [sys.executable, "-m", "treerag", "users", "revoke", name],
        env=offline_env("unused", TREERAG_AUTH_FILE=str(users_file)),
        check=True,
        capture_output=True,
        timeout=120,
    )


def test_cli_tenant_option_refuses_crafted_names_and_stays_in_its_tenant(world):
    """`treerag --tenant globex search` never prints acme's text; crafted names exit 2."""
    env = offline_env(world["cli_data"])
    probes = leaks = 0
    for tenant in [t for t in CRAFTED_TENANTS if t not in ("acme", "ACME", "Acme", "ａｃｍｅ")]:
        if "\x00" in tenant:
            continue  # an argv cannot carry NUL
        out = subprocess.run(
            [sys.executable, "-m", "treerag", "--tenant", tenant, "search", "launch plan"],
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
        )
        probes += 1
        leaks += SECRETS["acme"] in out.stdout + out.stderr
        assert out.returncode == 2, (tenant, out.stdout, out.stderr)
    out = subprocess.run(
        [sys.executable, "-m", "treerag", "--tenant", "globex", "search", "launch plan code"],
        env={**env, "TREERAG_TENANT": "acme"},
        capture_output=True,
        text=True,
        timeout=120,
    )
    probes += 1
    leaks += SECRETS["acme"] in out.stdout
    print(f"\nCLI tenant probes: {probes} probes, {leaks} leaks")
    assert out.returncode == 0, out.stderr
    assert SECRETS["globex"] in out.stdout
    assert leaks == 0


def test_a_run_in_flight_stops_streaming_when_its_user_is_revoked(world):
    """Revoking r2 while its run streams: the run fails at its next step, no answer follows."""
    from treerag.server.users import revoke_user

    token = world["tokens"]["r2"]

    async def go() -> tuple[list[str], list[Any]]:
        seen: list[str] = []
        errors: list[Any] = []
        async with httpx.AsyncClient(base_url=world["url"], timeout=120) as http:
            thread = (await http.post("/threads", headers=headers(token), json={})).json()
            body = {
                "assistant_id": "rag",
                "input": {"question": "Who wrote the launch plan and where does it start?"},
                "context": {"max_depth": 2},
                "stream_mode": ["custom"],
            }
            path = f"/threads/{thread['thread_id']}/runs/stream"
            async with http.stream("POST", path, headers=headers(token), json=body) as response:
                assert response.status_code == 200
                event = ""
                async for line in response.aiter_lines():
                    if line.startswith("event: "):
                        event = line[7:]
                    elif line.startswith("data: ") and event == "custom":
                        seen.append(json.loads(line[6:])["event"])
                        if seen == ["run_started"]:
                            revoke_user(world["users_file"], "r2")
                    elif line.startswith("data: ") and event == "error":
                        errors.append(json.loads(line[6:]))
        return seen, errors

    seen, errors = asyncio.run(go())
    assert "answer_finished" not in seen, seen
    assert errors and "RevokedError" in json.dumps(errors), (seen, errors)


def test_the_web_page_asks_for_a_token_and_shows_only_its_tenant(world, victim):
    """In Chromium: the first 401 asks for b1's token; the answer and thread list are globex's."""
    from tests.clients.web_support import CHROMIUM, CHROMIUM_FLAGS, require_chromium

    require_chromium()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=str(CHROMIUM), args=CHROMIUM_FLAGS, headless=True
        )
        page = browser.new_page(bypass_csp=True)  # lets the test evaluate its wait predicate
        asked: list[str] = []

        def answer_dialog(dialog: Any) -> None:
            asked.append(dialog.message)
            dialog.accept(world["tokens"]["b1"])

        page.on("dialog", answer_dialog)
        page.goto(f"{world['url']}/ui")
        page.wait_for_selector("#thread-list")
        page.fill("#question", "What is the launch plan code name?")
        page.click("#send")
        page.wait_for_function(
            "document.body.dataset.busy === '0' && document.querySelector('.msg.ai')",
            timeout=180_000,
        )
        answer = page.inner_text(".msg.ai .answer")
        html = page.content()
        browser.close()
    assert asked and "token" in asked[0]
    assert SECRETS["globex"] in answer
    assert SECRETS["acme"] not in html and QUESTION_MARK["acme"] not in html


def test_the_server_says_at_start_up_whether_it_authenticates(world, server_url):
    """With a users file: bearer tokens; without one (the shared test server): local mode."""
    assert "every request needs a bearer token" in server_log(world["url"])
    assert "single-user local mode" in server_log(server_url)
