"""Answer metrics (exact match, token F1) and evidence recall@k.

Normalisation follows SQuAD: lowercase, drop punctuation, drop the articles a/an/the,
collapse whitespace. Tokens are whitespace-separated words, except that every CJK character
is a token of its own, so Chinese is scored by characters (Latin words inside Chinese text
stay words). For text without CJK this is exactly SQuAD's tokenisation.
"""

from __future__ import annotations

import re
import string
import unicodedata
from collections import Counter
from collections.abc import Iterable, Sequence

from treerag.reasoning.wording import LABELS, strip_label
from treerag.text import HAN_KANA_HANGUL

OFFLINE_LABEL = LABELS["en"]
_CITATION = re.compile(r"\[\s*\d+(?:\s*[,;]\s*\d+)*\s*\]")
_ARTICLES = re.compile(r"\b(a|an|the)\b")
_TOKEN = re.compile(f"[{HAN_KANA_HANGUL}]|[^\\s{HAN_KANA_HANGUL}]+")
_ASCII_PUNCT = frozenset(string.punctuation)


def clean_answer(text: str) -> str:
    """Drop the offline reasoner's label (any language) and citation markers such as [1, 2]."""
    return " ".join(_CITATION.sub(" ", strip_label(text)).split())


def _is_punct(char: str) -> bool:
    return char in _ASCII_PUNCT or unicodedata.category(char).startswith("P")


def normalize_answer(text: str) -> str:
    """SQuAD normalisation, with Unicode punctuation (，。「」 ...) removed too."""
    text = "".join(c for c in text.lower() if not _is_punct(c))
    return " ".join(_ARTICLES.sub(" ", text).split())


def answer_tokens(text: str) -> list[str]:
    """Normalised tokens: Latin words, and CJK characters one by one."""
    return _TOKEN.findall(normalize_answer(text))


def exact_match(prediction: str, answers: Iterable[str]) -> float:
    """1.0 when the normalised prediction equals a normalised gold answer, else 0.0."""
    predicted = answer_tokens(prediction)
    return float(any(predicted == answer_tokens(a) for a in answers))


def _f1(predicted: list[str], gold: list[str]) -> float:
    common = Counter(predicted) & Counter(gold)
    overlap = sum(common.values())
    if not predicted or not gold:
        return float(predicted == gold)
    if overlap == 0:
        return 0.0
    precision, recall = overlap / len(predicted), overlap / len(gold)
    return 2 * precision * recall / (precision + recall)


def token_f1(prediction: str, answers: Iterable[str]) -> float:
    """Token-overlap F1 of the prediction against the best-matching gold answer."""
    predicted = answer_tokens(prediction)
    return max((_f1(predicted, answer_tokens(a)) for a in answers), default=0.0)


def distinct(keys: Iterable[str]) -> list[str]:
    """Keys in their first-seen order, each once (a record split into chunks counts once)."""
    return list(dict.fromkeys(keys))


def recall_at_k(ranked: Sequence[str], gold: Iterable[str], k: int) -> float:
    """Share of the gold keys among the first k distinct ranked keys."""
    wanted = set(gold)
    if not wanted:
        raise ValueError("recall needs at least one gold key")
    return len(wanted.intersection(distinct(ranked)[:k])) / len(wanted)
