"""Words that carry no content, in English and Chinese (both scripts), short lists."""

from __future__ import annotations

from treerag.text.script import HAN_CHAR

EN_STOP = frozenset(
    """
a an and are as at be been being but by can could did do does doing for from had has have
having he her hers him his how i if in into is it its itself just me more most my no nor not
of off on once only or other our out over own same she should so some such than that the
their them then there these they this those through to too under until up very was we were
what when where which while who whom whose why will with would you your yours also about
after again against all any because before below between both down during each few further
here many much one first two name named called known
""".split()
)
ZH_STOP = frozenset(
    """
的 了 是 在 和 与 及 或 也 都 而 被 把 将 对 从 向 于 为 以 之 其 这 那
哪 哪个 哪座 哪条 哪里 哪年 什么 哪些 哪支 哪家 哪位 哪种 哪国 哪部 哪所 哪项 哪次 哪天 哪儿
谁 何 几 多少 吗 呢 吧 啊 呀 着 过 个 位 座 条 年 一 有 没有 由 所 最
曾 该 此 些 并 又 还 就 如何 怎样 为何
是否 一个 一座 一条 他 她 它 他们 她们 我 你 我们 请问
多久 大约 大概 一共 总共 共计 总计 前后
""".split()
)


def is_zh_stop(word: str) -> bool:
    """Whether a word is a Chinese stop word, in either script (什麼 is 什么)."""
    if word in ZH_STOP:
        return True
    if not HAN_CHAR.match(word):
        return False
    from treerag.text.canonical import to_simplified

    return to_simplified(word) in ZH_STOP
