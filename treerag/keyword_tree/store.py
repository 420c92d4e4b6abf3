"""KeywordTree: the file-backed keyword knowledge tree of seed 03, one class for callers."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from treerag.keyword_tree.derive import ChunkRecord, derive_tree, forget_chunks, renormalize
from treerag.keyword_tree.io import Format, OnDuplicate, export_tree, import_tree
from treerag.keyword_tree.maintenance import Maintenance
from treerag.keyword_tree.results import WriteResult


class KeywordTree(Maintenance):
    """A keyword tree stored as JSONL files under one directory.

    Open with ``KeywordTree(path, agent=..., config=...)`` (or as a context manager);
    several processes may open the same directory: writes are serialized with a file
    lock and each process picks up the others' writes before reading or writing.

    Reads: exact_lookup, get_keyword, get_children, get_path, get_infos_of_keyword,
    get_keywords_of_info, lookup_terms. Search: search / asearch (seed 03 §5.1),
    descend / adescend (§4.3). Writes return a WriteResult whose operation_id undo() takes.

    From an async graph node::

        result = await tree.asearch(question, agent=agent)  # exact hit, else descent
        if result.kind == "matched":
            chunks = [hit.info.content for hit in result.infos.items]
            path = [node.name for node in result.path]
        calls = result.trace.agent_calls if result.trace else 0  # LLM calls spent
    """

    def __enter__(self) -> KeywordTree:
        return self

    def import_tree(
        self,
        source: str | Path,
        fmt: Format | None = None,
        *,
        parent_id: str | None = None,
        on_duplicate: OnDuplicate = "merge",
    ) -> WriteResult:
        """Import a JSON, YAML or markdown tree (path or text); see io.import_tree."""
        return import_tree(self, source, fmt, parent_id=parent_id, on_duplicate=on_duplicate)

    def export_tree(
        self, fmt: Format = "json", *, root_id: str | None = None, include_infos: bool = False
    ) -> str:
        """Export the tree as JSON, YAML or a markdown outline; see io.export_tree."""
        return export_tree(self, fmt, root_id=root_id, include_infos=include_infos)

    def derive_from_chunks(
        self,
        records: Any,
        *,
        root_name: str | None = None,
        base_dir: str | None = None,
    ) -> WriteResult:
        """Build folder → file → heading keywords from chunk records; see derive.derive_tree."""
        return derive_tree(self, records, root_name=root_name, base_dir=base_dir)

    def forget_chunks(self, chunk_ids: Any, source_paths: Any = ()) -> WriteResult:
        """Delete what was derived from these chunks; see derive.forget_chunks."""
        return forget_chunks(self, chunk_ids, source_paths)

    def renormalize(self) -> WriteResult:
        """Write every keyword's normalized forms anew; see derive.renormalize."""
        return renormalize(self)


__all__ = ["ChunkRecord", "KeywordTree"]
