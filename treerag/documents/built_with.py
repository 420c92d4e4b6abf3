"""Which rules built each derived store, so that one built by other rules is built again.

The stores derived from the chunks keep what rules computed when a chunk went in: the
passage graph keeps the names `treerag.text.names` read (through jieba's dictionary and
OpenCC), the keyword tree keeps each keyword's normalized forms (`treerag.text.canonical`,
pinyin). Chunk ids come from the chunks' text, so an ingest after an upgrade finds nothing
new and the old rules' output would stay, silently, for good. The documents manifest
records, per collection and store, a hash of the code and packages its rules live in
(`source_digest`); `documents.derived.reconcile` rebuilds a store whose record differs (or
is missing: a store older than the record) and `lag` reports it until then.
"""

from __future__ import annotations

import functools
import logging
from typing import Any

from treerag.context import Context
from treerag.documents.manifest import read_manifest, update_manifest
from treerag.source_digest import source_digest

log = logging.getLogger(__name__)

RULES: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    # The names a passage gives and where they occur: tagging, scripts, name rules.
    "knowledge_graph": (
        (
            "treerag.text",
            "treerag.segment",
            "treerag.transliteration",
            "treerag.knowledge_graph.passage_graph",
            "treerag.knowledge_graph.text",
        ),
        ("jieba", "opencc-python-reimplemented"),
    ),
    # A keyword's normalized forms: the canonical form and its pinyin.
    "keyword_tree": (
        ("treerag.text.canonical", "treerag.text.script", "treerag.keyword_tree.normalize"),
        ("opencc-python-reimplemented", "pypinyin"),
    ),
}
"""Per derived store: (treerag modules, packages) whose code computes what the store keeps."""


@functools.cache
def current(store: str) -> str:
    """The hash of the rules a store is built by in this release."""
    modules, packages = RULES[store]
    return source_digest(modules, packages)


def recorded(ctx: Context) -> dict[str, str]:
    """The hash each store of the context's collection was last built by (the manifest's).

    A tenant's manifest serves all its collections, each with stores of its own: the record
    is kept per collection.
    """
    built = read_manifest(ctx)["built_with"].get(ctx.collection)
    return {k: str(v) for k, v in built.items() if v} if isinstance(built, dict) else {}


def outdated(ctx: Context) -> set[str]:
    """The stores not (or not known to be) built by this release's rules."""
    built = recorded(ctx)
    return {store for store in RULES if built.get(store) != current(store)}


def record(ctx: Context, stores: set[str]) -> None:
    """Note that `stores` now hold what this release's rules make of every chunk."""
    if not stores:
        return

    def change(data: dict[str, Any]) -> None:
        mine = data["built_with"].get(ctx.collection)
        mine = mine if isinstance(mine, dict) else {}
        data["built_with"][ctx.collection] = {**mine, **{s: current(s) for s in stores}}

    try:
        update_manifest(ctx, change)
    except OSError as exc:  # a full disk: the next write rebuilds once more, nothing is lost
        log.warning("could not record which rules built the %s: %s", ", ".join(stores), exc)
