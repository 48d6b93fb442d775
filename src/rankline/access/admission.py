"""Who the caller is and whether they may call, for every edge alike: a credential (the
``Authorization`` header's value, or a gRPC call's ``authorization`` metadata), the client's
address and what the operation declares (who may call it, whether it writes, the board it
names) become a ``Caller``, or an error of the tree (401, 403, 429, 503).

The order is the HTTP API's since the start: the rate limits per address and key first (a
refusal costs nothing more), then a player token verified and counted per player, or a key
checked against the operation's auth. What a player may then do is ``player_may`` and
``own_player_id``. The key check and the limits are collaborators (``KeyCheck``,
``Limits``): the HTTP edge's ``Keys`` and ``RateLimits`` are them.
"""

from __future__ import annotations

from typing import NamedTuple, Protocol

from rankline.access.credentials import is_token
from rankline.access.scopes import BoardScope
from rankline.callers import Player
from rankline.errors import NotForPlayers


class KeyCheck(Protocol):
    def authorize(
        self, credential: str | None, auth: str, board_id: str | None = None
    ) -> BoardScope | None: ...

    def actor(self, credential: str | None) -> str: ...


class Limits(Protocol):
    async def check(
        self, address: str, credential: str | None, write: bool, *, keyed: bool = True
    ) -> None: ...

    async def check_player(self, player_id: str, write: bool) -> None: ...


class TokenCheck(Protocol):
    async def player(self, token: str) -> Player: ...


class Caller(NamedTuple):
    """Who is calling: a key (``scope``, the boards it may write; None: all, or a read
    key, or nothing) or a player with a verified token (``player``)."""

    scope: BoardScope | None = None
    player: Player | None = None


def player_token(credential: str | None) -> str | None:
    """The credential's bearer token when it is a player token by its shape (None: no
    credential, or a key)."""
    if credential is None:
        return None
    scheme, _, rest = credential.partition(" ")
    token = rest.strip()
    if scheme.lower() == "bearer" and is_token(token):
        return token
    return None


class Admission:
    """The admission of one server process: its keys, its rate limits (None: off) and its
    player tokens' verifier (None: tokens are off, every credential is a key)."""

    def __init__(self, keys: KeyCheck, limits: Limits | None, tokens: TokenCheck | None) -> None:
        self.keys = keys
        self.limits = limits
        self.tokens = tokens

    async def caller(
        self,
        credential: str | None,
        address: str,
        auth: str,
        writes: bool,
        board_id: str | None = None,
    ) -> Caller:
        """The caller, once they may call an operation declaring ``auth``
        (``http.endpoint.Auth``) on ``board_id``, within the limits for reads or
        ``writes``."""
        tokens, limits = self.tokens, self.limits
        token = None if tokens is None else player_token(credential)
        if limits is not None:
            await limits.check(address, credential, writes, keyed=token is None)
        if tokens is None or token is None:
            return Caller(self.keys.authorize(credential, auth, board_id))
        player = await tokens.player(token)
        if limits is not None:
            await limits.check_player(player.player_id, writes)
        return Caller(None, player)


def player_may(auth: str, for_players: bool, operation: str) -> bool:
    """Whether a player token may call an operation declaring ``auth``: every read and the
    player's own (``me``) operations as they are (False), those ``for_players`` as the
    player (True: its ``player_id`` is then ``own_player_id``); anything else is 403
    ``NotForPlayers`` (``operation`` names it in the answer)."""
    if auth in ("read", "me"):
        return False
    if not for_players:
        raise NotForPlayers(f"a player token may not call {operation}: that needs a server key")
    return True


def own_player_id(named: object, player: Player) -> str:
    """The ``player_id`` a player's write names: their own (also when it names none);
    403 ``NotForPlayers`` when it names another."""
    if named is None:
        return player.player_id
    if named != player.player_id:
        raise NotForPlayers(
            f"a player submits only their own scores: the token is {player.player_id!r}'s, "
            "the body names another player"
        )
    return player.player_id
