"""Chat model and embeddings from "provider:model" strings; offline defaults when none is set."""

from __future__ import annotations

import os
from functools import lru_cache
from typing import TYPE_CHECKING

from treerag.context import Context, SettingsError
from treerag.embedder_choice import AUTO, ENGLISH_DEFAULT, resolve_embedder

if TYPE_CHECKING:
    # Type names only: importing langchain_core.language_models pulls in the tracers and
    # langsmith (~0.5 s), which `treerag search` and ingestion never use.
    from langchain_core.embeddings import Embeddings
    from langchain_core.language_models import BaseChatModel

OPENAI_PROVIDERS = {"openai"}
_registered_chat_models: dict[str, BaseChatModel] = {}


def register_chat_model(name: str, model: BaseChatModel) -> None:
    """Make a chat model object usable as `registered:<name>` (any LangChain chat model)."""
    _registered_chat_models[name] = model


def split_model_string(value: str, setting: str) -> tuple[str, str]:
    """Split "provider:model" and check the provider, naming the setting on error."""
    provider, sep, model = value.partition(":")
    if provider == "local":  # `local` alone is the bundled default model
        return provider, model
    if not sep or not model:
        raise SettingsError(
            f"{setting}={value!r}: expected 'provider:model', e.g. 'openai:gpt-4o-mini'"
        )
    if provider == "registered":
        return provider, model
    if provider not in OPENAI_PROVIDERS:
        raise SettingsError(
            f"{setting}={value!r}: unknown provider {provider!r}; use 'openai:<model>' for any "
            "OpenAI-compatible endpoint (OpenAI, DeepSeek, DashScope, vLLM, Ollama) and set "
            "OPENAI_BASE_URL / TREERAG_CHAT_BASE_URL to its URL"
        )
    return provider, model


def _require_key(setting: str) -> None:
    if not os.environ.get("OPENAI_API_KEY"):
        raise SettingsError(
            f"{setting} names an OpenAI-compatible model but OPENAI_API_KEY is not set "
            "(use any non-empty value for endpoints without keys, e.g. a local vLLM or Ollama)"
        )


OFFLINE_EMBEDDERS = ("minilm", "default", "", "use-m3", "e5-small")
"""Embedding model names that run in-process, with no endpoint and no key."""


def check_model_settings(ctx: Context) -> None:
    """Raise SettingsError for a model string or missing key that would fail a run midway.

    The same checks as get_chat_model / get_embeddings, without building either.
    """
    if ctx.chat_model:
        provider, model = split_model_string(ctx.chat_model, "TREERAG_CHAT_MODEL")
        if provider == "registered" and model not in _registered_chat_models:
            raise SettingsError(
                f"TREERAG_CHAT_MODEL={ctx.chat_model!r}: no chat model registered as {model!r} "
                "(call treerag.models.register_chat_model first)"
            )
        if provider == "local":
            _check_local_weights(model)
        elif provider != "registered":  # the local server needs no key
            _require_key("TREERAG_CHAT_MODEL")
    if ctx.embedding_model not in (*OFFLINE_EMBEDDERS, AUTO):
        split_model_string(ctx.embedding_model, "TREERAG_EMBEDDING_MODEL")
        _require_key("TREERAG_EMBEDDING_MODEL")


def _check_local_weights(spec: str) -> None:
    """Refuse `local:<path.gguf>` naming no file (a bundled name is checked when assembled)."""
    from treerag.local_llm.weights import BUNDLED, resolve

    if spec and spec not in BUNDLED:
        resolve(spec)  # for a path only checks that the file exists; raises LocalModelError


def get_chat_model(ctx: Context) -> BaseChatModel | None:
    """Build the configured chat model, or return None when the offline reasoner should answer."""
    if not ctx.chat_model:
        return None
    provider, model = split_model_string(ctx.chat_model, "TREERAG_CHAT_MODEL")
    if provider == "registered":
        if model not in _registered_chat_models:
            raise SettingsError(
                f"TREERAG_CHAT_MODEL={ctx.chat_model!r}: no chat model registered as {model!r} "
                "(call treerag.models.register_chat_model first)"
            )
        return _registered_chat_models[model]
    if provider == "local":
        return _local_chat_model(ctx, model)
    _require_key("TREERAG_CHAT_MODEL")
    return _openai_chat_model(ctx, model, ctx.chat_base_url)


