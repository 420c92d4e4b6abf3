"""Ingestion: load files, split them into chunks, index them idempotently."""
