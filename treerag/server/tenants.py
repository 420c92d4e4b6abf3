"""Tenant names: one normal form, checked before a name touches a path, a collection or a filter."""

from __future__ import annotations

import re
import unicodedata
from pathlib import Path

from treerag import data_layout

MAX_TENANT_LENGTH = 48
# ASCII only, after NFKC and case folding: "A" and "a" are one tenant, and a Cyrillic "а"
# that only looks like "a" is refused instead of becoming a second, look-alike tenant.
_TENANT = re.compile(r"^[a-z0-9](?:[a-z0-9_-]*[a-z0-9])?$")


class TenantError(ValueError):
    """A tenant name that cannot be used; the message says what is allowed."""


def normalize_tenant(name: str) -> str:
    """Return the normal form of a tenant name, or raise TenantError.

    NFKC folds compatibility forms (fullwidth letters, ligatures) and `casefold` folds case;
    what remains must be 1-48 characters of a-z, 0-9, `_` and `-`, starting and ending with
    a letter or digit. So no path separator, no `.`/`..`, no empty name, nothing unbounded.
    """
    if not isinstance(name, str):
        raise TenantError("a tenant name must be a string")
    folded = unicodedata.normalize("NFKC", name).casefold().strip()
    if len(folded) > MAX_TENANT_LENGTH or not _TENANT.match(folded):
        shown = name if len(name) <= 60 else name[:60] + "..."
        raise TenantError(
            f"invalid tenant name {shown!r}: use 1-{MAX_TENANT_LENGTH} characters of a-z, 0-9, "
            "'_' and '-', starting and ending with a letter or digit"
        )
    return folded


def tenant_dir(data_dir: Path, tenant: str) -> Path:
    """The directory of a tenant's files: `<data_dir>/tenants/<tenant>` (no tenant: data_dir)."""
    return data_layout.tenant_dir(data_dir, normalize_tenant(tenant) if tenant else "")


def tenant_collection(collection: str, tenant: str) -> str:
    """The Milvus collection of a tenant's chunks: `<collection>__<tenant>` ('-' becomes '_').

    Milvus collection names allow letters, digits and `_` only. Two tenants differing only in
    `-` against `_` would share a collection, so the mapping marks `-` with a distinct run.
    """
    if not tenant:
        return collection
    name = normalize_tenant(tenant).replace("_", "_u").replace("-", "_h")
    return f"{collection}__t_{name}"
