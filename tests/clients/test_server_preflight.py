"""Runs of a real `langgraph dev` are checked before they start, as the CLI's and API's are.

A setting that cannot work (from the server's environment or the run's own context) is
answered 422 with a sentence naming it, and the thread keeps nothing of the refused run:
no run in its list, no checkpointed values, not busy.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from langgraph_sdk import get_client

from tests.clients.server import langgraph_server, server_log

pytestmark = pytest.mark.slow

QUESTION = "Who led the fishers that founded Quillhaven?"
SHALLOW = {"max_depth": 1}


@pytest.fixture(scope="module")
def top_k_0_server(sample_data, tmp_path_factory) -> Iterator[str]:
    """A server whose environment sets TREERAG_TOP_K=0."""
    from tests.clients.server import copy_data

    data = copy_data(sample_data, tmp_path_factory.mktemp("preflight") / "data")
    with langgraph_server(data, env_extra={"TREERAG_TOP_K": "0"}) as url:
        yield url


async def refused(url: str, thread_id: str | None, graph: str, context: dict | None) -> str:
    """Start a run (streamed, as the web page does); return the refusal's message."""
    client = get_client(url=url)
    payload: dict[str, Any] = (
        {"messages": [{"type": "human", "content": QUESTION}]}
        if graph == "chat"
        else {"question": QUESTION}
    )
    with pytest.raises(httpx.HTTPStatusError) as caught:
        async for part in client.runs.stream(
            thread_id, graph, input=payload, context=context, stream_mode=["custom", "values"]
        ):
            pytest.fail(f"the run started: {part}\n{server_log(url)[-4000:]}")
    response = caught.value.response
    assert response.status_code == 422, response.text
    return detail(response)


def detail(response: httpx.Response) -> str:
    """The message of an error answer of the API (`error`, or `detail` on some routes)."""
    body = response.json()
    return str(body.get("error") or body["detail"])


async def assert_untouched(url: str, thread_id: str) -> None:
    """The thread has no run, no checkpointed values and is not busy."""
    client = get_client(url=url)
    assert await client.runs.list(thread_id) == []
    state = await client.threads.get_state(thread_id)
    assert not state["values"] and not state["next"] and not state["tasks"]
    assert await client.threads.get_history(thread_id) == []
    thread = await client.threads.get(thread_id)
    assert thread["status"] == "idle" and not thread["values"]


@pytest.mark.parametrize("graph", ["chat", "rag"])
async def test_a_bad_environment_setting_refuses_every_run(top_k_0_server, graph):
    client = get_client(url=top_k_0_server)
    thread_id = (await client.threads.create())["thread_id"]
    message = await refused(top_k_0_server, thread_id, graph, SHALLOW)
    assert message == "the run was not started: TREERAG_TOP_K=0 must be at least 1"
    await assert_untouched(top_k_0_server, thread_id)
    # A run without a thread is refused as well, and leaves no thread behind.
    before = len(await client.threads.search(limit=100))
    await refused(top_k_0_server, None, graph, SHALLOW)
    assert len(await client.threads.search(limit=100)) == before
    # The run's own context may put it right: it is checked, not the environment alone.
    output = await client.runs.wait(
        thread_id, "rag", input={"question": QUESTION}, context={**SHALLOW, "top_k": 3}
    )
    assert "Quillhaven" in output["answer"]


@pytest.mark.parametrize(
    ("context", "expected"),
    [
        (
            {"top_k": 0},
            "TREERAG_TOP_K=0 must be at least 1 (set by this run's settings: top_k)",
        ),
        (
            {"chat_model": "openai:gpt-4o-mini"},
            "TREERAG_CHAT_MODEL names an OpenAI-compatible model but OPENAI_API_KEY is not set",
        ),
        ({"top_k": "3"}, "setting top_k='3' is not a valid int"),
        ({"search_mode": "fuzzy"}, "setting search_mode='fuzzy' is not one of"),
    ],
)
async def test_a_bad_run_context_is_refused_and_leaves_no_half_run(server_url, context, expected):
    client = get_client(url=server_url)
    thread_id = (await client.threads.create())["thread_id"]
    message = await refused(server_url, thread_id, "chat", {**SHALLOW, **context})
    assert message.startswith("the run was not started: ") and expected in message
    await assert_untouched(server_url, thread_id)
    # The same thread then takes a good run as if nothing had happened.
    output = await client.runs.wait(
        thread_id,
        "chat",
        input={"messages": [{"type": "human", "content": QUESTION}]},
        context=SHALLOW,
    )
    assert [m["type"] for m in output["messages"]] == ["human", "ai"]
    assert "Quillhaven" in output["messages"][-1]["content"]
    assert [run["status"] for run in await client.runs.list(thread_id)] == ["success"]


@pytest.fixture(scope="module")
def users_server(sample_data, tmp_path_factory) -> Iterator[tuple[str, str]]:
    """A server with a users file (one user of tenant `acme`); yields its URL and the token."""
    from tests.clients.server import copy_data
    from tests.clients.tenancy import add_users

    root = tmp_path_factory.mktemp("preflight-users")
    data = copy_data(sample_data, root / "data")
    users_file = root / "users.yaml"
    token = add_users(users_file, {"ann": "acme"})["ann"]
    with langgraph_server(data, env_extra={"TREERAG_AUTH_FILE": str(users_file)}) as url:
        yield url, token


