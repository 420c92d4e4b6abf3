"""A chat model that stalls, fails or answers out of shape: the documents still answer.

A real OpenAI-compatible HTTP server on loopback (a free port, stopped by the test) plays
the model; treerag talks to it through langchain-openai as it would to any endpoint.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from treerag.api import ask
from treerag.context import Context

Reply = Callable[[dict], tuple[int, str]]
"""Given the request body: (HTTP status, the message content or the error body)."""


class _Handler(BaseHTTPRequestHandler):
    reply: Reply

    def log_message(self, *args: object) -> None:  # quiet
        pass

    def do_POST(self) -> None:  # noqa: N802 (the http.server API)
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        status, content = type(self).reply(body)
        if status != 200:
            self._send(status, "application/json", json.dumps({"error": {"message": content}}))
            return
        if body.get("stream"):
            chunks = [
                {"choices": [{"index": 0, "delta": {"role": "assistant", "content": content}}]},
                {"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]},
            ]
            events = "".join(
                f"data: {json.dumps({'id': 'x', 'object': 'chat.completion.chunk', 'created': 0, 'model': 'fake', **c})}\n\n"
                for c in chunks
            )
            self._send(200, "text/event-stream", events + "data: [DONE]\n\n")
            return
        message = {"role": "assistant", "content": content}
        choice = {"index": 0, "message": message, "finish_reason": "stop"}
        usage = {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}
        payload = {"id": "x", "object": "chat.completion", "created": 0, "model": "fake"}
        self._send(
            200, "application/json", json.dumps({**payload, "choices": [choice], "usage": usage})
        )

    def _send(self, status: int, kind: str, text: str) -> None:
        data = text.encode()
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


@pytest.fixture
def fake_model(monkeypatch) -> Iterator[Callable[[Reply], str]]:
    """Start the fake endpoint with a reply function; yields a setter, stops it after."""
    handler = type("Handler", (_Handler,), {"reply": staticmethod(lambda body: (500, "unset"))})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    monkeypatch.setenv("OPENAI_API_KEY", "test-key")

    def use(reply: Reply) -> str:
        handler.reply = staticmethod(reply)
        return f"http://127.0.0.1:{server.server_address[1]}/v1"

    yield use
    server.shutdown()
    server.server_close()


def _judging(body: dict) -> bool:
    return "Now the case to judge." in body["messages"][-1]["content"]


def _ctx(make_ctx, base_url: str, **overrides) -> Context:
    ctx = make_ctx(max_depth=0, top_k=3, **overrides)
    from dataclasses import replace

    return replace(ctx, chat_model="openai:fake", chat_base_url=base_url)


async def test_a_stalled_model_ends_the_question_within_its_deadline(make_ctx, fake_model):
    def stall(body: dict) -> tuple[int, str]:
        time.sleep(30)
        return 500, "too late"

    ctx = _ctx(make_ctx, fake_model(stall), run_timeout_s=4.0, llm_timeout_s=20.0)
    started = time.monotonic()
    result = await ask("Where was Orla Venn born?", ctx)
    assert time.monotonic() - started < 4.0 + 6.0  # the deadline, and the offline stand-ins
    # The documents answer, with citations, and the run says in one sentence what happened.
    assert "Dunsorrow" in result["answer"] and result["citations"]
    assert result["error"].startswith("The answer model failed (timeout")
    assert "judgements" in result["error"]
    assert all(
        c["score"] is not None and "chat model failed" in c["error"]
        for c in result["tree"]["chunks"]
    )


async def test_a_failing_model_leaves_the_answer_to_the_documents(make_ctx, fake_model):
    ctx = _ctx(make_ctx, fake_model(lambda body: (500, "internal error")), llm_retries=0)
    result = await ask("Where was Orla Venn born?", ctx)
    assert "Dunsorrow" in result["answer"] and result["citations"]
    assert result["error"].startswith("The answer model failed")
    # Each judge fell to the offline judge: its verdicts, not zeros, rank the evidence.
    assert any(c["score"] > 0 for c in result["tree"]["chunks"])


async def test_a_judge_reply_out_of_shape_is_read_leniently_or_shown(
    make_ctx, fake_model, tmp_path
):
    def reply(body: dict) -> tuple[int, str]:
        if not _judging(body):
            return 200, "Orla Venn was born in Dunsorrow. [1]"
        verdict = {"score": 7, "reason": "very much", "followup_question": "", "quote": ""}
        return 200, json.dumps(verdict)

    ctx = _ctx(make_ctx, fake_model(reply), llm_retries=0)
    result = await ask("Where was Orla Venn born?", ctx)
    assert {c["score"] for c in result["tree"]["chunks"]} == {2}  # 7 read as 2
    assert result["answer"].startswith("Orla Venn was born in Dunsorrow. [1]")
    assert result["citations"] and not result["error"]

    def garbage(body: dict) -> tuple[int, str]:
        return (200, "I think it is fine") if _judging(body) else (200, "Dunsorrow. [1]")

    # A data dir of its own: the verdicts above are cached for this model and prompt.
    ctx = _ctx(make_ctx, fake_model(garbage), llm_retries=0, data_dir=str(tmp_path / "other"))
    result = await ask("Where was Orla Venn born?", ctx)
    chunks = result["tree"]["chunks"]
    assert all("chat model failed" in c["error"] for c in chunks)
    assert "I think it is fine" in chunks[0]["error"]  # the reply is shown
    assert "judgements" in result["error"] and result["citations"]
