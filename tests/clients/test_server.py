"""The chat and rag graphs served by a real `langgraph dev`, driven through langgraph_sdk."""

from __future__ import annotations

import asyncio
import json
from importlib import resources
from typing import Any

import pytest
from langgraph_sdk import get_client

from tests.clients.server import server_log
from treerag.search_tree import TreeFold

pytestmark = pytest.mark.slow

FIRST = "Who led the fishers that founded Quillhaven?"
SHALLOW = {"max_depth": 1}  # one level of recursion keeps the server tests quick


async def stream_turn(
    url: str, thread_id: str, text: str, context: dict | None = None
) -> dict[str, Any]:
    """Send one message to the chat graph; collect token events, tree events, final state."""
    client = get_client(url=url)
    tokens: list[dict] = []
    tree: list[dict] = []
    final: dict = {}
    async for part in client.runs.stream(
        thread_id,
        "chat",
        input={"messages": [{"type": "human", "content": text}]},
        stream_mode=["custom", "values"],
        context=context,
    ):
        if part.event == "error":
            pytest.fail(f"run failed: {part.data}\n--- server log ---\n{server_log(url)[-6000:]}")
        if part.event == "custom":
            (tokens if part.data["event"] == "token" else tree).append(part.data)
        elif part.event == "values":
            final = part.data
    reply = final["messages"][-1]
    return {
        "tokens": tokens,
        "tree": tree,
        "reply": reply,
        "meta": reply["additional_kwargs"]["treerag"],
    }


async def new_thread(url: str) -> str:
    thread = await get_client(url=url).threads.create()
    return thread["thread_id"]


def root_text(tokens: list[dict]) -> str:
    return "".join(t["text"] for t in tokens if t["depth"] == 0)


async def test_chat_run_streams_tokens_and_tree_then_a_cited_reply(server_url):
    thread_id = await new_thread(server_url)
    turn = await stream_turn(server_url, thread_id, FIRST)
    reply, meta = turn["reply"], turn["meta"]

    assert reply["type"] == "ai" and "Quillhaven" in reply["content"]
    assert meta["tree_thread_id"] == f"{thread_id}-t1"
    assert meta["question"] == FIRST and meta["citations"] and meta["evidence"]
    # The answer arrives token by token at depth 0; sub-runs stream their own answers deeper.
    assert len([t for t in turn["tokens"] if t["depth"] == 0]) > 5
    assert root_text(turn["tokens"]) == reply["content"]
    assert any(t["depth"] > 0 for t in turn["tokens"])
    kinds = {e["event"] for e in turn["tree"]}
    assert {"run_started", "chunks_retrieved", "chunk_judged", "subrun_started"} <= kinds
    # The data dir is built as `make demo` builds it: the keyword tree and graph take part.
    assert {"keyword_descended", "graph_expanded"} <= kinds
    assert all(e["thread_id"].startswith(meta["tree_thread_id"]) for e in turn["tree"])
    fold = TreeFold()
    for event in turn["tree"]:
        fold.apply(event)
    assert fold.root["thread_id"] == meta["tree_thread_id"] and fold.root["question"] == FIRST
    assert fold.root["answer"] == reply["content"]
    assert any(c.get("child") for c in fold.root["chunks"])


async def test_server_log_is_free_of_blocking_calls_and_docstring_tracebacks(server_url):
    # A turn goes through every node with every store present (chunks, keyword tree, graph,
    # judge cache); `langgraph dev` without --allow-blocking turns a blocking call into a
    # BlockingError, and route docstrings that are not YAML into ScannerErrors at start.
    turn = await stream_turn(server_url, await new_thread(server_url), FIRST, SHALLOW)
    assert "keyword_descended" in {e["event"] for e in turn["tree"]}
    log = server_log(server_url)
    assert "BlockingError" not in log and "Blocking call" not in log
    assert "ScannerError" not in log and "Unable to parse docstring" not in log


async def test_second_message_is_condensed_with_the_first_turn(server_url):
    thread_id = await new_thread(server_url)
    await stream_turn(server_url, thread_id, FIRST, SHALLOW)
    second = await stream_turn(server_url, thread_id, "When was it founded?", SHALLOW)

    question = second["meta"]["question"]
    # "it" after a "who" question is what that question named, not the person found.
    assert question == "When was Quillhaven founded?"
    assert second["meta"]["tree_thread_id"] == f"{thread_id}-t2"
    state = await get_client(url=server_url).threads.get_state(thread_id)
    assert [m["type"] for m in state["values"]["messages"]] == ["human", "ai", "human", "ai"]


def sample_questions(n: int) -> list[str]:
    path = resources.files("treerag") / "sample_corpus" / "questions.jsonl"
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]
    return [row["question"] for row in rows[:n]]


async def test_ten_concurrent_runs_on_different_threads_do_not_mix(server_url):
    questions = sample_questions(10)
    assert len(set(questions)) == 10

    async def ask(question: str) -> tuple[str, str, dict]:
        thread_id = await new_thread(server_url)
        return question, thread_id, await stream_turn(server_url, thread_id, question, SHALLOW)

    for question, thread_id, turn in await asyncio.gather(*(ask(q) for q in questions)):
        tree_id = f"{thread_id}-t1"
        assert turn["meta"]["question"] == question
        assert turn["meta"]["tree_thread_id"] == tree_id
        assert turn["reply"]["content"] and root_text(turn["tokens"]) == turn["reply"]["content"]
        events = turn["tree"] + turn["tokens"]
        assert all(e["thread_id"].startswith(tree_id) for e in events), question
        roots = [e for e in turn["tree"] if e["event"] == "run_started" and e["depth"] == 0]
        assert [e["question"] for e in roots] == [question]


async def test_rag_graph_answers_through_the_server(server_url):
    client = get_client(url=server_url)
    thread_id = await new_thread(server_url)
    question = "Which guild built the ship captained by Aldous Brennick?"
    output = await client.runs.wait(thread_id, "rag", input={"question": question}, context=SHALLOW)

    assert isinstance(output, dict), output
    assert output["answer"] and output["citations"]
    assert output["evidence"] and {"chunk_id", "title", "score"} <= set(output["evidence"][0])
    assert "Tidewrights" in output["answer"]


async def test_the_server_keeps_its_threads_in_the_data_dir(server_url, server_data):
    from tests.clients.server import REPO

    client = get_client(url=server_url)
    thread = await client.threads.create()
    await client.runs.wait(
        thread["thread_id"], "rag", input={"question": "Who founded Quillhaven?"}
    )
    # Started in the data dir (as `make serve` starts it): its threads and runs are there,
    # never in the folder of the checkout.
    state = server_data / ".langgraph_api"
    assert state.is_dir() and any(state.iterdir())
    assert not (REPO / ".langgraph_api").exists()
