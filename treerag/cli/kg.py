"""`treerag kg …`: build, inspect, search and expand the knowledge graph."""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Literal

import typer
from rich.table import Table

from treerag import data_layout
from treerag.cli.common import console, err_console, fail, folder_or_fail, quiet_libraries
from treerag.data_layout import WORLD_FILE
from treerag.knowledge_graph import (
    Embed,
    ExpansionConfig,
    GraphQueryConfig,
    HashEmbedder,
    HeuristicExtractor,
    KnowledgeGraphError,
    World,
    build_from_chunks,
    embed_from_documents,
    expand_world,
    format_path,
    import_files,
    query_graph,
    query_vector,
    read_chunks,
    world_communities,
)
from treerag.knowledge_graph.query import select_seeds

app = typer.Typer(no_args_is_help=True)

GraphOption = typer.Option(
    None,
    "--graph",
    help="Graph directory (default: $TREERAG_DATA_DIR or ./data, then /knowledge_graph).",
)
EmbedOption = typer.Option(
    "auto",
    "--embed",
    help="auto: the project's default embeddings (hash if unavailable); hash: hashed words.",
)


def graph_dir(value: Path | None) -> Path:
    """Return the graph directory from the option, else from TREERAG_DATA_DIR or ./data."""
    if value is not None:
        return folder_or_fail(value, "--graph")
    from treerag.server.tenants import tenant_dir

    data = Path(os.environ.get("TREERAG_DATA_DIR") or "./data")
    graph = data_layout.knowledge_graph_dir(tenant_dir(data, os.environ.get("TREERAG_TENANT", "")))
    return folder_or_fail(graph, "--graph")


def default_embedder() -> tuple[Embed, str]:
    """Return the project's default embeddings as an Embed function, with its id.

    Falls back to the hashed embedder, with a warning, when ``treerag.models`` cannot be
    imported.
    """
    try:
        from treerag.models import get_default_embeddings
    except ImportError as exc:
        err_console.print(f"[yellow]warning:[/] {exc}; using hashed word vectors instead")
        return _hash_embedder()
    from treerag.retrievers.knowledge_graph import embedder_id

    embeddings = get_default_embeddings()
    return embed_from_documents(embeddings), embedder_id(embeddings)


def _hash_embedder() -> tuple[Embed, str]:
    embed = HashEmbedder()
    return embed, embed.id


def make_embedder(choice: str) -> tuple[Embed, str]:
    """Return the embedder named by --embed."""
    if choice == "hash":
        return _hash_embedder()
    if choice == "auto":
        return default_embedder()
    fail(f"unknown --embed {choice!r}; use auto or hash", code=2)
    raise AssertionError  # fail() exits


@contextmanager
def graph_errors() -> Iterator[None]:
    """Turn the engine's expected errors into a message and exit code 1."""
    try:
        yield
    except (KnowledgeGraphError, OSError) as exc:
        fail(str(exc))


def _load(directory: Path, embed_choice: str | None) -> World:
    if not (directory / WORLD_FILE).exists():
        fail(
            f"no knowledge graph in {directory}; run `treerag kg build` (from the ingested "
            "documents), `treerag kg import` or `treerag kg extract`"
        )
    if embed_choice is None:
        return World.load(directory)
    embed, ident = make_embedder(embed_choice)
    world = World.load(directory, embed, embed_id=ident)
    if world.vectors_recomputed:
        # Keep them: otherwise every later command would compute them again.
        world.save(directory)
        err_console.print(f"computed {world.vectors_recomputed} vectors with {ident}; saved")
    return world


def _load_or_new(directory: Path, embed_choice: str) -> World:
    if (directory / WORLD_FILE).exists():
        return _load(directory, embed_choice)
    embed, ident = make_embedder(embed_choice)
    return World(embed, embed_id=ident)


