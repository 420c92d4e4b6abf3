"""The recursive LLM-as-judge rag graph: retrieve → judge (Send) → sub-RAG (Send) → answer.

retrieve_chunks → judge_chunk (one task per hybrid hit) → release_reserve → [judge_chunk
for the structured finds, when no hit answers → release_reserve] → plan_followups →
run_sub_rag (one task per follow-up) → keyword_descent ∥ graph_expand (the root only) →
answer_question.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any, Literal

from langgraph.graph import END, START, StateGraph
from langgraph.graph.state import CompiledStateGraph
from langgraph.types import Send

from treerag.context import Context
from treerag.nodes.answer import answer_question
from treerag.nodes.graph_expand import expand_entity_graph
from treerag.nodes.judge import judge_chunk, route_to_judges
from treerag.nodes.keyword_descent import descend_keywords
from treerag.nodes.reserve import release_reserve, route_after_release
from treerag.nodes.retrieve import retrieve_chunks
from treerag.nodes.subrun import make_run_sub_rag, plan_followups, route_followups
from treerag.state import RagInput, RagOutput, RagState

ContextNode = Literal["keyword_descent", "graph_expand"]
CONTEXT_NODES: list[ContextNode] = ["keyword_descent", "graph_expand"]
"""Structured-knowledge steps that run in parallel after judging and sub-runs, at the root."""


def route_to_answer(state: RagState) -> list[ContextNode] | Literal["answer_question"]:
    """The root gathers structured context before it answers; a sub-run answers at once.

    A sub-run's answer feeds its parent's, so only the root's answer reads the keyword
    tree's and the graph's context notes.
    """
    return "answer_question" if state.get("depth", 0) else CONTEXT_NODES


def route_after_planning(
    state: RagState,
) -> list[Send] | list[ContextNode] | Literal["answer_question"]:
    """Start the planned sub-runs, or go on towards the answer (`route_to_answer`)."""
    return route_followups(state) or route_to_answer(state)


@lru_cache(maxsize=1)
def _plain_graph() -> CompiledStateGraph[Any, Any, Any, Any]:
    """The graph compiled without a checkpointer; sub-runs pass their parent's in the config."""
    return builder.compile(name="rag")


builder = StateGraph(
    RagState, context_schema=Context, input_schema=RagInput, output_schema=RagOutput
)
builder.add_node("retrieve_chunks", retrieve_chunks)  # type: ignore[call-overload]
builder.add_node("judge_chunk", judge_chunk)  # type: ignore[call-overload]
builder.add_node("release_reserve", release_reserve)
builder.add_node("plan_followups", plan_followups)
builder.add_node("run_sub_rag", make_run_sub_rag(_plain_graph))
builder.add_node("keyword_descent", descend_keywords)
builder.add_node("graph_expand", expand_entity_graph)
builder.add_node("answer_question", answer_question)
builder.add_edge(START, "retrieve_chunks")
builder.add_conditional_edges(
    "retrieve_chunks", route_to_judges, ["judge_chunk", "answer_question"]
)
builder.add_edge("judge_chunk", "release_reserve")
builder.add_conditional_edges(
    "release_reserve", route_after_release, ["judge_chunk", "plan_followups"]
)
builder.add_conditional_edges(
    "plan_followups", route_after_planning, ["run_sub_rag", *CONTEXT_NODES, "answer_question"]
)
builder.add_conditional_edges("run_sub_rag", route_to_answer, [*CONTEXT_NODES, "answer_question"])
builder.add_edge(list(CONTEXT_NODES), "answer_question")
builder.add_edge("answer_question", END)

graph = builder.compile(name="rag")
"""The graph `langgraph.json` serves: inside the server its checkpoints go to the run's
tenant's treerag checkpointer, so `treerag runs` and `treerag tree` see them
(`treerag.server.checkpointer`)."""
