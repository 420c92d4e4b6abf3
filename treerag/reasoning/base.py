"""The reasoner protocol: every LLM role (judge, follow-up, answer) behind one interface."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, NamedTuple, Protocol

from pydantic import BaseModel, Field, field_validator, model_validator


class JudgeVerdict(BaseModel):
    """Your verdict on one passage: does it answer the question?"""

    score: Literal[0, 1, 2] = Field(
        description="2: the passage alone answers the question; 1: it holds part of what is "
        "needed; 0: it does not help."
    )
    reason: str = Field(description="One sentence: why this score.")
    followup_question: str = Field(
        default="",
        description="Required when score is 1: a short, self-contained question about the "
        "entity the passage names (the bridge) for the part of the question still open, e.g. "
        "'Where is the Guild of Tidewrights based?', in the language of the question. Never "
        "the question again, with or without added words. Empty otherwise.",
    )
    quote: str = Field(default="", description="The sentence of the passage the verdict rests on.")

    @field_validator("score", mode="before")
    @classmethod
    def _lenient_score(cls, value: Any) -> Any:
        """Read a score out of range or in words the way it was meant (`lenient_score`)."""
        return lenient_score(value)

    @model_validator(mode="after")
    def _followup_when_partial(self) -> JudgeVerdict:
        if self.score == 1 and not self.followup_question.strip():
            raise ValueError("score 1 requires a followup_question")
        return self


_SCORE_WORDS = (
    (2, ("sufficient", "very relevant", "highly relevant", "fully", "answers", "complete")),
    (0, ("irrelevant", "not relevant", "unrelated", "no help", "none")),
    (1, ("partial", "partly", "somewhat", "relevant", "some")),
)


def lenient_score(value: Any) -> Any:
    """A judge's score read leniently: 7 → 2, -1 → 0, "2" → 2, "very relevant" → 2.

    A number is clamped to 0..2; words are matched (sufficient / very relevant → 2,
    irrelevant / not relevant → 0, partial / relevant → 1). Anything else is left for the
    schema to refuse, so that the judge counts as failed with the reply shown.
    """
    if isinstance(value, bool):
        return value
    if isinstance(value, str):
        text = value.strip().lower()
        try:
            value = float(text)
        except ValueError:
            for score, words in _SCORE_WORDS:
                if any(word in text for word in words):
                    return score
            return value
    if isinstance(value, int | float):
        return min(2, max(0, round(value)))
    return value


class LenientJudgeVerdict(JudgeVerdict):
    """A verdict whose score 1 may come without a follow-up (the caller supplies one)."""

    @model_validator(mode="after")
    def _followup_when_partial(self) -> LenientJudgeVerdict:
        return self


class ModelFailure(Exception):
    """The chat model could not write the answer (timeout, error, a reply with no words).

    The answer node lets the offline reasoner answer instead and says so in one sentence.
    """


@dataclass
class Judgement:
    """A verdict as the graph records it (an error degrades it to score 0)."""

    score: int
    reason: str
    followup: str = ""
    quote: str = ""
    error: str = ""
    calls: int = 1

    def as_record(self) -> dict[str, Any]:
        """Return the fields stored on a chunk record."""
        record: dict[str, Any] = {
            "score": self.score,
            "reason": self.reason,
            "followup": self.followup,
            "quote": self.quote,
        }
        if self.error:
            record["error"] = self.error
        return record


@dataclass(frozen=True)
class Quote:
    """One quoted sentence of an answer and the evidence number it cites."""

    n: int
    text: str
    """The sentence as the document writes it."""
    said: str = ""
    """Whom the sentence's pronoun stands for, when that is the answer ("In 1931 he founded
    the Orsk Press." answers "Who founded…?" with its document's subject, Pavel Orsk): the
    answer names it before the quote (`wording.framed`); or what a comparison concludes from
    it (the side chosen, "Yes" / "No": `comparison.decide`)."""
    answer: str = ""
    """What the sentence gives for what the question asks (`Answering.filler`: "Brennholt"),
    when it is the sentence that answers; "" for a bridge or a sentence picked otherwise."""


@dataclass
class EvidenceItem:
    """One numbered piece of evidence offered to the answer step."""

    n: int
    chunk_id: str
    title: str
    source: str
    text: str
    score: int
    followup: str = ""
    sub_answer: str = ""
    support: list[str] = field(default_factory=list)
    """Texts of the sub-run's best evidence, which complete a partial chunk."""
    depth: int = 0
    """Depth of the run that judged the chunk (0: this run; sub-run finds have their own n)."""
    quote: str = ""
    """The sentence the judge's verdict rests on (an LLM judge's own pick for a 2)."""
    asked: str = ""
    """A sub-run's partial chunk: the follow-up it asked in its own run, which a chunk of this
    run may answer (a sub-run does not get the chunks its parents hold)."""
    chain: list[Quote] = field(default_factory=list)
    """The sentences the sub-run's answer quoted along its own chain, cited with this run's
    numbers (`treerag.reasoning.compose`); empty when the sub-run found no chain."""


