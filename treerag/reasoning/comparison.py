"""Comparison questions, answered by reading each side: a verdict, or the side chosen.

A question compares when it names two documents or more that the run holds (its sides)
and asks either

- **whether they share a property**, a yes/no question ("Are X and Y both board games?",
  "X和Y都是桌游吗？"): "Yes" when each side has a sentence holding the property (at least
  `relation_held.RELATION_SHARE` of the question's terms outside the sides' names and the
  comparing words), "No" when a side has none; or
- **which of them** ("Which band was formed first, X or Y?", "Who is older, X or Y?",
  "X还是Y更早成立？"): by the year each side's sentence gives when the comparing word is
  about time (older, first, earlier, 更早 → the earliest; younger, later, 更晚 → the
  latest), else the one side whose sentence holds the property ("Which singer is
  American, X or Y?").

The answer leads with the verdict or the chosen side's name (the system's words, in the
question's language and script) framing the sentence it rests on, then the other side's
sentence, each cited. Hotpot-style comparison questions are a fifth of multi-hop sets;
before this rule the answer quoted both sides in retrieval order and said neither which
nor whether. A comparison this cannot decide (no year on a side, the property on both
sides or on neither) is left to `compose.sides`, which quotes the sides undecided.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from treerag.reasoning.base import EvidenceItem, Quote
from treerag.reasoning.chunk_reading import names_subject, statements
from treerag.reasoning.questions import slot
from treerag.reasoning.reading import fold, read_question
from treerag.reasoning.relation_held import RELATION_SHARE, present, text_stems
from treerag.reasoning.text import content_terms, stem
from treerag.reasoning.wording import script_of_text
from treerag.text.figures import YEAR

_EARLIEST = re.compile(
    r"\b(?:older|oldest|first|earlier|earliest|before)\b|更早|最早|较早|早于|年长|更老|先成立|先出生"
)
_LATEST = re.compile(
    r"\b(?:younger|youngest|later|latest|last|newer|newest|recent)\b|更晚|最晚|较晚|晚于|更年轻|更新"
)
_COMPARING = frozenset(
    """
    both also either neither same older oldest younger youngest earlier earliest later
    latest first last newer newest recent more most less least than
    都 也 还是 或 或者 是否 是不是 吗 更 更早 最早 较早 更晚 最晚 较晚 哪个 谁
    """.split()
)
"""Words that say a question compares, not what it compares on."""
_ZH_YES_NO = re.compile(r"吗[？?]?\s*$|(?<![什怎这那多])么[？?]?\s*$|是否|是不是")
"""A Chinese yes/no question: …吗, …么 (not 什么, 怎么: "…成立了什麼?" asks what), 是否."""
_CHOICE = re.compile(r"\bor\b|还是|或者|或|哪个更|哪一个更|谁更")
VERDICT = {
    "en": ("Yes", "No"),
    "zh-hans": ("是", "不是"),
    "zh-hant": ("是", "不是"),
}
"""The verdict a yes/no comparison leads with, in the question's language and script."""


@dataclass(frozen=True)
class _Side:
    name: str
    """The side's name as its document is titled (bare)."""
    at: int
    """Where the question names it (canonical characters)."""
    item: EvidenceItem


def asks_yes_no(question: str) -> bool:
    """Whether a question asks yes or no ("Are X and Y both…?", "…都是…吗？")."""
    return slot(question) == "yesno" or _ZH_YES_NO.search(fold(question)) is not None


def decide(question: str, own: Sequence[EvidenceItem]) -> list[Quote]:
    """The comparison's answer (rules at the top), [] when it does not compare or is undecided.

    Args:
        question: The run's question.
        own: The run's own useful evidence, best first.
    """
    folded = fold(question)
    yes_no = asks_yes_no(question)
    earliest, latest = _EARLIEST.search(folded), _LATEST.search(folded)
    if not yes_no and not _CHOICE.search(folded):
        return []
    sides = _sides(question, own)
    if len(sides) < 2:
        return []
    if not yes_no:
        sides = _around_choice(folded, sides)
    wanted = _property(question, sides)
    if yes_no and not (earliest or latest):
        return _verdict(question, sides, wanted)
    if earliest or latest:
        return _by_year(sides, wanted, latest=bool(latest) and not earliest)
    return _by_property(sides, wanted)


