"""Two tenants on one real `langgraph dev`: their documents, users, and a probe ledger.

Tenants `acme` and `globex` hold documents with the same titles and mostly the same text;
each has one secret line of its own. Every user's token, thread and run is recorded here so
the attack tests can try one tenant's things with another's credentials.
"""

from __future__ import annotations

import json
import subprocess
import sys
import urllib.parse
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

from tests.clients.server import offline_env

USERS = {
    "a1": "acme",
    "a2": "acme",
    "b1": "globex",
    "b2": "globex",
    "r1": "globex",
    "r2": "globex",
}
SHARING_TENANT = "globex"
"""The tenant whose users read each other's threads (acme keeps every thread private)."""
SECRETS = {"acme": "ZEBRA-ACME-4471", "globex": "ZEBRA-GLOBEX-9902"}
QUESTION_MARK = {"acme": "QMARK-ACME-58", "globex": "QMARK-GLOBEX-61"}
SHARED_TEXT = (
    "Harbour notes\n\nThe harbour of Quillhaven opens at dawn. Fishers unload at the north "
    "quay and the market hall sells the catch before noon. Both firms use the same quay.\n"
)


def plan_text(secret: str) -> str:
    """The secret plan document of a tenant: same title and shape, its own code name."""
    return (
        "Launch plan\n\nThe launch plan of the firm is code-named "
        f"{secret}. The launch happens at the north quay of Quillhaven at dawn, "
        "after the fishers unload. The plan was written by the harbour master.\n"
    )


_INGEST = """
import sys
from pathlib import Path
from treerag.context import Context
from treerag.ingest.indexer import ingest
for tenant, folder in zip(sys.argv[2::2], sys.argv[3::2]):
    report = ingest([Path(folder)], Context(data_dir=sys.argv[1], tenant=tenant))
    assert not report.skipped and report.total_chunks >= 2, report
"""


def ingest_tenants(
    data_dir: Path, docs_root: Path, secrets: dict[str, str] = SECRETS
) -> dict[str, Path]:
    """Write and ingest each tenant's two documents (in a child process); return their folders."""
    folders = {}
    for tenant, secret in secrets.items():
        folder = docs_root / tenant
        folder.mkdir(parents=True)
        (folder / "plan.md").write_text(plan_text(secret))
        (folder / "harbour.md").write_text(SHARED_TEXT)
        folders[tenant] = folder
    args = [x for t, f in folders.items() for x in (t, str(f))]
    result = subprocess.run(
        [sys.executable, "-c", _INGEST, str(data_dir), *args],
        env=offline_env(data_dir),
        capture_output=True,
        text=True,
        timeout=300,
    )
    if result.returncode != 0:
        raise RuntimeError(f"ingesting the tenants failed:\n{result.stderr[-4000:]}")
    return folders


def add_users(users_file: Path, names: dict[str, str]) -> dict[str, str]:
    """Add users (name -> tenant) with `treerag users add`; return name -> token."""
    tokens = {}
    for name, tenant in names.items():
        out = subprocess.run(
            [sys.executable, "-m", "treerag", "users", "add", name, "--tenant", tenant],
            env=offline_env("unused", TREERAG_AUTH_FILE=str(users_file)),
            capture_output=True,
            text=True,
            timeout=120,
            check=True,
        )
        tokens[name] = out.stdout.strip().splitlines()[-1]
    return tokens


def share_threads(users_file: Path, tenant: str) -> None:
    """Let `tenant`'s users read each other's threads, with `treerag users share`."""
    subprocess.run(
        [sys.executable, "-m", "treerag", "users", "share", tenant],
        env=offline_env("unused", TREERAG_AUTH_FILE=str(users_file)),
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )


@dataclass
class Ledger:
    """Every probe made and every leak found; the test prints both counts."""

    probes: int = 0
    leaks: list[str] = field(default_factory=list)
    wrong_status: list[str] = field(default_factory=list)

    def check(self, name: str, status: int, body: str, allowed: set[int], secrets: list[str]):
        """Record one probe: its status must be allowed and its body hold none of `secrets`.

        A secret the probe itself sent (it is in `name`, the request) may come back in an
        error message: an echo of the caller's own input tells them nothing.
        """
        self.probes += 1
        secrets = [s for s in secrets if urllib.parse.unquote(s) not in urllib.parse.unquote(name)]
        # A stream endpoint has sent its 200 before it looks the thread up: it then streams
        # one error event with the 404, and nothing else.
        if status == 200 and body.startswith("event: error") and "404" in body:
            status = 404
        found = [s for s in secrets if s and s in body]
        if found:
            self.leaks.append(f"{name[:200]}: {status} leaked {found}: {body[:300]}")
        if status not in allowed:
            self.wrong_status.append(
                f"{name[:200]}: {status} not in {sorted(allowed)}: {body[:200]}"
            )


def headers(token: str | None) -> dict[str, str]:
    """Request headers carrying a bearer token (none when `token` is None)."""
    return {"Authorization": f"Bearer {token}"} if token is not None else {}


async def request(
    http: httpx.AsyncClient, method: str, path: str, token: str | None, body: Any = None
) -> tuple[int, str]:
    """Send one request; return status and the whole body as text (streams read to the end)."""
    content = json.dumps(body) if body is not None else None
    hdrs = {**headers(token), "Content-Type": "application/json"}
    async with http.stream(method, path, content=content, headers=hdrs) as response:
        raw = await response.aread()
    return response.status_code, raw.decode("utf-8", errors="replace")


NOT_FOUND = {404}


