"""Client fixtures: one ingested sample corpus and one `langgraph dev` server per session;
two tenants behind a server with a users file for the tenant tests of this package."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.clients.server import copy_data, ingest_sample, langgraph_server, server_log
from tests.clients.tenancy import (
    SHARING_TENANT,
    USERS,
    add_users,
    ingest_tenants,
    owner_runs,
    share_threads,
)


@pytest.fixture(scope="session")
def sample_data(tmp_path_factory) -> Path:
    """A data directory built as `make demo` builds it (chunks, keyword tree, graph); copy it."""
    return ingest_sample(tmp_path_factory.mktemp("clients") / "sample")


@pytest.fixture
def data_copy(sample_data, tmp_path) -> Path:
    """This test's own copy of the ingested data (Milvus Lite serves one process per file)."""
    return copy_data(sample_data, tmp_path / "data")


@pytest.fixture(scope="session")
def server_data(sample_data, tmp_path_factory) -> Path:
    """The data directory the session's server serves (and starts in)."""
    return copy_data(sample_data, tmp_path_factory.mktemp("server") / "data")


@pytest.fixture(scope="session")
def server_url(server_data) -> Iterator[str]:
    """Base URL of a `langgraph dev` server on 127.0.0.1 serving langgraph.json.

    It runs as `make serve` runs it after `make demo`: no `--allow-blocking`, started in the
    data directory.
    """
    with langgraph_server(server_data) as url:
        yield url


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """Chromium for the web-page tests, one per test module."""
    from tests.clients.web_support import chromium

    with chromium() as browser:
        yield browser


@pytest.fixture(scope="module")
def world(tmp_path_factory) -> Iterator[dict[str, Any]]:
    """Ingested tenants, a users file (globex shares threads), and a server that authenticates.

    One per test module, stopped when the module ends (no idle server left for later tests).
    """
    root = tmp_path_factory.mktemp("tenants")
    data = root / "data"
    folders = ingest_tenants(data, root / "docs")
    cli_data = copy_data(data, root / "cli-data")  # Milvus Lite: one process per data file
    users_file = root / "users.yaml"
    tokens = add_users(users_file, USERS)
    share_threads(users_file, SHARING_TENANT)
    with langgraph_server(data, env_extra={"TREERAG_AUTH_FILE": str(users_file)}) as url:
        yield {
            "url": url,
            "data": data,
            "tokens": tokens,
            "users_file": users_file,
            "cli_data": cli_data,
            "acme_plan": str(folders["acme"] / "plan.md"),
        }


def _runs_of(world: dict[str, Any], user: str, tenant: str) -> dict[str, Any]:
    async def make() -> dict[str, Any]:
        async with httpx.AsyncClient(base_url=world["url"], timeout=120) as http:
            return await owner_runs(http, world["tokens"][user], tenant)

    try:
        return asyncio.run(make())
    except AssertionError as exc:
        raise AssertionError(f"{exc}\n--- log ---\n{server_log(world['url'])[-5000:]}") from exc


@pytest.fixture(scope="module")
def victim(world) -> dict[str, Any]:
    """a1's runs in acme, a tenant that keeps threads private (made once for all probes)."""
    return _runs_of(world, "a1", "acme")


@pytest.fixture(scope="module")
def sharer(world) -> dict[str, Any]:
    """b1's runs in globex, the tenant that shares threads (made once)."""
    return _runs_of(world, "b1", SHARING_TENANT)
