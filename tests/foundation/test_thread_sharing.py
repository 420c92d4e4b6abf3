"""A tenant's thread sharing: the users file's `tenants:` settings, the one access rule, the
auth handlers that apply it, and the `treerag users share` command."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from typer.testing import CliRunner

from treerag.server.access import may_access_thread, thread_filter
from treerag.server.identity import LOCAL, Identity, directory, identify
from treerag.server.users import (
    TenantPolicy,
    UserDirectory,
    UsersFileError,
    add_user,
    read_users_file,
    revoke_user,
    set_tenant_policy,
)

A1 = Identity("a1", "acme")
A2_SHARING = Identity("a2", "acme", shares_threads=True)
A2_PRIVATE = Identity("a2", "acme")
B1_SHARING = Identity("b1", "globex", shares_threads=True)
A1_THREAD = {"owner": "a1", "tenant": "acme", "graph_id": "chat"}


def test_a_thread_is_read_by_its_tenant_only_where_the_tenant_shares():
    assert may_access_thread(A1, A1_THREAD, "read") and may_access_thread(A1, A1_THREAD, "write")
    assert may_access_thread(A2_SHARING, A1_THREAD, "read")
    assert not may_access_thread(A2_SHARING, A1_THREAD, "write")  # read-only for non-owners
    assert not may_access_thread(A2_PRIVATE, A1_THREAD, "read")
    assert not may_access_thread(B1_SHARING, A1_THREAD, "read")  # another tenant: nothing
    assert not may_access_thread(A2_SHARING, None, "read")  # an unknown thread
    assert not may_access_thread(A2_SHARING, {"owner": "a1"}, "read")  # never stamped
    assert may_access_thread(LOCAL, None, "write")  # single-user local mode: no limit
    assert thread_filter(A2_SHARING, "read") == {"tenant": "acme"}
    assert thread_filter(A2_SHARING, "write") == {"owner": "a2", "tenant": "acme"}
    assert thread_filter(A2_PRIVATE, "read") == {"owner": "a2", "tenant": "acme"}
    assert thread_filter(LOCAL, "read") is None


def test_tenant_settings_are_read_folded_and_kept_by_add_and_revoke(tmp_path):
    path = tmp_path / "users.yaml"
    add_user(path, "a1", "acme")
    assert read_users_file(path).policy("acme") == TenantPolicy(share_threads=False)
    assert set_tenant_policy(path, "ACME", TenantPolicy(share_threads=True)) == "acme"
    add_user(path, "a2", "acme")
    assert revoke_user(path, "a1")
    content = read_users_file(path)
    assert [u.name for u in content.users] == ["a2"]
    assert content.policy("acme").share_threads and not content.policy("globex").share_threads
    set_tenant_policy(path, "acme", TenantPolicy())
    assert "tenants" not in path.read_text()


def test_a_sharing_change_is_seen_at_the_next_request(tmp_path):
    path = tmp_path / "users.json"
    _, token = add_user(path, "a2", "acme")
    users = UserDirectory(path)
    assert not users.policy("acme").share_threads
    set_tenant_policy(path, "acme", TenantPolicy(share_threads=True))
    assert users.policy("acme").share_threads


@pytest.mark.parametrize(
    ("tenants", "message"),
    [
        (["acme"], "'tenants' must be a mapping"),
        ({"../acme": {"share_threads": True}}, "invalid tenant name"),
        ({"acme": {"share_thread": True}}, "unknown setting 'share_thread' (known: share_threads)"),
        ({"acme": {"share_threads": "yes"}}, "share_threads must be true or false"),
        ({"acme": True}, "settings must be a mapping"),
        ({"acme": {"share_threads": True}, "ACME": {}}, "listed twice"),
    ],
)
def test_bad_tenant_settings_are_refused_with_a_clear_message(tmp_path, tenants, message):
    path = tmp_path / "users.json"
    path.write_text(json.dumps({"users": [], "tenants": tenants}))
    with pytest.raises(UsersFileError) as caught:
        read_users_file(path)
    assert message in str(caught.value) and str(path) in str(caught.value)


def test_identify_carries_the_tenants_sharing_setting(tmp_path, monkeypatch):
    path = tmp_path / "users.yaml"
    _, token = add_user(path, "a2", "acme")
    monkeypatch.setenv("TREERAG_AUTH_FILE", str(path))
    directory.cache_clear()
    try:
        assert asyncio.run(identify(f"Bearer {token}")) == A2_PRIVATE
        set_tenant_policy(path, "acme", TenantPolicy(share_threads=True))
        assert asyncio.run(identify(f"Bearer {token}")) == A2_SHARING
    finally:
        directory.cache_clear()


def _handler_context(user: dict[str, Any], action: str) -> Any:
    """The context an auth handler gets; the server wraps the same dict in its own user proxy
    (read by key like this dict; the attack suite runs the handlers under the real server)."""
    from langgraph_sdk import Auth

    return Auth.types.AuthContext(user=user, permissions=[], resource="threads", action=action)  # type: ignore[arg-type]


def test_auth_handlers_filter_reads_by_tenant_and_writes_by_owner(tmp_path, monkeypatch):
    """The handlers `langgraph dev` calls: what each returns for a sharing tenant's user."""
    from langgraph_sdk import Auth

    path = tmp_path / "users.yaml"
    _, token = add_user(path, "a2", "acme")
    set_tenant_policy(path, "acme", TenantPolicy(share_threads=True))
    monkeypatch.setenv("TREERAG_AUTH_FILE", str(path))
    directory.cache_clear()
    try:
        from treerag.server import auth

        user = asyncio.run(auth.authenticate(f"Bearer {token}"))
        assert user["share_threads"] is True

        def call(handler: Any, action: str, value: Any) -> Any:
            return asyncio.run(handler(_handler_context(user, action), value))

        assert call(auth.on_thread_read, "read", {}) == {"tenant": "acme"}
        assert call(auth.on_thread_read, "search", {}) == {"tenant": "acme"}
        owner = {"owner": "a2", "tenant": "acme"}
        assert call(auth.on_thread_write, "update", {}) == owner
        assert call(auth.on_thread_write, "delete", {}) == owner
        run = {"metadata": {"owner": "a1"}, "kwargs": {"input": {"question": "Who?"}}}
        assert call(auth.on_run_create, "create_run", run) == owner
        assert run["metadata"] == owner  # re-stamped: a run is always the caller's own
        made = {"metadata": {}}
        assert call(auth.on_thread_create, "create", made) == owner and made["metadata"] == owner
        with pytest.raises(Auth.exceptions.HTTPException) as refused:
            call(auth.on_thread_create, "create", {"thread_id": "copy"})  # a thread copy
        assert refused.value.status_code == 403

        private = {**user, "share_threads": False}
        assert asyncio.run(auth.on_thread_read(_handler_context(private, "read"), {})) == owner
        copy = {"thread_id": "copy"}
        asyncio.run(auth.on_thread_create(_handler_context(private, "create"), copy))
    finally:
        directory.cache_clear()


