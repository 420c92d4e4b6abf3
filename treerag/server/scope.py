"""Scope a run to its caller: the tenant comes from the authenticated user, never the run.

The LangGraph server puts the authenticated user in every run's config
(`configurable["langgraph_auth_user"]`). A run's context comes from the request body, so
under a users file the settings that choose *where* data lives (data dir, Milvus URI and
token, collection, checkpointer, tenant) are taken from the server's environment and the
user's tenant, whatever the request asked for.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from treerag.context import Context
from treerag.server.identity import Identity, identity_of_user, still_active

AUTH_USER_KEY = "langgraph_auth_user"
STORAGE_SETTINGS = (
    "data_dir",
    "milvus_uri",
    "milvus_token",
    "collection",
    "checkpointer_uri",
    "tenant",
    # The server's API key goes to these endpoints: a run must not point it elsewhere.
    "chat_base_url",
    "embedding_base_url",
)


class RevokedError(PermissionError):
    """The run's user was revoked while it ran: it stops instead of streaming on."""


def caller_of(config: Any = None) -> Identity | None:
    """The authenticated caller of the current run (None outside the server or in local mode)."""
    if config is None:
        from langgraph.config import get_config

        try:
            config = get_config()
        except RuntimeError:  # not inside a graph run
            return None
    user = ((config or {}).get("configurable") or {}).get(AUTH_USER_KEY)
    identity = identity_of_user(user)
    return None if identity is None or identity.local else identity


def scoped(ctx: Context, config: Any = None) -> Context:
    """Return `ctx` bound to the caller's tenant, with storage settings from the server.

    The model endpoints' base URLs are the server's too: the server's API key is sent to
    them, so a run's context choosing one could hand the key to any host.
    """
    identity = caller_of(config)
    if identity is None:
        return ctx
    if ctx.tenant == identity.tenant and getattr(ctx, "_scoped", False):
        return ctx
    server = Context(tenant=identity.tenant)
    bound = dataclasses.replace(ctx, **{k: getattr(server, k) for k in STORAGE_SETTINGS})
    bound._scoped = True  # type: ignore[attr-defined]
    return bound


def auth_configurable(config: Any) -> dict[str, Any]:
    """The caller's identity entries of a config, to hand on to a sub-run's fresh config."""
    configurable = (config or {}).get("configurable") or {}
    return {k: v for k, v in configurable.items() if k.startswith("langgraph_auth_")}


async def require_active(config: Any = None) -> None:
    """Raise RevokedError when the run's user has been revoked since the run started.

    Args:
        config: The run's config; by default the current one (`langgraph.config.get_config`).
    """
    identity = caller_of(config)
    if identity is not None and not await still_active(identity):
        raise RevokedError(f"user {identity.name!r} was revoked: run stopped")
