"""Citation marks for an answer written without any: the passages its sentences draw on.

A chat model told to cite with [n] sometimes answers right and cites nothing (the local 1.5B
model often does). The answer then reaches the user with no way to check it. Here each
sentence of such an answer is matched with the evidence item that shares the most topic terms
with it (jieba words and character pairs for Chinese, words for English, stopwords dropped:
`treerag.keyword_tree.terms`), and the answer cites that item when the match is real: at least
MIN_SHARED terms in common, making up at least MIN_SHARE of the sentence's terms. A sentence
that matches nothing (a greeting, "I could not find…", an invented fact) adds no mark. An
answer that cites anything is left as the model wrote it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from treerag.reasoning.base import EvidenceItem
from treerag.reasoning.text import sentences

MIN_SHARED = 2
MIN_SHARE = 1 / 3
_MARK = re.compile(r"\[\d+\]")


def added_marks(answer: str, evidence: Sequence[EvidenceItem]) -> str:
    """The marks to append to an answer that cites nothing: " [1][3]", or "" (see above).

    They follow the answer rather than each sentence because the answer has already been
    streamed token by token when they are known; appended, they stream after it, and the
    streamed text stays the final text.
    """
    if not evidence or _MARK.search(answer):
        return ""
    from treerag.keyword_tree.terms import terms  # the engine loads only when needed

    passages = [
        (item.n, terms(" ".join((item.title, item.text, item.sub_answer, *item.support))))
        for item in evidence
    ]
    cited: list[int] = []
    for sentence in sentences(answer):
        words = terms(sentence)
        n, shared = max(((n, len(words & have)) for n, have in passages), key=lambda p: p[1])
        if words and shared >= MIN_SHARED and shared / len(words) >= MIN_SHARE and n not in cited:
            cited.append(n)
    return (" " + "".join(f"[{n}]" for n in cited)) if cited else ""
