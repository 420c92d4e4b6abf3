"""The users file: who may call the server, and for which tenant.

The file (`TREERAG_AUTH_FILE`, YAML or JSON) holds `users: [{name, tenant, token_sha256}]`
and, optionally, `tenants: {<tenant>: {share_threads: true}}` for the tenants whose users
may read each other's threads (a tenant not listed keeps every thread private to its owner).
Tokens are stored only as SHA-256 hashes; a token is compared hash to hash with
`hmac.compare_digest` (constant time) against every user, so neither a hit nor a miss is
told apart by timing. Tokens are never logged or stored in clear.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import re
import secrets
import threading
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any

import yaml

from treerag.server.tenants import normalize_tenant

AUTH_FILE_ENV = "TREERAG_AUTH_FILE"
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.@-]{0,63}$")
_HASH = re.compile(r"^[0-9a-f]{64}$")


class UsersFileError(ValueError):
    """The users file cannot be read or holds an invalid entry; the message names it."""


@dataclass(frozen=True)
class User:
    """One user: a unique name, the tenant whose data they work on, and their token's hash."""

    name: str
    tenant: str
    token_sha256: str


@dataclass(frozen=True)
class TenantPolicy:
    """What the users of one tenant share beyond its documents (nothing unless listed)."""

    share_threads: bool = False
    """Users of the tenant may read (not change, run on or delete) each other's threads."""


NO_SHARING = TenantPolicy()
_POLICY_KEYS = [f.name for f in fields(TenantPolicy)]


@dataclass
class UsersFile:
    """The whole users file: its users and the settings of its tenants."""

    users: list[User] = field(default_factory=list)
    tenants: dict[str, TenantPolicy] = field(default_factory=dict)

    def policy(self, tenant: str) -> TenantPolicy:
        """The settings of `tenant` (a tenant not listed shares nothing)."""
        return self.tenants.get(tenant, NO_SHARING)


def hash_token(token: str) -> str:
    """The SHA-256 hex digest stored for a token."""
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def new_token() -> str:
    """A fresh random bearer token (256 bits)."""
    return "trg_" + secrets.token_urlsafe(32)


def auth_file() -> Path | None:
    """The users file named by `TREERAG_AUTH_FILE`, or None (single-user local mode)."""
    raw = os.environ.get(AUTH_FILE_ENV, "").strip()
    return Path(raw).expanduser() if raw else None


def _check_user(entry: Any, where: str) -> User:
    if not isinstance(entry, dict):
        raise UsersFileError(f"{where}: each user must be a mapping")
    name, tenant, digest = entry.get("name"), entry.get("tenant"), entry.get("token_sha256")
    if not isinstance(name, str) or not _NAME.match(name):
        raise UsersFileError(f"{where}: invalid user name {name!r}")
    if not isinstance(digest, str) or not _HASH.match(digest.lower()):
        raise UsersFileError(f"{where}: user {name!r} needs token_sha256 (64 hex digits)")
    try:
        tenant = normalize_tenant(str(tenant or ""))
    except ValueError as exc:
        raise UsersFileError(f"{where}: user {name!r}: {exc}") from exc
    return User(name=name, tenant=tenant, token_sha256=digest.lower())


def _check_tenants(data: Any, where: str) -> dict[str, TenantPolicy]:
    """Check the `tenants:` mapping: known tenant names, known settings, booleans only."""
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise UsersFileError(
            f"{where}: 'tenants' must be a mapping of tenant name to settings, "
            "e.g. tenants: {acme: {share_threads: true}}"
        )
    policies: dict[str, TenantPolicy] = {}
    for raw, settings in data.items():
        try:
            tenant = normalize_tenant(str(raw))
        except ValueError as exc:
            raise UsersFileError(f"{where}: tenants: {exc}") from exc
        if tenant in policies:
            raise UsersFileError(f"{where}: tenant {tenant!r} is listed twice under 'tenants'")
        if not isinstance(settings, dict):
            raise UsersFileError(
                f"{where}: tenant {tenant!r}: settings must be a mapping, "
                "e.g. {share_threads: true}"
            )
        unknown = sorted(str(k) for k in settings if k not in _POLICY_KEYS)
        if unknown:
            raise UsersFileError(
                f"{where}: tenant {tenant!r}: unknown setting {', '.join(map(repr, unknown))} "
                f"(known: {', '.join(_POLICY_KEYS)})"
            )
        for key, value in settings.items():
            if not isinstance(value, bool):
                raise UsersFileError(
                    f"{where}: tenant {tenant!r}: {key} must be true or false, not {value!r}"
                )
        policies[tenant] = TenantPolicy(**settings)
    return policies


