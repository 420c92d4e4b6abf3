"""Importing JSON/JSONL: good files, and errors that name file and line."""

from __future__ import annotations

import json

import pytest

from treerag.knowledge_graph import ImportRecordError, World, import_files, read_chunks
from treerag.knowledge_graph.storage import world_to_dict


def write_jsonl(path, records):
    path.write_text("\n".join(json.dumps(r, ensure_ascii=False) for r in records) + "\n")
    return path


GOOD = [
    {"id": "klein", "name": "Klein Moretti", "type": "person", "chunk_ids": ["c1"]},
    {"name": "Nighthawks", "type": "organization", "attributes": {"base": "Tingen"}},
    {"kind": "chunk", "id": "c1", "text": "Klein joined the Nighthawks.", "title": "Ch. 1"},
    {"source": "klein", "target": "Nighthawks", "relation": "member of", "importance": 0.8},
]


def test_jsonl_import(embed, tmp_path):
    world = World(embed)
    report = import_files(world, [write_jsonl(tmp_path / "g.jsonl", GOOD)])
    assert (report.entities, report.edges, report.chunks) == (2, 1, 1)
    hawks = world.find_entity("nighthawks")
    assert hawks.attributes["base"][0].value == "Tingen"
    (edge,) = world.edges()
    assert (edge.source, edge.target, edge.label) == ("klein", hawks.id, "member of")
    assert world.chunk_entities("c1") == ["klein"]
    assert world.search_entities("Klein Moretti", 1)[0].id == "klein"


def test_reimport_is_idempotent(embed, tmp_path):
    world = World(embed)
    path = write_jsonl(tmp_path / "g.jsonl", GOOD)
    import_files(world, [path])
    snapshot = world_to_dict(world)
    import_files(world, [path])
    again = world_to_dict(world)
    for kind in ("entities", "edges", "chunks"):
        for record in snapshot[kind] + again[kind]:
            record.pop("created_at")
    assert again == snapshot


def test_json_object_and_saved_world_format(lotm, embed, tmp_path):
    lotm.save(tmp_path / "saved")
    world = World(embed)
    report = import_files(world, [tmp_path / "saved" / "world.json"])
    assert (report.entities, report.edges) == (5, 4)
    assert world.get_entity("klein").label == "克莱恩·莫雷蒂"


def test_missing_field_names_file_and_line(embed, tmp_path):
    path = write_jsonl(tmp_path / "bad.jsonl", [GOOD[0], {"kind": "edge", "source": "klein"}])
    with pytest.raises(ImportRecordError) as err:
        import_files(World(embed), [path])
    assert f"{path}:2: edge record: field 'target'" in str(err.value)


def test_unknown_endpoint_names_file_and_line(embed, tmp_path):
    records = [GOOD[0], {"source": "klein", "target": "Dunn Smith"}]
    path = write_jsonl(tmp_path / "bad.jsonl", records)
    world = World(embed)
    with pytest.raises(ImportRecordError) as err:
        import_files(world, [path])
    assert (
        str(err.value)
        == f"{path}:2: edge target 'Dunn Smith' names no known entity (by id or name)"
    )
    assert len(world) == 0  # nothing half written


def test_all_problems_are_listed(embed, tmp_path):
    records = [{"name": " "}, {"text": 5, "id": "c"}, {"foo": 1}, {"source": "x", "target": "y"}]
    path = write_jsonl(tmp_path / "bad.jsonl", records)
    with pytest.raises(ImportRecordError) as err:
        import_files(World(embed), [path])
    lines = sorted(p.line for p in err.value.problems)
    assert lines == [1, 2, 3, 4]
    assert "cannot tell the record's kind" in str(err.value)


def test_duplicates_in_one_import(embed, tmp_path):
    path = write_jsonl(tmp_path / "dup.jsonl", [GOOD[0], GOOD[0]])
    with pytest.raises(ImportRecordError, match=r"dup.jsonl:2: entity 'klein' .* line 1"):
        import_files(World(embed), [path])


def test_json_file_lines(embed, tmp_path):
    text = """{
  "entities": [
    {"id": "a", "name": "A"},
    {"id": "b", "name": "B", "importance": 3}
  ],
  "edges": [
    {"source": "a", "target": "zzz"}
  ]
}
"""
    path = tmp_path / "graph.json"
    path.write_text(text)
    with pytest.raises(ImportRecordError) as err:
        import_files(World(embed), [path])
    found = {(p.line, p.message.split(":")[0]) for p in err.value.problems}
    assert (4, "entity record") in found
    assert any(p.line == 7 and "zzz" in p.message for p in err.value.problems)


def test_invalid_json_is_reported(embed, tmp_path):
    bad_jsonl = tmp_path / "broken.jsonl"
    bad_jsonl.write_text('{"name": "A"}\n{"name": \n')
    with pytest.raises(ImportRecordError, match=r"broken.jsonl:2: invalid JSON"):
        import_files(World(embed), [bad_jsonl])
    bad_json = tmp_path / "broken.json"
    bad_json.write_text('[\n  {"name": "A"},\n  {"name" "B"}\n]')
    with pytest.raises(ImportRecordError, match=r"broken.json:3: invalid JSON"):
        import_files(World(embed), [bad_json])


def test_read_chunks(tmp_path):
    path = write_jsonl(
        tmp_path / "chunks.jsonl", [{"id": "c1", "text": "x", "title": "T"}, {"id": "c2"}]
    )
    with pytest.raises(ImportRecordError, match=r"chunks.jsonl:2: chunk record: field 'text'"):
        read_chunks(path)
    path = write_jsonl(
        tmp_path / "ok.jsonl", [{"id": "c1", "text": "x", "title": "T", "lang": "en"}]
    )
    (chunk,) = read_chunks(path)
    assert (chunk.id, chunk.title, chunk.metadata) == ("c1", "T", {"lang": "en"})
