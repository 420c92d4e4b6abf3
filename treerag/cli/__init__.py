"""The `treerag` command line: one typer app, one module per command family."""

from __future__ import annotations

import typer

app = typer.Typer(
    name="treerag",
    help=(
        "Agentic question answering over your own documents.\n\n"
        "Settings come from TREERAG_* environment variables (and a .env file in the current "
        "folder); `treerag doctor` shows them all. With no chat model configured, an offline "
        "reasoner answers; no API key or server is needed."
    ),
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_show_locals=False,
    rich_markup_mode="rich",
)


@app.callback()
def _main() -> None:
    """Load a .env file from the current folder before any command runs."""
    from dotenv import load_dotenv

    load_dotenv(".env", override=False)


def _register() -> None:
    """Attach every command family to the root app."""
    from treerag.cli import (
        ask,
        chat,
        demo,
        docs,
        doctor,
        ingest,
        kg,
        kg_build,
        kw,
        kw_build,
        kw_maintenance,
        search,
    )
    from treerag.cli import eval as eval_commands

    ingest.register(app)
    search.register(app)
    ask.register(app)
    chat.register(app)
    eval_commands.register(app)
    doctor.register(app)
    demo.register(app)
    docs.register(app)
    kw_build.register(kw.app)
    kw_maintenance.register(kw.app)
    kg_build.register(kg.app)
    app.add_typer(kw.app, name="kw")
    app.add_typer(kg.app, name="kg", help="Knowledge graph: build, import, search, expand.")


_register()
