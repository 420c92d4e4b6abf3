"""The Extractor protocol and the offline HeuristicExtractor (titles, names, co-occurrence)."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from itertools import combinations
from typing import Any, Protocol, runtime_checkable

from treerag.knowledge_graph.model import TextUnit
from treerag.knowledge_graph.schemas import ExtractedEntity, ExtractedRelation, ExtractionResult
from treerag.knowledge_graph.text import has_cjk, normalize_name, split_sentences

CO_OCCURS = "co_occurs"
NAMED_WITH = "named with"
"""The relation of two names one sentence gives with no short phrase between them."""
PHRASE_WORDS = 5
PHRASE_CJK_CHARS = 6
_CLAUSE_BREAK = re.compile(r"[,;:()\[\]，；：（）、。.!?！？]")
_ARTICLES = re.compile(r"^(?:the|a|an)\s+|\s+(?:the|a|an)$", re.IGNORECASE)


def relation_phrase(sentence: str, first: str, second: str) -> str:
    """What a sentence says joins two names it gives: the short text between them.

    "Orla Venn was born in Quillhaven" → "was born in"; "沈疑微出生于鹤烟" → "出生于". Text
    between two arguments is where a relation phrase sits (ReVerb: Fader et al., 2011,
    "Identifying Relations for Open Information Extraction"); past `PHRASE_WORDS` words (or
    `PHRASE_CJK_CHARS` characters), or across a clause break, it is no longer one relation,
    and the link is `NAMED_WITH`.
    """
    lower = sentence.casefold()
    start_a, start_b = lower.find(first.casefold()), lower.find(second.casefold())
    if start_a < 0 or start_b < 0:
        return NAMED_WITH
    (_, end_first), (start_second, _) = sorted(
        [(start_a, start_a + len(first)), (start_b, start_b + len(second))]
    )
    between = sentence[end_first:start_second].strip()
    between = _ARTICLES.sub("", between).strip()
    if not between or _CLAUSE_BREAK.search(between):
        return NAMED_WITH
    size = len(between.replace(" ", "")) if has_cjk(between) else len(between.split())
    limit = PHRASE_CJK_CHARS if has_cjk(between) else PHRASE_WORDS
    return between if size <= limit else NAMED_WITH


@runtime_checkable
class Extractor(Protocol):
    """Turn one chunk into entities and relations.

    ``name`` labels what it produced (entity/edge metadata ``extractor``). An LLM extractor
    is ``llm.with_structured_output(ExtractionResult)`` invoked with a prompt holding the
    chunk; it returns an ExtractionResult as is.
    """

    name: str

    def extract(self, chunk: TextUnit) -> ExtractionResult:
        """Return the entities and relations stated in the chunk."""
        ...


class SupportsInvoke(Protocol):
    """Anything with a LangChain-style ``invoke``."""

    def invoke(self, input: Any) -> Any:
        """Run on one input."""
        ...


class RunnableExtractor:
    """Adapt a structured-output runnable into an Extractor.

    ``runnable`` is typically ``llm.with_structured_output(ExtractionResult)``;
    ``make_input`` turns a chunk into its input (a prompt string or message list).
    """

    def __init__(
        self,
        runnable: SupportsInvoke,
        make_input: Callable[[TextUnit], Any],
        name: str = "llm",
    ) -> None:
        self.runnable = runnable
        self.make_input = make_input
        self.name = name

    def extract(self, chunk: TextUnit) -> ExtractionResult:
        """Invoke the runnable on the chunk's input; accept a result object or its dict."""
        result = self.runnable.invoke(self.make_input(chunk))
        if isinstance(result, ExtractionResult):
            return result
        return ExtractionResult.model_validate(result)


# Capitalised words that start sentences or stand alone without naming anything.
_STOP = frozenset(
    """a an the this that these those it its he she they we you i his her their our my your
    in on at of for to from by with as and or but if when while after before since during
    however although though despite because also there here then thus so yet not no yes
    what which who whom whose where why how all some any each every many most more one two
    is are was were be been has have had do does did may might can could will would shall
    should must mr mrs ms dr st about above across against along among around behind below
    beneath beside besides between beyond into near onto over per through throughout toward
    towards under until unlike upon via within without""".split()
)
_CONNECTORS = frozenset("of de la le du di da von van der den del y and the".split())
_TOKEN = re.compile(r"[^\W\d_][\w'’\-]*|\S")
_ZH_FLAGS = {"nr": "person", "ns": "location", "nt": "organization", "nz": "entity"}
_ZH_JOIN = frozenset("·•・")


@dataclass
class _Mention:
    surface: str
    type: str
    first: tuple[int, int]
    proper: bool
    count: int = 0
    sentences: set[int] = field(default_factory=set)


def _name_follows(tokens: list[str], i: int) -> bool:
    """Return whether a capitalised word follows, past connectors ("Church of the Goddess")."""
    while i < len(tokens) and tokens[i].lower() in _CONNECTORS:
        i += 1
    return i < len(tokens) and tokens[i][0].isupper() and tokens[i][0].isalpha()


