"""`treerag doctor`: check that the settings work, and print them with secrets masked."""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from typing import Any

import typer
from rich.table import Table
from rich.text import Text

from treerag.cli.common import (
    CollectionOption,
    DataDirOption,
    console,
    make_context,
    quiet_libraries,
)

SECRET_ENV = ("OPENAI_API_KEY", "TREERAG_MILVUS_TOKEN")


def mask(value: str) -> str:
    """Hide a secret, keeping only enough to tell two apart."""
    if not value:
        return ""
    return "****" if len(value) < 12 else f"{value[:3]}…{value[-2:]} (masked)"


def _check(name: str, fn: Callable[[], str]) -> tuple[str, bool, str]:
    start = time.perf_counter()
    try:
        detail = fn()
        ok = True
    except Exception as exc:  # a doctor reports every failure instead of stopping at one
        from treerag.cli.common import library_storage_error
        from treerag.documents.health import StoreProblem

        said = str(exc) if isinstance(exc, StoreProblem) else library_storage_error(exc)
        detail = said or f"{type(exc).__name__}: {exc}"
        ok = False
    return name, ok, f"{detail} ({time.perf_counter() - start:.2f} s)"


def doctor_command(
    data_dir: str = DataDirOption,
    collection: str = CollectionOption,
    verbose: bool = typer.Option(
        False, "--verbose", "-v", help="Also print what each setting means."
    ),
) -> None:
    """Check the data directory, Milvus, the embedding model and the chat model."""
    from treerag.documents import health
    from treerag.embedder_choice import AUTO, resolve_embedder
    from treerag.models import get_chat_model, get_embeddings
    from treerag.retrievers.chunk_store import ChunkStore

    quiet_libraries()
    ctx = make_context(data_dir=data_dir, collection=collection)

    def embeddings() -> str:
        store = ChunkStore(ctx, None)
        recorded = store.info() if store.exists() else {}
        vec = get_embeddings(ctx).embed_query("doctor")
        name = resolve_embedder(ctx, recorded) if recorded else resolve_embedder(ctx)
        if ctx.embedding_model == AUTO:
            name += (
                " (auto: the collection's)" if recorded else " (auto: chosen at the first ingest)"
            )
        return f"{name} loads, {len(vec)}-d"

    def milvus() -> str:
        store = ChunkStore(ctx, None)
        store.client.list_collections()  # open Milvus (a Lite file is created): is it reachable?
        where = f"{ctx.resolved_milvus_uri} reachable"
        if not store.exists():
            return f"{where}; collection {ctx.collection!r} not created yet (run `treerag ingest`)"
        info = store.info()
        built = (
            f"{info.get('embedding', '?')}, {info.get('dimension', '?')}-d, "
            f"BM25 analyzer {info.get('analyzer', '?')}"
        )
        return f"{where}; {store.count():,} chunks in {ctx.collection!r} ({built})"

    def chat() -> str:
        model = get_chat_model(ctx)
        if model is None:
            return "none: the offline reasoner answers (set TREERAG_CHAT_MODEL=openai:<model>)"
        if ctx.chat_model.partition(":")[0] == "local":
            from treerag.local_llm.server import describe, running_servers

            return f"{ctx.chat_model}: {describe(running_servers()[-1])}"
        url = ctx.chat_base_url or os.environ.get("OPENAI_BASE_URL") or "api.openai.com"
        return f"{ctx.chat_model} configured at {url}"

    checks = [
        _check("data dir", lambda: health.data_folder(ctx)),
        _check("milvus", milvus),
        _check("derived stores", lambda: health.derived_stores(ctx)),
        _check("checkpoints", lambda: health.checkpoints(ctx)),
        _check("judge cache", lambda: health.judge_cache(ctx)),
        _check("passage graph", lambda: health.passage_graph(ctx)),
        _check("manifest", lambda: health.manifest(ctx)),
        _check("embeddings", embeddings),
        _check("chat model", chat),
    ]
    table = Table(title="checks")
    table.add_column("check", no_wrap=True)
    table.add_column("ok", no_wrap=True)
    table.add_column("detail")
    for name, ok, detail in checks:
        # Text, not markup: a detail may hold brackets ("extra [local]", "[Errno 13]").
        table.add_row(name, "[green]ok[/]" if ok else "[red]FAIL[/]", Text(detail))
    console.print(table)
    console.print(settings_table(ctx, verbose))
    if not all(ok for _, ok, _ in checks):
        raise typer.Exit(1)


def settings_table(ctx: Any, verbose: bool = False) -> Table:
    """One row per setting: name, value (secrets masked), where it came from.

    At 80 columns a column of descriptions made each row ten lines high; they are shown with
    `verbose`, under the value, where the row is widest.
    """
    table = Table(
        title="settings (explicit > TREERAG_* env > default)",
        caption=None if verbose else "`treerag doctor --verbose` says what each one means",
    )
    table.add_column("setting", no_wrap=True)
    table.add_column("value", overflow="fold")
    table.add_column("from", no_wrap=True)
    rows = [
        (name, mask(str(value)) if name == "milvus_token" else str(value), source, description)
        for name, value, source, description in ctx.describe()
    ]
    rows += [
        (var, mask(os.environ.get(var, "")), "env", "secret: never printed") for var in SECRET_ENV
    ]
    for name, shown, source, description in rows:
        empty = "unset" if name in SECRET_ENV else "(empty)"
        cell = Text(shown) if shown else Text(empty, style="dim")
        if verbose:
            cell.append(f"\n{description}", style="dim")
        table.add_row(name, cell, source)
    return table


def register(app: typer.Typer) -> None:
    """Add the command to the root app."""
    app.command("doctor")(doctor_command)
