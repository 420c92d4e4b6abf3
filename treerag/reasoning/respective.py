"""The value a Chinese "respectively" list gives the asked term: A、B和C分别为x、y和z.

"2022年全国棉花播种面积、单位面积产量和总产量分别为3000.3千公顷、1992.2公斤/公顷和597.7万吨"
gives each of its three terms the value in the same place of the list after 分别 (respectively
pairs the two lists in order); "2022年全国棉花产量" asks for the third, 597.7万吨, not the
first number of the sentence. Only the list holding the asked term is read: another sentence
is left to the other rules.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

_RESPECTIVELY = re.compile(r"分别(?:为|是|达到|达|约为|约)?")
_CLAUSE_START = re.compile(r"[，。；：,;:]")
_ITEM_JOIN = re.compile(r"、|和|及|与|以及")


def respective(
    folded: str, values: Sequence[re.Match[str]], fits: Callable[[str], bool]
) -> list[re.Match[str]] | None:
    """The value of `values` (matches in `folded`) paired with the one item that `fits`.

    None when the sentence has no such list, or no single item fits, or the two lists differ
    in length: the caller keeps every value then.
    """
    said = _RESPECTIVELY.search(folded)
    if said is None:
        return None
    starts = [m.end() for m in _CLAUSE_START.finditer(folded, 0, said.start())]
    items = [i for i in _ITEM_JOIN.split(folded[max([0, *starts]) : said.start()]) if i]
    after = [v for v in values if v.start() >= said.end()]
    clause_end = _CLAUSE_START.search(folded, said.end())
    if clause_end is not None:
        after = [v for v in after if v.start() < clause_end.start()]
    fitting = [i for i, item in enumerate(items) if fits(item)]
    if len(items) < 2 or len(items) != len(after) or len(fitting) != 1:
        return None
    return [after[fitting[0]]]
