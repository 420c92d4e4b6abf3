"""BM25 analyzers of a chunk collection, and the rule that picks one when it is created."""

from __future__ import annotations

from collections.abc import Iterable

from treerag.retrievers.language import has_ideographs

# Milvus Lite has two tokenizers, jieba and standard (LANDMINES.md); jieba also splits Latin words.
ANALYZERS = {
    # search mode also indexes the sub-words of long words (布兰德 -> 布兰, 兰德, 布兰德).
    "jieba": {
        "tokenizer": {"type": "jieba", "mode": "search", "hmm": True},
        "filter": ["lowercase"],
    },
    "standard": {"tokenizer": "standard", "filter": ["lowercase"]},
    # The terms field is already segmented (treerag/retrievers/lexical.py): split on spaces.
    # Milvus Lite has no whitespace tokenizer; its standard one splits on \w+, which is the
    # same on those terms. A Milvus server's standard tokenizer would split a bigram apart.
    "bigram": {"tokenizer": "standard"},
}
SERVER_ANALYZERS = {"bigram": {"tokenizer": "whitespace"}}


def pick_analyzer(setting: str, sample_texts: Iterable[str]) -> str:
    """Choose the BM25 analyzer: the setting, or words + bigrams when the sample holds CJK text."""
    if setting != "auto":
        return setting
    return "bigram" if any(has_ideographs(t) for t in sample_texts) else "standard"
