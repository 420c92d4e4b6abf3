from langchain_core.messages import HumanMessage

from treerag.checkpointing import open_checkpointer
from treerag.graphs.chat import builder

from ..fakes import ScriptedChatModel


async def _turn(graph, ctx, thread, text):
    events, final = [], {}
    async for mode, payload in graph.astream(
        {"messages": [HumanMessage(text)]},
        {"configurable": {"thread_id": thread}},
        context=ctx,
        stream_mode=["custom", "values"],
    ):
        if mode == "custom":
            events.append(payload)
        else:
            final = payload
    return events, final


async def test_multi_turn_chat_keeps_history_and_links_trees(make_ctx):
    ctx = make_ctx(max_depth=1, top_k=3)
    async with open_checkpointer(ctx) as saver:
        graph = builder.compile(checkpointer=saver)
        events, first = await _turn(graph, ctx, "c1", "Where was Orla Venn born?")
        reply = first["messages"][-1]
        meta = reply.additional_kwargs["treerag"]
        assert reply.type == "ai" and "Dunsorrow" in reply.content
        assert meta["tree_thread_id"] == "c1-t1" and meta["citations"]
        tokens = "".join(e["text"] for e in events if e["event"] == "token" and e["depth"] == 0)
        assert tokens == reply.content
        assert any(e["event"] == "chunk_judged" for e in events)

        _, second = await _turn(graph, ctx, "c1", "What glass is made there?")
        assert len(second["messages"]) == 4  # history kept by the checkpointer
        meta2 = second["messages"][-1].additional_kwargs["treerag"]
        assert meta2["tree_thread_id"] == "c1-t2"
        assert "Dunsorrow" in meta2["question"]  # the follow-up was made standalone
        rag_state = await builder.compile(checkpointer=saver).aget_state(
            {"configurable": {"thread_id": "c1"}}
        )
        assert rag_state.values["tree_thread_id"] == "c1-t2"


async def test_llm_condenses_follow_ups_with_the_conversation(make_ctx):
    model = ScriptedChatModel(
        judge_script=lambda q, t, x: '{"score": 0, "reason": "no"}',
        answer_text="Standalone question about Dunsorrow glass?",
    )
    ctx = make_ctx(model, max_depth=0, top_k=2)
    async with open_checkpointer(ctx) as saver:
        graph = builder.compile(checkpointer=saver)
        await _turn(graph, ctx, "c2", "Where was Orla Venn born?")
        await _turn(graph, ctx, "c2", "What is made there?")
    condense_prompts = [p for p in model.prompts if p.startswith("Rewrite the last user message")]
    assert len(condense_prompts) == 1  # the first turn needs no rewrite
    assert "human: Where was Orla Venn born?" in condense_prompts[0]
    assert "Last user message: What is made there?" in condense_prompts[0]


async def test_a_failed_turn_keeps_its_error_and_partial_tree(make_ctx, tmp_path, caplog):
    from treerag.graphs.rag import builder as rag_builder
    from treerag.search_tree import rebuild

    # The chunk store cannot be opened (its folder is a file): the rag run fails at its root.
    (tmp_path / "not-a-folder").write_text("x")
    ctx = make_ctx(max_depth=1, top_k=3)
    ctx.milvus_uri = str(tmp_path / "not-a-folder" / "milvus.db")
    async with open_checkpointer(ctx) as saver:
        graph = builder.compile(checkpointer=saver)
        events, final = await _turn(graph, ctx, "f1", "Where was Orla Venn born?")
        reply = final["messages"][-1]
        meta = reply.additional_kwargs["treerag"]
        assert meta["error"] and meta["tree_thread_id"] == "f1-t1"
        assert meta["error"] in reply.content
        assert [e["error"] for e in events if e["event"] == "run_failed"] == [meta["error"]]
        # The log keeps the traceback the reply leaves out.
        logged = [r for r in caplog.records if r.name == "treerag.nodes.chat"]
        assert len(logged) == 1 and "f1-t1" in logged[0].getMessage()
        assert logged[0].exc_info is not None and logged[0].exc_info[0] is FileExistsError

        # Reopened later: the conversation holds the failed turn, the tree its error.
        state = await graph.aget_state({"configurable": {"thread_id": "f1"}})
        assert state.values["messages"][-1].additional_kwargs["treerag"]["error"] == meta["error"]
        tree = await rebuild(rag_builder.compile(checkpointer=saver), "f1-t1")
        assert tree is not None and tree["question"] == "Where was Orla Venn born?"
        assert "FileExistsError" in tree["error"] and tree["chunks"] == []
