"""``rankline keys``: server and read keys created, listed and revoked on the durable store
the settings name, while servers run (each server takes a change in within a second)."""

from __future__ import annotations

import json
from typing import Annotated

import msgspec
import typer
from rich.console import Console
from rich.markup import escape

from rankline.cli.shared import Group, Typer, console, fail, run_on_stores, setup_logging
from rankline.errors import InvalidInput
from rankline.settings import Settings

keys_app = Typer(
    cls=Group,
    help="Server and read keys made at runtime: create, list, revoke. They work beside the "
    "keys of RANKLINE_SERVER_KEYS and RANKLINE_READ_KEYS; the store keeps only a hash of each.",
    no_args_is_help=True,
    add_completion=False,
)
_JSON = typer.Option("--json", help="Print the answer as JSON, as the HTTP API gives it.")
_OPTIONS = {"name": "NAME", "role": "--role", "boards": "--board", "expires_at": "--expires-at"}
"""The options that give each field of a new key, for the errors about them."""
_REASON = typer.Option(help="Why, kept with the change in the audit log (GET /v1/audit).")


def _reason(reason: str | None) -> str | None:
    """The reason as the audit log keeps it (at most 1,000 characters; blank is none)."""
    from rankline.audit.log import check_reason

    try:
        return check_reason(reason, ["--reason"])
    except InvalidInput as exc:
        fail(f"--reason: {exc.errors[0]['msg'] if exc.errors else exc.detail}")


@keys_app.command("create")
def create(
    name: Annotated[
        str,
        typer.Argument(
            help="Who or what will hold the key, e.g. game-server-eu (1-64 letters, digits, "
            "'.', '_' or '-'); the audit log names the key by it."
        ),
    ],
    role: Annotated[
        str,
        typer.Option(help="server: writes and reads; read: reads only (where reads need a key)."),
    ] = "server",
    board: Annotated[
        list[str] | None,
        typer.Option(
            "--board",
            help="Limit a server key to the boards whose id matches this shell-style pattern "
            "(game-a-*); repeat for several. Such a key cannot change players or manage keys.",
        ),
    ] = None,
    expires_at: Annotated[
        str | None,
        typer.Option(help="When the key stops working, RFC 3339 (2027-01-31T00:00:00Z)."),
    ] = None,
    reason: Annotated[str | None, _REASON] = None,
    as_json: Annotated[bool, _JSON] = False,
) -> None:
    """Create a key and print its secret, once: the store keeps only its hash, so copy it
    now. Give it to the caller as `Authorization: Bearer <secret>`."""
    from rankline.access.keys import NewKey, create_on_store

    settings = Settings()
    setup_logging("warning")
    try:
        new = msgspec.convert(
            {"name": name, "role": role, "boards": board or None, "expires_at": expires_at},
            NewKey,
        )
    except msgspec.ValidationError as exc:
        message = str(exc)
        for field, option in _OPTIONS.items():
            message = message.replace(f"`$.{field}", f"`{option}")
        fail(message)
    made = run_on_stores(settings, create_on_store(settings, new, _reason(reason)))
    if as_json:
        print(msgspec.json.encode(made).decode())
        return
    out = Console(soft_wrap=True)
    out.print(f"created {made.role} key {made.name} ({made.id})", highlight=False)
    out.print(made.secret, highlight=False)
    console.print("the secret is shown this once: keep it now", highlight=False)


@keys_app.command("list")
def list_keys(as_json: Annotated[bool, _JSON] = False) -> None:
    """List the keys made at runtime, oldest first, revoked and expired ones included, with
    who created them. Secrets are never shown: only their hashes are kept."""
    from rankline.access.keys import list_on_store

    settings = Settings()
    setup_logging("warning")
    listed = run_on_stores(settings, list_on_store(settings))
    if as_json:
        print(msgspec.json.encode(listed).decode())
        return
    out = Console(soft_wrap=True)
    for key in listed.keys:
        boards = "every board" if key.boards is None else "boards " + "|".join(key.boards)
        until = f", expires {key.expires_at}" if key.expires_at else ""
        out.print(
            f"{key.id}  {key.state:7}  {key.role:6}  {escape(key.name)}  {boards}{until}"
            f"  (created {key.created_at} by {escape(key.created_by)})",
            highlight=False,
        )
    out.print(f"{len(listed.keys)} key(s)", highlight=False)


@keys_app.command("revoke")
def revoke(
    key_id: Annotated[str, typer.Argument(metavar="ID", help="The key's id (key_…).")],
    reason: Annotated[str | None, _REASON] = None,
    as_json: Annotated[bool, _JSON] = False,
) -> None:
    """Revoke a key: every server refuses it within a second. Revoking a revoked key again
    changes nothing."""
    from rankline.access.keys import revoke_on_store

    settings = Settings()
    setup_logging("warning")
    revoked = run_on_stores(settings, revoke_on_store(settings, key_id, _reason(reason)))
    if as_json:
        print(json.dumps(msgspec.to_builtins(revoked)))
        return
    console.print(f"revoked {revoked.name} ({revoked.id}) at {revoked.revoked_at}")
