"""The passage-entity graph: names from what documents name, kept incrementally, walked by PPR."""

from __future__ import annotations

import sqlite3

from treerag.knowledge_graph.passage_graph import Passage, PassageGraph, alias_pairs
from treerag.reasoning.followup_question import followup
from treerag.reasoning.text import content_terms, stems

A = Passage(
    "a", "Aldous Brennick was born in Port Veyra. He commanded the Saltwren.", "Aldous Brennick"
)
B = Passage("b", "Port Veyra lies on the Salt River, where the ferries cross.", "Port Veyra")
C = Passage("c", "The Salt River floods each spring; Lowmarsh Abbey stands on it.", "Salt River")
D = Passage("d", "Lowmarsh Abbey keeps bees. The monks of Lowmarsh Abbey brew mead.", "Bees")


def test_a_title_added_later_links_the_passages_stored_before(tmp_path):
    graph = PassageGraph(tmp_path / "g.sqlite")
    graph.add([A])
    assert graph.named_in("Where is Port Veyra?") == []  # only a.md so far: no such entity
    graph.add([B])
    assert graph.named_in("Where is Port Veyra?") == ["port veyra"]
    assert "Port Veyra" in graph.entities_of("a")  # a.md was scanned for the new title


def test_a_name_needs_two_passages_and_goes_when_one_is_removed(tmp_path):
    graph = PassageGraph(tmp_path / "g.sqlite")
    graph.add([C, D])
    assert graph.named_in("Who founded Lowmarsh Abbey?") == ["lowmarsh abbey"]
    graph.remove(["d"])
    assert graph.named_in("Who founded Lowmarsh Abbey?") == []
    assert graph.passage_ids() == {"c"}


def test_ppr_reaches_the_second_hop_from_the_question_and_the_first_hit(tmp_path):
    graph = PassageGraph(tmp_path / "g.sqlite")
    graph.add([A, B, C, D])
    hits = graph.rank(["a"], graph.named_in("Which river flows past Aldous Brennick's town?"))
    assert hits[0].id == "b"
    # From a.md ("Aldous Brennick") through the entity Port Veyra, which is b.md's own title.
    assert hits[0].path == ["Aldous Brennick", "Port Veyra"]
    assert "a" not in {h.id for h in hits}  # seeds are where the walk starts, not finds


def test_names_in_both_scripts_are_one_entity_and_match_either_script(tmp_path):
    graph = PassageGraph(tmp_path / "g.sqlite")
    zh = Passage("z", "主持修建石堤的是工程师佩林·奥斯克（Perrin Osk，1612—1679）。", "大洪水")
    en = Passage("e", "Perrin Osk studied under Shen Yiwei at Moheng Academy.", "Perrin Osk")
    graph.add([zh, en])
    node = graph.named_in("Who taught Perrin Osk?")
    assert node and graph.named_in("佩林·奥斯克的老师是谁？") == node
    assert graph.named_in("佩林·奧斯克的老師是誰？") == node  # Traditional script
    assert [h.id for h in graph.rank([], node)] in (["z", "e"], ["e", "z"])


def test_alias_pairs_take_the_name_not_the_sentence():
    pairs = alias_pairs(
        "The Guild of Tidewrights\nThe Guild of Tidewrights (潮匠行会) built ships. "
        "主持的是工程师佩林·奥斯克（Perrin Osk，1612—1679）。",
        set(),
    )
    assert ("Guild of Tidewrights", "潮匠行会") in pairs
    assert ("Perrin Osk", "佩林·奥斯克") in pairs


def test_a_file_of_an_older_format_is_emptied_and_says_so(tmp_path):
    path = tmp_path / "g.sqlite"
    db = sqlite3.connect(path)
    db.execute("create table names (key text)")
    db.commit()
    db.close()
    graph = PassageGraph(path)
    assert graph.reset and graph.passage_ids() == set()
    graph.close()
    assert not PassageGraph(path).reset


