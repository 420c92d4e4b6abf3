"""Every [n] of an offline answer cites the chunk its sentence came from (hard-wrapped text)."""

import json
import re

import pytest

from treerag.api import ask
from treerag.context import Context
from treerag.ingest.indexer import ingest
from treerag.models import get_embeddings
from treerag.reasoning.text import squash, unfootnoted
from treerag.reasoning.wording import quoted
from treerag.retrievers.chunk_store import ChunkStore

LEDGER = """# Hallbeck foundry ledger

The Hallbeck foundry cast bells for the harbour towns of the coast for two
centuries. Its most famous work is the objective lens of the Vask Refractor,
finished in 1873 after four years of grinding.[2] The lens was ground by Oswin
Marl, the foundry's master optician, who signed the ledger entry himself.[3]

The foundry closed in 1901 when the harbour silted up.
"""
RECORDS = [
    {
        "id": "r1",
        "title": "Parish records of Dunmere",
        "text": "The parish of Dunmere kept its records in the church\nof St. Ebba.",
    },
    {
        "id": "r2",
        "title": "Parish records of Pellisford",
        "text": "Oswin Marl, lens grinder, was born in 1820 in the river town of\n"
        "Pellisford, the son of a ferryman. He left for the coast at sixteen.",
    },
]
OBSERVATORY = """The Vask Observatory stands on the cliffs above the harbour. Its great
telescope, the Vask Refractor, was first used in 1874 and is still shown to
visitors on clear nights.
"""


@pytest.fixture(scope="module")
def hard_wrapped(tmp_path_factory):
    docs = tmp_path_factory.mktemp("wrapped")
    (docs / "hallbeck_ledger.md").write_text(LEDGER, encoding="utf-8")
    (docs / "observatory.txt").write_text(OBSERVATORY, encoding="utf-8")
    with (docs / "records.jsonl").open("w", encoding="utf-8") as fh:
        for record in RECORDS:
            fh.write(json.dumps(record) + "\n")
    ctx = Context(data_dir=str(tmp_path_factory.mktemp("data")), collection="wrapped")
    ingest([docs], ctx)
    return ctx


@pytest.mark.parametrize(
    "question",
    [
        "Who ground the objective lens of the Vask Refractor, and where was he born?",
        "When was the Vask Refractor first used?",
        "Which foundry cast bells for the harbour towns?",
    ],
)
async def test_every_cited_sentence_is_in_the_chunk_it_cites(hard_wrapped, tmp_path, question):
    ctx = Context(
        data_dir=str(tmp_path),
        milvus_uri=hard_wrapped.resolved_milvus_uri,
        collection="wrapped",
        top_k=2,
    )
    result = await ask(question, ctx)
    cited = {c["n"]: c["chunk_id"] for c in result["citations"]}
    store = ChunkStore(ctx, get_embeddings(ctx))
    # The ledger's own footnote marks ([2], [3]) are not quoted: they would read as citations.
    texts = {row["id"]: squash(unfootnoted(row["text"])) for row in store.get(list(cited.values()))}
    pairs = re.findall(r"(.+?)\s*\[(\d+)\]", result["answer"].split("]", 1)[1])
    assert pairs, result["answer"]
    for sentence, n in pairs:
        # A quote framed by whom its pronoun means is checked on the quoted words.
        assert squash(quoted(sentence)) in texts[cited[int(n)]], (sentence, n)
        assert "\n" not in sentence and not sentence.rstrip().endswith(("four", "of"))


# -- marks numbered densely, in order of first use (issue 23) ------------------------------------
def test_marks_are_renumbered_in_order_of_first_use():
    from treerag.reasoning.marks import renumber

    text, order = renumber("B [3]. A [1][3]. Not evidence [9]. [offline] [", range(1, 6))
    assert text == "B [1]. A [2][1]. Not evidence [9]. [offline] ["
    assert order == [3, 1]


def test_marks_cut_across_streamed_pieces_are_renumbered_whole():
    from treerag.reasoning.marks import MarkNumbers, renumber

    answer = "Born in Dunsorrow [12]. A clockmaker [4], [12]. See [x] and [1"
    marks = MarkNumbers(range(1, 13))
    streamed = "".join(marks.feed(ch) for ch in answer) + marks.flush()
    assert streamed == renumber(answer, range(1, 13))[0]
    assert streamed == "Born in Dunsorrow [1]. A clockmaker [2], [1]. See [x] and [1"


async def test_an_llm_answer_citing_out_of_order_streams_and_lists_dense_numbers(make_ctx):
    from tests.fakes import ScriptedChatModel

    model = ScriptedChatModel(
        judge_script=lambda q, t, x: json.dumps({"score": 2, "reason": "scripted"}),
        answer_text="The second thing [3]. The first thing [1], again [3].",
    )
    tokens: list[str] = []
    result = await ask(
        "Where was Orla Venn born?",
        make_ctx(model, max_depth=0, top_k=3),
        on_token=lambda t, m: tokens.append(t),
    )
    assert result["answer"] == "The second thing [1]. The first thing [2], again [1]."
    assert "".join(tokens) == result["answer"]  # streamed with the same numbers
    by_rank = {c["rank"]: c["chunk_id"] for c in result["tree"]["chunks"]}
    assert [(c["n"], c["chunk_id"]) for c in result["citations"]] == [
        (1, by_rank[3]),
        (2, by_rank[1]),
    ]


async def test_offline_answer_numbers_its_sources_densely_once_each(make_ctx):
    tokens: list[str] = []
    result = await ask(
        "Where was Orla Venn born and what did she invent?",
        make_ctx(max_depth=1, top_k=5),
        on_token=lambda t, m: tokens.append(t),
    )
    used = list(dict.fromkeys(int(n) for n in re.findall(r"\[(\d+)\]", result["answer"])))
    assert used == list(range(1, len(used) + 1)) and len(used) >= 2, result["answer"]
    assert [c["n"] for c in result["citations"]] == used
    ids = [c["chunk_id"] for c in result["citations"]]
    assert len(ids) == len(set(ids))
    assert "".join(tokens) == result["answer"]
