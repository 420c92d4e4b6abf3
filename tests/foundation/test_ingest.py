import os
import subprocess
import sys
from pathlib import Path

import pytest

from treerag.context import Context
from treerag.ingest.indexer import ingest
from treerag.models import get_embeddings
from treerag.retrievers.chunk_store import ChunkStore, StoreError

from .conftest import DOCS, write_corpus


@pytest.fixture
def fresh(tmp_path):
    root = write_corpus(tmp_path / "docs")
    ctx = Context(data_dir=str(tmp_path / "data"), collection="fresh")
    return root, ctx


def _count(ctx):
    return ChunkStore(ctx, get_embeddings(ctx)).count()


def test_ingest_counts_and_reingest_adds_nothing(fresh):
    root, ctx = fresh
    first = ingest([root], ctx)
    assert first.added == first.total_chunks == _count(ctx) > 0
    assert {f.status for f in first.files} == {"added"}
    again = ingest([root], ctx)
    assert again.added == 0 and again.removed == 0
    assert {f.status for f in again.files} == {"unchanged"}
    assert _count(ctx) == first.total_chunks


def test_changed_file_replaces_its_chunks(fresh):
    root, ctx = fresh
    ingest([root], ctx)
    (root / "cats.txt").write_text("The ship's dog guarded the gangway at night.", encoding="utf-8")
    report = ingest([root], ctx)
    changed = next(f for f in report.files if f.path.endswith("cats.txt"))
    assert (changed.status, changed.added, changed.removed) == ("updated", 1, 1)
    store = ChunkStore(ctx, get_embeddings(ctx))
    texts = [
        r["text"]
        for r in store.get(
            [i for s, ids in store.ids_by_source().items() if s.endswith("cats.txt") for i in ids]
        )
    ]
    assert texts == ["The ship's dog guarded the gangway at night."]


def test_prune_removes_chunks_of_deleted_files(fresh):
    root, ctx = fresh
    first = ingest([root], ctx)
    (root / "records.jsonl").unlink()
    kept = ingest([root], ctx)
    assert kept.total_chunks == first.total_chunks  # without --prune nothing is deleted
    pruned = ingest([root], ctx, prune=True)
    assert pruned.pruned_chunks == 2
    assert pruned.pruned_sources and all("records.jsonl" in s for s in pruned.pruned_sources)
    assert pruned.total_chunks == first.total_chunks - 2


def test_bad_files_are_skipped_and_good_files_land(fresh, monkeypatch):
    root, ctx = fresh
    (root / "binary.txt").write_bytes(b"\x00\x01\x02binary")
    (root / "empty.md").write_text("   \n", encoding="utf-8")
    (root / "corrupt.pdf").write_bytes(b"%PDF-1.4 this is not really a pdf")
    (root / "broken.jsonl").write_text('{"id": 1, "text": "ok"}\n{not json\n', encoding="utf-8")
    unreadable = root / "secret.md"
    unreadable.write_text("# Secret\n", encoding="utf-8")
    # chmod 0 does not stop root (CI runs as root): refuse the read itself.
    read_bytes = Path.read_bytes

    def refuse_secret(path: Path) -> bytes:
        if path.name == "secret.md":
            raise PermissionError(13, "Permission denied", str(path))
        return read_bytes(path)

    monkeypatch.setattr(Path, "read_bytes", refuse_secret)
    report = ingest([root], ctx)
    reasons = {Path(f.path).name: f.reason for f in report.skipped}
    assert "binary" in reasons["binary.txt"]
    assert "empty" in reasons["empty.md"]
    assert "PDF" in reasons["corrupt.pdf"]
    # A broken JSONL line is left out, said with its line; its good record went in.
    assert "broken.jsonl" not in reasons
    assert [p for p in report.left_out if "broken.jsonl:2" in p]
    assert "cannot read (Permission denied)" in reasons["secret.md"]
    assert len([f for f in report.files if f.status == "added"]) >= len(DOCS)


def test_real_pdf_keeps_page_numbers(tmp_path):
    pdf = tmp_path / "docs" / "two_pages.pdf"
    pdf.parent.mkdir()
    pdf.write_bytes(_two_page_pdf(["Page one speaks of the Voss.", "Page two speaks of Ashcrown."]))
    ctx = Context(data_dir=str(tmp_path / "data"), collection="pdf")
    report = ingest([pdf.parent], ctx)
    assert not report.skipped
    store = ChunkStore(ctx, get_embeddings(ctx))
    rows = store.get(sorted(next(iter(store.ids_by_source().values()))))
    assert sorted(r["meta"]["page"] for r in rows) == [1, 2]
    assert any("Ashcrown" in r["text"] for r in rows)


def test_include_and_exclude_globs(fresh):
    root, ctx = fresh
    report = ingest([root], ctx, include=["*.md", "zh/*"], exclude=["zh/*"])
    assert [Path(f.path).name for f in report.files] == ["harbour.md"]


