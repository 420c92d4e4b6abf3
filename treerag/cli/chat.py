"""`treerag chat`: a terminal chat that streams each answer while its search tree grows."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import typer
from rich.console import Group, RenderableType
from rich.live import Live
from rich.markup import escape
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from treerag.cli.chat_backends import (
    Backend,
    LocalBackend,
    RemoteBackend,
    RemoteRunError,
    message_fields,
)
from treerag.cli.common import (
    CollectionOption,
    DataDirOption,
    MaxDepthOption,
    TopKOption,
    console,
    fail,
    make_run_context,
    quiet_libraries,
    user_errors,
)
from treerag.cli.interrupt import TurnInterrupt
from treerag.search_tree import TreeFold, size, to_rich

PROMPT = "[bold cyan]you ›[/] "
HELP = (
    "[dim]commands:[/] /tree (last answer's search tree) · /new · /threads · /history · /quit"
    "\n[dim]Ctrl-C stops a running answer[/]"
)
OFFLINE_NOTE = (
    "[dim]no chat model configured: the offline reasoner answers "
    "(set TREERAG_CHAT_MODEL=openai:<model>)[/]"
)


class TurnView:
    """The live view of one turn: the search tree while it grows, then the streaming answer."""

    def __init__(self) -> None:
        """Start with an empty tree and no answer."""
        self.fold = TreeFold()
        self.answer = ""
        self.stopped = False

    def apply(self, event: dict[str, Any]) -> bool:
        """Fold a tree event in, or append a root answer token; return whether the view changed."""
        if event.get("event") != "token":
            self.fold.apply(event)
            return True
        if event.get("depth", 0) != 0:  # sub-run answers belong to the tree, not the reply
            return False
        self.answer += str(event.get("text", ""))
        return True

    def summary(self) -> str:
        """One line: how big the search tree is."""
        s = size(self.fold.root)
        return f"search tree: {s['runs']} runs · {s['chunks']} chunks · depth {s['depth']}"

    def render(self) -> RenderableType:
        """The tree until the answer starts, then a summary line and the answer so far."""
        if not self.answer:
            tree = self.fold.root
            head = to_rich(tree, show_answers=False) if tree else Text("retrieving…", style="dim")
            return Group(head, Text(self.summary(), style="dim"))
        return Group(
            Text(self.summary(), style="dim"),
            Panel(Text(self.answer), title="answer", border_style="green"),
        )


@dataclass
class Session:
    """What the prompt loop keeps between turns."""

    thread_id: str
    tree_thread_id: str = ""
    """The last answer's search-tree thread (for `/tree`)."""
    folded: dict[str, Any] | None = None
    """The last turn's tree as folded from its events."""
    noted_offline: bool = False


async def _stream_turn(
    backend: Backend, session: Session, text: str, view: TurnView, live: Live
) -> dict[str, Any] | None:
    """Run one turn, updating the view; on cancellation keep what arrived and stop the run."""
    reply: dict[str, Any] | None = None
    try:
        async for mode, payload in backend.stream(session.thread_id, text):
            if mode == "custom":
                if view.apply(payload):
                    live.update(view.render())
            else:
                messages = payload.get("messages") or []
                last = message_fields(messages[-1]) if messages else None
                reply = last if last and last["type"] == "ai" else None
    except asyncio.CancelledError:
        task = asyncio.current_task()
        if task is not None:
            task.uncancel()  # the cancellation is handled: this turn ends, the chat goes on
        await backend.cancel(session.thread_id)
    return reply


