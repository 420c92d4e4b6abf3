"""20 users of 4 tenants ask at once on one real `langgraph dev`: every run completes in its tenant."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import httpx
import pytest

from tests.clients.server import langgraph_server, server_log, server_stacks
from tests.clients.tenancy import add_users, headers, ingest_tenants

pytestmark = pytest.mark.slow

TENANTS = {f"firm{i}": f"ZEBRA-FIRM{i}-{1000 + 37 * i}" for i in range(4)}
USERS = {f"u{j}": f"firm{j % 4}" for j in range(20)}
ALL_DONE_S = 300.0
"""Time for all 20 runs (each takes seconds): past it the server is stuck, and the failure
shows every thread of the server (`server_stacks`) instead of running into the test timeout."""


async def ask(http: httpx.AsyncClient, token: str) -> tuple[int, str, float]:
    """One user's rag run on a thread of their own; status, final values as text, seconds."""
    start = time.perf_counter()
    thread = await http.post("/threads", headers=headers(token), json={})
    if thread.status_code != 200:
        return thread.status_code, thread.text, 0.0
    run = await http.post(
        f"/threads/{thread.json()['thread_id']}/runs/wait",
        headers=headers(token),
        json={
            "assistant_id": "rag",
            "input": {"question": "What is the launch plan code name?"},
            "context": {"max_depth": 0},
        },
    )
    return run.status_code, run.text, time.perf_counter() - start


def test_twenty_concurrent_users_of_four_tenants(tmp_path):
    data = tmp_path / "data"
    ingest_tenants(data, tmp_path / "docs", TENANTS)
    tokens = add_users(tmp_path / "users.yaml", USERS)
    env = {"TREERAG_AUTH_FILE": str(tmp_path / "users.yaml")}
    with langgraph_server(data, env_extra=env) as url:

        async def everyone() -> tuple[list[Any], int]:
            async with httpx.AsyncClient(base_url=url, timeout=ALL_DONE_S + 60) as http:
                tasks = [asyncio.ensure_future(ask(http, tokens[u])) for u in USERS]
                done, pending = await asyncio.wait(tasks, timeout=ALL_DONE_S)
                for task in pending:
                    task.cancel()
                return [t.result() for t in tasks if t in done], len(pending)

        start = time.perf_counter()
        results, stuck = asyncio.run(everyone())
        wall = time.perf_counter() - start
        if stuck:
            pytest.fail(
                f"{stuck} of 20 runs had not come back in {ALL_DONE_S:.0f} s:\n"
                f"{server_stacks(url)[-30000:]}"
            )
        log = server_log(url)
    failed = [(u, r[0], r[1][:200]) for u, r in zip(USERS, results, strict=True) if r[0] != 200]
    assert not failed, f"{failed}\n{log[-4000:]}"
    crossed = []
    for (user, tenant), (_, text, _) in zip(USERS.items(), results, strict=True):
        others = [s for t, s in TENANTS.items() if t != tenant and s in text]
        if TENANTS[tenant] not in text or others:
            crossed.append((user, tenant, others))
    slowest = max(r[2] for r in results)
    print(
        f"\n20 users / 4 tenants: all runs in {wall:.1f} s, slowest {slowest:.1f} s, "
        f"{len(crossed)} runs saw another tenant's data"
    )
    assert not crossed, crossed
