"""Client fixtures: one ingested sample corpus and one `langgraph dev` server per session."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.clients.server import copy_data, ingest_sample, langgraph_server


@pytest.fixture(scope="session")
def sample_data(tmp_path_factory) -> Path:
    """A data directory built as `make demo` builds it (chunks, keyword tree, graph); copy it."""
    return ingest_sample(tmp_path_factory.mktemp("clients") / "sample")


@pytest.fixture
def data_copy(sample_data, tmp_path) -> Path:
    """This test's own copy of the ingested data (Milvus Lite serves one process per file)."""
    return copy_data(sample_data, tmp_path / "data")


@pytest.fixture(scope="session")
def server_url(sample_data, tmp_path_factory) -> Iterator[str]:
    """Base URL of a `langgraph dev` server on 127.0.0.1 serving langgraph.json.

    It runs as the README says after `make demo`: no `--allow-blocking`, data in `./data`.
    """
    data = copy_data(sample_data, tmp_path_factory.mktemp("server") / "data")
    with langgraph_server(data, relative_data=True) as url:
        yield url
