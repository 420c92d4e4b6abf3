"""Chat nodes: condense the last message into a question, then answer it with a search tree."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.runnables import RunnableConfig
from langgraph.runtime import Runtime

from treerag.context import Context
from treerag.nodes.answer import public_evidence
from treerag.nodes.common import context_of, emit, thread_of
from treerag.nodes.relay import run_relayed
from treerag.reasoning import get_reasoner
from treerag.state import ChatState

log = logging.getLogger(__name__)


def _text(message: BaseMessage) -> str:
    content = message.content
    if isinstance(content, list):  # multi-part content: keep the text parts
        return " ".join(p.get("text", "") if isinstance(p, dict) else str(p) for p in content)
    return str(content)


async def condense_question(state: ChatState, runtime: Runtime[Context]) -> dict:
    """Turn the last human message into a standalone question using the conversation."""
    messages = state["messages"]
    humans = [i for i, m in enumerate(messages) if m.type == "human"]
    if not humans:
        raise ValueError("the chat graph needs at least one human message")
    last = humans[-1]
    history: list[tuple[str, str]] = [
        (str(m.type), _text(m)) for m in messages[:last] if m.type in ("human", "ai")
    ]
    question = await get_reasoner(context_of(runtime)).condense(history, _text(messages[last]))
    return {"question": question}


def make_answer_turn(rag_graph: Callable[[], Any]) -> Callable[..., Any]:
    """Build the node that runs the rag graph for one turn (the graph is handed in)."""

    async def answer_turn(
        state: ChatState, config: RunnableConfig, runtime: Runtime[Context]
    ) -> dict:
        """Run the rag graph under the turn's own thread_id and reply with a cited message.

        A turn whose search fails still ends with a reply: it carries the error (in
        `additional_kwargs["treerag"]["error"]`) so that the checkpointed conversation keeps
        the failed turn, and its partial tree stays under `tree_thread_id`.
        """
        ctx = context_of(runtime)
        turn = sum(1 for m in state["messages"] if m.type == "human")
        tree_thread_id = f"{thread_of(config) or 'chat'}-t{turn}"
        error = ""
        try:
            final = await run_relayed(
                rag_graph(), {"question": state["question"]}, tree_thread_id, config, ctx
            )
        except Exception as exc:  # the turn fails, the conversation keeps it and its reason
            final, error = {}, f"{type(exc).__name__}: {exc}"
            # The reply carries the reason; the log keeps where it came from.
            log.exception("chat turn %s failed", tree_thread_id)
            emit(
                "run_failed",
                thread_id=tree_thread_id,
                root_thread_id=tree_thread_id,
                depth=0,
                error=error,
            )
        meta: dict[str, Any] = {
            "question": state["question"],
            "tree_thread_id": tree_thread_id,
            "citations": final.get("citations", []),
            "evidence": public_evidence(final.get("evidence", [])),
            "llm_calls": final.get("tree_llm_calls", 0),
            "reasoner": final.get("reasoner", ""),
        }
        if error:
            meta["error"] = error
        elif final.get("error"):  # answered, with what it had to work around (one sentence)
            meta["notice"] = final["error"]
        content = final.get("answer", "") if not error else f"The search failed: {error}"
        reply = AIMessage(content=content, additional_kwargs={"treerag": meta})
        return {"messages": [reply], "tree_thread_id": tree_thread_id}

    return answer_turn
