"""Text rules shared by every part of treerag: script classes, canonical forms, proper names.

It imports nothing from treerag but `treerag.segment` (jieba, a leaf module), lazily, so the
engines (keyword tree, knowledge graph, retrievers) and the reasoning above them can all use it.
"""

from treerag.text.canonical import (
    canonical,
    convert,
    fold,
    fold_cased,
    query_key,
    to_simplified,
    width_and_case,
)
from treerag.text.names import LINKING, READING, NameRule, proper_names, split_sentences
from treerag.text.script import (
    CJK_WIDE,
    HAN,
    HAN_CHAR,
    HAN_KANA_HANGUL,
    HAN_RUN,
    LATIN,
    TOKEN,
    WIDE_CHAR,
    Script,
    han_count,
    has_han,
    has_wide,
    script_of_text,
)
from treerag.text.sources import (
    RECORD_MARK,
    SHORT_LINE,
    own_title,
    placeholder_title,
    record_source,
    shown_title,
    source_file,
    source_record,
    title_like,
)
from treerag.text.stopwords import EN_STOP, ZH_STOP, is_zh_stop

__all__ = [
    "CJK_WIDE",
    "EN_STOP",
    "HAN",
    "HAN_CHAR",
    "HAN_KANA_HANGUL",
    "HAN_RUN",
    "LATIN",
    "LINKING",
    "READING",
    "RECORD_MARK",
    "SHORT_LINE",
    "TOKEN",
    "WIDE_CHAR",
    "ZH_STOP",
    "NameRule",
    "Script",
    "canonical",
    "convert",
    "fold",
    "fold_cased",
    "han_count",
    "has_han",
    "has_wide",
    "is_zh_stop",
    "proper_names",
    "query_key",
    "own_title",
    "placeholder_title",
    "record_source",
    "shown_title",
    "script_of_text",
    "source_file",
    "title_like",
    "source_record",
    "split_sentences",
    "to_simplified",
    "width_and_case",
]
