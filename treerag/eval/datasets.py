"""Evaluation data sets in two formats, validated with errors that name the file and line.

- generic: questions JSONL `{"id", "question", "answers": [...], "gold_ids": [...]}` and
  corpus JSONL `{"id", "title", "text"}`; gold ids refer to corpus ids.
- hotpotqa: questions JSON array in the HotpotQA distractor format (`_id`, `question`,
  `answer`, `supporting_facts` [[title, sentence_index], ...]) and corpus JSON object
  `title -> [sentences]` (a passage's text is the sentences joined); gold = the titles of
  the supporting facts.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from treerag.json_errors import where_broken

Format = Literal["generic", "hotpotqa"]
FORMATS: tuple[Format, ...] = ("generic", "hotpotqa")


class DatasetError(ValueError):
    """Bad evaluation input; the message starts with `file:line:`."""

    def __init__(self, path: Path, line: int, message: str):
        """Record where the problem is and say what it is."""
        self.path, self.line = path, line
        super().__init__(f"{path}:{line}: {message}")


@dataclass(frozen=True)
class Passage:
    """One corpus record: it is ingested as one chunk."""

    id: str
    title: str
    text: str


@dataclass(frozen=True)
class Question:
    """One question with its gold answers and gold evidence keys."""

    id: str
    question: str
    answers: tuple[str, ...]
    gold: tuple[str, ...]
    """Corpus ids (generic) or passage titles (hotpotqa)."""
    line: int = 0


@dataclass
class Dataset:
    """A loaded, validated data set."""

    format: Format
    questions: list[Question]
    passages: list[Passage]
    gold_key: Literal["id", "title"]
    """Which evidence field the gold refers to: the record id or the title."""
    questions_path: Path = field(default_factory=Path)
    corpus_path: Path = field(default_factory=Path)

    def limited(self, limit: int | None) -> list[Question]:
        """The first `limit` questions (all when None)."""
        return self.questions if limit is None else self.questions[:limit]


def load_dataset(questions_path: Path, corpus_path: Path, fmt: Format) -> Dataset:
    """Load and validate a data set; raise DatasetError naming the file and line."""
    if fmt not in FORMATS:
        raise ValueError(f"format {fmt!r}: use one of {', '.join(FORMATS)}")
    if fmt == "generic":
        passages = _generic_corpus(corpus_path)
        known = {p.id for p in passages}
        questions = _generic_questions(questions_path, known)
        gold_key: Literal["id", "title"] = "id"
    else:
        passages = _hotpotqa_corpus(corpus_path)
        known = {p.title for p in passages}
        questions = _hotpotqa_questions(questions_path, known)
        gold_key = "title"
    if not passages:
        raise DatasetError(corpus_path, 1, "the corpus holds no records")
    if not questions:
        raise DatasetError(questions_path, 1, "no questions")
    return Dataset(fmt, questions, passages, gold_key, questions_path, corpus_path)


# -- reading ---------------------------------------------------------------------------------


def _read(path: Path) -> str:
    if not path.is_file():
        raise FileNotFoundError(f"{path}: no such file")
    try:
        return path.read_text(encoding="utf-8-sig")
    except UnicodeDecodeError as exc:
        raise DatasetError(path, 1, f"not UTF-8 text ({exc.reason})") from exc


def _jsonl(path: Path) -> Iterator[tuple[int, dict[str, Any]]]:
    """Yield (line number, object) for the non-blank lines of a JSONL file."""
    for lineno, line in enumerate(_read(path).splitlines(), 1):
        if not line.strip():
            continue
        try:
            value = json.loads(line)
        except json.JSONDecodeError as exc:
            raise DatasetError(
                path, lineno, f"invalid JSON ({where_broken(exc, lineno - 1)})"
            ) from exc
        if not isinstance(value, dict):
            raise DatasetError(path, lineno, "expected a JSON object")
        yield lineno, value


class _Lines:
    """Line numbers of character offsets, for offsets visited in increasing order."""

    def __init__(self, text: str):
        self.text, self.pos, self.line = text, 0, 1

    def at(self, pos: int) -> int:
        self.line += self.text.count("\n", self.pos, pos)
        self.pos = pos
        return self.line


def _skip_ws(text: str, pos: int) -> int:
    while pos < len(text) and text[pos] in " \t\r\n":
        pos += 1
    return pos


def _json_members(path: Path, opener: str) -> Iterator[tuple[int, str, Any]]:
    """Yield (line, key, value) of a top-level JSON array ("[") or object ("{").

    Array members get the key "". Lines are where each member starts, so errors can name them.
    """
    text, decoder = _read(path), json.JSONDecoder()
    lines, closer = _Lines(text), "]" if opener == "[" else "}"
    kind = "array" if opener == "[" else "object"
    pos = _skip_ws(text, 0)
    if text[pos : pos + 1] != opener:
        raise DatasetError(path, lines.at(pos), f"expected a JSON {kind}")
    pos = _skip_ws(text, pos + 1)
    if text[pos : pos + 1] == closer:
        return
    while True:
        line, key = lines.at(pos), ""
        try:
            if opener == "{":
                key, pos = decoder.raw_decode(text, pos)
                pos = _skip_ws(text, pos)
                if text[pos : pos + 1] != ":" or not isinstance(key, str):
                    raise DatasetError(path, lines.at(pos), "invalid JSON (expected 'key': value)")
                pos = _skip_ws(text, pos + 1)
            value, pos = decoder.raw_decode(text, pos)
        except json.JSONDecodeError as exc:
            raise DatasetError(path, exc.lineno, f"invalid JSON ({where_broken(exc)})") from exc
        yield line, key, value
        pos = _skip_ws(text, pos)
        if text[pos : pos + 1] == closer:
            break
        if text[pos : pos + 1] != ",":
            raise DatasetError(path, lines.at(pos), f"invalid JSON (expected ',' or '{closer}')")
        pos = _skip_ws(text, pos + 1)
    if _skip_ws(text, pos + 1) != len(text):
        raise DatasetError(path, lines.at(pos + 1), "invalid JSON (extra data after the end)")


# -- field checks ----------------------------------------------------------------------------


def _require(path: Path, line: int, record: dict[str, Any], names: tuple[str, ...]) -> None:
    missing = [n for n in names if n not in record or record[n] is None]
    if missing:
        listed = ", ".join(repr(n) for n in missing)
        raise DatasetError(path, line, f"missing field{'s' if len(missing) > 1 else ''} {listed}")


def _ident(path: Path, line: int, value: Any, name: str) -> str:
    """An id: a non-empty string or an integer, returned as a string."""
    if isinstance(value, bool) or not isinstance(value, (str, int)) or str(value).strip() == "":
        raise DatasetError(path, line, f"field {name!r} must be a non-empty string or integer")
    return str(value)


def _text(path: Path, line: int, value: Any, name: str, allow_empty: bool = False) -> str:
    if not isinstance(value, str) or (not allow_empty and not value.strip()):
        raise DatasetError(path, line, f"field {name!r} must be a non-empty string")
    return value


def _unique(path: Path, line: int, ident: str, seen: dict[str, int], what: str) -> None:
    if ident in seen:
        raise DatasetError(path, line, f"duplicate {what} {ident!r} (first on line {seen[ident]})")
    seen[ident] = line


# -- generic ---------------------------------------------------------------------------------


def _generic_corpus(path: Path) -> list[Passage]:
    passages: list[Passage] = []
    seen: dict[str, int] = {}
    for line, record in _jsonl(path):
        _require(path, line, record, ("id", "title", "text"))
        ident = _ident(path, line, record["id"], "id")
        _unique(path, line, ident, seen, "corpus id")
        title = _text(path, line, record["title"], "title", allow_empty=True)
        passages.append(Passage(ident, title, _text(path, line, record["text"], "text")))
    return passages


def _answers(path: Path, line: int, value: Any, name: str) -> tuple[str, ...]:
    if not isinstance(value, list):
        raise DatasetError(path, line, f"field {name!r} must be a list of strings")
    if not value:
        raise DatasetError(path, line, f"field {name!r} is empty: give at least one answer")
    for i, answer in enumerate(value):
        _text(path, line, answer, f"{name}[{i}]")
    return tuple(value)


def _gold_ids(path: Path, line: int, value: Any, known: set[str]) -> tuple[str, ...]:
    if not isinstance(value, list):
        raise DatasetError(path, line, "field 'gold_ids' must be a list of corpus ids")
    if not value:
        raise DatasetError(path, line, "field 'gold_ids' is empty: recall needs a gold id")
    ids = [_ident(path, line, v, f"gold_ids[{i}]") for i, v in enumerate(value)]
    absent = [i for i in ids if i not in known]
    if absent:
        listed = ", ".join(repr(i) for i in absent)
        raise DatasetError(
            path, line, f"gold id{'s' if len(absent) > 1 else ''} not in the corpus: {listed}"
        )
    return tuple(dict.fromkeys(ids))


def _generic_questions(path: Path, known: set[str]) -> list[Question]:
    questions: list[Question] = []
    seen: dict[str, int] = {}
    for line, record in _jsonl(path):
        _require(path, line, record, ("id", "question", "answers", "gold_ids"))
        ident = _ident(path, line, record["id"], "id")
        _unique(path, line, ident, seen, "question id")
        questions.append(
            Question(
                ident,
                _text(path, line, record["question"], "question"),
                _answers(path, line, record["answers"], "answers"),
                _gold_ids(path, line, record["gold_ids"], known),
                line,
            )
        )
    return questions


# -- hotpotqa --------------------------------------------------------------------------------


def _hotpotqa_corpus(path: Path) -> list[Passage]:
    passages: list[Passage] = []
    for line, title, value in _json_members(path, "{"):
        if isinstance(value, list) and all(isinstance(s, str) for s in value):
            text = "".join(value)
        elif isinstance(value, str):
            text = value
        else:
            raise DatasetError(path, line, f"passage {title!r} must be a list of sentences")
        if not text.strip():
            raise DatasetError(path, line, f"passage {title!r} is empty")
        passages.append(Passage(title, title, text))
    return passages


def _supporting_titles(path: Path, line: int, value: Any, known: set[str]) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(
        isinstance(f, list) and f and isinstance(f[0], str) for f in value
    ):
        raise DatasetError(
            path, line, "field 'supporting_facts' must be a list of [title, sentence_index]"
        )
    if not value:
        raise DatasetError(path, line, "field 'supporting_facts' is empty: recall needs gold")
    titles = tuple(dict.fromkeys(f[0] for f in value))
    absent = [t for t in titles if t not in known]
    if absent:
        listed = ", ".join(repr(t) for t in absent)
        raise DatasetError(path, line, f"supporting title(s) not in the corpus: {listed}")
    return titles


def _hotpotqa_questions(path: Path, known: set[str]) -> list[Question]:
    questions: list[Question] = []
    seen: dict[str, int] = {}
    for line, _, record in _json_members(path, "["):
        if not isinstance(record, dict):
            raise DatasetError(path, line, "expected a JSON object")
        _require(path, line, record, ("_id", "question", "answer", "supporting_facts"))
        ident = _ident(path, line, record["_id"], "_id")
        _unique(path, line, ident, seen, "question id")
        answer = record["answer"]
        answers = (
            _answers(path, line, answer, "answer")
            if isinstance(answer, list)
            else (_text(path, line, answer, "answer"),)
        )
        questions.append(
            Question(
                ident,
                _text(path, line, record["question"], "question"),
                answers,
                _supporting_titles(path, line, record["supporting_facts"], known),
                line,
            )
        )
    return questions
