"""Foreign names written in Chinese, which jieba cuts into pieces, given back whole.

jieba's dictionary holds few foreign names, and its HMM cuts the rest where it likes: 马克 /
龙, 布 / 林肯, 德约 / 科维奇, 阿尔卡拉 / 斯以. A question about 马克龙 then named no one and asked
about 马克, and a passage's 斯以 was a word. Chinese writes such names with a small set of
characters, one per syllable (Xinhua's transliteration tables: 外国人名译名手册, 外语地名汉字译写
导则), so the pieces can be told and joined:

- adjacent words written in those characters alone join when one is tagged a name and each
  joint touches a fragment: one character, a word the dictionary lacks, or one it tags
  `nrt` (its transliterated-name tag); two whole names side by side (纽约 + 曼哈顿) stay two;
- a name's last syllable that the HMM glued to the word after it (斯以, 斯在, 努退赛: 斯 + a
  preposition, 努 + a verb) is split from it first;
- a one-character verb or particle after a whole word ends the run (海南 + 爱 of 海南爱心);
- the whole has three characters or more.

Measured on 1,500 passages of rgb_zh_300: 240 joins of 146 names, nearly all right (布林肯,
德约科维奇, 萨巴伦卡, 马克龙, 巴尔莫勒尔); wrong ones glue two names (卡塔尔多哈). Japanese names
(岸田文雄) use common characters and are not read here.
"""

from __future__ import annotations

from functools import lru_cache

from treerag.segment import jieba, word_tag

TRANSLITERATION = frozenset(
    "阿埃艾爱安昂奥澳巴拜班邦保鲍贝本比彼毕宾波伯博布查达戴丹道德登迪蒂丁东杜顿多厄恩尔法范"
    "菲芬丰佛弗福富盖甘冈戈格根贡古瓜圭哈海汉豪赫亨洪胡华怀霍基吉加贾杰捷金卡凯坎康考柯科克肯"
    "孔库夸奎昆拉莱赖兰朗劳勒雷蕾里丽利莉列林琳隆卢鲁路伦罗洛马玛迈麦曼芒梅门蒙米密摩莫墨默姆"
    "穆纳娜奈南内尼妮涅宁纽努诺欧帕潘庞佩彭皮珀坡普齐奇契乔切钦琼丘萨塞桑瑟森沙莎尚舍施什舒斯"
    "松苏索塔泰坦汤特提图托瓦万旺威韦维温沃乌伍西希锡夏谢辛雅亚扬耶伊因尤约扎泽詹兹卓佐夫龙连"
    "娃娅琪黛薇丝露芙茜珊蓓"
)
"""The characters of foreign names (Simplified): the syllables of Xinhua's tables for English,
Russian, French, German and Spanish names that recur in news."""
NAME_TAGS = frozenset({"nr", "nrt", "ns", "nz", "nrfg"})
"""jieba's tags of names: people, transliterated names, places, other proper nouns."""

Pair = tuple[str, str]


def may_join(words: list[str]) -> bool:
    """Whether a word in transliteration characters alone has one after it that starts so.

    Without such a pair there is nothing to join or split (most text): callers skip the
    tagging `join_foreign_names` needs. The word after may go on past the name (斯以).
    """
    return any(
        _written_so(a) and b[:1] in TRANSLITERATION for a, b in zip(words, words[1:], strict=False)
    )


def join_foreign_names(pairs: list[Pair]) -> list[Pair]:
    """(word, tag) pairs of Simplified text, each foreign name one word tagged `nr`."""
    if not may_join([w for w, _ in pairs]):
        return pairs
    pairs = _unglued(pairs)
    out: list[Pair] = []
    at = 0
    while at < len(pairs):
        end = _name_end(pairs, at)
        word = "".join(w for w, _ in pairs[at:end])
        if end - at >= 2 and len(word) >= 3 and any(f in NAME_TAGS for _, f in pairs[at:end]):
            out.append((word, "nr"))
            at = end
        else:
            out.append(pairs[at])
            at += 1
    return out


def is_foreign_name(word: str) -> bool:
    """Whether a (Simplified) word is one foreign name that jieba cuts into pieces."""
    pieces = [(w, word_tag(w)) for w in jieba().lcut(word)]
    return len(pieces) >= 2 and join_foreign_names(pieces) == [(word, "nr")]


def _unglued(pairs: list[Pair]) -> list[Pair]:
    """Split a name's last syllable from the function word the HMM glued it to (斯以)."""
    out: list[Pair] = []
    for word, flag in pairs:
        rest = word[1:]
        if (
            out
            and _written_so(out[-1][0])
            and len(word) >= 2
            and word[0] in TRANSLITERATION
            and not word_tag(word)
            and _said_after(word_tag(rest))
        ):
            out += [(word[0], "nr"), (rest, word_tag(rest))]
        else:
            out.append((word, flag))
    return out


def _said_after(flag: str) -> bool:
    """Whether a dictionary word of this tag follows a name rather than ends it.

    A verb, a preposition, a particle (以, 在, 的, 退赛); not a noun (the 国 of 某斯国 may be
    a word of the name).
    """
    return bool(flag) and not flag.startswith("n")


def _name_end(pairs: list[Pair], start: int) -> int:
    """Where a run of a foreign name's pieces from `start` ends (rules in the module)."""
    if not _written_so(pairs[start][0]):
        return start + 1
    end = start + 1
    while (
        end < len(pairs)
        and _written_so(pairs[end][0])
        and (_fragment(*pairs[end - 1]) or _fragment(*pairs[end]))
    ):
        end += 1
    last = pairs[end - 1]
    if end - start >= 2 and len(last[0]) == 1 and not last[1].startswith("n"):
        if not _fragment(*pairs[end - 2]):
            end -= 1  # 海南 + 爱: a verb after a whole word is not a syllable of it
    return end


@lru_cache(maxsize=65536)
def _written_so(word: str) -> bool:
    """Whether a word is written in transliteration characters alone."""
    return bool(word) and all(ch in TRANSLITERATION for ch in word)


def _fragment(word: str, flag: str) -> bool:
    """A piece of a longer name: one character, a word jieba's dictionary lacks, or `nrt`."""
    return len(word) == 1 or flag == "nrt" or not word_tag(word)
