"""The `treerag` command line: one typer app, one module per command family, loaded on use.

Adding a command family is one line in FAMILIES: the command name, the module whose
`register(app)` adds it to a typer app, and the one-line help `treerag --help` shows. The
module is imported only when its command runs (or its own `--help` is asked for), so
`treerag --help` and every command start without importing the others (see
tests/foundation/test_cli_startup.py for the budget).
"""

from __future__ import annotations

import gc
import importlib
import re
from typing import Any, NamedTuple

import typer
from typer.core import TyperCommand, TyperGroup

# typer carries its own copy of click; its command and context types are used through typer.
Command = Any


class Family(NamedTuple):
    """Where a command comes from and what `treerag --help` says about it."""

    module: str
    help: str


FAMILIES: dict[str, Family] = {
    "ingest": Family("treerag.cli.ingest", "Index documents (re-running adds only what changed)."),
    "search": Family("treerag.cli.search", "Search the ingested chunks (no LLM involved)."),
    "ask": Family("treerag.cli.ask", "Answer a question, growing and showing its search tree."),
    "tree": Family("treerag.cli.ask", "Rebuild a search tree from the checkpointer and print it."),
    "runs": Family("treerag.cli.ask", "List recent root runs: time, question, tree size."),
    "chat": Family("treerag.cli.chat", "Chat with your documents (local, or a running server)."),
    "eval": Family("treerag.cli.eval", "Evaluate answers and evidence of each retrieval mode."),
    "doctor": Family("treerag.cli.doctor", "Check the settings, stores and models; show them."),
    "demo": Family("treerag.cli.demo", "Ingest the sample corpus, search it and ask it."),
    "kw": Family("treerag.cli.kw", "Keyword knowledge tree: derive, import, show, search, edit."),
    "kg": Family("treerag.cli.kg", "Knowledge graph: build, import, search, expand."),
    "docs": Family("treerag.cli.docs", "List, delete and rebuild ingested documents."),
    "users": Family("treerag.cli.users", "Users and tenants of the server: add, list, revoke."),
}


def hide_flag_types(command: Command, ctx: typer.Context) -> None:
    """Show on/off flags as plain `--prune`, not `--prune <bool>` (typer's type column)."""
    for param in command.get_params(ctx):
        if getattr(param, "is_flag", False) and getattr(param, "metavar", "") is None:
            param.metavar = ""  # typer shows the metavar, when set, instead of the type


class LazyGroup(TyperGroup):
    """The root group: lists FAMILIES without importing them, imports one when it is used."""

    _listing = False

    def list_commands(self, ctx: Any) -> list[str]:
        """The registered commands, in FAMILIES order."""
        return [*self.commands, *(name for name in FAMILIES if name not in self.commands)]

    def get_command(self, ctx: Any, cmd_name: str) -> Command | None:
        """Import the command's module on first use; while listing, show its help line only."""
        if cmd_name not in self.commands and cmd_name in FAMILIES:
            if self._listing:
                return TyperCommand(cmd_name, help=FAMILIES[cmd_name].help)
            self._load(FAMILIES[cmd_name].module)
        return self.commands.get(cmd_name)

    def format_help(self, ctx: Any, formatter: Any) -> None:
        """Print the root help from FAMILIES' help lines (imports no command module)."""
        hide_flag_types(self, ctx)
        self._listing = True
        try:
            super().format_help(ctx, formatter)
        finally:
            self._listing = False

    def _load(self, module_name: str) -> None:
        scratch = typer.Typer(rich_markup_mode="rich", add_completion=False)
        importlib.import_module(module_name).register(scratch)
        for name, command in typer.main.get_group(scratch).commands.items():
            _tidy(command)
            self.commands.setdefault(name, command)


def reflow(text: str) -> str:
    """Join a docstring's hard-wrapped lines into paragraphs (rich help keeps every break).

    Paragraphs are separated by blank lines; one with an indented, listed (`-`, `*`) or
    command (`$`) line is kept as written.
    """
    paragraphs = re.split(r"\n[ \t]*\n", text.strip())
    kept = (
        p if any(line.startswith((" ", "-", "*", "$")) for line in p.splitlines()[1:]) else None
        for p in paragraphs
    )
    return "\n\n".join(
        k if k is not None else " ".join(line.strip() for line in p.splitlines())
        for k, p in zip(kept, paragraphs, strict=True)
    )


def _tidy(command: Command) -> None:
    """Apply hide_flag_types and reflow to a command and, for a group, to every one below it."""
    hide_flag_types(command, typer.Context(command))
    if command.help:
        command.help = reflow(command.help)
    for sub in getattr(command, "commands", {}).values():
        _tidy(sub)


def collect_less_often() -> None:
    """Run Python's cycle collector less often than its defaults (700, 10, 10).

    A command imports langgraph, pymilvus and pandas: some hundred thousand objects, each
    full collection walking all that came before. With the defaults those collections were
    about a tenth of `treerag ask`'s CPU time on the demo data (BENCHMARKS.md, cli). Cycles
    are still collected, a generation after about 50,000 new objects instead of 700.
    """
    gc.set_threshold(50_000, 20, 20)


app = typer.Typer(
    name="treerag",
    cls=LazyGroup,
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
def _main(
    tenant: str = typer.Option(
        None,
        "--tenant",
        help="Work on one tenant's data (<data_dir>/tenants/<tenant>); default: TREERAG_TENANT.",
    ),
) -> None:
    """Load a .env file from the current folder before any command runs."""
    from dotenv import load_dotenv

    collect_less_often()
    load_dotenv(".env", override=False)
    if tenant is not None:
        from treerag.cli.users import use_tenant

        use_tenant(tenant)
