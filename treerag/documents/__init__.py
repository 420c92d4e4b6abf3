"""Documents as one product operation for Python, the CLI and the web page.

    from treerag.documents import list_documents, ingest_files, delete_document, rebuild

`list_documents` gives each ingested file with its chunk count and ingestion time, the files
recently skipped and why, and which derived stores are stale; `ingest_files` ingests files
one by one and reports events per file and per embedded batch; `delete_document` deletes a
file's chunks and what the keyword tree and the knowledge graph derived from them
(`resolve_document` finds the source a path or a base name means); `rebuild` brings stale
derived stores back in step with the chunks.
"""

from treerag.documents.operations import (
    Deletion,
    Document,
    Listing,
    UnknownDocumentError,
    delete_document,
    ingest_files,
    list_documents,
    rebuild,
    resolve_document,
)

__all__ = [
    "Deletion",
    "Document",
    "Listing",
    "UnknownDocumentError",
    "delete_document",
    "ingest_files",
    "list_documents",
    "rebuild",
    "resolve_document",
]
