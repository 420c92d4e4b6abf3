"""The chat graph: messages in, messages out; each turn answered by the rag graph."""

from __future__ import annotations

from langgraph.graph import END, START, StateGraph

from treerag.context import Context
from treerag.graphs.rag import _plain_graph
from treerag.nodes.chat import condense_question, make_answer_turn
from treerag.state import ChatInput, ChatOutput, ChatState

builder = StateGraph(
    ChatState, context_schema=Context, input_schema=ChatInput, output_schema=ChatOutput
)
builder.add_node("condense_question", condense_question)
builder.add_node("answer_turn", make_answer_turn(_plain_graph))
builder.add_edge(START, "condense_question")
builder.add_edge("condense_question", "answer_turn")
builder.add_edge("answer_turn", END)

graph = builder.compile(name="chat")
