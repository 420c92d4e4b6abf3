"""`treerag chat`: a terminal chat that streams each answer while its search tree grows."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Callable
from contextlib import AsyncExitStack
from dataclasses import dataclass
from typing import Any, Protocol

import typer
from rich.console import Group, RenderableType
from rich.live import Live
from rich.markup import escape
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from treerag.cli.common import (
    CollectionOption,
    DataDirOption,
    console,
    fail,
    make_context,
    quiet_libraries,
    user_errors,
)
from treerag.context import Context
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


class RemoteRunError(RuntimeError):
    """The server reported an error for a run."""


def message_fields(message: Any) -> dict[str, Any]:
    """Return type, text and treerag metadata of a message object or its JSON form."""
    if isinstance(message, dict):
        kind, content = message.get("type", ""), message.get("content", "")
        extra = message.get("additional_kwargs") or {}
    else:
        kind, content = message.type, message.content
        extra = message.additional_kwargs or {}
    if isinstance(content, list):  # multi-part content: keep the text parts
        content = " ".join(p.get("text", "") if isinstance(p, dict) else str(p) for p in content)
    return {"type": kind, "content": str(content), "treerag": extra.get("treerag") or {}}


class Backend(Protocol):
    """Where the chat graph runs: in this process, or on a LangGraph server."""

    description: str
    offline: bool | None
    """Whether the offline reasoner answers (None: not known until the first reply)."""

    async def open(self) -> None:
        """Connect (open the checkpointer, or reach the server)."""

    async def close(self) -> None:
        """Release what `open` acquired."""

    async def new_thread(self) -> str:
        """Create a chat thread and return its id."""

    async def ensure_thread(self, thread_id: str) -> None:
        """Make sure a thread with this id exists (resuming or starting it)."""

    def stream(self, thread_id: str, text: str) -> AsyncIterator[tuple[str, Any]]:
        """Send one human message; yield ("custom", event) and ("values", state) pairs."""

    async def cancel(self, thread_id: str) -> None:
        """Stop the thread's current run where stopping the client's stream is not enough."""

    async def messages(self, thread_id: str) -> list[dict[str, Any]]:
        """Return the thread's conversation as `message_fields` dicts."""

    async def threads(self, limit: int) -> list[dict[str, Any]]:
        """Return recent chat threads: thread_id, time, turns, question (the latest)."""

    async def tree(self, tree_thread_id: str, folded: dict[str, Any] | None) -> dict | None:
        """Return a turn's search tree (rebuilt when possible, else the folded one)."""


class LocalBackend:
    """Run the chat graph in this process with the data directory's checkpointer."""

    def __init__(self, ctx: Context):
        """Remember the settings; nothing is opened yet."""
        self.ctx = ctx
        self.description = f"in-process · data {ctx.data_path}"
        self.offline: bool | None = ctx.offline
        self._stack = AsyncExitStack()
        self._saver: Any = None
        self._chat: Any = None
        self._rag: Any = None

    async def open(self) -> None:
        """Open the checkpointer and compile the chat and rag graphs with it."""
        from treerag.checkpointing import open_checkpointer
        from treerag.graphs.chat import builder as chat_builder
        from treerag.graphs.rag import builder as rag_builder

        self._saver = await self._stack.enter_async_context(open_checkpointer(self.ctx))
        self._chat = chat_builder.compile(checkpointer=self._saver, name="chat")
        self._rag = rag_builder.compile(checkpointer=self._saver, name="rag")

    async def close(self) -> None:
        """Close the checkpointer."""
        await self._stack.aclose()

    async def new_thread(self) -> str:
        """Return a fresh thread id (threads come into being with their first message)."""
        from treerag.api import new_thread_id

        return new_thread_id()

    async def ensure_thread(self, thread_id: str) -> None:
        """Nothing to do: a checkpointed thread starts with its first message."""

    async def stream(self, thread_id: str, text: str) -> AsyncIterator[tuple[str, Any]]:
        """Stream one turn of the chat graph."""
        from langchain_core.messages import HumanMessage

        config: Any = {"configurable": {"thread_id": thread_id}, "recursion_limit": 50}
        async for mode, payload in self._chat.astream(
            {"messages": [HumanMessage(content=text)]},
            config,
            context=self.ctx,
            stream_mode=["custom", "values"],
        ):
            yield mode, payload

    async def cancel(self, thread_id: str) -> None:
        """Nothing to do: cancelling the stream's task stops the in-process run."""

    async def messages(self, thread_id: str) -> list[dict[str, Any]]:
        """Read the conversation from the thread's latest checkpoint."""
        snapshot = await self._chat.aget_state({"configurable": {"thread_id": thread_id}})
        return [message_fields(m) for m in (snapshot.values or {}).get("messages", [])]

    async def threads(self, limit: int) -> list[dict[str, Any]]:
        """List chat threads: root checkpoints whose state holds messages."""
        latest: dict[str, Any] = {}
        async for item in self._saver.alist(None):
            conf = item.config["configurable"]
            values = item.checkpoint.get("channel_values", {})
            if conf.get("checkpoint_ns", "") or "messages" not in values:
                continue  # a search-tree thread, or a subgraph's checkpoint
            tid = conf["thread_id"]
            if tid not in latest or item.checkpoint["ts"] > latest[tid].checkpoint["ts"]:
                latest[tid] = item
        items = sorted(latest.values(), key=lambda i: i.checkpoint["ts"], reverse=True)
        return [
            _thread_row(
                i.config["configurable"]["thread_id"],
                i.checkpoint["ts"],
                i.checkpoint["channel_values"]["messages"],
            )
            for i in items[:limit]
        ]

    async def tree(self, tree_thread_id: str, folded: dict[str, Any] | None) -> dict | None:
        """Rebuild the tree from the checkpoints (the folded one if they hold nothing)."""
        from treerag.search_tree import rebuild

        rebuilt = await rebuild(self._rag, tree_thread_id) if tree_thread_id else None
        return rebuilt or folded


