"""Where `treerag chat` runs its turns: in this process, or on a LangGraph server."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack
from typing import Any, Protocol
from urllib.parse import quote

from treerag.context import Context


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
        """Stream one turn of the chat graph (a question it cannot take is refused first)."""
        from langchain_core.messages import HumanMessage

        from treerag.preflight import check_question

        check_question(text, self.ctx)  # raises before the thread records the message
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

        parts = self._client.runs.stream(
            thread_id,
            "chat",
            input={"messages": [{"type": "human", "content": text}]},
            stream_mode=["custom", "values"],
            context=self.context or None,
            on_disconnect="cancel",
            on_run_created=remember,
        )
        async for part in _refusals_said(parts):
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
        """Rebuild the tree on the server, else return the one folded from the turn's events.

        treerag's web app, served by the same server (langgraph.json "http"), rebuilds a
        tree from the server's checkpoints at /ui/api/tree/{thread_id}; a server without it
        answers 404 and the folded tree (this session's turns only) is what there is.
        """
        if tree_thread_id:
            try:
                rebuilt = await self._client.http.get(f"/ui/api/tree/{quote(tree_thread_id)}")
            except Exception:  # 404, or no such route on this server: fall back
                rebuilt = None
            if isinstance(rebuilt, dict) and rebuilt.get("thread_id"):
                return rebuilt
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


async def _refusals_said(parts: AsyncIterator[Any]) -> AsyncIterator[Any]:
    """Pass the stream on; a run the server refused to start becomes its sentence."""
    import httpx

    try:
        async for part in parts:
            yield part
    except httpx.HTTPStatusError as exc:
        if exc.response.status_code != 422:
            raise
        try:
            body = exc.response.json()
            said = body.get("error") or body.get("detail") or exc.response.text
        except ValueError:
            said = exc.response.text
        raise RemoteRunError(str(said)) from None
