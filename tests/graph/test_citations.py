"""Every [n] of an offline answer cites the chunk its sentence came from (hard-wrapped text)."""

import json
import re

import pytest

from treerag.api import ask
from treerag.context import Context
from treerag.ingest.indexer import ingest
from treerag.models import get_embeddings
from treerag.reasoning.text import squash, unfootnoted
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
        assert squash(sentence) in texts[cited[int(n)]], (sentence, n)
        assert "\n" not in sentence and not sentence.rstrip().endswith(("four", "of"))