def _print_reply(
    view: TurnView, reply: dict[str, Any] | None, session: Session, elapsed: float
) -> None:
    meta = (reply or {}).get("treerag", {})
    answer = view.answer or (reply or {}).get("content", "")
    console.print(Text(view.summary(), style="dim"))
    if answer:
        console.print(Panel(Text(answer), title="answer", border_style="green"))
    if meta.get("notice"):  # what the run had to work around, in the question's language
        console.print(Text(meta["notice"], style="yellow"))
    if view.stopped:
        console.print("[yellow]stopped[/] [dim](the run was cancelled)[/]")
        return
    for c in meta.get("citations", []):
        console.print(f"[bold][{c['n']}][/] {escape(c['title'])} [dim]{escape(c['source'])}[/]")
    console.print(
        f"[dim]thread {session.thread_id} · tree {meta.get('tree_thread_id', '?')} · "
        f"{meta.get('llm_calls', 0)} LLM-role calls · {elapsed:.1f} s · /tree shows the tree[/]",
        highlight=False,
    )
    if str(meta.get("reasoner", "")).startswith("offline") and not session.noted_offline:
        session.noted_offline = True
        console.print(OFFLINE_NOTE, highlight=False)


def run_turn(runner: asyncio.Runner, backend: Backend, session: Session, text: str) -> None:
    """Ask one question in the current thread, showing the live view; Ctrl-C stops it."""
    view = TurnView()
    start = time.perf_counter()
    try:
        with TurnInterrupt(runner.get_loop()) as ctrl_c:
            with Live(view.render(), console=console, refresh_per_second=8, transient=True) as live:
                turn = _stream_turn(backend, session, text, view, live)
                view.stopped, reply = runner.run(ctrl_c.run(turn))
    except Exception as exc:  # a failed turn must not end the chat: report it and go on
        console.print(f"[bold red]error:[/] {escape(str(exc))}")
        return
    _print_reply(view, reply, session, time.perf_counter() - start)
    session.folded = view.fold.root
    # A stopped turn has no reply, but its partial tree is checkpointed under the root's id.
    root_id = (view.fold.root or {}).get("thread_id", "")
    session.tree_thread_id = (reply or {}).get("treerag", {}).get("tree_thread_id", root_id)


def show_tree(runner: asyncio.Runner, backend: Backend, session: Session) -> None:
    """Print the last answer's search tree."""
    if not session.tree_thread_id and not session.folded:
        console.print("[dim]no answer in this thread yet[/]")
        return
    tree = runner.run(backend.tree(session.tree_thread_id, session.folded))
    if tree is None:
        console.print(f"[dim]no tree stored for {session.tree_thread_id}[/]")
        return
    console.print(to_rich(tree))
    if tree.get("answer"):
        console.print(Panel(Text(tree["answer"]), title="answer", border_style="green"))


def show_threads(runner: asyncio.Runner, backend: Backend, session: Session) -> None:
    """Print recent chat threads, marking the current one."""
    rows = runner.run(backend.threads(20))
    if not rows:
        console.print("[dim]no chat threads yet[/]")
        return
    table = Table(title=f"chat threads · {backend.description}")
    for col in ("", "thread_id", "updated", "turns", "last question"):
        table.add_column(col)
    for row in rows:
        mark = "*" if row["thread_id"] == session.thread_id else ""
        table.add_row(
            mark, row["thread_id"], row["time"], str(row["turns"]), escape(row["question"])
        )
    console.print(table)


def show_history(runner: asyncio.Runner, backend: Backend, session: Session) -> None:
    """Print the current thread's conversation and remember its last tree."""
    for m in runner.run(backend.messages(session.thread_id)):
        if m["type"] == "human":
            console.print(f"[bold cyan]you:[/] {escape(m['content'])}", highlight=False)
        elif m["type"] == "ai":
            console.print(Panel(Text(m["content"]), title="answer", border_style="dim"))
            session.tree_thread_id = m["treerag"].get("tree_thread_id", session.tree_thread_id)


def new_thread(runner: asyncio.Runner, backend: Backend, session: Session) -> None:
    """Switch to a fresh thread."""
    session.thread_id = runner.run(backend.new_thread())
    session.tree_thread_id, session.folded = "", None
    console.print(f"[dim]new thread {session.thread_id}[/]")