class RemoteBackend:
    """Run the chat graph on a LangGraph server (`langgraph dev` or a deployment)."""

    def __init__(self, url: str, context: dict[str, Any]):
        """Remember the server URL and the run settings to send with each run."""
        self.url = url.rstrip("/")
        self.context = context
        self.description = f"server {self.url}"
        self.offline: bool | None = None
        self._client: Any = None
        self._run_ids: dict[str, str] = {}

    async def open(self) -> None:
        """Connect and check that the server serves a graph named "chat"."""
        try:
            from langgraph_sdk import get_client
        except ImportError as exc:  # a client-side extra, not needed in-process
            raise RemoteRunError(
                "--url needs the LangGraph SDK: pip install langgraph-sdk"
            ) from exc
        self._client = get_client(url=self.url)
        try:
            found = await self._client.assistants.search(graph_id="chat", limit=1)
        except Exception as exc:  # httpx raises many kinds; the message says what happened
            raise RemoteRunError(f"cannot reach {self.url}: {exc}") from exc
        if not found:
            raise RemoteRunError(f"{self.url} serves no graph named 'chat' (see langgraph.json)")

    async def close(self) -> None:
        """Close the HTTP client."""
        if self._client is not None:
            await self._client.aclose()

    async def new_thread(self) -> str:
        """Create a thread on the server."""
        thread = await self._client.threads.create(metadata={"graph_id": "chat"})
        return str(thread["thread_id"])

    async def ensure_thread(self, thread_id: str) -> None:
        """Create the thread on the server unless it exists."""
        try:
            await self._client.threads.create(
                thread_id=thread_id, if_exists="do_nothing", metadata={"graph_id": "chat"}
            )
        except Exception as exc:  # e.g. the server only accepts UUIDs as thread ids
            raise RemoteRunError(f"cannot use thread {thread_id!r} on {self.url}: {exc}") from exc

    async def stream(self, thread_id: str, text: str) -> AsyncIterator[tuple[str, Any]]:
        """Stream one turn; the server cancels the run if this client goes away."""

        def remember(meta: Any) -> None:
            self._run_ids[thread_id] = meta["run_id"]

        async for part in self._client.runs.stream(
            thread_id,
            "chat",
            input={"messages": [{"type": "human", "content": text}]},
            stream_mode=["custom", "values"],
            context=self.context or None,
            on_disconnect="cancel",
            on_run_created=remember,
        ):
            if part.event == "error":
                data = part.data if isinstance(part.data, dict) else {"message": part.data}
                raise RemoteRunError(f"{data.get('error', 'error')}: {data.get('message', '')}")
            if part.event in ("custom", "values"):
                yield part.event, part.data

    async def cancel(self, thread_id: str) -> None:
        """Ask the server to stop the thread's last run (best effort, a few seconds)."""
        run_id = self._run_ids.pop(thread_id, None)
        if run_id:
            try:
                await asyncio.wait_for(self._client.runs.cancel(thread_id, run_id), 5)
            except Exception:  # the run may have ended already; nothing else to do
                pass

    async def messages(self, thread_id: str) -> list[dict[str, Any]]:
        """Read the conversation from the server's thread state."""
        state = await self._client.threads.get_state(thread_id)
        return [message_fields(m) for m in (state.get("values") or {}).get("messages", [])]

    async def threads(self, limit: int) -> list[dict[str, Any]]:
        """List the server's chat threads, most recently updated first."""
        found = await self._client.threads.search(
            metadata={"graph_id": "chat"}, limit=limit, sort_by="updated_at", sort_order="desc"
        )
        return [
            _thread_row(
                t["thread_id"], str(t["updated_at"]), (t.get("values") or {}).get("messages", [])
            )
            for t in found
        ]

    async def tree(self, tree_thread_id: str, folded: dict[str, Any] | None) -> dict | None:
        """Return the tree folded from the turn's events (the server keeps no tree threads)."""
        return folded


def _thread_row(thread_id: str, when: str, messages: list[Any]) -> dict[str, Any]:
    fields = [message_fields(m) for m in messages]
    humans = [f["content"] for f in fields if f["type"] == "human"]
    return {
        "thread_id": thread_id,
        "time": when[:19].replace("T", " "),
        "turns": len(humans),
        "question": humans[-1] if humans else "",
    }


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
        view.stopped = True
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
    reply: dict[str, Any] | None = None
    try:
        with Live(view.render(), console=console, refresh_per_second=8, transient=True) as live:
            reply = runner.run(_stream_turn(backend, session, text, view, live))
    except KeyboardInterrupt:  # a second Ctrl-C before the run had stopped
        view.stopped = True
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

    ctx = make_context(data_dir=data_dir, collection=collection, max_depth=depth, top_k=k)
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
    depth: int = typer.Option(None, "--max-depth", help="Maximum recursion depth (default 2)."),
    k: int = typer.Option(None, "-k", "--top-k", help="Chunks per retrieval (default 5)."),
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