async def test_runs_of_authenticated_users_are_checked_too(users_server, tmp_path):
    url, token = users_server
    headers = {"Authorization": f"Bearer {token}"}
    client = get_client(url=url, headers=headers)
    thread_id = (await client.threads.create())["thread_id"]
    async with httpx.AsyncClient(base_url=url, headers=headers, timeout=120) as http:
        response = await http.post(
            f"/threads/{thread_id}/runs/wait",
            json={"assistant_id": "rag", "input": {"question": QUESTION}, "context": {"top_k": 0}},
        )
        assert response.status_code == 422
        assert "TREERAG_TOP_K=0 must be at least 1" in detail(response)
        assert await client.runs.list(thread_id) == []
        # The graph builds its settings from the run's context before the tenant binds them,
        # so a data_dir that is a file is refused here too.
        a_file = tmp_path / "not-a-folder"
        a_file.write_text("x")
        response = await http.post(
            f"/threads/{thread_id}/runs/wait",
            json={
                "assistant_id": "rag",
                "input": {"question": QUESTION},
                "context": {"data_dir": str(a_file)},
            },
        )
        assert response.status_code == 422 and "is a file, not a folder" in detail(response)
        assert await client.runs.list(thread_id) == []
        # A good run of the same user starts and finishes.
        output = await client.runs.wait(
            thread_id, "rag", input={"question": QUESTION}, context=SHALLOW
        )
        assert "answer" in output, output
        assert [run["status"] for run in await client.runs.list(thread_id)] == ["success"]


async def test_the_terminal_chat_says_why_the_server_refused(server_url):
    from treerag.cli.chat_backends import RemoteBackend, RemoteRunError

    backend = RemoteBackend(server_url, {"top_k": 0})
    await backend.open()
    try:
        thread_id = await backend.new_thread()
        with pytest.raises(RemoteRunError) as caught:
            async for _ in backend.stream(thread_id, QUESTION):
                pytest.fail("the run started")
        assert str(caught.value) == (
            "the run was not started: TREERAG_TOP_K=0 must be at least 1 "
            "(set by this run's settings: top_k)"
        )
        assert await backend.messages(thread_id) == []
    finally:
        await backend.close()


# -- inputs refused at the door (the question, unknown settings, a missing model file) -------
LONG = "Who led the fishers? " * 200  # 4,200 characters, over the default limit of 4,000
HUMAN = "human"


@pytest.mark.parametrize(
    ("graph", "run_input", "context", "expected"),
    [
        ("rag", {"question": ""}, {}, "the question is empty"),
        ("rag", {"question": "   "}, {}, "the question is empty"),
        ("rag", {}, {}, 'the rag graph\'s input has no question: send {"question": "…"}'),
        ("rag", {"question": 42}, {}, "the question must be text, not int (42)"),
        ("rag", {"question": LONG}, {}, "the question is 4,200 characters long, over the limit"),
        ("rag", {"question": QUESTION}, {"topk": 3}, "unknown setting 'topk' (did you mean"),
        ("rag", {"question": QUESTION}, {"chat_model": "local:/nope.gguf"}, "no such GGUF file"),
        ("chat", {"messages": [{"type": HUMAN, "content": ""}]}, {}, "the question is empty"),
        ("chat", {"messages": [{"type": HUMAN, "content": LONG}]}, {}, "over the limit of 4,000"),
        ("chat", {"messages": []}, {}, "the messages hold no question"),
        ("chat", {"question": QUESTION}, {}, "the chat graph's input has no messages"),
        ("rag", None, {}, "the run has no input: send"),
    ],
    ids=[
        "empty",
        "blank",
        "missing",
        "number",
        "too-long",
        "unknown-key",
        "no-model-file",
        "chat-empty",
        "chat-too-long",
        "chat-no-human",
        "chat-no-messages",
        "no-input",
    ],
)
async def test_a_bad_input_is_refused_with_422_and_nothing_recorded(
    server_url, graph, run_input, context, expected
):
    client = get_client(url=server_url)
    thread_id = (await client.threads.create())["thread_id"]
    before = len(await client.threads.search(limit=1000))
    body = {"assistant_id": graph, "input": run_input, "context": context}
    async with httpx.AsyncClient(base_url=server_url, timeout=120) as http:
        for path in (f"/threads/{thread_id}/runs/wait", f"/threads/{thread_id}/runs/stream"):
            response = await http.post(path, json=body)
            assert response.status_code == 422, (path, response.text)
            said = detail(response)
            assert said.startswith("the run was not started: ") and expected in said, said
            assert said.count(". ") == 0  # one sentence
        response = await http.post("/runs/wait", json=body)  # a run without a thread
        assert response.status_code == 422 and expected in detail(response), response.text
    await assert_untouched(server_url, thread_id)
    assert len(await client.threads.search(limit=1000)) == before


async def test_the_terminal_chat_reports_a_refused_question(server_url):
    from treerag.cli.chat_backends import RemoteBackend, RemoteRunError

    backend = RemoteBackend(server_url, {})
    await backend.open()
    try:
        thread_id = await backend.new_thread()
        with pytest.raises(RemoteRunError) as caught:
            async for _ in backend.stream(thread_id, LONG):
                pytest.fail("the run started")
        assert str(caught.value).startswith(
            "the run was not started: the question is 4,200 characters long"
        )
        assert await backend.messages(thread_id) == []
    finally:
        await backend.close()