def read_users_file(path: Path) -> UsersFile:
    """Read and check a users file (users and tenant settings); a missing file is empty."""
    if not path.exists():
        return UsersFile()
    text = path.read_text(encoding="utf-8")
    try:
        data = json.loads(text) if path.suffix == ".json" else yaml.safe_load(text)
    except (json.JSONDecodeError, yaml.YAMLError) as exc:
        raise UsersFileError(f"{path}: not valid {path.suffix.lstrip('.') or 'YAML'}") from exc
    entries = (data or {}).get("users", []) if isinstance(data, dict) else None
    if not isinstance(entries, list):
        raise UsersFileError(f"{path}: expected a mapping with a 'users' list")
    users = [_check_user(e, f"{path} user #{i + 1}") for i, e in enumerate(entries)]
    names = [u.name for u in users]
    if len(set(names)) != len(names):
        raise UsersFileError(f"{path}: a user name appears twice")
    return UsersFile(users=users, tenants=_check_tenants((data or {}).get("tenants"), str(path)))


def read_users(path: Path) -> list[User]:
    """Read and check a users file's users; a missing file holds no users."""
    return read_users_file(path).users


def write_users_file(path: Path, content: UsersFile) -> None:
    """Write the users file atomically (a reader never sees half a file), owner-only."""
    data: dict[str, Any] = {"users": [asdict(u) for u in content.users]}
    if content.tenants:
        data["tenants"] = {t: asdict(p) for t, p in sorted(content.tenants.items())}
    text = json.dumps(data, indent=2) if path.suffix == ".json" else yaml.safe_dump(data)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + f".{os.getpid()}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as out:
        out.write(text)
    os.replace(tmp, path)


def write_users(path: Path, users: list[User]) -> None:
    """Replace the users of a users file, keeping its tenant settings."""
    content = read_users_file(path)
    content.users = users
    write_users_file(path, content)


def set_tenant_policy(path: Path, tenant: str, policy: TenantPolicy) -> str:
    """Set one tenant's settings in the users file; return the tenant's normal name."""
    try:
        name = normalize_tenant(tenant)
    except ValueError as exc:
        raise UsersFileError(str(exc)) from exc
    content = read_users_file(path)
    if policy == NO_SHARING:
        content.tenants.pop(name, None)
    else:
        content.tenants[name] = policy
    write_users_file(path, content)
    return name


def add_user(path: Path, name: str, tenant: str) -> tuple[User, str]:
    """Add a user with a new token; return the user and the token (shown once, never stored)."""
    users = read_users(path)
    if any(u.name == name for u in users):
        raise UsersFileError(f"user {name!r} exists: revoke it first to issue a new token")
    token = new_token()
    user = _check_user(
        {"name": name, "tenant": tenant, "token_sha256": hash_token(token)}, "new user"
    )
    write_users(path, [*users, user])
    return user, token


def revoke_user(path: Path, name: str) -> bool:
    """Remove a user (their token stops working at the next request); False if unknown."""
    users = read_users(path)
    kept = [u for u in users if u.name != name]
    if len(kept) == len(users):
        return False
    write_users(path, kept)
    return True


class UserDirectory:
    """The users of one file, re-read whenever the file changes (so a revoke is immediate)."""

    def __init__(self, path: Path):
        """Watch `path`; nothing is read until the first lookup."""
        self.path = path
        self._stamp: tuple[int, int, int] | None = None
        self._content = UsersFile()
        self._lock = threading.Lock()

    def _fresh(self) -> UsersFile:
        try:
            st = self.path.stat()
            stamp = (st.st_mtime_ns, st.st_size, st.st_ino)
        except FileNotFoundError:
            stamp = (0, 0, 0)
        with self._lock:
            if stamp != self._stamp:
                self._content, self._stamp = read_users_file(self.path), stamp
            return self._content

    def lookup(self, name: str) -> User | None:
        """The user called `name` in the current file, or None."""
        return next((u for u in self._fresh().users if u.name == name), None)

    def authenticate(self, token: str) -> User | None:
        """The user holding `token`, or None; compares against every user in constant time."""
        digest = hash_token(token)
        found = None
        for user in self._fresh().users:
            if hmac.compare_digest(digest, user.token_sha256):
                found = user
        return found

    def policy(self, tenant: str) -> TenantPolicy:
        """The current settings of `tenant` (re-read like the users, so a change is immediate)."""
        return self._fresh().policy(tenant)