def test_other_embedder_is_refused_clearly(fresh):
    root, ctx = fresh
    ingest([root], ctx)
    store = ChunkStore(ctx, get_embeddings(ctx), embedding_name="openai:other")
    with pytest.raises(StoreError, match="TREERAG_EMBEDDING_MODEL"):
        store.ensure(384)


def test_cli_ingest_exit_codes_and_search(tmp_path):
    root = write_corpus(tmp_path / "docs")
    env = {**os.environ, "TREERAG_DATA_DIR": str(tmp_path / "data")}
    cli = [sys.executable, "-m", "treerag"]
    ok = subprocess.run([*cli, "ingest", str(root)], env=env, capture_output=True, text=True)
    assert ok.returncode == 0, ok.stderr
    assert "chunks added" in ok.stdout
    (root / "bad.txt").write_bytes(b"\x00\x00")
    skipped = subprocess.run([*cli, "ingest", str(root)], env=env, capture_output=True, text=True)
    assert skipped.returncode == 3
    assert "bad.txt" in skipped.stderr and "binary" in skipped.stderr
    found = subprocess.run(
        [*cli, "search", "Tallow Beacon", "--json", "-k", "1"],
        env=env,
        capture_output=True,
        text=True,
    )
    assert found.returncode == 0, found.stderr
    assert '"title": "Keldmarsh"' in found.stdout
    bad = subprocess.run(
        [*cli, "search", "x", "--mode", "fuzzy"], env=env, capture_output=True, text=True
    )
    assert bad.returncode == 2 and "--mode" in bad.stderr
    missing = subprocess.run(
        [*cli, "ingest", str(tmp_path / "nope")], env=env, capture_output=True, text=True
    )
    assert missing.returncode == 1 and "no such file" in missing.stderr


def _two_page_pdf(texts: list[str]) -> bytes:
    """Write a minimal valid PDF with one text line per page."""
    objects = ["<< /Type /Catalog /Pages 2 0 R >>", ""]
    kids = []
    font_id = 3
    objects.append("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>")
    for text in texts:
        stream = f"BT /F1 12 Tf 72 720 Td ({text}) Tj ET"
        objects.append(f"<< /Length {len(stream)} >>\nstream\n{stream}\nendstream")
        content_id = len(objects)
        objects.append(
            f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] "
            f"/Resources << /Font << /F1 {font_id} 0 R >> >> /Contents {content_id} 0 R >>"
        )
        kids.append(f"{len(objects)} 0 R")
    objects[1] = f"<< /Type /Pages /Kids [{' '.join(kids)}] /Count {len(kids)} >>"
    out = b"%PDF-1.4\n"
    offsets = []
    for i, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += f"{i} 0 obj\n{body}\nendobj\n".encode()
    xref = len(out)
    out += f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode()
    out += "".join(f"{o:010d} 00000 n \n" for o in offsets).encode()
    out += (
        f"trailer\n<< /Size {len(objects) + 1} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n".encode()
    )
    return out


def test_a_broken_jsonl_line_costs_its_record_not_the_file(tmp_path):
    from typer.testing import CliRunner

    from treerag.cli import app

    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "records.jsonl").write_text(
        '{"id": "a", "text": "The lamp of Orrin was lit in 1701."}\n'
        '{"id": "b", "text": "broken\n'
        '{"id": "c", "text": "The mill of Orrin was built in 1788."}\n',
        encoding="utf-8",
    )
    result = CliRunner().invoke(
        app, ["ingest", str(docs), "--data-dir", str(tmp_path / "data")], terminal_width=200
    )
    assert result.exit_code == 3, result.output  # something was left out
    said = " ".join(result.output.split())
    assert "left out" in said and "records.jsonl:2: invalid JSON" in said
    assert "2 chunks added" in said


def test_a_text_file_s_title_line_is_its_title_with_or_without_a_blank_line(tmp_path):
    from treerag.ingest.loaders import load

    cases = {
        "tight.txt": (
            "Wrenfold Academy\nWrenfold Academy is a school in Lowmarsh.\n",
            "Wrenfold Academy",
        ),
        "spaced.txt": ("The Sella River\n\nThe Sella rises in the hills.\n", "The Sella River"),
        "zh.txt": ("柳湾镇\n柳湾镇是栖川县北部的一个古镇。\n", "柳湾镇"),
        # A hard-wrapped paragraph opens with a long line: no title, the file's name stands.
        "wrapped.txt": (
            "The ferry across the Sella ran every hour from the quay below\n"
            "the church until the bridge opened in 1902.\n",
            "wrapped",
        ),
        # A short line that ends a sentence is prose, not a title.
        "said.txt": ("It rained.\nThe river rose by a metre overnight.\n", "said"),
    }
    for name, (text, title) in cases.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
        assert load(tmp_path / name)[0].title == title, name
