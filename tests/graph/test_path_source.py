"""The knowledge graph's scored paths bring the passages about the entities on them.

On the bundled sample corpus and its imported graph (what `treerag demo` builds), the Chinese
question about Perrin Osk's teacher walks Perrin Osk —student_of→ Shen Yiwei; the passage
about Shen Yiwei (沈疑微, the document gives both names) is where he was born. The English
three-hop question the web page draws is answered along its chain, last hop first.
"""

from __future__ import annotations

import pytest

from treerag.api import ask
from treerag.cli.demo import _build_structures, sample_corpus_dir
from treerag.context import Context
from treerag.ingest.indexer import ingest
from treerag.retrievers.sources import gather

QUESTION = "佩林·奥斯克求学时的老师，出生在哪里？"


@pytest.fixture(scope="module")
def demo_ctx(tmp_path_factory):
    ctx = Context(data_dir=str(tmp_path_factory.mktemp("demo")))
    assert not ingest([sample_corpus_dir()], ctx).skipped
    _build_structures(ctx)
    return ctx


def test_a_path_from_an_entity_the_question_names_brings_its_passages(demo_ctx):
    chunks = gather(demo_ctx, QUESTION)
    by_path = [c for c in chunks if (c.get("found_by") or {}).get("kind") == "paths"]
    assert by_path, [(c["title"], c.get("found_by")) for c in chunks]
    assert all(c["source"].endswith("shen_yiwei.md") for c in by_path)
    found_by = by_path[0]["found_by"]
    assert "—student_of→ Shen Yiwei" in found_by["path"][0]
    assert found_by["from"] == "佩林·奥斯克"  # the seed as the question names it
    # Without the structured sources nothing is marked.
    plain = gather(Context(data_dir=demo_ctx.data_dir, structure="none"), QUESTION)
    assert not any(c.get("found_by") for c in plain)


async def test_the_offline_answer_says_where_the_teacher_was_born(demo_ctx, tmp_path):
    ctx = Context(data_dir=demo_ctx.data_dir, checkpointer_uri=str(tmp_path / "cp.sqlite"))
    result = await ask(QUESTION, ctx)
    assert "鹿井" in result["answer"], result["answer"]
    assert any(c["source"].endswith("shen_yiwei.md") for c in result["citations"])
    root = result["tree"]["chunks"]
    judged = [c for c in root if (c.get("found_by") or {}).get("kind") == "paths"]
    assert judged and judged[0]["score"] == 1  # linked from the entity the question names


THREE_HOPS = (
    "Which guild built the ship commanded by the man who signed the Accord of Quillhaven on "
    "behalf of Varunhal?"
)


async def test_the_three_hop_answer_follows_the_chain(demo_ctx, tmp_path):
    # Signatory for Varunhal (overview) → his ship (his document) → the guild that built it
    # (the guild's record, which the root run holds, so the sub-run is not given it again).
    ctx = Context(data_dir=demo_ctx.data_dir, checkpointer_uri=str(tmp_path / "cp.sqlite"))
    result = await ask(THREE_HOPS, ctx)
    answer = result["answer"]
    first = answer.split("[1]")[0]
    assert "Guild of Tidewrights" in first and "Saltwren" in first, answer
    assert "Aldous Brennick for Varunhal" in answer, answer
    followups = [c.get("followup") for c in result["tree"]["chunks"] if c.get("followup")]
    assert "Which guild built the ship commanded by Aldous Brennick?" in followups, followups
    assert not any("on behalf of" in f for f in followups), followups