COMMANDS: dict[str, Callable[[asyncio.Runner, Backend, Session], None]] = {
    "/tree": show_tree,
    "/threads": show_threads,
    "/history": show_history,
    "/new": new_thread,
}


def prompt_loop(runner: asyncio.Runner, backend: Backend, session: Session) -> None:
    """Read lines until /quit or end of input; questions go to the graph, /words are commands."""
    while True:
        try:
            line = console.input(PROMPT).strip()
        except KeyboardInterrupt:
            console.print(
                "\n[dim](Ctrl-C stops a running answer; /quit or Ctrl-D leaves)[/]", highlight=False
            )
            continue
        except EOFError:
            console.print()
            return
        if not line:
            continue
        if line in ("/quit", "/exit", "/q"):
            return
        if line.startswith("/"):
            handler = COMMANDS.get(line.split()[0])
            if handler is None:
                console.print(HELP, highlight=False)
                continue
            try:
                handler(runner, backend, session)
            except Exception as exc:  # a failed command must not end the chat
                console.print(f"[bold red]error:[/] {escape(str(exc))}")
            continue
        run_turn(runner, backend, session, line)


def _open_backend(runner: asyncio.Runner, backend: Backend, thread_id: str | None) -> Session:
    """Connect, pick the thread, and print where the chat runs (and its history on resume)."""
    runner.run(backend.open())
    if thread_id:
        runner.run(backend.ensure_thread(thread_id))
        session = Session(thread_id=thread_id)
    else:
        session = Session(thread_id=runner.run(backend.new_thread()))
    console.print(
        f"[bold]treerag chat[/] · {escape(backend.description)} · thread {session.thread_id}"
    )
    console.print(HELP, highlight=False)
    if backend.offline:
        console.print(OFFLINE_NOTE, highlight=False)
        session.noted_offline = True
    if thread_id:
        show_history(runner, backend, session)
    return session


def _local_backend(data_dir: str | None, collection: str | None, depth: Any, k: Any) -> Backend:
    from treerag.models import get_embeddings
    from treerag.retrievers.chunk_store import ChunkStore, EmptyStoreError

    ctx = make_run_context(data_dir=data_dir, collection=collection, max_depth=depth, top_k=k)
    try:
        ChunkStore(ctx, get_embeddings(ctx)).require_data()
    except EmptyStoreError as exc:
        fail(str(exc))
    return LocalBackend(ctx)


def chat_command(
    url: str = typer.Option(
        None, "--url", help="Chat with a LangGraph server (e.g. http://127.0.0.1:2024)."
    ),
    thread_id: str = typer.Option(None, "--thread-id", help="Resume (or start) this thread."),
    depth: int = MaxDepthOption,
    k: int = TopKOption,
    data_dir: str = DataDirOption,
    collection: str = CollectionOption,
) -> None:
    """Chat with your documents: each answer streams while its search tree grows.

    Runs in this process on the data directory by default, or against a `langgraph dev`
    server with --url. Follow-up messages may lean on earlier turns ("when was it built?").
    Commands: /tree, /new, /threads, /history, /quit. Ctrl-C stops the running answer.
    """
    quiet_libraries()
    if url and (data_dir or collection):
        fail("--data-dir/--collection apply in-process; a server uses its own settings", code=2)
    with user_errors():
        if url:
            settings = {"max_depth": depth, "top_k": k}
            backend: Backend = RemoteBackend(
                url, {n: v for n, v in settings.items() if v is not None}
            )
        else:
            backend = _local_backend(data_dir, collection, depth, k)
        with asyncio.Runner() as runner:
            try:
                session = _open_backend(runner, backend, thread_id)
            except RemoteRunError as exc:
                fail(str(exc))
            try:
                prompt_loop(runner, backend, session)
            finally:
                runner.run(backend.close())


def register(app: typer.Typer) -> None:
    """Add the chat command to the root app."""
    app.command("chat")(chat_command)
