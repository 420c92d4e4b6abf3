"""What the offline judge measures of a chunk against a question, and the entity it names.

`Features` is what `OfflineReasoner.features` measures and both the judge's rule and the
follow-up of a partial chunk (`partial_followup`) read; `named_entity` is the entity the
question names that the chunk is about or names, in either script.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field

from treerag.reasoning.chunk_reading import names_subject
from treerag.reasoning.name_kinds import ANOTHER_THING
from treerag.reasoning.named import names_in
from treerag.reasoning.question_clauses import DEMONSTRATIVE, described_noun, term_spans
from treerag.reasoning.reading import codes, fold
from treerag.text import HAN_CHAR, LINKING, canonical, fold_cased, has_han, proper_names, query_key


def script_of(question: str) -> str:
    """Name the script of a question: "cjk" with Chinese characters, else "latin"."""
    return "cjk" if has_han(question) else "latin"


@dataclass
class Features:
    """What the offline judge measures of one chunk against one question."""

    terms: list[str]
    found: list[str]
    chunk_terms: set[str]
    """Stems of the chunk's content terms, in the canonical form (`relation_held.text_stems`)."""
    coverage: float
    similarity: float
    kind: str
    best: list[str]
    bridging: list[str] = field(default_factory=list)
    """The chunk's sentences that hold most of the question's relation first (then the most
    similar): where the bridge entity is named beside what the question says of it."""
    named: str = ""
    """The entity the question names that the chunk is about or names (`named_entity`)."""
    subject: str = ""
    """What the chunk is about: its document's title or title line (`chunk_reading.subjects`)."""
    answer: str = ""
    """The sentence that answers the question (`answering.answering`), "" when none does."""
    described: bool = False
    """Whether one sentence says all of the description a Chinese question opens with
    (`describes_opening`): the first hop of a question that names no one."""


def named_entity(question: str, title: str, text: str) -> str:
    """The entity the question names that the chunk is about or names, "" when none.

    The chunk's subject (its title or its opening title line, `chunk_reading.names_subject`); for
    a Chinese question also a proper name of it (a person / place / organisation jieba tags,
    a capitalised run of words) that the chunk's text holds, since Chinese has no similarity
    signal to go on with the bundled English-only embedder that judges; compared in the
    keyword tree's canonical form, which folds case, width and Traditional to Simplified
    script, so a question in either script names a chunk in either.
    """
    subject = names_subject(question, title, text)
    if subject:
        return subject
    if script_of(question) != "cjk":
        # Latin script has sentence similarity to go on (MiniLM); a chunk naming the
        # question's entity is partial there by its thresholds already, and counting every
        # one of them made offline trees stop early on hotpotqa_100.
        return ""
    body = canonical(f"{title} {text}")
    return next((name for name, key in question_names(question) if names_in(key, body)), "")


@functools.lru_cache(maxsize=1024)
def question_names(question: str) -> tuple[tuple[str, str], ...]:
    """The question's proper names with their canonical keys: every chunk a run judges asks.

    A Chinese name the question writes with a kind character after it is that thing's name
    (`ANOTHER_THING`): jieba reads 霧溪 in "…設計霧溪線的…", but the question names the
    railway, not the river; a chunk about the river does not name it.
    """
    names = [_with_kind(question, name) for name in proper_names(question, LINKING)] + codes(
        fold_cased(question)
    )
    return tuple((name, query_key(name)) for name in dict.fromkeys(names))


def _with_kind(question: str, name: str) -> str:
    """A Chinese name with the kind character the question writes right after it."""
    at = question.find(name)
    after = question[at + len(name) : at + len(name) + 1] if at >= 0 else ""
    if after and after in ANOTHER_THING and HAN_CHAR.match(name[-1:]):
        return name + after
    return name


def describes_opening(question: str, sentences: list[str]) -> bool:
    """Whether one sentence says every word of the description a Chinese question opens with.

    "發明泥活字的那位工匠所處的朝代，是把首都定在哪裡？" names no one: its chain starts at
    whom "發明泥活字的那位工匠" describes, and "最早的泥活字由北宋的平民工匠畢昇於慶曆年間
    發明" (發明, 活字, 工匠) names him. That sentence is the first hop, as a chunk naming the
    question's entity is. The description is the words before the question's first 的 (two
    or more) and the noun it describes; one that gives a name is the named rule's.
    """
    words = _opening_description(question)
    return bool(words) and any(all(w in held for w in words) for held in map(fold, sentences))


@functools.lru_cache(maxsize=1024)
def _opening_description(question: str) -> tuple[str, ...]:
    """The canonical words of the description a Chinese question naming no one opens with.

    Read once per question, not for each chunk judged; () when there is none.
    """
    if script_of(question) != "cjk" or proper_names(question, LINKING):
        return ()
    clause = question.split("，")[0].split(",")[0]
    de = min((at for at in (clause.find("的"), clause.find("之")) if at > 0), default=-1)
    end = described_noun(clause, de) if de > 0 else -1
    if end <= de + 1:
        return ()
    before = [t for t, _, _ in term_spans(clause[:de])]
    noun = [t for t, s, _ in term_spans(clause[de:end]) if not DEMONSTRATIVE.fullmatch(t)]
    if len(before) < 2 or not noun:
        return ()
    return tuple(fold(t) for t in (*before, *noun))
