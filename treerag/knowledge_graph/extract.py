"""The Extractor protocol and the offline HeuristicExtractor (titles, names, co-occurrence)."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from itertools import combinations
from typing import Any, Protocol, runtime_checkable

from treerag.knowledge_graph.model import TextUnit
from treerag.knowledge_graph.schemas import ExtractedEntity, ExtractedRelation, ExtractionResult
from treerag.knowledge_graph.text import normalize_name
from treerag.text import has_han, has_wide, split_sentences
from treerag.text.names import chinese_nouns, latin_spans

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
    size = len(between.replace(" ", "")) if has_han(between) else len(between.split())
    limit = PHRASE_CJK_CHARS if has_han(between) else PHRASE_WORDS
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


@dataclass
class _Mention:
    surface: str
    type: str
    first: tuple[int, int]
    proper: bool
    count: int = 0
    sentences: set[int] = field(default_factory=set)


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
            found = [(w, "entity", True) for w in latin_spans(sentence)]
            found = [f for f in found if f[0].lower() not in lower_words or " " in f[0]]
            if has_wide(sentence):
                found += chinese_nouns(sentence)
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
