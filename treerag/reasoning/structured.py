"""Structured output for every chat model: token caps sized to the schema, and a fallback.

- Every structured call carries `max_tokens` sized to its schema. A small model under a JSON
  schema can run away (whitespace or repetition until the timeout): with a cap it stops after
  a few hundred tokens, and the truncated reply fails to parse instead of costing minutes.
- The default method of `with_structured_output` (json_schema for OpenAI-compatible clients,
  which llama.cpp's server enforces through its grammar) comes first. An endpoint that rejects
  it (HTTP 400) is asked again in json_mode, with the schema written into the prompt, and the
  reply is parsed the same way. Retries and degradation stay with the caller.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import BaseMessage, HumanMessage
from langchain_core.runnables import Runnable, RunnableLambda
from pydantic import BaseModel

JUDGE_MAX_TOKENS = 256
"""score + one-sentence reason + a follow-up question + one quoted sentence, with JSON keys."""
KEYWORD_MAX_TOKENS = 384
"""A keyword-tree decision: an id or two, a short reason, maybe a new keyword's description."""
EXTRACTION_MAX_TOKENS = 1024
"""Entities and relations of one chunk (~800 characters) with one-sentence descriptions."""
ANSWER_MAX_TOKENS = 512
"""A brief cited answer."""
CONDENSE_MAX_TOKENS = 96
"""One standalone question."""


def capped(model: BaseChatModel, max_tokens: int) -> BaseChatModel:
    """The same model with a cap on generated tokens, where the client has that setting."""
    fields = getattr(type(model), "model_fields", {})
    if "max_tokens" in fields and max_tokens > 0:
        current = getattr(model, "max_tokens", None)
        if current is None or current > max_tokens:
            return model.model_copy(update={"max_tokens": max_tokens})
    return model


def worth_retrying(exc: BaseException) -> bool:
    """Whether a failed call is tried again.

    Not when cut off by its token cap (it would run away again), and never when the run
    cancelled it: tenacity would swallow the cancel and call again, holding the run past its
    deadline.
    """
    return not truncated(exc) and not isinstance(exc, asyncio.CancelledError)


def truncated(exc: BaseException) -> bool:
    """Whether a failure is a reply cut off by its token cap (retrying it repeats it)."""
    return type(exc).__name__ == "LengthFinishReasonError"


class UnreadableReply(ValueError):
    """A reply that is not the structured output asked for; `llm_output` holds its text."""

    def __init__(self, error: str, llm_output: str):
        """Keep the parser's error and the reply it could not read."""
        super().__init__(error)
        self.llm_output = llm_output


def _parsed(out: dict[str, Any]) -> Any:
    """The parsed output of an `include_raw` call, or `UnreadableReply` with the reply."""
    if out.get("parsing_error") is not None:
        content = getattr(out.get("raw"), "content", None)
        said = content if isinstance(content, str) else str(out.get("raw"))
        raise UnreadableReply(str(out["parsing_error"]).splitlines()[0], said)
    return out["parsed"]


def structured(model: BaseChatModel, schema: type[BaseModel], max_tokens: int) -> Runnable:
    """`with_structured_output(schema)` under a token cap, falling back to json_mode on a 400.

    A reply that is not the schema raises `UnreadableReply` carrying its text, so that the
    tree can show what the model said.
    """
    model = capped(model, max_tokens)
    if "max_tokens" in getattr(type(model), "model_fields", {}):
        # An API client: read the reply whole. Streamed, a reply that is not JSON fails
        # inside the client's incremental parse, and its text is lost to the error.
        model = model.model_copy(update={"disable_streaming": True})
    primary = model.with_structured_output(schema, include_raw=True) | RunnableLambda(_parsed)
    try:
        json_mode = model.with_structured_output(schema, method="json_mode", include_raw=True)
    except (NotImplementedError, TypeError, ValueError):
        return primary
    try:
        from openai import BadRequestError
    except ImportError:  # not an OpenAI-compatible client: nothing to fall back from
        return primary
    spelled = json.dumps(schema.model_json_schema(), ensure_ascii=False)

    def with_schema(messages: list[BaseMessage]) -> list[BaseMessage]:
        note = f"\n\nReply with one JSON object that follows this JSON schema:\n{spelled}"
        *head, last = messages
        return [*head, HumanMessage(content=f"{last.content}{note}")]

    fallback: Runnable[Any, Any] = RunnableLambda(with_schema) | json_mode | RunnableLambda(_parsed)
    return primary.with_fallbacks([fallback], exceptions_to_handle=(BadRequestError,))
