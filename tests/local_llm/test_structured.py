"""Structured-output plumbing over real HTTP: token caps on the wire, fallback, no runaway retry.

A small OpenAI-compatible endpoint on 127.0.0.1 records every request body and answers as a
server would that rejects json_schema, or that stops a reply at its token cap.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from langchain_openai import ChatOpenAI

from treerag.context import Context
from treerag.models import split_model_string
from treerag.reasoning.llm import LLMReasoner
from treerag.reasoning.structured import JUDGE_MAX_TOKENS, capped

VERDICT = {"score": 2, "reason": "It names the guild.", "followup_question": "", "quote": "x"}


def completion(content: str, finish: str = "stop") -> dict:
    return {
        "id": "c1",
        "object": "chat.completion",
        "created": 0,
        "model": "m",
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": content},
                "finish_reason": finish,
            }
        ],
        "usage": {"prompt_tokens": 5, "completion_tokens": 5, "total_tokens": 10},
    }


@contextmanager
def endpoint(reply: Callable[[dict], tuple[int, dict]]) -> Iterator[tuple[str, list[dict]]]:
    bodies: list[dict] = []

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self):  # noqa: N802
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            bodies.append(body)
            status, payload = reply(body)
            data = json.dumps(payload).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1", bodies
    finally:
        server.shutdown()
        server.server_close()


def client(url: str) -> ChatOpenAI:
    return ChatOpenAI(model="m", base_url=url, api_key="x", max_retries=0, timeout=10)


def test_local_is_a_provider_of_its_own():
    assert split_model_string("local", "X") == ("local", "")
    assert split_model_string("local:/models/a.gguf", "X") == ("local", "/models/a.gguf")


def test_local_preset_defaults_yield_to_explicit_and_env(monkeypatch):
    ctx = Context(chat_model="local")
    assert (ctx.top_k, ctx.max_depth, ctx.answer_token_budget) == (3, 1, 1000)
    assert Context(chat_model="openai:m").top_k == 5
    monkeypatch.setenv("TREERAG_TOP_K", "7")
    ctx = Context(chat_model="local", max_depth=2)
    assert (ctx.top_k, ctx.max_depth) == (7, 2)


def test_cap_is_sent_and_a_lower_user_cap_is_kept():
    model = client("http://127.0.0.1:1/v1")
    assert capped(model, 100).max_tokens == 100
    assert capped(model.model_copy(update={"max_tokens": 50}), 100).max_tokens == 50


async def test_judge_sends_its_cap_and_json_schema():
    with endpoint(lambda body: (200, completion(json.dumps(VERDICT)))) as (url, bodies):
        verdict = await LLMReasoner(client(url), timeout_s=10, retries=0).judge("q", "t", "text")
    assert verdict.score == 2 and not verdict.error
    assert bodies[0]["max_completion_tokens"] == JUDGE_MAX_TOKENS
    assert bodies[0]["response_format"]["type"] == "json_schema"


async def test_an_endpoint_without_json_schema_is_asked_in_json_mode():
    def reply(body: dict) -> tuple[int, dict]:
        if body["response_format"]["type"] == "json_schema":
            return 400, {"error": {"message": "json_schema is not supported", "type": "x"}}
        return 200, completion(json.dumps(VERDICT))

    with endpoint(reply) as (url, bodies):
        verdict = await LLMReasoner(client(url), timeout_s=10, retries=0).judge("q", "t", "text")
    assert verdict.score == 2 and not verdict.error
    assert [b["response_format"]["type"] for b in bodies] == ["json_schema", "json_object"]
    assert '"followup_question"' in bodies[1]["messages"][-1]["content"]  # the schema, spelled
    assert bodies[1]["max_completion_tokens"] == JUDGE_MAX_TOKENS


async def test_a_reply_cut_off_by_its_cap_degrades_at_once():
    runaway = '{"score": 1, "reason": "' + " " * 50
    with endpoint(lambda body: (200, completion(runaway, "length"))) as (url, bodies):
        verdict = await LLMReasoner(client(url), timeout_s=10, retries=2).judge("q", "t", "text")
    assert verdict.score == 0 and verdict.error and verdict.calls == 1
    assert len(bodies) == 1  # not retried: it would run away again


@pytest.mark.parametrize("spec", ["local:/no/such/file.gguf", "local:no-such-name"])
def test_unknown_local_weights_are_one_line_errors(spec):
    from treerag.local_llm import LocalModelError
    from treerag.models import get_chat_model

    with pytest.raises(LocalModelError, match="no such GGUF file") as failed:
        get_chat_model(Context(chat_model=spec))
    assert "\n" not in str(failed.value)


@pytest.mark.parametrize(
    ("given", "kept"),
    [
        ("", False),  # the 1.5B model often leaves it empty
        ("Which guild built the ship Aldous Brennick commanded?", False),  # or repeats the question
        ("Which guild built the Saltwren?", True),  # a real follow-up is the model's own
    ],
)
async def test_the_local_judge_asks_a_new_follow_up_for_every_partial_chunk(given, kept):
    from tests.fakes import ScriptedChatModel
    from treerag.models import get_embeddings
    from treerag.reasoning.local import LocalReasoner
    from treerag.reasoning.offline import OfflineReasoner

    question = "Which guild built the ship Aldous Brennick commanded?"
    text = "In 1599 Aldous Brennick was given command of the Saltwren, a merchant ship."
    reply = {"score": 1, "reason": "It names his ship.", "followup_question": given, "quote": ""}
    reasoner = LocalReasoner(
        Context(chat_model="local", local_judge="model"), OfflineReasoner(get_embeddings(Context()))
    )
    reasoner.model = ScriptedChatModel(judge_script=lambda q, t, x: reply)
    verdict = await reasoner.judge(question, "Aldous Brennick", text)
    assert verdict.score == 1 and not verdict.error, verdict
    assert verdict.followup.strip() and verdict.followup.rstrip("?") != question.rstrip("?")
    assert (verdict.followup == given) is kept
    assert "Saltwren" in verdict.followup


EVIDENCE_TEXT = "The Saltwren was built by the Guild of Tidewrights in the harbour of Quillhaven."


@pytest.mark.parametrize("reply", ["[2]", " [1][2]。", "[1], [2]."])
async def test_an_answer_of_citation_marks_alone_is_not_passed_off_as_an_answer(reply):
    from tests.fakes import ScriptedChatModel
    from treerag.models import get_embeddings
    from treerag.reasoning.base import EvidenceItem, ModelFailure
    from treerag.reasoning.local import LocalReasoner
    from treerag.reasoning.offline import OfflineReasoner

    question = "Who built the Saltwren?"
    evidence = [EvidenceItem(1, "c1", "Saltwren", "ships.md", EVIDENCE_TEXT, 2)]
    # A failed answer: the answer node puts the offline answer, cited, in its place and says
    # why in one sentence (tests/graph/test_failing_model.py runs that end to end).
    plain = LLMReasoner(ScriptedChatModel(answer_text=reply), 30.0, 0)
    with pytest.raises(ModelFailure, match="a reply with no words"):
        await plain.answer(question, evidence, "")
    local = LocalReasoner(Context(chat_model="local"), OfflineReasoner(get_embeddings(Context())))
    local.model = ScriptedChatModel(answer_text=reply)
    with pytest.raises(ModelFailure, match="a reply with no words"):
        await local.answer(question, evidence, "")


async def test_a_short_answer_in_words_is_kept():
    from tests.fakes import ScriptedChatModel
    from treerag.reasoning.base import EvidenceItem

    evidence = [EvidenceItem(1, "c1", "Saltwren", "ships.md", EVIDENCE_TEXT, 2)]
    reasoner = LLMReasoner(ScriptedChatModel(answer_text="12 [1]"), 30.0, 0)
    assert await reasoner.answer("How many?", evidence, "") == "12 [1]"


async def test_local_judge_offline_makes_no_call_and_caches_under_the_offline_name():
    from tests.fakes import ScriptedChatModel
    from treerag.models import get_embeddings
    from treerag.reasoning.local import LocalReasoner
    from treerag.reasoning.offline import OfflineReasoner

    offline = OfflineReasoner(get_embeddings(Context()))
    reasoner = LocalReasoner(Context(chat_model="local", local_judge="offline"), offline)
    reasoner.model = ScriptedChatModel(judge_script=lambda q, t, x: AssertionError("called"))
    verdict = await reasoner.judge("Who built the Saltwren?", "Saltwren", EVIDENCE_TEXT)
    assert verdict.score in (1, 2) and verdict.reason.startswith("offline") and verdict.calls == 0
    assert reasoner.model.prompts == []
    assert reasoner.judge_name == offline.judge_name != reasoner.name
    model_judged = LocalReasoner(Context(chat_model="local", local_judge="model"), offline)
    # The model's name and its judge prompt's hash (an overridden prompt is another judge).
    assert model_judged.judge_name.startswith(f"{model_judged.name}#")
    assert LocalReasoner(Context(chat_model="local"), offline).judge_name == offline.judge_name


@pytest.mark.parametrize(
    ("title", "text", "score", "followup"),
    [
        # Names the bridge (her village), not the river: partial, the offline follow-up asked.
        (
            "Ilse Varga",
            "Ilse Varga is a cartographer. She was born in 1902 in the village of Brennholt.",
            1,
            "Which river flows through Brennholt?",
        ),
        # Says the river of her village itself: the model's 2 stands.
        (
            "Ilse Varga",
            "Ilse Varga was born in Brennholt. The river Amsel flows through the village "
            "where Ilse Varga was born.",
            2,
            "",
        ),
    ],
)
async def test_the_local_models_sufficient_for_a_bridge_alone_is_partial(
    title, text, score, followup
):
    from tests.fakes import ScriptedChatModel
    from treerag.models import get_embeddings
    from treerag.reasoning.local import LocalReasoner
    from treerag.reasoning.offline import OfflineReasoner

    question = "Which river flows through the village where Ilse Varga was born?"
    reply = {"score": 2, "reason": "It says where she was born.", "followup_question": ""}
    reasoner = LocalReasoner(
        Context(chat_model="local", local_judge="model"), OfflineReasoner(get_embeddings(Context()))
    )
    reasoner.model = ScriptedChatModel(judge_script=lambda q, t, x: {**reply, "quote": ""})
    verdict = await reasoner.judge(question, title, text)
    assert (verdict.score, verdict.followup) == (score, followup), verdict
