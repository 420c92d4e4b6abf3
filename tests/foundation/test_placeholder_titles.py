"""A record without a title gets one to be listed by, and it is never read as its subject."""

import json

from treerag.ingest.loaders import load
from treerag.reasoning.named import title_of
from treerag.text import own_title, placeholder_title, record_source, shown_title


def test_a_record_without_a_title_is_listed_by_its_file_and_id_but_names_no_subject(tmp_path):
    path = tmp_path / "notes.jsonl"
    rows = [
        {"id": "r1", "text": "She was born in 1871 in the town of Orlenburg."},
        {"id": "r2", "title": "Marta Velik", "text": "She was born in 1871 in Orlenburg."},
        {"id": "r3", "title": "", "text": "He was born in Kalvik."},
    ]
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n", encoding="utf-8")
    untitled, titled, empty = load(path)
    assert untitled.title == "notes r1"  # what lists and citations show
    chunk = {"title": untitled.title, "source": untitled.source, "text": untitled.text}
    assert title_of(chunk) == ""
    # An empty title is no title: the placeholder is not written into the text either.
    assert empty.text == "He was born in Kalvik."
    assert title_of({"title": empty.title, "source": empty.source}) == ""
    named = {"title": titled.title, "source": titled.source, "text": titled.text}
    assert title_of(named) == "Marta Velik"


def test_only_the_loaders_own_placeholder_is_dropped():
    source = record_source("/data/corpus.jsonl", "17")
    assert own_title(placeholder_title("/data/corpus.jsonl", "17"), source) == ""
    assert own_title("corpus 18", source) == "corpus 18"  # another record's: a real title
    assert own_title("corpus 17", "/data/corpus 17.txt") == "corpus 17"  # a whole file's
    # A path or a record id may hold "#".
    hashed = record_source("/data/C#/corpus.jsonl", "17")
    assert own_title(placeholder_title("/data/C#/corpus.jsonl", "17"), hashed) == ""
    assert shown_title("", hashed) == "corpus 17"


def test_a_citation_shows_the_placeholder_the_reader_drops():
    source = record_source("/data/corpus.jsonl", "17")
    assert shown_title(own_title("corpus 17", source), source) == "corpus 17"
    assert shown_title("Marta Velik", source) == "Marta Velik"
    assert shown_title("", "/data/notes.txt") == ""
