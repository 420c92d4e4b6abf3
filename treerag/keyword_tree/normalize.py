"""Name forms of seed 03 §4.1: the canonical form (`treerag.text.canonical`) and pinyin."""

from __future__ import annotations

from collections.abc import Iterable

from treerag.text import canonical, has_han


def pinyin_forms(text: str) -> list[str]:
    """Return the toneless pinyin of canonical text, joined without and with spaces."""
    if not has_han(text):
        return []
    from pypinyin import lazy_pinyin

    parts = [part.strip() for part in lazy_pinyin(text)]
    words = [word for part in parts for word in part.split()]
    if not words:
        return []
    return ["".join(words), " ".join(words)]


def forms_of(text: str) -> list[str]:
    """Return every normalized form of one name or alias, canonical form first."""
    base = canonical(text)
    if not base:
        return []
    forms = [base]
    if " " in base:
        forms.append(base.replace(" ", ""))
    forms.extend(pinyin_forms(base))
    return _unique(forms)


def normalized_forms(name: str, aliases: Iterable[str] = ()) -> list[str]:
    """Return the ``normalized[]`` list of a keyword: the forms of its name and aliases."""
    forms: list[str] = []
    for text in (name, *aliases):
        forms.extend(forms_of(text))
    return _unique(forms)


def _unique(items: Iterable[str]) -> list[str]:
    return list(dict.fromkeys(item for item in items if item))
