"""The sample corpus ingested once into Milvus Lite; per-test settings with their own stores."""

from __future__ import annotations

import itertools
from importlib import resources
from pathlib import Path

import pytest

from treerag.context import Context
from treerag.ingest.indexer import ingest
from treerag.models import register_chat_model

_names = itertools.count()


@pytest.fixture(scope="session")
def sample_milvus(tmp_path_factory) -> str:
    docs = Path(str(resources.files("treerag") / "sample_corpus" / "docs"))
    data = tmp_path_factory.mktemp("sample")
    ctx = Context(data_dir=str(data), collection="sample")
    report = ingest([docs], ctx)
    assert not report.skipped and report.total_chunks > 10
    return ctx.resolved_milvus_uri


@pytest.fixture
def make_ctx(sample_milvus, tmp_path):
    """Settings on the sample corpus with a fresh checkpointer and judge cache per test."""

    def make(model=None, **overrides) -> Context:
        if model is not None:
            name = f"scripted-{next(_names)}"
            register_chat_model(name, model)
            overrides["chat_model"] = f"registered:{name}"
        overrides.setdefault("data_dir", str(tmp_path / "data"))
        return Context(milvus_uri=sample_milvus, collection="sample", **overrides)

    return make
