"""Dead letters as the API lists them: the submissions the log could not apply, newest first."""

from __future__ import annotations

from typing import Any

import msgspec

from rankline.moderation.answers import DeadLetterOut, DeadLettersOut
from rankline.moderation.requests import DeadLettersRequest
from rankline.runtime.clock import format_time
from rankline.store.dead_letters import DeadLetters

_unjson = msgspec.json.Decoder(dict[str, Any])


async def dead_letters(store: DeadLetters, ask: DeadLettersRequest) -> DeadLettersOut:
    """The newest dead letters (of ``ask.board``), as ``rankline dead-letters`` lists them."""
    letters = await store.newest(ask.limit, ask.board)
    return DeadLettersOut(
        total=await store.count(),
        items=[
            DeadLetterOut(
                id=str(d.id),
                failed_at=format_time(d.failed_at),
                board=d.board,
                player_id=d.player,
                match_id=d.match_id,
                reason=d.reason,
                submission=_unjson.decode(d.submission),
            )
            for d in letters
        ],
    )
