"""Route questions to treerag from a supervisor graph, two ways: as a subgraph and as a tool.

Run it with `python examples/supervisor.py [--data-dir DIR]`. Without a data directory the
shipped sample corpus is ingested into a temporary one first (about half a minute); no API
key and no server are needed: the offline reasoner answers, and a scripted model stands in
for the agent's LLM.

treerag's public API used here:

- `treerag.chat_builder()`: the chat graph's builder (messages in, messages out). Compiled
  and added as the supervisor's `treerag` node, it is a subgraph: it shares the `messages`
  key, runs under the supervisor's checkpointer, and with `astream(..., subgraphs=True)` its
  search-tree events arrive under the node's namespace (`("treerag:<task id>",)`).
- `treerag.ask(question, ctx, on_event=...)`: called by the `search_documents` tool of a
  tool-calling agent (a model node and a `ToolNode` in a loop); the tool returns the answer
  with its citations and relays the tree events to the stream, where they arrive under the
  agent's namespace (`("agent:<task id>",)`).
- `treerag.rag_builder()`: compiled with the supervisor's checkpointer to rebuild the search
  tree of a subgraph turn with `treerag.search_tree.rebuild`.
- `treerag.Context`: the run settings (data directory, budgets), passed as the run context.

To use a real model for the agent, replace `ScriptedToolCaller()` by any chat model that
supports tool calling (for example `ChatOpenAI(model=...)`).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import tempfile
from collections import Counter
from importlib import resources
from pathlib import Path
from typing import Any, Literal

from langchain_core.language_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, BaseMessage, ToolMessage
from langchain_core.tools import tool
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.config import get_stream_writer
from langgraph.graph import END, START, MessagesState, StateGraph
from langgraph.prebuilt import ToolNode, tools_condition
from langgraph.runtime import get_runtime

import treerag
from treerag.search_tree import rebuild, size

AGENT_PREFIX = "agent:"
"""Messages starting with this go to the tool-calling agent; all others to the subgraph."""


@tool
async def search_documents(question: str) -> str:
    """Answer a question from the user's documents; returns JSON with answer and citations."""
    ctx = get_runtime(treerag.Context).context or treerag.Context()
    result = await treerag.ask(question, ctx, on_event=get_stream_writer())
    return json.dumps(
        {
            "answer": result["answer"],
            "citations": result["citations"],
            "thread_id": result["thread_id"],
        },
        ensure_ascii=False,
    )


class ScriptedToolCaller(GenericFakeChatModel):
    """A stand-in for a tool-calling chat model: asks the tool once, then answers from it."""

    messages: Any = iter(())
    disable_streaming: bool = True

    def bind_tools(self, tools: Any, **kwargs: Any) -> ScriptedToolCaller:
        # The script knows its one tool; binding changes nothing.
        return self

    def _generate(self, messages, stop=None, run_manager=None, **kwargs):
        # GenericFakeChatModel replays `messages`: put the computed reply there.
        self.messages = iter([self._reply(messages)])
        return super()._generate(messages, stop, run_manager, **kwargs)

    def _reply(self, messages: list[BaseMessage]) -> AIMessage:
        last = messages[-1]
        if isinstance(last, ToolMessage):
            found = json.loads(str(last.content))
            sources = "; ".join(f"[{c['n']}] {c['title']}" for c in found["citations"])
            return AIMessage(content=f"{found['answer']}\n\nSources: {sources}")
        question = str(last.content).removeprefix(AGENT_PREFIX).strip()
        call = {"name": "search_documents", "args": {"question": question}}
        return AIMessage(content="", tool_calls=[{**call, "id": f"call_{len(messages)}"}])


def build_agent(model: Any) -> Any:
    """A tool-calling agent: the model node and a ToolNode in a loop until no tool is called."""

    async def call_model(state: MessagesState) -> dict:
        return {"messages": [await model.bind_tools([search_documents]).ainvoke(state["messages"])]}

    builder = StateGraph(MessagesState)
    builder.add_node("model", call_model)
    builder.add_node("tools", ToolNode([search_documents]))
    builder.add_edge(START, "model")
    builder.add_conditional_edges("model", tools_condition, ["tools", END])
    builder.add_edge("tools", "model")
    return builder.compile(name="doc_agent")


