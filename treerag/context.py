"""Run settings: one `Context` dataclass; precedence is explicit > `TREERAG_*` env > default."""

from __future__ import annotations

import copy
import json
import os
from dataclasses import Field, dataclass, field, fields
from pathlib import Path
from typing import Any, Literal, get_args, get_origin, get_type_hints

from treerag import data_layout

ENV_PREFIX = "TREERAG_"

SearchMode = Literal["dense", "sparse", "hybrid"]
RankerType = Literal["auto", "rrf", "weighted", "model"]
Analyzer = Literal["auto", "bigram", "jieba", "standard"]
LocalJudge = Literal["model", "offline"]
Structure = Literal["both", "keyword", "graph", "none"]


GRAPH_TOKEN_BUDGET = {"text_units": 1500, "relationships": 800, "entities": 600, "communities": 600}
"""Default token budgets of the entity-graph context, per part."""


DEFAULT_COLLECTION = "treerag_chunks"
"""The Milvus collection a data directory holds unless told otherwise."""
LOCAL_DEFAULTS = {
    "top_k": 3,
    "max_depth": 1,
    "max_subqueries": 2,
    "answer_token_budget": 1000,
    "run_timeout_s": 600.0,
}
"""Defaults of the `local` chat model (a CPU-only 1.5B model, ~4 s a call on two idle cores):
a smaller tree, an answer context that fits its 4096-token window even for Chinese text
(about one token per character, where the budget assumes three), and a deadline for a CPU
busy with other work (a first call, its prompt not cached, took minutes beside the test
suite). Settings given explicitly or in the environment win."""


class SettingsError(ValueError):
    """A setting has a value that cannot be used; the message names the setting."""


class _Unset:
    """The value of a setting nobody gave: `Context.__post_init__` fills it in."""

    def __repr__(self) -> str:
        return "<unset>"


UNSET: Any = _Unset()


def _unset() -> Any:
    return UNSET


def _setting(default: Any, description: str) -> Any:
    """Declare a setting whose value comes from `TREERAG_<NAME>` when not given explicitly.

    The field's own default is UNSET, so that any value passed in, even one equal to the
    default, counts as explicit. The env lookup and the real default are applied in
    `Context.__post_init__` (it needs the field's name and type).

    pydantic, which LangGraph uses for the graphs' context JSON schema, turns a dataclass
    field's metadata into `Field` arguments: "description" documents the setting and
    "json_schema_extra" shows its real default. UNSET comes from a factory, so the schema
    does not try to show it.
    """
    return field(
        default_factory=_unset,
        metadata={"description": description, "json_schema_extra": {"default": default}},
    )


def declared_default(f: Field[Any]) -> Any:
    """The default a setting takes when neither an argument nor the environment sets it."""
    return copy.deepcopy(f.metadata["json_schema_extra"]["default"])


