"""Tenant names, the users file, tenant-scoped settings and chunk collections (real Milvus Lite)."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from tests.foundation.conftest import write_corpus
from treerag.context import Context, SettingsError
from treerag.ingest.indexer import ingest
from treerag.models import get_embeddings
from treerag.retrievers.chunk_store import ChunkStore
from treerag.retrievers.hybrid import from_context
from treerag.server.scope import scoped
from treerag.server.tenants import TenantError, normalize_tenant, tenant_collection, tenant_dir
from treerag.server.users import (
    UserDirectory,
    UsersFileError,
    add_user,
    hash_token,
    read_users,
    revoke_user,
)

CRAFTED = ["../a", "a/..", "..", ".", "a/b", "a\\b", "", " ", "\u0430", "a\x00", "a" * 49, "-a"]


@pytest.mark.parametrize("name", CRAFTED)
def test_crafted_tenant_names_are_refused(name):
    with pytest.raises(TenantError):
        normalize_tenant(name)


def test_tenant_names_fold_case_and_compatibility_forms():
    assert normalize_tenant("ACME") == normalize_tenant("ａｃｍｅ") == "acme"
    assert normalize_tenant("team_7-b") == "team_7-b"


def test_tenant_dirs_and_collections_stay_apart(tmp_path):
    assert tenant_dir(tmp_path, "") == tmp_path
    assert tenant_dir(tmp_path, "Acme") == tmp_path / "tenants" / "acme"
    assert tenant_collection("c", "") == "c"
    names = {tenant_collection("c", t) for t in ("a-b", "a_b", "ab", "a_hb", "a_ub")}
    assert len(names) == 5 and all(n.replace("_", "").isalnum() for n in names)


def test_context_tenant_is_normalized_and_scopes_its_paths(tmp_path, monkeypatch):
    monkeypatch.setenv("TREERAG_TENANT", "ACME")
    ctx = Context(data_dir=str(tmp_path))
    assert ctx.tenant == "acme"
    assert ctx.tenant_path == tmp_path / "tenants" / "acme"
    assert ctx.resolved_checkpointer_uri == str(
        tmp_path / "tenants" / "acme" / "checkpoints.sqlite"
    )
    assert ctx.resolved_milvus_uri == str(tmp_path / "milvus.db")  # one file, one collection each
    with pytest.raises(SettingsError, match="tenant"):
        Context(tenant="../globex")


def test_users_file_stores_hashes_and_a_revoke_is_seen_at_once(tmp_path):
    path = tmp_path / "users.yaml"
    user, token = add_user(path, "alice", "Acme")
    assert user.tenant == "acme" and token not in path.read_text()
    assert hash_token(token) in path.read_text()
    users = UserDirectory(path)
    assert users.authenticate(token) == user
    assert users.authenticate(token + "x") is None
    assert users.authenticate(hash_token(token)) is None  # the stored hash is not a token
    with pytest.raises(UsersFileError):
        add_user(path, "alice", "acme")
    assert revoke_user(path, "alice") and not revoke_user(path, "alice")
    assert users.authenticate(token) is None


def test_json_users_file_and_bad_entries(tmp_path):
    good = tmp_path / "users.json"
    good.write_text(json.dumps({"users": [{"name": "b", "tenant": "G", "token_sha256": "a" * 64}]}))
    assert read_users(good)[0].tenant == "g"
    for entry in (
        {"name": "b", "tenant": "../g", "token_sha256": "a" * 64},
        {"name": "b", "tenant": "g", "token_sha256": "secret"},
        {"name": "../b", "tenant": "g", "token_sha256": "a" * 64},
    ):
        bad = tmp_path / "bad.json"
        bad.write_text(json.dumps({"users": [entry]}))
        with pytest.raises(UsersFileError):
            read_users(bad)


def test_users_cli_prints_the_token_once_and_lists_no_secrets(tmp_path, monkeypatch):
    from treerag.cli import app

    monkeypatch.setenv("TREERAG_AUTH_FILE", str(tmp_path / "users.yaml"))
    runner = CliRunner()
    added = runner.invoke(app, ["users", "add", "alice", "--tenant", "acme"])
    assert added.exit_code == 0, added.output
    token = added.output.strip().splitlines()[-1]
    assert UserDirectory(tmp_path / "users.yaml").authenticate(token).name == "alice"
    listed = runner.invoke(app, ["users", "list"])
    assert listed.output.split() == ["alice", "acme"]
    assert runner.invoke(app, ["users", "add", "eve", "--tenant", "../acme"]).exit_code == 2
    assert runner.invoke(app, ["users", "revoke", "alice"]).exit_code == 0
    assert runner.invoke(app, ["users", "revoke", "alice"]).exit_code == 3


def test_a_run_takes_its_tenant_from_the_user_not_its_context(tmp_path, monkeypatch):
    monkeypatch.setenv("TREERAG_DATA_DIR", str(tmp_path / "server"))
    asked = Context(data_dir="/elsewhere", tenant="globex", collection="x", top_k=3)
    config = {"configurable": {"langgraph_auth_user": {"identity": "alice", "tenant": "acme"}}}
    ctx = scoped(asked, config)
    assert (ctx.tenant, ctx.data_dir, ctx.collection) == (
        "acme",
        str(tmp_path / "server"),
        "treerag_chunks",
    )
    assert ctx.top_k == 3  # settings that choose no data stay the run's own
    assert scoped(asked, {"configurable": {}}) is asked  # no user: CLI and Python keep theirs


def test_a_run_cannot_send_the_server_s_api_key_to_an_endpoint_of_its_choice(monkeypatch):
    monkeypatch.setenv("TREERAG_CHAT_BASE_URL", "http://127.0.0.1:9/v1")
    monkeypatch.delenv("TREERAG_EMBEDDING_BASE_URL", raising=False)
    asked = Context(
        chat_base_url="https://collector.example/v1", embedding_base_url="https://x.example"
    )
    config = {"configurable": {"langgraph_auth_user": {"identity": "alice", "tenant": "acme"}}}
    ctx = scoped(asked, config)
    assert (ctx.chat_base_url, ctx.embedding_base_url) == ("http://127.0.0.1:9/v1", "")


def test_each_tenant_searches_only_its_own_chunks(tmp_path):
    """Same titles in two tenants of one Milvus Lite file: every read stays in its tenant."""
    docs = {
        "acme": {"plan.md": "# Plan\n\nThe plan is code-named ZEBRA-ACME. It starts at dawn.\n"},
        "globex": {
            "plan.md": "# Plan\n\nThe plan is code-named ZEBRA-GLOBEX. It starts at dawn.\n"
        },
    }
    ctxs = {}
    for tenant, files in docs.items():
        ctxs[tenant] = Context(data_dir=str(tmp_path / "data"), tenant=tenant, top_k=5)
        ingest([write_corpus(tmp_path / tenant, files)], ctxs[tenant])
    for tenant, ctx in ctxs.items():
        store = ChunkStore(ctx, get_embeddings(ctx))
        other = "globex" if tenant == "acme" else "acme"
        assert store.count() == 1
        hits = from_context(store).get_similar_chunk_with_score("plan code name ZEBRA")
        texts = " ".join(doc.page_content for doc, _ in hits)
        assert f"ZEBRA-{tenant.upper()}" in texts and f"ZEBRA-{other.upper()}" not in texts
        other_ids = [
            i
            for ids in ChunkStore(ctxs[other], store.embeddings).ids_by_source().values()
            for i in ids
        ]
        assert store.get(other_ids) == []
        store.delete(other_ids)  # a delete in one tenant cannot remove the other's rows
    assert ChunkStore(ctxs["acme"], get_embeddings(ctxs["acme"])).count() == 1
    assert not ChunkStore(
        Context(data_dir=str(tmp_path / "data")), get_embeddings(ctxs["acme"])
    ).exists()