def test_a_rebuild_replaces_what_older_rules_linked_in_one_transaction(tmp_path, monkeypatch):
    from treerag.knowledge_graph import passage_graph

    graph = PassageGraph(tmp_path / "g.sqlite")
    graph.add([C, D])
    # What an older release's name rules might have read: a name no rule of today's gives.
    graph._db.execute("insert into names values ('salt', 'Salt', 'name', 'salt')")
    graph._db.execute("insert into mentions values ('salt', 'c')")
    graph._cache.clear()
    assert "Salt" in graph.entities_of("c")

    def broken(text):
        raise RuntimeError("killed halfway")

    monkeypatch.setattr(passage_graph, "shared_names", broken)
    try:
        graph.rebuild([A, B, C, D])
    except RuntimeError:
        pass
    graph._cache.clear()
    assert graph.passage_ids() == {"c", "d"} and "Salt" in graph.entities_of("c")  # as before

    monkeypatch.undo()
    graph.rebuild([A, B, C, D])
    assert graph.passage_ids() == {"a", "b", "c", "d"}
    assert "Salt" not in graph.entities_of("c")
    assert graph.named_in("Who founded Lowmarsh Abbey?") == ["lowmarsh abbey"]
    assert graph.named_in("Where is Port Veyra?") == ["port veyra"]


def test_follow_ups_put_the_bridge_in_place_of_its_description():
    def ask(question: str, chunk: str, entity: str, named: str = "") -> str:
        return followup(question, stems(content_terms(chunk)), entity, named)

    assert (
        ask(
            "Which river flows through the city where Aldous Brennick was born?",
            "Aldous Brennick\nAldous Brennick was born in Port Veyra.",
            "Port Veyra",
        )
        == "Which river flows through Port Veyra?"
    )
    assert ask(
        "布伦尼克出生的城市有哪条河流经？", "布伦尼克出生在维拉港。", "维拉港", "布伦尼克"
    ) == ("维拉港有哪条河流经？")
    assert ask(
        "佩林·奥斯克求学时的老师，出生在哪条河畔的小镇？", "师从沈疑微。", "沈疑微", "佩林·奥斯克"
    ) == ("沈疑微出生在哪条河畔的小镇？")


def test_a_follow_up_names_the_bridge_in_the_questions_script(tmp_path):
    from treerag.context import Context
    from treerag.retrievers.sources import in_script_of, passage_graph_file

    ctx = Context(data_dir=str(tmp_path / "data"))
    graph = PassageGraph(passage_graph_file(ctx))
    graph.add([Passage("g", "The Guild of Tidewrights (潮匠行会) built the Saltwren.", "Guilds")])
    graph.close()
    asked = in_script_of(ctx, "Which guild built 潮匠行会?", "Which guild built the Saltwren?")
    assert asked == "Which guild built Guild of Tidewrights?"
    same = in_script_of(ctx, "潮匠行会位于哪里？", "建造盐鹪号的行会位于哪里？")
    assert same == "潮匠行会位于哪里？"


def test_a_reader_opens_and_ranks_while_another_process_writes(tmp_path):
    path = tmp_path / "g.sqlite"
    PassageGraph(path).add([A, B, C, D])
    writer = sqlite3.connect(path, isolation_level=None)
    writer.execute("begin immediate")  # an ingest in another process, mid-transaction
    try:
        reader = PassageGraph(path)  # used to write on opening, and failed: database is locked
        assert not reader.reset
        hits = reader.rank(["a"], reader.named_in("Which river flows past Aldous Brennick's town?"))
        assert hits[0].id == "b"
    finally:
        writer.execute("rollback")
        writer.close()


def test_the_passages_about_an_entity_are_its_titled_one_then_its_document(tmp_path):
    graph = PassageGraph(tmp_path / "g.sqlite")
    life = Passage("s2", "沈疑微生于鹿井镇。", "生平", source="people/shen.md")
    head = Passage("s1", "沈疑微（Shen Yiwei）是制图学家。", "沈疑微", source="people/shen.md")
    graph.add([A, head, life])
    assert graph.about(["Shen Yiwei"]) == ["s1", "s2"]  # by its other name, then the rest
    assert graph.about(["沈疑微"]) == ["s1", "s2"]
    assert graph.about(["Nobody Known"]) == []
