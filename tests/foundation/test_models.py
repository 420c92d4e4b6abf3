import numpy as np
import pytest

from treerag.context import Context, SettingsError
from treerag.embeddings import OnnxMiniLMEmbeddings
from treerag.models import get_chat_model, get_embeddings, split_model_string


def test_offline_default_has_no_chat_model():
    assert get_chat_model(Context()) is None


def test_bad_model_string_names_the_setting():
    with pytest.raises(SettingsError, match="TREERAG_CHAT_MODEL"):
        get_chat_model(Context(chat_model="gpt-4o"))
    with pytest.raises(SettingsError, match="unknown provider"):
        split_model_string("anthropic:claude", "TREERAG_CHAT_MODEL")


def test_openai_model_needs_a_key(monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with pytest.raises(SettingsError, match="OPENAI_API_KEY"):
        get_chat_model(Context(chat_model="openai:qwen-plus"))


def test_openai_model_is_built_with_base_url(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    model = get_chat_model(
        Context(chat_model="openai:qwen-plus", chat_base_url="http://127.0.0.1:9/v1")
    )
    assert model.model_name == "qwen-plus"
    assert str(model.openai_api_base).startswith("http://127.0.0.1:9")


def test_openai_embeddings_for_compatible_endpoints(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    emb = get_embeddings(
        Context(
            embedding_model="openai:text-embedding-v3",
            embedding_base_url="http://127.0.0.1:9/v1",
            embedding_dimensions=1024,
        )
    )
    assert emb.check_embedding_ctx_length is False
    assert emb.dimensions == 1024


def test_offline_embeddings_are_unit_vectors_with_meaning():
    emb = OnnxMiniLMEmbeddings()
    vecs = emb.embed_array(
        ["The cat sits on the mat.", "A kitten rests on a rug.", "Bond yields rose sharply."]
    )
    assert vecs.shape == (3, 384)
    assert np.allclose(np.linalg.norm(vecs, axis=1), 1.0, atol=1e-4)
    sims = vecs @ vecs.T
    assert sims[0, 1] > sims[0, 2] + 0.2


def test_length_sorting_keeps_input_order():
    texts = ["short", "a much longer sentence " * 20, "mid length text here", ""]
    sorted_emb = OnnxMiniLMEmbeddings(batch_size=2, sort_by_length=True).embed_array(texts)
    plain_emb = OnnxMiniLMEmbeddings(batch_size=1, sort_by_length=False).embed_array(texts)
    assert np.allclose(sorted_emb, plain_emb, atol=1e-4)