def test_users_share_command_and_list(tmp_path, monkeypatch):
    from treerag.cli import app

    monkeypatch.setenv("TREERAG_AUTH_FILE", str(tmp_path / "users.yaml"))
    runner = CliRunner()
    assert runner.invoke(app, ["users", "add", "a1", "--tenant", "acme"]).exit_code == 0
    shared = runner.invoke(app, ["users", "share", "Acme"])
    assert shared.exit_code == 0 and "acme" in shared.output, shared.output
    listed = runner.invoke(app, ["users", "list"]).output
    assert "a1\tacme" in listed and "tenant acme shares threads" in listed
    assert runner.invoke(app, ["users", "share", "../acme"]).exit_code == 2
    assert runner.invoke(app, ["users", "share", "acme", "--off"]).exit_code == 0
    assert "shares" not in runner.invoke(app, ["users", "list"]).output


def test_the_server_does_not_start_on_an_invalid_users_file(tmp_path, monkeypatch):
    from treerag.server.identity import announce_mode

    path = tmp_path / "users.yaml"
    path.write_text("users: []\ntenants:\n  acme: {share_threads: yes please}\n")
    monkeypatch.setenv("TREERAG_AUTH_FILE", str(path))
    with pytest.raises(UsersFileError, match="share_threads must be true or false"):
        announce_mode()
    path.write_text("users: []\ntenants:\n  acme: {share_threads: true}\n")
    announce_mode()
