"""BM25 analyzers of a chunk collection, and the rule that picks one when it is created."""

from __future__ import annotations

from collections.abc import Iterable

from treerag.text import has_han

ENGLISH_STOP_WORDS = (
    "a", "an", "and", "are", "as", "at", "be", "but", "by", "for", "if", "in", "into", "is",
    "it", "no", "not", "of", "on", "or", "such", "that", "the", "their", "then", "there",
    "these", "they", "this", "to", "was", "will", "with",
)  # fmt: skip
"""The words of Milvus's `_english_` stop list (Lucene's English stop set), spelled out.

Milvus Lite's `stop` filter takes its words literally (it does not expand `_english_`), so
the list is written here and both engines drop the same words. Without it "designer of the
Pellucid Engine" ranked passages by "the" and "of" (each scoring above "engine").
"""
STOP_WORDS = "english"
"""What a collection created with the stop filter records (`stop_words` in its info)."""
_STOP = {"type": "stop", "stop_words": list(ENGLISH_STOP_WORDS)}

# Milvus Lite has two tokenizers, jieba and standard (LANDMINES.md); jieba also splits Latin
# words. Every analyzer drops English stop words after lower-casing: no Chinese term is one.
ANALYZERS = {
    # search mode also indexes the sub-words of long words (布兰德 -> 布兰, 兰德, 布兰德).
    "jieba": {
        "tokenizer": {"type": "jieba", "mode": "search", "hmm": True},
        "filter": ["lowercase", _STOP],
    },
    "standard": {"tokenizer": "standard", "filter": ["lowercase", _STOP]},
    # The terms field is already segmented and lower-cased (treerag/retrievers/lexical.py):
    # split on spaces. Milvus Lite has no whitespace tokenizer; its standard one splits on
    # \w+, which is the same on those terms. A Milvus server's standard tokenizer would split
    # a bigram apart.
    "bigram": {"tokenizer": "standard", "filter": [_STOP]},
}
SERVER_ANALYZERS = {"bigram": {"tokenizer": "whitespace", "filter": [_STOP]}}


def pick_analyzer(setting: str, sample_texts: Iterable[str]) -> str:
    """Choose the BM25 analyzer: the setting, or words + bigrams when the sample holds CJK text."""
    if setting != "auto":
        return setting
    return "bigram" if any(has_han(t) for t in sample_texts) else "standard"


def stop_words_of(info: dict) -> frozenset[str]:
    """The stop words a collection's analyzer drops, from its recorded settings.

    Collections created before the stop filter record none and keep indexing every word.
    """
    return frozenset(ENGLISH_STOP_WORDS) if info.get("stop_words") == STOP_WORDS else frozenset()
