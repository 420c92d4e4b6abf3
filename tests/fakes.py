"""Scripted chat models for the LLM path: they record prompts and replay scripted replies."""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Callable
from typing import Any

from langchain_core.language_models import GenericFakeChatModel
from langchain_core.messages import AIMessage
from langchain_core.runnables import RunnableLambda
from pydantic import PrivateAttr

Reply = str | dict | Exception
JudgeScript = Callable[[str, str, str], Reply]
"""Called as script(question, title, passage_text) -> JSON reply, dict, or an exception to raise."""

_Q = re.compile(r"^Question: (.*)$", re.M)
_TITLE = re.compile(r'<<<PASSAGE title="(.*)">>>')
_PASSAGE = re.compile(r"<<<PASSAGE[^\n]*\n(.*)\n<<<END PASSAGE>>>", re.S)


class ScriptedChatModel(GenericFakeChatModel):
    """Judges through `judge_script`, answers with `answer_text`; tracks concurrency and prompts."""

    judge_script: Any = None
    structured_scripts: dict = {}
    """Other structured outputs by schema name: {"BranchDecision": fn(prompt) -> reply}."""
    answer_text: str = "The answer [1]."
    delay_s: float = 0.0
    _prompts: list[str] = PrivateAttr(default_factory=list)
    _in_flight: int = PrivateAttr(default=0)
    _max_in_flight: int = PrivateAttr(default=0)

    def __init__(self, **kwargs: Any):
        super().__init__(messages=iter(()), **kwargs)

    @property
    def prompts(self) -> list[str]:
        return self._prompts

    @property
    def max_in_flight(self) -> int:
        return self._max_in_flight

    def _reply(self, schema: Any, prompt: str) -> Any:
        if schema.__name__ in self.structured_scripts:
            reply = self.structured_scripts[schema.__name__](prompt)
        else:
            case = prompt.rsplit("Now the case to judge.", 1)[-1]  # after the worked examples
            reply = self.judge_script(
                _Q.search(case).group(1),
                _TITLE.search(case).group(1),
                _PASSAGE.search(case).group(1),
            )
        if isinstance(reply, Exception):
            raise reply
        return reply

    def _structured(self, schema: Any, prompt: str, include_raw: bool) -> Any:
        """As LangChain's `with_structured_output`: with `include_raw`, a reply the schema
        refuses comes back as `parsing_error` beside the raw message instead of raising."""
        reply = self._reply(schema, prompt)
        text = json.dumps(reply) if isinstance(reply, dict) else reply
        try:
            parsed = schema.model_validate(reply if isinstance(reply, dict) else json.loads(reply))
        except (ValueError, TypeError) as exc:
            if not include_raw:
                raise
            return {"raw": AIMessage(content=text), "parsed": None, "parsing_error": exc}
        if not include_raw:
            return parsed
        return {"raw": AIMessage(content=text), "parsed": parsed, "parsing_error": None}

    def with_structured_output(self, schema: Any, **kwargs: Any):  # type: ignore[override]
        include_raw = bool(kwargs.get("include_raw"))

        async def run(messages: Any) -> Any:
            prompt = messages[-1].content
            self._prompts.append(prompt)
            self._in_flight += 1
            self._max_in_flight = max(self._max_in_flight, self._in_flight)
            try:
                if self.delay_s:
                    await asyncio.sleep(self.delay_s)
                return self._structured(schema, prompt, include_raw)
            finally:
                self._in_flight -= 1

        def run_sync(messages: Any) -> Any:
            self._prompts.append(messages[-1].content)
            return self._structured(schema, messages[-1].content, include_raw)

        return RunnableLambda(run_sync, afunc=run)

    def _generate(self, messages, stop=None, run_manager=None, **kwargs):
        # GenericFakeChatModel streams by calling _generate, so this sees every answer once.
        self._prompts.append(messages[-1].content)
        self.messages = iter([AIMessage(content=self.answer_text)])
        return super()._generate(messages, stop, run_manager, **kwargs)