class Recursion(NamedTuple):
    """A reasoner's answer to "should this level recurse?" (`Reasoner.should_recurse`)."""

    recurse: bool
    why_not: str = ""
    """Why the level stops, recorded on each partial chunk (`not_asked`); "" when it goes on."""


RECURSE = Recursion(True)

ANSWERED_HERE = "another chunk of this run answers the question"


def answered_here(chunks: Sequence[Mapping[str, Any]]) -> Recursion:
    """Seed 02's rule, every reasoner's: a level with a chunk judged sufficient (2) stops."""
    if any(c.get("score") == 2 for c in chunks):
        return Recursion(False, ANSWERED_HERE)
    return RECURSE


class Reasoner(Protocol):
    """Takes the LLM roles of a run. `name` identifies it in the tree and the run's output."""

    name: str
    offline: bool

    @property
    def judge_name(self) -> str:
        """Who judges and by which rules: the verdict cache's key (`judge_cache`).

        Whatever changes a verdict is in it: the model and its judge prompt, or the offline
        rules' version and the embedder their similarities come from.
        """
        ...

    async def judge(self, question: str, title: str, text: str, linked_from: str = "") -> Judgement:
        """Judge one chunk; never raises (failures degrade to score 0 with `error`).

        `linked_from` is the title of the chunk the graph linked this one from in one step
        (`treerag.reasoning.named.linked_from`), "" when none; a reasoner may ignore it.
        """
        ...

    async def answer(
        self,
        question: str,
        evidence: list[EvidenceItem],
        extra_context: str,
        chain: Sequence[Quote] = (),
    ) -> str:
        """Write the cited answer, streaming its tokens through the `messages` stream mode.

        `chain` is the tree's chain (`treerag.reasoning.compose.chain`): the sentences that
        answer the question along it, last hop first; empty when the tree found none.
        Returns the answer citing the evidence's numbers; what streams has its marks
        renumbered in order of first use (`treerag.reasoning.marks.MarkNumbers`).
        """
        ...

    async def condense(self, history: list[tuple[str, str]], message: str) -> str:
        """Turn a follow-up chat message into a standalone question, given (role, text) turns."""
        ...

    def should_recurse(self, question: str, chunks: Sequence[Mapping[str, Any]]) -> Recursion:
        """Should this level ask its partial chunks' follow-ups, by the judge's own rules?

        Asked once the level's chunks are judged, before any follow-up is planned. Every
        reasoner stops at a chunk judged 2 (`answered_here`); whoever judged adds its own
        rules (the offline judge scores chunks one by one, so it also stops when two of them
        hold the question's chain). The depth limit and the call budget are the planner's.
        """
        ...

    def keyword_agent(self, max_calls: int | None = None) -> Any:
        """Return the agent that walks the keyword tree (a `treerag.keyword_tree.KeywordAgent`).

        An agent that calls a model makes at most `max_calls` calls (None: no limit) and
        counts them, retries included, in its `calls` attribute; the run adds them to its
        `llm_calls`. One that calls none (the lexical agent) has no such attribute.
        """
        ...

    def extractor(self) -> Any:
        """Return the knowledge-graph extractor (a `treerag.knowledge_graph.Extractor`)."""
        ...
