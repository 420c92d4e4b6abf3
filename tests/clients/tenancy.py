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