@app.command("import")
def import_command(
    files: list[Path] = typer.Argument(..., help="JSON or JSONL files of entities/edges/chunks."),
    graph: Path = GraphOption,
    embed: str = EmbedOption,
) -> None:
    """Import entities, edges and chunks (all or nothing; bad records are named by line)."""
    quiet_libraries()
    directory = graph_dir(graph)
    with graph_errors():
        world = _load_or_new(directory, embed)
        report = import_files(world, files)
        world_communities(world)  # computed once here, saved, reused by every query
        world.save(directory)
    console.print(
        f"imported {report.entities} entities, {report.edges} edges, {report.chunks} chunks "
        f"→ {directory} ({world})"
    )


@app.command("extract")
def extract_command(
    chunks: Path = typer.Argument(..., help='JSONL of chunks: {"id", "text", "title"?}.'),
    graph: Path = GraphOption,
    embed: str = EmbedOption,
) -> None:
    """Extract entities and co-occurrence edges from chunks with the heuristic extractor."""
    quiet_libraries()
    directory = graph_dir(graph)
    with graph_errors():
        units = read_chunks(chunks)
        world = _load_or_new(directory, embed)
        report = build_from_chunks(world, units, HeuristicExtractor())
        world_communities(world)  # computed once here, saved, reused by every query
        world.save(directory)
    console.print(
        f"heuristic extraction of {report.chunks} chunks: "
        f"+{report.entities_added} entities ({report.entities_updated} updated), "
        f"+{report.edges_added} co-occurrence edges ({report.edges_updated} updated) "
        f"→ {directory}"
    )


@app.command("show")
def show_command(
    graph: Path = GraphOption,
    top: int = typer.Option(10, "--top", help="How many of the most connected entities."),
) -> None:
    """Summarize the graph: counts, types, most connected entities."""
    directory = graph_dir(graph)
    with graph_errors():
        world = _load(directory, None)
    summary = Table(title=f"knowledge graph: {directory}")
    summary.add_column("what")
    summary.add_column("count", justify="right")
    summary.add_row("entities", str(len(world)))
    summary.add_row("edges", str(world.num_edges))
    summary.add_row("chunks", str(sum(1 for _ in world.chunks())))
    for kind, n in Counter(e.type for e in world.entities()).most_common(8):
        summary.add_row(f"  entity type {kind}", str(n))
    for kind, n in Counter(e.type for e in world.edges()).most_common(8):
        summary.add_row(f"  edge type {kind}", str(n))
    console.print(summary)
    hubs = Table(title="most connected entities")
    for column in ("entity", "type", "edges", "chunks"):
        hubs.add_column(column)
    ranked = sorted(world.entities(), key=lambda e: -world.degree(e.id))[:top]
    for e in ranked:
        hubs.add_row(e.label, e.type, str(world.degree(e.id)), str(len(e.chunk_ids)))
    console.print(hubs)


_KINDS: dict[str, Literal["entity", "edge"] | None] = {
    "entity": "entity",
    "edge": "edge",
    "all": None,
}


@app.command("search")
def search_command(
    query: str = typer.Argument(..., help="What to look for."),
    k: int = typer.Option(5, "-k", "--top-k", help="How many results."),
    kind: str = typer.Option("all", "--kind", help="entity | edge | all."),
    graph: Path = GraphOption,
    embed: str = EmbedOption,
) -> None:
    """Find entities and edges by vector similarity, and the names documents share by text.

    The names come from the passage-entity graph every ingest keeps (titles, headings and
    names shared across passages), the entities and edges from an extracted or imported
    graph (`kg build`, `kg import`) when there is one.
    """
    quiet_libraries()
    if kind not in ("entity", "edge", "all"):
        fail(f"unknown --kind {kind!r}; use entity, edge or all", code=2)
    directory = graph_dir(graph)
    names = _passage_names(directory, query, k) if kind != "edge" else []
    table = Table(title=f"graph search: {query}")
    for column in ("score", "kind", "what"):
        table.add_column(column)
    for label, passages in names or []:
        table.add_row("name", "entity", f"{label} (named by {passages} passage(s))")
    if names is not None and not (directory / WORLD_FILE).exists():
        console.print(table)
        return
    with graph_errors():
        world = _load(directory, embed)
        results = world.search(query, k, _KINDS[kind])
    for r in results:
        if hasattr(r, "name"):
            table.add_row(f"{r.score:.3f}", "entity", f"{r.name} ({r.type})")
        else:
            src, dst = world.get_entity(r.source), world.get_entity(r.target)
            what = (
                f"{src.label if src else r.source} —{r.relation}→ {dst.label if dst else r.target}"
            )
            table.add_row(f"{r.score:.3f}", "edge", what)
    console.print(table)


