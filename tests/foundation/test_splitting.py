from treerag.ingest.loaders import Section
from treerag.ingest.splitting import chunk_id, split_sections


def test_english_splits_at_sentences_within_size():
    text = " ".join(f"Sentence number {i} talks about the river." for i in range(60))
    chunks = split_sections([Section("a.txt", "a", text, "text")], 200, 20)
    assert len(chunks) > 5
    assert all(len(c.text) <= 200 for c in chunks)
    assert all(c.text.endswith(".") for c in chunks[:-1])


def test_chinese_splits_at_chinese_punctuation():
    text = "".join(f"第{i}句话讲述了河流的源头和城市的历史。" for i in range(40))
    chunks = split_sections([Section("b.txt", "b", text, "text")], 100, 10)
    assert len(chunks) > 5
    assert all(len(c.text) <= 100 for c in chunks)
    assert all(c.text.endswith("。") for c in chunks[:-1])


def test_markdown_keeps_heading_path():
    text = "# World\n\nIntro.\n\n## Rivers\n\nThe Voss is long.\n\n### Sources\n\nIt rises on Ashcrown.\n"
    chunks = split_sections([Section("w.md", "World", text, "markdown")], 500, 50)
    paths = [c.meta.get("heading_path") for c in chunks]
    assert ["World", "Rivers", "Sources"] in paths
    assert ["World", "Rivers"] in paths
    assert [c.chunk_index for c in chunks] == list(range(len(chunks)))


def test_ids_are_stable_and_depend_on_source_and_text():
    section = Section("a.txt", "a", "One fact. Another fact.", "text")
    first = [c.id for c in split_sections([section], 800, 100)]
    again = [c.id for c in split_sections([section], 800, 100)]
    assert first == again
    assert chunk_id("a.txt", "x") != chunk_id("b.txt", "x")
    assert chunk_id("a.txt", "x") != chunk_id("a.txt", "y")


def test_repeated_text_in_one_file_gets_distinct_ids():
    text = "Same paragraph.\n\nSame paragraph."
    chunks = split_sections([Section("a.txt", "a", text, "text")], 16, 0)
    assert len(chunks) == 2 and len({c.id for c in chunks}) == 2