def route_question(state: MessagesState) -> Literal["treerag", "agent"]:
    """Send `agent:` messages to the tool-calling agent and the rest to the treerag subgraph."""
    text = str(state["messages"][-1].content)
    return "agent" if text.startswith(AGENT_PREFIX) else "treerag"


def build_supervisor(agent_model: Any) -> StateGraph:
    """The supervisor: route each question to the treerag subgraph or the agent."""
    builder = StateGraph(MessagesState, context_schema=treerag.Context)
    builder.add_node("treerag", treerag.chat_builder().compile(name="treerag_chat"))
    builder.add_node("agent", build_agent(agent_model))
    builder.add_conditional_edges(START, route_question, ["treerag", "agent"])
    builder.add_edge("treerag", END)
    builder.add_edge("agent", END)
    return builder


async def ask_supervisor(graph: Any, ctx: treerag.Context, thread_id: str, text: str) -> dict:
    """Stream one question through the supervisor with subgraphs; summarise what streamed."""
    events: Counter[str] = Counter()
    tools_called: dict[str, dict] = {}
    route = ""
    async for namespace, mode, payload in graph.astream(
        {"messages": [{"role": "user", "content": text}]},
        {"configurable": {"thread_id": thread_id}},
        context=ctx,
        stream_mode=["custom", "updates"],
        subgraphs=True,
    ):
        where = "/".join(part.split(":")[0] for part in namespace) or "supervisor"
        if mode == "custom" and payload.get("event") != "token":
            events[f"{where} {payload['event']}"] += 1
        elif mode == "updates":
            route = route or (next(iter(payload), "") if not namespace else "")
            for update in payload.values():
                for message in (update or {}).get("messages", []):
                    for call in getattr(message, "tool_calls", None) or []:
                        tools_called[call["id"]] = call  # seen by the agent and by its parent
    state = await graph.aget_state({"configurable": {"thread_id": thread_id}})
    reply = state.values["messages"][-1]
    return {
        "question": text,
        "route": route,
        "answer": str(reply.content),
        "treerag": reply.additional_kwargs.get("treerag", {}),
        "tool_calls": list(tools_called.values()),
        "events": dict(events),
    }


def _print(result: dict) -> None:
    print(f"\n== {result['question']}\n   routed to: {result['route']}")
    for name, count in sorted(result["events"].items()):
        print(f"   {count:3d} × {name}")
    for call in result["tool_calls"]:
        print(f"   tool call: {call['name']}({json.dumps(call['args'], ensure_ascii=False)})")
    if "tree_runs" in result:
        print(
            f"   search tree {result['treerag']['tree_thread_id']}: {result['tree_runs']} runs "
            "(rebuilt from the supervisor's checkpointer)"
        )
    print(f"   answer: {result['answer']}")


def _sample_data(data_dir: str | None, scratch: str) -> treerag.Context:
    if data_dir:
        return treerag.Context(data_dir=data_dir)
    from treerag.ingest.indexer import ingest

    ctx = treerag.Context(data_dir=scratch)
    print(f"ingesting the sample corpus into {scratch} …")
    ingest([Path(str(resources.files("treerag") / "sample_corpus" / "docs"))], ctx)
    return ctx


async def run_demo(ctx: treerag.Context, questions: list[str] | None = None) -> list[dict]:
    """Ask the demo questions (one per route) on one supervisor thread; return the summaries."""
    questions = questions or [
        "Who led the fishers that founded Quillhaven?",
        f"{AGENT_PREFIX} Which guild built the ship captained by Aldous Brennick?",
    ]
    saver = InMemorySaver()
    graph = build_supervisor(ScriptedToolCaller()).compile(checkpointer=saver, name="supervisor")
    trees = treerag.rag_builder().compile(checkpointer=saver)
    results = []
    for text in questions:
        result = await ask_supervisor(graph, ctx, "supervisor-demo", text)
        if result["treerag"].get("tree_thread_id"):
            tree = await rebuild(trees, result["treerag"]["tree_thread_id"])
            result["tree_runs"] = size(tree)["runs"] if tree else 0
        results.append(result)
        _print(result)
    return results


def main(argv: list[str] | None = None) -> list[dict]:
    """Parse the options, make sure there is data, run the demo."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--data-dir", help="An ingested data directory (default: ingest a temp one)."
    )
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="treerag-supervisor-") as scratch:
        return asyncio.run(run_demo(_sample_data(args.data_dir, scratch)))


if __name__ == "__main__":
    main()
