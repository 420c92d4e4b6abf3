"""`treerag demo`: ingest the shipped sample corpus and query it, with no key and no server."""

from __future__ import annotations

from importlib import resources
from pathlib import Path

import typer

from treerag.cli.common import DataDirOption, console, make_context, quiet_libraries, user_errors

DEMO_QUERIES = ["Who led the fishers who established Quillhaven?", "鹤烟灯塔是哪一年落成的？"]
DEMO_QUESTION = "鹤烟灯塔的透镜由哪个行会烧制？"


def sample_corpus_dir() -> Path:
    """Where the sample corpus documents are installed."""
    return Path(str(resources.files("treerag") / "sample_corpus" / "docs"))


def demo_command(data_dir: str = DataDirOption) -> None:
    """Ingest the sample corpus (a fictional island, English and Chinese), search it, ask it."""
    from treerag.cli.ingest import _print_report
    from treerag.ingest.indexer import ingest
    from treerag.models import get_embeddings
    from treerag.retrievers.chunk_store import ChunkStore
    from treerag.retrievers.hybrid import from_context

    quiet_libraries()
    ctx = make_context(data_dir=data_dir)
    corpus = sample_corpus_dir()
    console.rule(f"ingesting the sample corpus from {corpus}")
    with user_errors():
        _print_report(ingest([corpus], ctx))
        _build_structures(ctx)
        retriever = from_context(ChunkStore(ctx, get_embeddings(ctx)), topk=3)
        for query in DEMO_QUERIES:
            console.rule(f"hybrid search: {query}")
            for i, (doc, score) in enumerate(retriever.get_similar_chunk_with_score(query), 1):
                text = doc.page_content.replace("\n", " ")
                console.print(
                    f"[bold]{i}.[/] [cyan]{doc.metadata['title']}[/] "
                    f"[dim]({score:.3f})[/] {text[:160]}…",
                    highlight=False,
                )
        console.rule(f"treerag ask: {DEMO_QUESTION}")
        _ask(ctx)
    console.print(
        '\nNext: `treerag ask "your question"`, `treerag tree THREAD_ID`, `treerag runs`, '
        "`treerag doctor`, `treerag --help`."
    )


def _build_structures(ctx) -> None:
    """Derive the keyword tree from the ingested files and import the sample knowledge graph."""
    from treerag.data_layout import world_file
    from treerag.knowledge_graph import World, embed_from_documents, import_files, world_communities
    from treerag.models import similarity_embeddings
    from treerag.retrievers.keyword_tree import derive_from_collection, tree_dir
    from treerag.retrievers.knowledge_graph import embedder_id, graph_dir

    derive_from_collection(ctx)
    console.print(f"keyword tree derived from the documents' structure: {tree_dir(ctx)}")
    if not world_file(graph_dir(ctx)).exists():
        embeddings = similarity_embeddings(ctx)
        world = World(embed_from_documents(embeddings), embed_id=embedder_id(embeddings))
        report = import_files(world, [sample_corpus_dir().parent / "graph.jsonl"])
        world_communities(world)
        world.save(graph_dir(ctx))
        console.print(
            f"knowledge graph imported: {report.entities} entities, "
            f"{report.edges} edges → {graph_dir(ctx)}"
        )


def _ask(ctx) -> None:
    import asyncio

    from rich.markup import escape

    from treerag.api import ask
    from treerag.search_tree import to_rich

    result = asyncio.run(ask(DEMO_QUESTION, ctx))
    console.print(to_rich(result["tree"]))
    console.print(f"[green]{escape(result['answer'])}[/]")
    for c in result["citations"]:
        console.print(f"[bold][{c['n']}][/] {escape(c['title'])}")
    console.print(f"[dim]thread {result['thread_id']}: `treerag tree {result['thread_id']}`[/]")


def register(app: typer.Typer) -> None:
    """Add the command to the root app."""
    app.command("demo")(demo_command)
