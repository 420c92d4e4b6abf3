"""`treerag kg build`: extract the knowledge graph from the ingested documents."""

from __future__ import annotations

import typer

from treerag.cli.common import (
    CollectionOption,
    DataDirOption,
    console,
    make_context,
    quiet_libraries,
    user_errors,
)


def build_command(data_dir: str = DataDirOption, collection: str = CollectionOption) -> None:
    """Extract entities and relations from every ingested chunk into <data_dir>/knowledge_graph.

    With a chat model (TREERAG_CHAT_MODEL) the model extracts them through structured
    output; without one the heuristic extractor does (names, co-occurrence edges), and its
    records are labelled `extractor: heuristic`. Chunks stay linked to their entities.
    """
    from treerag.reasoning import get_reasoner
    from treerag.retrievers.knowledge_graph import build_from_collection, graph_dir

    quiet_libraries()
    ctx = make_context(data_dir=data_dir, collection=collection)
    extractor = get_reasoner(ctx).extractor()
    with user_errors():
        report = build_from_collection(ctx, extractor)
    console.print(
        f"{extractor.name} extraction of {report.chunks} chunks → {graph_dir(ctx)}: "
        f"{report.entities_added} entities added, {report.entities_updated} updated, "
        f"{report.edges_added} edges added, {report.edges_updated} updated"
    )


def register(kg_app: typer.Typer) -> None:
    """Add the command to the `treerag kg` family."""
    kg_app.command("build")(build_command)
