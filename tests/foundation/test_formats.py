"""Office and web documents go in as text; every other file is reported with its reason."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from treerag.cli import app
from treerag.context import Context
from treerag.ingest.indexer import ingest
from treerag.ingest.loaders import load
from treerag.retrievers.chunk_store import ChunkStore
from treerag.retrievers.hybrid import from_context

runner = CliRunner()


def make_html(path: Path) -> Path:
    path.write_text(
        "<html><head><title>Harbour notes</title><style>p{color:red}</style></head>"
        "<body><h1>Keldmarsh</h1><p>The <b>Tallow Beacon</b> was lit in 1712.</p>"
        "<script>var hidden = 'never indexed';</script></body></html>",
        encoding="utf-8",
    )
    return path


def test_inline_html_tags_stay_in_their_sentence_and_blocks_break_lines(tmp_path: Path) -> None:
    page = tmp_path / "dunsorrow.html"
    page.write_text(
        "<html><body><h1>Dunsorrow <small>(village)</small></h1>"
        "<p>Its best-known product is <b>blackcurrant\n   cheese</b>. See <a href='m'>the "
        "<em>market</em> page</a>, <span>sold</span> as <i>Dun</i><code>Sorrow</code> "
        "<strong>Blue</strong>; H<sub>2</sub>O, x<sup>2</sup>, <mark>m</mark> <abbr>abbr</abbr>"
        "<!-- not shown --></p><ul><li>first</li><li>second <i>item</i></li></ul>"
        "<div>one<br>two</div><table><tr><td>cell a</td><td>cell b</td></tr></table>"
        "<pre>kept   as\nwritten</pre></body></html>",
        encoding="utf-8",
    )
    lines = load(page)[0].text.splitlines()
    assert lines == [
        "Dunsorrow (village)",
        "Its best-known product is blackcurrant cheese. See the market page, sold as "
        "DunSorrow Blue; H2O, x2, m abbr",
        "first",
        "second item",
        "one",
        "two",
        "cell a",
        "cell b",
        "kept   as",
        "written",
    ]


def make_docx(path: Path) -> Path:
    import docx

    document = docx.Document()
    document.core_properties.title = "Guild charter"
    document.add_heading("织光行会", level=1)
    document.add_paragraph("织光行会成立于布兰德港，首任会长是苏岚。")
    table = document.add_table(rows=2, cols=2)
    table.cell(0, 0).text, table.cell(0, 1).text = "year", "event"
    table.cell(1, 0).text, table.cell(1, 1).text = "1712", "beacon lit"
    document.save(str(path))
    return path


def make_pptx(path: Path) -> Path:
    from pptx import Presentation

    deck = Presentation()
    for title, body in (
        ("Ferries", "A ferry crosses the estuary twice a day."),
        ("Salt", "The salt tax was abolished."),
    ):
        slide = deck.slides.add_slide(deck.slide_layouts[1])
        slide.shapes.title.text = title
        slide.placeholders[1].text = body
    deck.save(str(path))
    return path


def make_xlsx(path: Path) -> Path:
    from openpyxl import Workbook

    book = Workbook()
    sheet = book.active
    sheet.title = "tides"
    sheet.append(["harbour", "high tide"])
    sheet.append(["Keldmarsh", "06:40"])
    other = book.create_sheet("keepers")
    other.append(["keeper", "since"])
    other.append(["Maren Holt", 1790])
    book.save(str(path))
    return path


def make_csv(path: Path) -> Path:
    path.write_text("name;role\nSu Lan;first guild master\n", encoding="utf-8")
    return path


def test_each_format_loads_as_text(tmp_path: Path) -> None:
    html = load(make_html(tmp_path / "page.html"))
    assert html[0].title == "Harbour notes"
    assert "Tallow Beacon was lit in 1712" in " ".join(html[0].text.split())
    assert "never indexed" not in html[0].text and "color" not in html[0].text

    word = load(make_docx(tmp_path / "charter.docx"))
    assert word[0].title == "Guild charter"
    assert "# 织光行会" in word[0].text and "首任会长是苏岚" in word[0].text
    assert "1712 | beacon lit" in word[0].text

    slides = load(make_pptx(tmp_path / "deck.pptx"))
    assert [s.meta["slide"] for s in slides] == [1, 2]
    assert "Ferries" in slides[0].text and "twice a day" in slides[0].text

    sheets = load(make_xlsx(tmp_path / "tides.xlsx"))
    assert [s.meta["sheet"] for s in sheets] == ["tides", "keepers"]
    assert "Keldmarsh | 06:40" in sheets[0].text and "Maren Holt | 1790" in sheets[1].text

    table = load(make_csv(tmp_path / "people.csv"))
    assert "Su Lan | first guild master" in table[0].text


def test_a_damaged_office_file_is_reported(tmp_path: Path) -> None:
    from treerag.ingest.loaders import LoadError

    broken = tmp_path / "broken.docx"
    broken.write_bytes(b"PK\x03\x04 not really a zip")
    with pytest.raises(LoadError, match="not a readable .docx file"):
        load(broken)


def test_folder_of_formats_is_searchable_and_unknown_files_are_reported(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    make_html(docs / "page.html")
    make_docx(docs / "charter.docx")
    make_pptx(docs / "deck.pptx")
    make_xlsx(docs / "tides.xlsx")
    make_csv(docs / "people.csv")
    (docs / "photo.png").write_bytes(b"\x89PNG\r\n")
    (docs / ".git").mkdir()
    (docs / ".git" / "config").write_text("[core]", encoding="utf-8")
    ctx = Context(data_dir=str(tmp_path / "data"), collection="formats")
    report = ingest([docs], ctx)
    statuses = {Path(f.path).name: f.status for f in report.files}
    assert statuses == {
        "page.html": "added",
        "charter.docx": "added",
        "deck.pptx": "added",
        "tides.xlsx": "added",
        "people.csv": "added",
        "photo.png": "skipped",
    }
    assert "unsupported format .png" in report.skipped[0].reason
    retriever = from_context(ChunkStore(ctx, None), topk=1, mode="sparse")
    hits = retriever.get_similar_chunk_with_score("Tallow Beacon")
    assert hits and hits[0][0].metadata["source"].endswith("page.html")


def test_a_named_unsupported_file_is_reported_with_exit_3(tmp_path: Path) -> None:
    notes = tmp_path / "notes.rtf"
    notes.write_text("{\\rtf1 hello}", encoding="utf-8")
    result = runner.invoke(app, ["ingest", str(notes), "--data-dir", str(tmp_path / "data")])
    assert result.exit_code == 3, result.output
    said = " ".join(result.output.split())
    assert "unsupported format .rtf" in said and "1 file skipped" in said


def test_a_pdf_library_warning_names_its_file(tmp_path: Path, caplog: pytest.LogCaptureFixture):
    from treerag.ingest.loaders import LoadError

    broken = tmp_path / "broken.pdf"
    broken.write_bytes(b"%PDF-1.4\n1 0 obj<<>>endobj\ntrailer<<>>\n")  # no %%EOF marker
    with caplog.at_level("WARNING"), pytest.raises(LoadError, match="not a readable PDF"):
        load(broken)
    said = [r.getMessage() for r in caplog.records if r.name.startswith("pypdf")]
    assert said and all(m.startswith(str(broken)) for m in said), said
