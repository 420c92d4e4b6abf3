"""Who is calling: one user directory for the LangGraph API and the web routes alike.

With `TREERAG_AUTH_FILE` set, every request needs `Authorization: Bearer <token>` of a user
in that file. Without it the server runs in single-user local mode: everyone who can reach it
is the one local user, and nothing is scoped (today's behaviour).
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from treerag.server.users import UserDirectory, auth_file, read_users_file

log = logging.getLogger("treerag.server")
LOCAL_IDENTITY = "local"
MAX_TOKEN_LENGTH = 512


class Unauthorized(Exception):
    """No valid credentials (401); the message never contains the token."""


@dataclass(frozen=True)
class Identity:
    """The caller: user name and tenant; `tenant` is "" in single-user local mode."""

    name: str
    tenant: str
    shares_threads: bool = False
    """The caller's tenant lets its users read each other's threads (users file `tenants:`)."""

    @property
    def local(self) -> bool:
        """Whether this is the single local user of a server without a users file."""
        return not self.tenant


LOCAL = Identity(name=LOCAL_IDENTITY, tenant="")


@lru_cache(maxsize=1)
def directory() -> UserDirectory | None:
    """The users of `TREERAG_AUTH_FILE`, or None in single-user local mode (read once)."""
    path = auth_file()
    return UserDirectory(path) if path else None


def auth_enabled() -> bool:
    """Whether a users file is configured."""
    return directory() is not None


def bearer_token(authorization: str | None) -> str:
    """The token of an `Authorization: Bearer <token>` header, or raise Unauthorized."""
    if not authorization:
        raise Unauthorized("missing Authorization header")
    scheme, _, token = authorization.strip().partition(" ")
    token = token.strip()
    if scheme.lower() != "bearer" or not token or len(token) > MAX_TOKEN_LENGTH:
        raise Unauthorized("expected Authorization: Bearer <token>")
    return token


async def identify(authorization: str | None) -> Identity:
    """The identity behind an Authorization header; raise Unauthorized when there is none.

    The users file is re-read (in a worker thread: the server refuses blocking calls on
    its event loop) whenever it changed, so a revoked token fails on its next request.
    """
    users = directory()
    if users is None:
        return LOCAL
    token = bearer_token(authorization)
    found = await asyncio.to_thread(_authenticate, users, token)
    if found is None:
        raise Unauthorized("invalid or revoked token")
    return found


def _authenticate(users: UserDirectory, token: str) -> Identity | None:
    """The identity holding `token`, with its tenant's sharing setting (blocking: file reads)."""
    user = users.authenticate(token)
    if user is None:
        return None
    policy = users.policy(user.tenant)
    return Identity(name=user.name, tenant=user.tenant, shares_threads=policy.share_threads)


async def still_active(identity: Identity) -> bool:
    """Whether `identity`'s user is still in the users file (False once revoked)."""
    users = directory()
    if users is None or identity.local:
        return True
    current = await asyncio.to_thread(users.lookup, identity.name)
    return current is not None and current.tenant == identity.tenant


def identity_of_user(user: Any) -> Identity | None:
    """The identity of LangGraph's authenticated user (`langgraph_auth_user`), if any."""
    if user is None:
        return None
    try:
        name, tenant = user["identity"], user["tenant"]
        shares = user.get("share_threads", False) if hasattr(user, "get") else False
    except (KeyError, TypeError):
        name, tenant = getattr(user, "identity", None), getattr(user, "tenant", "")
        shares = getattr(user, "share_threads", False)
    if not name:
        return None
    return Identity(name=str(name), tenant=str(tenant or ""), shares_threads=shares is True)


def announce_mode() -> None:
    """Say at start-up whether the server authenticates users, and from which file.

    A users file that cannot be read or holds an invalid entry stops the start-up here
    (UsersFileError names the file and the entry): a server never starts on a file it
    would misread. A bad edit later fails every request until the file is fixed.
    """
    path = auth_file()
    if path is None:
        message = (
            "treerag: no TREERAG_AUTH_FILE: single-user local mode, no authentication; "
            "anyone who can reach this server reads every thread and document"
        )
    else:
        read_users_file(path)
        message = f"treerag: users and tenants from {path}: every request needs a bearer token"
    log.warning(message)
    print(message, flush=True)
