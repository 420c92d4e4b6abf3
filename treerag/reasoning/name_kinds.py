"""What the last characters of a Chinese name say of the kind of thing it names.

One place for the tables the offline reasoner reads a name's kind by: the endings of names
of places, bodies and temples (`NAMED_BY_KIND`), grouped by kind (`KIND_GROUPS`); the endings
of a natural feature's, a city's or a dynasty's name asked for by its kind (`FEATURE_KINDS`);
a kind whose names end in other words than its own (`KIND_ENDINGS`); and the characters
that make a name before them another thing's (`ANOTHER_THING`). The character sets hold
both scripts; the kinds and endings keyed by word are Simplified and compared in the
canonical form (`fold`).
"""

from __future__ import annotations

from treerag.text import fold
from treerag.text.names import ZH_PLACE_SUFFIXES

NAMED_BY_KIND = (
    f"{ZH_PLACE_SUFFIXES}屿嶼院校司厂廠行馆館寺庙廟祠宫宮观觀堂"
    "桥橋楼樓园園街路站局社团團店号號会會队隊"
)
"""Last characters of the nouns a Chinese name ends in (青石镇, 滄瀾工學院, 鳴潮船廠, 銀鷺號,
楓林文昌祠): places, bodies and temples; a person's name does not end in 老师 or 创办人."""
KIND_GROUPS = (
    "线線路道",
    "寺庙廟宫宮祠堂庵",
    "馆館",
    "园園",
    "厂廠",
    "校学學院",
    "队隊团團",
    "桥橋",
)
"""Endings of `NAMED_BY_KIND` grouped by the kind they say: a railway (…線, …鐵路), a temple,
a hall, a park, a works, a school, a team, a bridge. A name ending in one group's character
is of no other group's kind (文化志工隊 is no 廟宇: `bridging._of_another_kind`)."""
FEATURE_KINDS = {
    "河流": "河溪江川",
    "河": "河溪江川",
    "溪流": "溪河",
    "湖泊": "湖潭池",
    "湖": "湖潭池",
    "山": "山峰岭岳",
    "山峰": "山峰岭岳",
    "城市": "市",
    "朝代": "朝代夏商周秦汉晋隋唐宋元明清",
}
"""The last characters of the names of a natural feature asked for by its kind (canonical):
a river (河流) is named …河, …溪, …江 (霧溪, 濁水溪), a lake …湖 or …潭 (日月潭), a mountain
…山 or …峰, a city …市 (嘉義市, not the county 新竹縣 it once belonged to), a dynasty …朝,
…代 or by its house (元朝, 清代, 北宋; jieba reads them as words of time:
`typed_names._dynasties`)."""


def feature_of_kind(name: str, kind: str) -> bool:
    """Whether a Chinese name is of the natural feature a type word asks for (`FEATURE_KINDS`)."""
    ends = FEATURE_KINDS.get(fold(kind), "")
    folded = fold(name)
    return bool(ends) and len(folded) >= 2 and folded[-1] in ends


KIND_ENDINGS = {"学": ("学院", "书院", "学堂")}
"""Chinese kinds whose names end in another word than the kind's first character: a 学校 is
named …大学, …中学 (which end with 学), or …学院, …书院, …学堂 (which do not)."""
ANOTHER_THING = "线線路桥橋寺庙廟宫宮祠堂馆館园園厂廠校队隊"
"""A character that makes a name before it another thing's: 霧溪線 (a railway) is not 霧溪 (a
river), 慈雲宮 not 慈雲. Not a place's administrative level (市, 縣, 鎮), which text leaves out,
nor a port or a station (港, 站): they bear their town's name and stand in it, so a chunk
about the town is about where they are."""