def _passage_names(directory: Path, query: str, k: int) -> list[tuple[str, int]] | None:
    """Entity names of the passage-entity graph that contain the query; None without one."""
    from treerag.knowledge_graph.passage_graph import PassageGraph

    path = data_layout.passage_graph_file(directory)
    if not path.exists():
        return None
    graph = PassageGraph(path)
    try:
        return graph.search(query, limit=k)
    finally:
        graph.close()


@app.command("expand")
def expand_command(
    query: str = typer.Argument(..., help="The question to expand from."),
    seeds: int = typer.Option(
        5, "--seeds", help="Seed entities from vector search (entities the query names join them)."
    ),
    hops: int = typer.Option(2, "--hops", help="Maximum path length in edges."),
    branches: int = typer.Option(10, "--branches", help="Maximum branches per node."),
    directed: bool = typer.Option(
        False, "--directed", help="Walk edges forwards only (default: both ways, as `ask` does)."
    ),
    top: int = typer.Option(10, "--top", help="How many paths and entities to print."),
    graph: Path = GraphOption,
    embed: str = EmbedOption,
) -> None:
    """Print the best scored paths and entities of the path-scoring expansion."""
    quiet_libraries()
    config = ExpansionConfig(max_hops=hops, max_branches_per_node=branches, directed=directed)
    with graph_errors():
        world = _load(graph_dir(graph), embed)
        vector = query_vector(world, query)
        found = select_seeds(world, query, vector, seeds)
        result = expand_world(
            world, found, vector, config=config, top_k=top, top_paths=top, min_path_depth=1
        )
    if not result.paths:
        console.print("no paths beyond the seeds (try fewer --seeds or more --hops)")
    for path in result.paths:
        console.print(format_path(path, world), highlight=False)
    table = Table(title="entities ranked by the expansion")
    for column in ("score", "entity", "paths", "path", "importance", "recency"):
        table.add_column(column)
    for m in result.memories:
        entity = world.get_entity(m.memory.id)
        label = entity.label if entity else m.memory.id
        table.add_row(
            f"{m.score:.3f}",
            label,
            str(m.path_count),
            f"{m.path_score:.3f}",
            f"{m.importance:.2f}",
            f"{m.recency:.2f}",
        )
    console.print(table)


@app.command("context")
def context_command(
    query: str = typer.Argument(..., help="The question to build context for."),
    seeds: int = typer.Option(5, "--seeds", help="Seed entities from vector search."),
    graph: Path = GraphOption,
    embed: str = EmbedOption,
) -> None:
    """Print the local-search context block an answer prompt would get."""
    quiet_libraries()
    with graph_errors():
        world = _load(graph_dir(graph), embed)
        both_ways = ExpansionConfig(directed=False)  # as the rag graph's graph_expand does
        config = GraphQueryConfig(seed_k=seeds, expansion=both_ways)
        result = query_graph(world, query, config=config)
    typer.echo(result.text)


@app.command("mermaid")
def mermaid_command(
    graph: Path = GraphOption,
    limit: int = typer.Option(200, "--limit", help="At most this many entities (0: all)."),
    out: Path | None = typer.Option(None, "--out", help="Write to this file instead of stdout."),
) -> None:
    """Print the graph as a Mermaid flowchart."""
    with graph_errors():
        world = _load(graph_dir(graph), None)
        text = world.to_mermaid(limit or None)
        if out is not None:
            out.write_text(text + "\n", encoding="utf-8")
            return
    typer.echo(text)


def register(root: typer.Typer) -> None:
    """Add `treerag kg`, with its build command, to the root app."""
    root.add_typer(app, name="kg", help="Knowledge graph: build, import, search, expand.")


from treerag.cli import kg_build  # noqa: E402

kg_build.register(app)
