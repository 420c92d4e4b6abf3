r"""BM25 terms of Chinese text: jieba's words plus every pair of adjacent characters.

jieba alone misses whenever a passage and a question segment the same name differently
("潮汐号" as one word in one, "潮汐" + "号" in the other), and its dictionary knows few of
the names a news or company corpus is about. Character bigrams match however the text was
segmented. Indexing both, in one BM25 field, lifted capped R@5 on rgb_zh_300 (300 questions,
7,337 passages, through Milvus Lite and by brute force alike) from 0.620 for jieba's words to
0.635, and R@2 from 0.648 to 0.678; with the question and the passages in different scripts
(one side converted with OpenCC) from 0.586-0.604 to 0.623-0.625. Bigrams alone, trigrams,
lone characters, or a fusion of a words list with a bigrams list did no better
(BENCHMARKS.md, retrieval-fusion). Nothing here is fitted: the rule has no parameter.

The terms are computed here and joined by spaces into a field of their own; Milvus's BM25
function then only splits that field on spaces (Milvus Lite's `standard` analyzer splits on
`\w+`, which keeps a bigram whole; a Milvus server gets the `whitespace` tokenizer), so the
index and the query are segmented by the same code, with the same jieba dictionary.
"""

from __future__ import annotations

import re

from treerag.segment import jieba
from treerag.text import HAN_RUN

_WORD = re.compile(r"\w+")


def bm25_terms(text: str) -> list[str]:
    """Lower-cased jieba words (search mode, split at punctuation) and CJK character bigrams."""
    lowered = text.lower()
    terms = [part for word in jieba().lcut_for_search(lowered) for part in _WORD.findall(word)]
    for run in HAN_RUN.findall(lowered):
        terms.extend(run[i : i + 2] for i in range(len(run) - 1))
    return terms


def terms_field(text: str, max_bytes: int) -> str:
    """The space-joined terms of a text, cut at a term boundary to fit `max_bytes` of UTF-8."""
    joined = " ".join(bm25_terms(text))
    if len(joined.encode("utf-8")) <= max_bytes:
        return joined
    cut = joined.encode("utf-8")[:max_bytes].decode("utf-8", errors="ignore")
    return cut.rsplit(" ", 1)[0]
