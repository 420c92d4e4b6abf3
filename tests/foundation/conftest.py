"""A small mixed-language corpus ingested once into a real Milvus Lite file."""

from __future__ import annotations

from pathlib import Path

import pytest

from treerag.context import Context
from treerag.ingest.indexer import ingest

DOCS = {
    "harbour.md": (
        "# Keldmarsh\n\n## Harbour\n\nKeldmarsh is a harbour city at the mouth of the River Voss. "
        "Its lighthouse, the Tallow Beacon, was lit in 1712.\n"
    ),
    "cats.txt": "The old ship's cat slept every afternoon on the captain's woollen blanket.",
    "zh/guild.md": (
        "# 织光行会\n\n织光行会成立于布兰德港，负责管理岛上的灯塔与航标。行会的首任会长是苏岚。\n"
    ),
    "records.jsonl": (
        '{"id": "r1", "title": "Salt tax", "text": "The salt tax of Voss county was abolished after the flood."}\n'
        '{"id": "r2", "title": "Ferry", "text": "A ferry crosses the estuary twice a day."}\n'
    ),
}


def write_corpus(root: Path, docs: dict[str, str] = DOCS) -> Path:
    for rel, text in docs.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root


@pytest.fixture(scope="module")
def reasoner():
    """The offline reasoner on the default embedder, one per test module."""
    from treerag.models import get_embeddings
    from treerag.reasoning.offline import OfflineReasoner

    return OfflineReasoner(get_embeddings(Context()))


@pytest.fixture(scope="session")
def corpus_ctx(tmp_path_factory):
    root = write_corpus(tmp_path_factory.mktemp("corpus"))
    ctx = Context(data_dir=str(tmp_path_factory.mktemp("data")), collection="corpus")
    report = ingest([root], ctx)
    assert not report.skipped
    return ctx, root, report
