"""Office and web documents as text: .html, .docx, .pptx, .xlsx and .csv.

Each format is read by its own small, maintained library (beautifulsoup4, python-docx,
python-pptx, openpyxl; csv from the standard library), imported only when a file of that
format is loaded. The all-in-one converter markitdown wraps the same libraries but also pulls
in magika (a 15 MB file-type model loaded on every construction), pandas for spreadsheets
and an HTTP stack; these four add about 6 MB of wheels instead of about 21 MB.

Every function returns (title, [(text, meta), ...]): one piece per page-like unit (slide,
sheet) so a chunk can say where it came from.
"""

from __future__ import annotations

import csv
import io
import re
from pathlib import Path
from typing import Any

Pieces = tuple[str, list[tuple[str, dict[str, Any]]]]

# Table rows become lines of cells joined by " | ", the way a person would type a table.
CELL_SEPARATOR = " | "
_SPACES = re.compile(r"\s+")


# Elements a browser lays out as blocks (or line breaks): their text starts and ends a line.
# Every other element (b, i, em, strong, a, span, code, sup, sub, small, mark, abbr, custom
# tags…) is inline, and its text joins the words around it, as on the page.
HTML_BLOCKS = frozenset(
    "address article aside blockquote body br caption center dd details dialog dir div dl dt "
    "fieldset figcaption figure footer form frame frameset h1 h2 h3 h4 h5 h6 header hgroup hr "
    "html iframe legend li main menu nav ol optgroup option p pre section summary table tbody "
    "td tfoot th thead title tr ul".split()
)


def html(path: Path, text: str) -> Pieces:
    """Visible text of an HTML page (scripts, styles and markup removed), and its <title>.

    Block elements break lines; inline ones (<b>, <a>, <span>…) stay inside their sentence.
    Runs of white space collapse to one space, as a browser shows them, except in <pre>.
    """
    from bs4 import BeautifulSoup, CData, NavigableString

    soup = BeautifulSoup(text, "html.parser")  # the standard library's parser: no lxml needed
    title = soup.title.get_text(" ", strip=True) if soup.title else ""
    for hidden in soup(["head", "script", "style", "noscript", "template"]):
        hidden.decompose()
    for string in soup.find_all(string=True):
        if type(string) in (NavigableString, CData) and string.find_parent("pre") is None:
            string.replace_with(type(string)(_SPACES.sub(" ", string)))
    for tag in soup.find_all(HTML_BLOCKS):
        tag.insert_before("\n")
        tag.insert_after("\n")
    lines = (line.strip() for line in soup.get_text().splitlines())
    return title or path.stem, [("\n".join(line for line in lines if line), {})]


def docx(path: Path) -> Pieces:
    """Paragraphs (headings as markdown headings) and tables of a Word document."""
    import docx as python_docx

    document = python_docx.Document(str(path))
    lines: list[str] = []
    for paragraph in document.paragraphs:
        text = paragraph.text.strip()
        if not text:
            continue
        style = (paragraph.style.name if paragraph.style is not None else "") or ""
        if style.startswith("Heading") and style[-1:].isdigit():
            text = "#" * int(style[-1]) + " " + text
        elif style == "Title":
            text = "# " + text
        lines.append(text)
    for table in document.tables:
        for row in table.rows:
            lines.append(CELL_SEPARATOR.join(cell.text.strip() for cell in row.cells))
    title = document.core_properties.title or path.stem
    return title, [("\n\n".join(lines), {})]


def pptx(path: Path) -> Pieces:
    """The text of each slide (titles, text boxes, tables, notes), one piece per slide."""
    from pptx import Presentation

    deck = Presentation(str(path))
    pieces = []
    for number, slide in enumerate(deck.slides, 1):
        parts: list[str] = []
        for shape in slide.shapes:
            if getattr(shape, "has_text_frame", False) and shape.text_frame.text.strip():
                parts.append(shape.text_frame.text.strip())
            if getattr(shape, "has_table", False):
                for row in shape.table.rows:
                    parts.append(CELL_SEPARATOR.join(c.text.strip() for c in row.cells))
        if slide.has_notes_slide and slide.notes_slide.notes_text_frame is not None:
            notes = slide.notes_slide.notes_text_frame.text.strip()
            if notes:
                parts.append(notes)
        pieces.append(("\n".join(parts), {"slide": number}))
    title = deck.core_properties.title or path.stem
    return title, pieces


def xlsx(path: Path) -> Pieces:
    """Each worksheet as lines of cells, one piece per sheet (values, not formulas)."""
    from openpyxl import load_workbook

    book = load_workbook(str(path), read_only=True, data_only=True)
    try:
        pieces = []
        for sheet in book.worksheets:
            rows = [
                CELL_SEPARATOR.join("" if v is None else str(v) for v in row).rstrip(" |")
                for row in sheet.iter_rows(values_only=True)
            ]
            text = "\n".join(r for r in rows if r.strip(" |"))
            pieces.append((f"{sheet.title}\n{text}" if text else "", {"sheet": sheet.title}))
        title = book.properties.title or path.stem
    finally:
        book.close()
    return title, pieces


def csv_text(path: Path, text: str) -> Pieces:
    """A CSV file as lines of cells (the delimiter is sniffed: comma, semicolon, tab)."""
    try:
        dialect: Any = csv.Sniffer().sniff(text[:4096], delimiters=",;\t|")
    except csv.Error:
        dialect = csv.excel
    rows = [
        CELL_SEPARATOR.join(cell.strip() for cell in row)
        for row in csv.reader(io.StringIO(text), dialect)
    ]
    return path.stem, [("\n".join(r for r in rows if r.strip(" |")), {})]
