"""Split sections into chunks: markdown-aware, with Chinese sentence punctuation as separators."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

from langchain_text_splitters import MarkdownHeaderTextSplitter, RecursiveCharacterTextSplitter

from treerag.ingest.loaders import Section
from treerag.retrievers.chunk_store import Chunk
from treerag.retrievers.language import language_of

HEADERS = [("#", "h1"), ("##", "h2"), ("###", "h3"), ("####", "h4")]
# Paragraphs first, then sentence ends in both scripts, then clauses, then words.
SEPARATORS = ["\n\n", "\n", "。", "！", "？", "；", ". ", "! ", "? ", "; ", "，", ", ", " ", ""]


def make_splitter(chunk_size: int, chunk_overlap: int) -> RecursiveCharacterTextSplitter:
    """Return the character splitter used for every chunk."""
    if chunk_overlap >= chunk_size:
        raise ValueError(
            f"chunk_overlap ({chunk_overlap}) must be smaller than chunk_size ({chunk_size})"
        )
    return RecursiveCharacterTextSplitter(
        chunk_size=chunk_size,
        chunk_overlap=chunk_overlap,
        separators=SEPARATORS,
        keep_separator="end",
        strip_whitespace=True,
    )


def chunk_id(source: str, text: str, occurrence: int = 0) -> str:
    """Derive a stable id from where a chunk comes from and what it says."""
    digest = hashlib.sha256(f"{source}\x00{text}\x00{occurrence}".encode()).hexdigest()
    return digest[:32]


def split_sections(sections: Sequence[Section], chunk_size: int, chunk_overlap: int) -> list[Chunk]:
    """Split a file's sections into chunks with stable ids and locating metadata."""
    splitter = make_splitter(chunk_size, chunk_overlap)
    chunks: list[Chunk] = []
    seen: dict[tuple[str, str], int] = {}
    for section in sections:
        for text, heading_path in _pieces(section, splitter):
            key = (section.source, text)
            occurrence = seen.get(key, 0)
            seen[key] = occurrence + 1
            meta = dict(section.meta)
            # Hybrid search leaves Chinese chunks to BM25 for Chinese queries (fusion.py).
            meta["lang"] = language_of(text)
            if heading_path:
                meta["heading_path"] = heading_path
            chunks.append(
                Chunk(
                    id=chunk_id(section.source, text, occurrence),
                    text=text,
                    source=section.source,
                    title=section.title,
                    chunk_index=0,
                    content_hash=hashlib.sha256(text.encode()).hexdigest()[:16],
                    meta=meta,
                )
            )
    by_source: dict[str, int] = {}
    for chunk in chunks:
        chunk.chunk_index = by_source.get(chunk.source, 0)
        by_source[chunk.source] = chunk.chunk_index + 1
    return chunks


def _pieces(
    section: Section, splitter: RecursiveCharacterTextSplitter
) -> list[tuple[str, list[str]]]:
    if section.kind != "markdown":
        return [(t, []) for t in splitter.split_text(section.text)]
    md = MarkdownHeaderTextSplitter(HEADERS, strip_headers=False)
    out: list[tuple[str, list[str]]] = []
    for doc in md.split_text(section.text):
        path = [doc.metadata[k] for _, k in HEADERS if k in doc.metadata]
        out.extend((t, path) for t in splitter.split_text(doc.page_content))
    return out
