"""What a question names, the graph's one-step links, and how both order the evidence."""

from treerag.nodes.answer import rank_evidence
from treerag.reasoning.named import anchored, linked_from, names_title


def test_a_title_is_named_whole_or_without_its_disambiguator():
    question = "Both Never Cry Wolf and Big Hero 6 films were released by what label?"
    assert names_title(question, "Big Hero 6 (film)")
    assert names_title(question, "Never Cry Wolf")
    assert not names_title(question, "Big Hero 6 (TV series) (season 2)")  # only the last
    assert not names_title("Who founded Wolfsburg?", "Wolf")  # whole words only
    assert not names_title("Where is Io?", "Io")  # too short to count as named


def test_a_title_is_named_in_either_chinese_script_and_width():
    assert names_title("維拉港有哪條河流經？", "维拉港（城市）")
    assert names_title("ＡＢＣＤ Port Veyra?", "abcd")
    assert not names_title("盐河流经哪里？", "维拉港")


def test_only_a_one_step_graph_path_links_a_chunk():
    assert linked_from({"found_by": {"kind": "graph", "path": ["Aldous Brennick", "Port Veyra"]}})
    assert linked_from({"found_by": {"kind": "graph", "path": ["A", "B"]}}) == "A"
    # Through an entity that is no one's title, or from the question's own entity: no link.
    assert not linked_from({"found_by": {"kind": "graph", "path": ["A", "Salt", "B"]}})
    assert not linked_from({"found_by": {"kind": "graph", "path": ["question", "B"]}})
    assert not linked_from({"found_by": {"kind": "keyword", "path": ["Docs", "B"]}})
    assert not linked_from({"title": "B"})


def _chunk(cid, title, rank, score=1, via=None):
    chunk = {"chunk_id": cid, "title": title, "rank": rank, "score": score, "text": title}
    if via:
        chunk["found_by"] = {"kind": "graph", "path": [via, title]}
    return chunk


QUESTION = "Which river flows through the city where Aldous Brennick was born?"
CHUNKS = [
    _chunk("d1", "River notes 1", 1),
    _chunk("d2", "River notes 2", 2),
    _chunk("a", "Aldous Brennick", 3),
    _chunk("d3", "River notes 3", 4),
    _chunk("x", "Lowmarsh", 5, via="River notes 1"),  # linked, but not from a named chunk
    _chunk("b", "Port Veyra", 6, via="Aldous Brennick"),
]


def test_the_anchor_list_is_the_named_chunks_each_followed_by_its_links():
    assert anchored(QUESTION, CHUNKS) == ["a", "b"]
    assert anchored("Which river is longest?", CHUNKS) == []


def test_among_partial_chunks_the_named_one_and_its_bridge_rank_first():
    ranked = [e["chunk_id"] for e in rank_evidence(CHUNKS, 0, QUESTION)]
    assert ranked[:2] == ["a", "b"]
    assert ranked[2:] == ["d1", "d2", "d3", "x"]  # the rest keep their retrieval order
    # Verdicts still come first: a sufficient chunk leads, an irrelevant one trails.
    judged = [{**c, "score": {"d3": 2, "b": 0}.get(c["chunk_id"], 1)} for c in CHUNKS]
    ranked = [e["chunk_id"] for e in rank_evidence(judged, 0, QUESTION)]
    assert ranked[0] == "d3" and ranked[1] == "a" and ranked[-1] == "b"
    # Without the question the order is the retrieval order, as before.
    assert [e["chunk_id"] for e in rank_evidence(CHUNKS, 0)] == [c["chunk_id"] for c in CHUNKS]


def test_the_offline_judge_takes_a_bridge_linked_from_a_named_document_as_partial(reasoner):
    question = "Transfiguration of Vincent is the third studio album by a singer from what state?"
    text = "Matthew Stephen Ward, known as M. Ward, is a musician from Portland, Oregon."
    alone = reasoner._judge(question, "M. Ward", text)
    assert alone.score == 0
    linked = reasoner._judge(question, "M. Ward", text, "Transfiguration of Vincent")
    assert linked.score == 1 and "Transfiguration of Vincent" in linked.reason
    # A link from a document the question does not name changes nothing.
    assert reasoner._judge(question, "M. Ward", text, "Fionn Regan").score == 0