async def run_chat(http: httpx.AsyncClient, token: str, question: str) -> dict[str, Any]:
    """Create a thread, run one chat turn to the end; return thread, run and what it produced."""
    status, body = await request(http, "POST", "/threads", token, {})
    assert status == 200, body
    thread = httpx.Response(200, content=body).json()
    run = await http.post(
        f"/threads/{thread['thread_id']}/runs/wait",
        headers=headers(token),
        json={
            "assistant_id": "chat",
            "input": {"messages": [{"type": "human", "content": question}]},
            "context": {"max_depth": 1},
        },
    )
    assert run.status_code == 200, run.text
    runs = await http.get(f"/threads/{thread['thread_id']}/runs", headers=headers(token))
    return {
        "thread_id": thread["thread_id"],
        "run_id": runs.json()[0]["run_id"],
        "values": run.json(),
        "metadata": thread["metadata"],
    }


async def run_rag(http: httpx.AsyncClient, token: str, question: str) -> dict[str, Any]:
    """Run the rag graph on a new thread; return thread id and final values."""
    thread = (await http.post("/threads", headers=headers(token), json={})).json()
    run = await http.post(
        f"/threads/{thread['thread_id']}/runs/wait",
        headers=headers(token),
        json={"assistant_id": "rag", "input": {"question": question}, "context": {"max_depth": 1}},
    )
    assert run.status_code == 200, run.text
    return {"thread_id": thread["thread_id"], "values": run.json()}


async def owner_runs(http: httpx.AsyncClient, token: str, tenant: str) -> dict[str, Any]:
    """A user's chat thread and rag thread in `tenant`, with everything a prober might name."""
    chat = await run_chat(
        http, token, f"What is the launch plan code name? {QUESTION_MARK[tenant]}"
    )
    rag = await run_rag(http, token, f"Who wrote the launch plan? {QUESTION_MARK[tenant]}")
    reply = chat["values"]["messages"][-1]
    assert SECRETS[tenant] in reply["content"], reply  # the user reads its tenant's documents
    tree_id = reply["additional_kwargs"]["treerag"]["tree_thread_id"]
    tree = await http.get(f"/ui/api/tree/{tree_id}", headers=headers(token))
    assert tree.status_code == 200, tree.text
    chunk_ids = {c["chunk_id"] for c in tree.json()["chunks"]}
    chunk_ids |= {c["chunk_id"] for c in rag["values"].get("chunks", [])}
    for chunk_id in chunk_ids:
        own = await http.get(f"/ui/api/chunk/{chunk_id}", headers=headers(token))
        assert own.status_code == 200, own.text
    return {
        "threads": [chat["thread_id"], rag["thread_id"]],
        "runs": [(chat["thread_id"], chat["run_id"])],
        "trees": [tree_id, f"{tree_id}/1", rag["thread_id"], f"{rag['thread_id']}/1"],
        "chunks": sorted(chunk_ids),
        "secrets": [
            SECRETS[tenant],
            QUESTION_MARK[tenant],
            own_words(reply["content"], SECRETS[tenant]),
        ],
    }


def own_words(answer: str, secret: str) -> str:
    """The part of a reply only its tenant has: the tenants' documents share their wording, so
    the reply's opening reads the same in both; the 60 characters around the secret do not."""
    at = answer.index(secret)
    return answer[max(0, at - 30) :][:60]


def thread_probes(tid: str) -> list[tuple[str, str, Any, set[int]]]:
    """(method, path, body, allowed statuses) for every thread route, on another's thread."""
    run = {"assistant_id": "chat", "input": {"messages": [{"type": "human", "content": "hi"}]}}
    return [
        ("GET", f"/threads/{tid}", None, NOT_FOUND),
        ("GET", f"/threads/{tid}/state", None, NOT_FOUND),
        ("GET", f"/threads/{tid}/state/checkpoint-none", None, {404, 422}),
        ("POST", f"/threads/{tid}/state/checkpoint", {"checkpoint": {}}, {404, 422}),
        ("GET", f"/threads/{tid}/history", None, NOT_FOUND),
        ("POST", f"/threads/{tid}/history", {"limit": 10}, NOT_FOUND),
        ("GET", f"/threads/{tid}/runs", None, {200, 404}),
        ("GET", f"/threads/{tid}/stream", None, NOT_FOUND),
        ("POST", f"/threads/{tid}/runs", run, NOT_FOUND),
        ("POST", f"/threads/{tid}/runs/wait", run, NOT_FOUND),
        ("POST", f"/threads/{tid}/runs/stream", run, NOT_FOUND),
        ("POST", f"/threads/{tid}/state", {"values": {"question": "x"}}, NOT_FOUND),
        ("PATCH", f"/threads/{tid}", {"metadata": {"owner": "b1"}}, NOT_FOUND),
        ("POST", f"/threads/{tid}/copy", {}, {403, 404, 409}),  # 403: copies off in sharing tenants
        ("DELETE", f"/threads/{tid}", None, NOT_FOUND),
        ("POST", "/threads", {"thread_id": tid, "if_exists": "do_nothing"}, {404, 409}),
        ("POST", "/threads/search", {"ids": [tid]}, {200}),
        ("POST", "/threads/search", {"metadata": {"owner": "a1"}}, {200}),
    ]


def run_probes(tid: str, rid: str) -> list[tuple[str, str, Any, set[int]]]:
    """Probes of one of another's runs."""
    return [
        ("GET", f"/threads/{tid}/runs/{rid}", None, NOT_FOUND),
        ("GET", f"/threads/{tid}/runs/{rid}/join", None, NOT_FOUND),
        ("GET", f"/threads/{tid}/runs/{rid}/stream", None, NOT_FOUND),
        ("POST", f"/threads/{tid}/runs/{rid}/cancel", None, NOT_FOUND),
        ("DELETE", f"/threads/{tid}/runs/{rid}", None, NOT_FOUND),
    ]