def _english_spans(sentence: str) -> list[str]:
    """Return runs of capitalised words, allowing 'of', 'de', … between them."""
    spans: list[str] = []
    current: list[str] = []
    tokens = _TOKEN.findall(sentence)
    for i, tok in enumerate(tokens):
        if tok[0].isupper() and tok[0].isalpha():
            current.append(tok)
        elif current and tok.lower() in _CONNECTORS and _name_follows(tokens, i + 1):
            current.append(tok)
        else:
            spans.append(" ".join(current))
            current = []
    spans.append(" ".join(current))
    out = []
    for span in spans:
        words = span.split()
        while words and words[0].lower() in _STOP:
            words = words[1:]
        if words and not (len(words) == 1 and words[0].lower() in _STOP):
            out.append(" ".join(words))
    return out


def _chinese_nouns(sentence: str) -> list[tuple[str, str, bool]]:
    """Return (word, type, proper) for jieba nouns; adjacent proper nouns are joined."""
    from treerag.segment import posseg

    pseg = posseg()
    out: list[tuple[str, str, bool]] = []
    run: list[str] = []
    run_type = ""
    for pair in pseg.cut(sentence):
        word, flag = pair.word, pair.flag
        kind = next((t for f, t in _ZH_FLAGS.items() if flag.startswith(f)), None)
        if kind is not None or (run and word in _ZH_JOIN):
            run.append(word)
            run_type = run_type or kind or "entity"
            continue
        if run:
            out.append(("".join(run).strip("".join(_ZH_JOIN)), run_type, True))
            run, run_type = [], ""
        if flag == "n" and len(word) >= 2:
            out.append((word, "concept", False))
    if run:
        out.append(("".join(run).strip("".join(_ZH_JOIN)), run_type, True))
    return [(w, t, p) for w, t, p in out if len(w) >= 2]


def proper_names(text: str) -> list[str]:
    """Names a text gives: capitalised runs of two or more words, jieba person/place/org tags.

    Single capitalised words are left out (sentence starts, common nouns in titles); a CJK
    proper noun needs jieba's nr / ns / nt tag (nz, "other proper noun", is too loose).
    """
    names: list[str] = []
    for sentence in split_sentences(text):
        names += [s for s in _english_spans(sentence) if " " in s]
        if has_cjk(sentence):
            names += [
                w for w, kind, proper in _chinese_nouns(sentence) if proper and kind != "entity"
            ]
    return names


class HeuristicExtractor:
    """Extract entities and relations without a model.

    Entities are the chunk title, capitalised English name spans and jieba nouns (flags
    n/nr/ns/nt/nz) for Chinese; relations are "co_occurs" edges between entities sharing
    a sentence. Its output is a guess; everything it produces is marked ``extractor: heuristic``.
    """

    name = "heuristic"

    def __init__(self, max_entities: int = 12, max_relations: int = 40) -> None:
        self.max_entities = max_entities
        self.max_relations = max_relations

    def extract(self, chunk: TextUnit) -> ExtractionResult:
        """Return entities and co-occurrence relations found in the chunk."""
        sentences = split_sentences(chunk.text)
        mentions = self._mentions(chunk, sentences)
        kept = sorted(
            mentions.values(),
            key=lambda m: (m.type != "topic", not m.proper, -m.count, m.first),
        )[: self.max_entities]
        entities = [
            ExtractedEntity(name=m.surface, type=m.type, description=_describe(m, sentences))
            for m in kept
        ]
        return ExtractionResult(entities=entities, relations=self._relations(kept, sentences))

    def _mentions(self, chunk: TextUnit, sentences: list[str]) -> dict[str, _Mention]:
        mentions: dict[str, _Mention] = {}
        lower_words = set(re.findall(r"\b[a-z][\w'’\-]*\b", chunk.text))
        if chunk.title.strip():
            key = normalize_name(chunk.title)
            everywhere = set(range(len(sentences)))
            mentions[key] = _Mention(chunk.title.strip(), "topic", (-1, 0), True, 1, everywhere)
        for s_idx, sentence in enumerate(sentences):
            found = [(w, "entity", True) for w in _english_spans(sentence)]
            found = [f for f in found if f[0].lower() not in lower_words or " " in f[0]]
            if has_cjk(sentence):
                found += _chinese_nouns(sentence)
            for pos, (word, kind, proper) in enumerate(found):
                key = normalize_name(word)
                if not key:
                    continue
                m = mentions.setdefault(key, _Mention(word, kind, (s_idx, pos), proper))
                m.count += 1
                m.sentences.add(s_idx)
        return mentions

    def _relations(self, kept: list[_Mention], sentences: list[str]) -> list[ExtractedRelation]:
        relations = []
        ordered = sorted(kept, key=lambda m: m.first)
        for a, b in combinations(ordered, 2):
            shared = sorted(a.sentences & b.sentences)
            if not shared:
                continue
            relations.append(
                ExtractedRelation(
                    source=a.surface,
                    target=b.surface,
                    relation=relation_phrase(sentences[shared[0]], a.surface, b.surface)
                    if sentences
                    else NAMED_WITH,
                    description=sentences[shared[0]][:200] if sentences else "",
                    # More shared sentences, more evidence; a guess stays below 1.
                    importance=min(0.9, 0.3 + 0.1 * len(shared)),
                    type=CO_OCCURS,
                )
            )
        relations.sort(key=lambda r: -r.importance)
        return relations[: self.max_relations]


def _describe(mention: _Mention, sentences: list[str]) -> str:
    if mention.type == "topic" or not sentences:
        return f"Title of a source text: {mention.surface}."
    return sentences[min(mention.sentences)][:200]
