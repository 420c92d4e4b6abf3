"""State of the chat graph: messages in, messages out, one search tree per turn."""

from __future__ import annotations

from typing import Annotated, TypedDict

from langchain_core.messages import AnyMessage
from langgraph.graph.message import add_messages


class ChatInput(TypedDict):
    """What a caller passes: the conversation so far (usually one new human message)."""

    messages: Annotated[list[AnyMessage], add_messages]
    """Messages; the last human message is the one to answer."""


class ChatState(ChatInput, total=False):
    """The conversation plus what the current turn worked out."""

    question: str
    """The standalone question of the current turn (the last message, condensed)."""
    tree_thread_id: str
    """thread_id of the current turn's search tree (`treerag tree` rebuilds it)."""


class ChatOutput(TypedDict):
    """What a caller gets back: the conversation, ending in the answer."""

    messages: Annotated[list[AnyMessage], add_messages]