@dataclass(kw_only=True)
class Context:
    """Settings for one run. Every field can be set by `TREERAG_<FIELD_NAME>` in the environment.

    API keys are not settings: they are read from the environment (`OPENAI_API_KEY`) by the
    model clients and never stored here, printed, or logged.
    """

    data_dir: str = _setting(
        "./data", "Directory for the embedded stores (Milvus Lite, checkpoints, trees)."
    )
    tenant: str = _setting(
        "",
        "Tenant whose documents, trees, graph and caches are used (<data_dir>/tenants/<tenant>, its own chunk collection); empty = the data dir's own. The server takes it from the signed-in user.",
    )
    milvus_uri: str = _setting(
        "",
        "Milvus URI: a file path for Milvus Lite or http://host:19530; empty = <data_dir>/milvus.db.",
    )
    milvus_token: str = _setting(
        "", "Token for a Milvus server (user:password or API key); empty for Milvus Lite."
    )
    collection: str = _setting(DEFAULT_COLLECTION, "Milvus collection holding the chunks.")
    analyzer: Analyzer = _setting(
        "auto",
        "BM25 analyzer for a new collection: bigram (jieba words + Chinese character pairs; Chinese/mixed), jieba (words only), standard (English), auto = bigram when the first documents hold Chinese, else standard.",
    )
    chat_model: str = _setting(
        "",
        "Chat model: 'openai:<model>' (any OpenAI-compatible endpoint), 'local' or 'local:<path.gguf>' (a bundled llama.cpp server, extra [local]) or 'registered:<name>' (a model object registered from Python); empty = the offline reasoner.",
    )
    chat_base_url: str = _setting(
        "", "Base URL of the chat endpoint; empty = OPENAI_BASE_URL or OpenAI."
    )
    local_threads: int = _setting(
        0,
        "CPU threads of the local model server (chat_model=local); 0 = half the usable cores (about the physical ones), 1 to 8.",
    )
    local_n_ctx: int = _setting(4096, "Context window of the local model server, in tokens.")
    local_judge: LocalJudge = _setting(
        "offline",
        "Who judges chunks when chat_model=local: offline (the heuristic judge, no call; the local LLM still answers) or model (the local LLM, one call per chunk).",
    )
    local_model_sha256: str = _setting(
        "",
        "Expected sha256 of the GGUF file given as local:<path.gguf>; empty = not checked (the bundled weights are always checked).",
    )
    embedding_model: str = _setting(
        "auto",
        "Embeddings: 'auto' (a new collection of English documents gets minilm, one with Chinese or other languages e5-small, or use-m3 where e5-small is not installed; an existing collection keeps the one it recorded), offline 'minilm' (all-MiniLM-L6-v2, English), 'use-m3' (multilingual USE v3) or 'e5-small' (multilingual-e5-small), or 'openai:<model>'.",
    )
    embedding_base_url: str = _setting(
        "", "Base URL of the embedding endpoint; empty = chat_base_url, then OPENAI_BASE_URL."
    )
    embedding_dimensions: int = _setting(
        0, "Requested embedding size for endpoints that support it; 0 = the model's own."
    )
    chunk_size: int = _setting(800, "Target chunk size in characters.")
    chunk_overlap: int = _setting(100, "Characters shared by neighbouring chunks.")
    top_k: int = _setting(5, "Chunks per retrieval.")
    structure: Structure = _setting(
        "both",
        "Structured retrieval joining every run's candidates: keyword (chunks linked under the keywords the question names), graph (personalized PageRank over the passage-entity graph, and the passages on an entity graph's scored paths where one exists), both, or none (hybrid search alone).",
    )
    structure_k: int = _setting(
        2,
        "Candidates the keyword tree and the graph add to a run beyond top_k (judged like the rest; 0 = none).",
    )
    next_k: int = _setting(
        3,
        "Hybrid hits after top_k that a root run judges when neither its top_k nor the structured finds answer and no partial chunk asks a follow-up, and as many hits of the question searched without its asking words (时间, date; 0 = none).",
    )
    stores_dir: str = _setting(
        "",
        "Folder of the keyword tree and the knowledge graph; empty = the data dir's (the tenant's) own.",
    )
    search_mode: SearchMode = _setting("hybrid", "Retrieval mode: dense, sparse (BM25) or hybrid.")
    ranker: RankerType = _setting(
        "auto",
        "How hybrid results are fused: auto (weights per query language and embedder), rrf, weighted, or model (coarse hybrid then rerank).",
    )
    hybrid_candidates: int = _setting(
        50, "Hits each side (dense, BM25) contributes to hybrid fusion before the top k are kept."
    )
    rrf_k: int = _setting(60, "The k constant of reciprocal rank fusion.")
    bm25_feedback: bool = _setting(
        False,
        "Expand BM25 queries with the terms of their best passages (RM3 pseudo-relevance feedback, one more search): +0.05 R@5 on a news corpus, -0.12 on multi-hop questions (README, Retrieval).",
    )
    dense_weight: float = _setting(
        0.5, "Weight of the dense side for the weighted ranker (sparse gets 1 - this)."
    )
    rerank_candidates: int = _setting(
        20, "Coarse candidates handed to the rerank step of the model ranker."
    )
    max_depth: int = _setting(2, "Maximum recursion depth of sub-RAG runs (0 = no recursion).")
    max_subqueries: int = _setting(3, "Maximum sub-runs started per level.")
    subrun_top_k: int = _setting(
        3,
        "Chunks a sub-run retrieves for its follow-up (a one-hop question naming the bridge entity; the root takes top_k).",
    )
    max_llm_calls: int = _setting(
        60, "Maximum LLM-role calls for one question (judges, follow-ups, answers)."
    )
    max_question_chars: int = _setting(
        4000,
        "Longest question a run accepts, in characters (CLI, Python API, server, page); a longer one is refused before the run starts.",
    )
    llm_timeout_s: float = _setting(60.0, "Timeout of one LLM call, in seconds.")
    llm_retries: int = _setting(2, "Retries of a failed or malformed LLM call before degrading.")
    run_timeout_s: float = _setting(
        120.0,
        "Deadline of one question, sub-runs included, in seconds: model calls still waiting then give way to the offline reasoner's verdicts and answer.",
    )
    checkpointer_uri: str = _setting(
        "",
        "Checkpoint store: empty = SQLite <data_dir>/checkpoints.sqlite; postgresql://... for Postgres.",
    )
    answer_token_budget: int = _setting(
        3000, "Token budget of the chunk context given to the answer step."
    )
    graph_directed: bool = _setting(
        False,
        "Walk entity-graph edges forwards only; false walks them both ways, since a question may name a relation's object ('which guild built X?').",
    )
    graph_token_budget: dict = _setting(
        GRAPH_TOKEN_BUDGET,
        "Token budgets of the entity-graph context, per part; parts left out keep these values.",
    )
    upload_max_mb: int = _setting(
        50,
        "Largest file the web page may upload, in MB (a larger one is refused alone; the others go in).",
    )
    open_stores: int = _setting(
        16,
        "Tenants (data dirs, collections) whose stores one process keeps open at once: Milvus clients, keyword trees, graphs, checkpoint and judge-cache files; the least recently used beyond it are closed and reopened on their next use.",
    )
    prompt_overrides: dict = _setting(
        {},
        "Prompt templates of the chat-model reasoner replaced by name: judge, answer, condense, pick_branch, dedup, link, disambiguate, reorganize, extraction (another name is refused).",
    )

    def __post_init__(self) -> None:
        hints = get_type_hints(type(self))
        self._sources: dict[str, str] = {}
        for f in fields(self):
            current, source = getattr(self, f.name), "explicit"
            if current is UNSET:
                raw = os.environ.get(ENV_PREFIX + f.name.upper())
                if raw is not None and raw != "":
                    current, source = _parse(f.name, hints[f.name], raw), "env"
                else:
                    current, source = declared_default(f), "default"
            self._sources[f.name] = source
            setattr(self, f.name, _check(f.name, hints[f.name], current))
        if self.tenant:
            from treerag.server.tenants import normalize_tenant

            try:
                self.tenant = normalize_tenant(self.tenant)
            except ValueError as exc:
                raise SettingsError(f"setting tenant: {exc}") from exc
        _check_data_dir(self.data_path)
        if self.chat_model.partition(":")[0] == "local":
            for name, value in LOCAL_DEFAULTS.items():
                if self._sources[name] == "default":
                    setattr(self, name, value)
                    self._sources[name] = "default (local)"

    @property
    def data_path(self) -> Path:
        """The data directory as a path."""
        return Path(self.data_dir).expanduser()

    @property
    def tenant_path(self) -> Path:
        """The tenant's own directory (trees, graph, caches, checkpoints): data_path without one."""
        from treerag.server.tenants import tenant_dir

        return tenant_dir(self.data_path, self.tenant)

    @property
    def stores_path(self) -> Path:
        """Where the derived stores (keyword tree, knowledge graph) live.

        `stores_dir` when set; else the tenant's directory for the default collection, and a
        folder of its own for any other (`collections/<name>`), so that collections sharing a
        data directory (`treerag eval` gives each dev set one) never share a graph or a tree.
        """
        if self.stores_dir:
            return Path(self.stores_dir).expanduser()
        return data_layout.stores_dir(self.tenant_path, self.collection, DEFAULT_COLLECTION)

    @property
    def resolved_milvus_uri(self) -> str:
        """The Milvus URI, defaulting to a Milvus Lite file in the data directory."""
        return self.milvus_uri or str(data_layout.milvus_file(self.data_path))

    @property
    def resolved_checkpointer_uri(self) -> str:
        """The checkpointer URI, defaulting to a SQLite file in the data directory."""
        return self.checkpointer_uri or str(data_layout.checkpoints_file(self.tenant_path))

    @property
    def offline(self) -> bool:
        """Whether no chat model is configured, so the offline reasoner takes every LLM role."""
        return not self.chat_model

    def describe(self) -> list[tuple[str, Any, str, str]]:
        """Return (name, value, source, description) rows; source is explicit, env or default."""
        return [
            (f.name, getattr(self, f.name), self._sources[f.name], f.metadata["description"])
            for f in fields(self)
        ]