def _openai_chat_model(
    ctx: Context, model: str, base_url: str, api_key: str = "", **extra: object
) -> BaseChatModel:
    """The one client of every OpenAI-compatible endpoint, remote or the local server."""
    import warnings

    from langchain_openai import ChatOpenAI

    # A streamed structured call dumps each chunk with its parsed model in a field the OpenAI
    # SDK types as None, and pydantic warns about it on every call (openai-python #2872;
    # langchain-openai silenced it for unstreamed calls only, langchain #37727). Harmless.
    warnings.filterwarnings("ignore", message="Pydantic serializer warnings", category=UserWarning)

    kwargs: dict = {"model": model, "timeout": ctx.llm_timeout_s, "max_retries": 0, **extra}
    if base_url:
        kwargs["base_url"] = base_url
    if api_key:
        kwargs["api_key"] = api_key
    return ChatOpenAI(**kwargs)


_local_models: dict[tuple, tuple[BaseChatModel, object]] = {}


def _local_chat_model(ctx: Context, spec: str) -> BaseChatModel:
    """Start (once per process) the local llama.cpp server and talk to it as `openai:` does."""
    from treerag.local_llm.server import default_threads, ensure_server
    from treerag.local_llm.weights import resolve

    threads = ctx.local_threads or default_threads()
    key = (spec, ctx.local_model_sha256, ctx.local_n_ctx, threads, ctx.llm_timeout_s)
    known = _local_models.get(key)
    if known is not None and known[1].alive():  # type: ignore[attr-defined]
        return known[0]
    weights = resolve(spec, ctx.local_model_sha256)
    server = ensure_server(weights, ctx.local_n_ctx, threads)
    # Temperature 0: the judge's verdicts should not vary from run to run. On a CPU the first
    # token of a long prompt can take longer than langchain-openai's 120 s gap between stream
    # chunks: the call's own timeout is the limit that counts.
    model = _openai_chat_model(
        ctx,
        weights.alias,
        server.base_url,
        "local",
        temperature=0,
        stream_chunk_timeout=ctx.llm_timeout_s,
        # Streamed answers report their tokens too (llama.cpp honours stream_options
        # include_usage), so a tree's token count is not only its unstreamed calls'.
        stream_usage=True,
    )
    _local_models[key] = (model, server)
    return model


def get_embeddings(ctx: Context) -> Embeddings:
    """Build the embeddings the settings mean for their collection (all offline by default).

    With `auto` (the default) that is the embedder the collection recorded, `minilm` before
    one exists (`treerag.embedder_choice`).
    """
    return _cached_embeddings(
        resolve_embedder(ctx),
        ctx.embedding_base_url or ctx.chat_base_url,
        ctx.embedding_dimensions,
    )


def similarity_embeddings(ctx: Context) -> Embeddings:
    """The embeddings of the offline judge's and the knowledge graph's cosines.

    Their thresholds (the judge's similarity cut-offs, the graph's path scores) were fitted
    on all-MiniLM-L6-v2's similarities; e5-small's are compressed (unrelated text scores
    about 0.8), so with `auto` they keep MiniLM whatever the collection's dense side uses.
    An explicit `TREERAG_EMBEDDING_MODEL` serves both, as it always has.
    """
    if ctx.embedding_model != AUTO:
        return get_embeddings(ctx)
    return _cached_embeddings(ENGLISH_DEFAULT, "", 0)


@lru_cache(maxsize=8)
def _cached_embeddings(name: str, base_url: str, dimensions: int) -> Embeddings:
    # One instance per configuration: loading the ONNX session costs ~0.3 s.
    if name in ("minilm", "default", ""):
        from treerag.embeddings import OnnxMiniLMEmbeddings

        return OnnxMiniLMEmbeddings()
    if name == "use-m3":
        from treerag.multilingual import UseM3Embeddings

        return UseM3Embeddings()
    if name == "e5-small":
        from treerag.multilingual import E5SmallEmbeddings

        return E5SmallEmbeddings()
    _, model = split_model_string(name, "TREERAG_EMBEDDING_MODEL")
    _require_key("TREERAG_EMBEDDING_MODEL")
    from langchain_openai import OpenAIEmbeddings

    kwargs: dict = {"model": model}
    if base_url:
        kwargs["base_url"] = base_url
        # Non-OpenAI endpoints do not accept pre-tokenised input (seed 02's DashScope setup).
        kwargs["check_embedding_ctx_length"] = False
    if dimensions:
        kwargs["dimensions"] = dimensions
    return OpenAIEmbeddings(**kwargs)


def get_default_embeddings() -> Embeddings:
    """The graph's embeddings as the environment configures them (`similarity_embeddings`)."""
    return similarity_embeddings(Context())


def embedding_dimension(embeddings: Embeddings) -> int:
    """Return the vector size an embeddings object produces (probes once if unknown)."""
    from treerag.embeddings import DIMENSION, OnnxMiniLMEmbeddings

    if isinstance(embeddings, OnnxMiniLMEmbeddings):
        return DIMENSION
    return len(embeddings.embed_query("dimension probe"))
