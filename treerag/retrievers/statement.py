"""A question as the statement that would answer it: the words that only ask taken out.

"ChatGPT的發佈時間" asks for a date with the word 時間, which a document announcing the date
seldom holds ("ChatGPT於2022年11月30日由…OpenAI推出") and every passage on a schedule does:
BM25 rewards it, and the passage that answers fell to rank 12 under a dozen that say
"發佈時間". Searched without it ("ChatGPT的發佈") that passage ranks 2. A root run whose top_k
does not answer judges the first hits of this search too (`sources.gather`, the next page).

The words taken out are the question's answer-kind words (`reading.ANSWER_KIND_WORDS`: 时间,
日期, 地点, year, date, …) and Chinese question words (哪一年, 几次), matched as the words
jieba reads in the question's canonical form (`text.fold`), so 地方 of 地方政府 stays. The rest
is kept as the question wrote it (its script, its spacing), which is what the index holds.
"""

from __future__ import annotations

from treerag.reasoning.reading import ANSWER_KIND_WORDS, ASKING
from treerag.reasoning.text import tokens
from treerag.text import HAN_CHAR, fold


def statement_query(question: str) -> str | None:
    """The question without the words that only ask; None when it has none to take out.

    None too when the question's canonical form differs in length from it (a character
    NFKC expands: no span to map back) or when too little is left to search with.
    """
    folded = fold(question)
    if len(folded) != len(question):
        return None
    words, cursor = [], 0
    for word in tokens(folded):
        start = folded.find(word, cursor)
        if start < 0:
            return None
        cursor = start + len(word)
        words.append((word, start, cursor))
    keep: list[tuple[int, int]] = []
    dropped = False
    for n, (word, start, end) in enumerate(words):
        after = words[n + 1][0] if n + 1 < len(words) else ""
        if word in ANSWER_KIND_WORDS and (word not in _NOUNS or not _goes_on(after)):
            dropped = True
        elif not ASKING.match(word):  # 哪一年, 几次: a question word jieba keeps whole
            keep.append((start, end))
    if not dropped:
        return None
    text, last = "", -1
    for start, end in keep:
        piece = question[start:end]
        glued = not text or start == last or (HAN_CHAR.match(text[-1]) and HAN_CHAR.match(piece))
        text += piece if glued else " " + piece
        last = end
    return text if len(text.replace(" ", "")) >= 2 else None


def _goes_on(after: str) -> bool:
    """Whether the word after an answer-kind noun makes it part of a name (地方 of 地方政府)."""
    return bool(HAN_CHAR.match(after)) and after not in _AFTER_ASKING


_NOUNS = frozenset("时间 日期 时候 人数 数量 名字 名称 地点 地方".split())
"""Answer-kind words that are also nouns: taken out only where nothing joins them after."""
_AFTER_ASKING = frozenset("是 为 在 呢 吗 啊 的 和 与 及 分别 有 叫".split())
"""Words that may follow a question's asking noun ("发布时间是什么时候", "地点在哪")."""