def _check_data_dir(path: Path) -> None:
    """Refuse a data directory that is a file (or lies under one) before anything opens it."""
    for place in (path, *path.parents):
        if place.exists():
            if not place.is_dir():
                where = "is a file" if place == path else f"lies under the file {str(place)!r}"
                raise SettingsError(
                    f"data directory {str(path)!r} {where}, not a folder: point --data-dir "
                    "(or TREERAG_DATA_DIR) at a folder, or move the file away"
                )
            return


def _parse(name: str, hint: Any, raw: str) -> Any:
    """Turn an environment string into the field's type, or fail naming the variable."""
    var = ENV_PREFIX + name.upper()
    try:
        if hint is bool:
            if raw.lower() in {"1", "true", "yes", "on"}:
                return True
            if raw.lower() in {"0", "false", "no", "off"}:
                return False
            raise ValueError(raw)
        if hint is int:
            return int(raw)
        if hint is float:
            return float(raw)
        if hint is dict or get_origin(hint) is dict:
            value = json.loads(raw)
            if not isinstance(value, dict):
                raise ValueError(raw)
            return value
    except (ValueError, json.JSONDecodeError) as exc:
        raise SettingsError(
            f"{var}={raw!r} is not a valid {getattr(hint, '__name__', hint)}"
        ) from exc
    return raw


def _check(name: str, hint: Any, value: Any) -> Any:
    """Validate a value against Literal choices and basic bounds."""
    if get_origin(hint) is Literal and value not in get_args(hint):
        choices = ", ".join(map(str, get_args(hint)))
        raise SettingsError(f"setting {name}={value!r} is not one of: {choices}")
    if hint in (int, float) and isinstance(value, (int, float)) and value < 0:
        raise SettingsError(f"setting {name}={value!r} must not be negative")
    return value
