"""`treerag users add|list|revoke|share`: the users file of a server with authentication."""

from __future__ import annotations

import os
from pathlib import Path

import typer

from treerag.cli.common import console, fail

app = typer.Typer(
    help="Users of the server: add (prints a new token once), list, revoke, share.",
    no_args_is_help=True,
)
FileOption = typer.Option(
    None, "--file", help="Users file (YAML or JSON; default: TREERAG_AUTH_FILE)."
)


def use_tenant(tenant: str) -> None:
    """Select a tenant for this command (`--tenant`): checked, then set as TREERAG_TENANT."""
    from treerag.server.tenants import TenantError, normalize_tenant

    try:
        os.environ["TREERAG_TENANT"] = normalize_tenant(tenant)
    except TenantError as exc:
        fail(str(exc), code=2)


def _path(file: Path | None) -> Path:
    from treerag.server.users import auth_file

    path = file or auth_file()
    if path is None:
        fail("no users file: pass --file or set TREERAG_AUTH_FILE", code=2)
    return path


@app.command("add")
def add_command(
    name: str = typer.Argument(..., help="User name (letters, digits, _ . @ -)."),
    tenant: str = typer.Option(..., "--tenant", help="Tenant whose data the user works on."),
    file: Path = FileOption,
) -> None:
    """Add a user and print their new token (shown once: only its hash is stored)."""
    from treerag.server.users import UsersFileError, add_user

    path = _path(file)
    try:
        user, token = add_user(path, name, tenant)
    except (UsersFileError, ValueError) as exc:
        fail(str(exc), code=2)
    console.print(f"added {user.name} (tenant {user.tenant}) to {path}", highlight=False)
    console.print("token (shown once, store it now):", highlight=False)
    print(token)


@app.command("list")
def list_command(file: Path = FileOption) -> None:
    """List users and their tenants (never tokens), then the tenants that share threads."""
    from treerag.server.users import UsersFileError, read_users_file

    try:
        content = read_users_file(_path(file))
    except UsersFileError as exc:
        fail(str(exc), code=2)
    for user in content.users:
        print(f"{user.name}\t{user.tenant}")
    for tenant, policy in sorted(content.tenants.items()):
        if policy.share_threads:
            console.print(f"tenant {tenant} shares threads (read-only)", highlight=False)


@app.command("revoke")
def revoke_command(name: str = typer.Argument(...), file: Path = FileOption) -> None:
    """Remove a user; their token fails from the next request on."""
    from treerag.server.users import UsersFileError, revoke_user

    try:
        removed = revoke_user(_path(file), name)
    except UsersFileError as exc:
        fail(str(exc), code=2)
    if not removed:
        fail(f"no user {name!r}", code=3)
    console.print(f"revoked {name}", highlight=False)


@app.command("share")
def share_command(
    tenant: str = typer.Argument(..., help="Tenant whose users may read each other's threads."),
    off: bool = typer.Option(False, "--off", help="Make the tenant's threads private again."),
    file: Path = FileOption,
) -> None:
    """Let a tenant's users read (not change) each other's threads, or stop it with --off."""
    from treerag.server.users import NO_SHARING, TenantPolicy, UsersFileError, set_tenant_policy

    policy = NO_SHARING if off else TenantPolicy(share_threads=True)
    try:
        name = set_tenant_policy(_path(file), tenant, policy)
    except UsersFileError as exc:
        fail(str(exc), code=2)
    state = "private to their owners" if off else "readable by all its users"
    console.print(f"tenant {name}: threads {state}", highlight=False)


def register(root: typer.Typer) -> None:
    """Attach `users` to the root app."""
    root.add_typer(app, name="users")