def _sides(question: str, own: Sequence[EvidenceItem]) -> list[_Side]:
    """The documents the question names that the evidence holds, in the question's order."""
    folded = fold(question)
    found: dict[str, _Side] = {}
    for item in own:
        name = names_subject(question, item.title, item.text)
        if name and name not in found and statements(item.text):
            found[name] = _Side(name, folded.find(fold(name)), item)
    return sorted(found.values(), key=lambda s: s.at)


def _around_choice(folded: str, sides: list[_Side]) -> list[_Side]:
    """The two sides on either side of "or" / 还是 when the question names more."""
    if len(sides) == 2:
        return sides
    for match in _CHOICE.finditer(folded):
        before = [s for s in sides if 0 <= s.at < match.start()]
        after = [s for s in sides if s.at >= match.end()]
        if before and after:
            return [before[-1], after[0]]
    return sides[:2]


def _property(question: str, sides: Sequence[_Side]) -> tuple[str, ...]:
    """The question's terms outside the sides' names, comparing words and "which X"'s noun.

    Both sides are an X: "Which plant is larger" compares two plants.
    """
    named = {t for s in sides for t in content_terms(fold(s.name))}
    head = read_question(question).head
    return tuple(
        t
        for t in content_terms(fold(question))
        if t not in named
        and t not in _COMPARING
        and not YEAR.fullmatch(t)
        and not (head and stem(t) == stem(head))
    )


def _share(wanted: Sequence[str], sentence: str) -> float:
    """The share of the property's terms a sentence holds ("games" held by "game")."""
    if not wanted:
        return 0.0
    folded = fold(sentence)
    stems = text_stems(folded)
    held = [
        present(t, folded, stems) or (t.endswith("s") and present(t[:-1], folded, stems))
        for t in wanted
    ]
    return sum(held) / len(wanted)


def _best(side: _Side, wanted: Sequence[str], dated: bool = False) -> tuple[str, float]:
    """The side's sentence holding most of the property (the first among equals)."""
    said = [s for s in statements(side.item.text) if not dated or YEAR.search(fold(s))]
    if not said:
        return "", 0.0
    best = max(said, key=lambda s: (_share(wanted, s), -said.index(s)))
    return best, _share(wanted, best)


def _verdict(question: str, sides: Sequence[_Side], wanted: Sequence[str]) -> list[Quote]:
    if not wanted:
        return []
    read = [(_best(side, wanted), side) for side in sides[:2]]
    holds = [share >= RELATION_SHARE for (_, share), _ in read]
    yes, no = VERDICT[script_of_text(question)]
    # "No" leads with the side that lacks it; "Yes" with the first side.
    order = read if all(holds) else sorted(read, key=lambda r: r[0][1] >= RELATION_SHARE)
    word = yes if all(holds) else no
    quotes = [Quote(side.item.n, sentence) for (sentence, _), side in order if sentence]
    if len(quotes) < 2:
        return []
    return [Quote(quotes[0].n, quotes[0].text, word), *quotes[1:]]


def _by_year(sides: Sequence[_Side], wanted: Sequence[str], latest: bool) -> list[Quote]:
    dated = []
    for side in sides[:2]:
        sentence, _ = _best(side, wanted, dated=True)
        if not sentence:
            return []
        dated.append((int(YEAR.search(fold(sentence)).group()), side, sentence))  # type: ignore[union-attr]
    if dated[0][0] == dated[1][0]:
        return []
    dated.sort(key=lambda d: -d[0] if latest else d[0])
    return _chosen([(side, sentence) for _, side, sentence in dated])


def _by_property(sides: Sequence[_Side], wanted: Sequence[str]) -> list[Quote]:
    if not wanted:
        return []
    read = [(side, *_best(side, wanted)) for side in sides[:2]]
    holding = [r for r in read if r[2] > 0]
    if len(holding) != 1 or not all(r[1] for r in read):
        return []
    return _chosen([(s, sentence) for s, sentence, _ in sorted(read, key=lambda r: -r[2])])


def _chosen(ordered: list[tuple[_Side, str]]) -> list[Quote]:
    """The chosen side's sentence framed by its name, then the other side's."""
    (first, said), (second, other) = ordered
    return [Quote(first.item.n, said, first.name), Quote(second.item.n, other)]
