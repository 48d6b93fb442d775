"""Grouped reads: the small index reads of concurrent requests share one Redis pipeline.

A read through redis-py's asyncio client costs 60 to 100 µs of Python per call here (pool,
retry, timeout, event and observability layers, one socket write), several times what the
rest of a rank read costs. ``GroupedReads`` is group commit for reads: a read joins a queue;
when no pipeline is in flight it is sent at once (on the next turn of the event loop, so the
reads started in this turn go with it); while one is in flight, reads wait and go together
in the next. Under load one round trip answers many requests; a lone request waits one loop
turn.

Groups go over ``seam.Channel`` (one connection of its own, hiredis packing and
parsing) where the client uses plain TCP, which costs a fraction of redis-py's pipeline per
round trip and almost nothing per further command; else through redis-py.

Every read is sent after its caller asked for it, so grouping never serves a read older
than the request: a write acknowledged before the request is visible to it. Identical reads
in one group (the same leaderboard's stamp, asked by many requests) are sent once.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

from redis.asyncio import Redis
from redis.commands.core import AsyncScript
from redis.exceptions import NoScriptError

from rankline.index.redis.seam import Channel

_Read = tuple[AsyncScript, tuple[Any, ...], tuple[Any, ...]]


class GroupedReads:
    def __init__(self, client: Redis, channel: Channel | None) -> None:
        self._client = client
        self.channel = channel
        """Where the groups go (``channel``); None: through redis-py's pipelines."""
        self._queue: dict[_Read, list[asyncio.Future[Any]]] = {}
        """The next group: each read with its callers' futures (one each, so that a caller's
        cancellation leaves the others waiting)."""
        self._sending = False
        self._task: asyncio.Task[None] | None = None

    async def call(self, script: AsyncScript, keys: Sequence[Any], args: Sequence[Any]) -> Any:
        """The script's reply, sent in the next group; raises what the call raised."""
        read = (script, tuple(keys), tuple(args))
        future = asyncio.get_running_loop().create_future()
        waiting = self._queue.get(read)
        if waiting is not None:
            waiting.append(future)
        else:
            self._queue[read] = [future]
            if not self._sending:  # the task runs on the loop's next turn: reads asked
                self._sending = True  # before then go with this one
                self._task = asyncio.ensure_future(self._send_all())
        return await future

    async def run(self, calls: Sequence[_Read]) -> list[Any]:
        """These calls' replies (errors returned), in one round trip of their own, on the
        same connection as the groups: for a read that is big already (friends' ranks)."""
        return await run_scripts(self._client, calls, channel=self.channel)

    def close(self) -> None:
        if self.channel is not None:
            self.channel.close()

    async def _send_all(self) -> None:
        try:
            while self._queue:
                group, self._queue = self._queue, {}
                await self._send(group)
        finally:
            self._sending = False

    async def _send(self, group: dict[_Read, list[asyncio.Future[Any]]]) -> None:
        try:
            if self.channel is None and len(group) == 1:
                [(script, keys, args)] = group
                replies: list[Any] = [await script(keys=keys, args=args)]
            else:
                replies = await run_scripts(self._client, list(group), channel=self.channel)
        except BaseException as exc:
            error = exc if isinstance(exc, Exception) else _stopped()
            for futures in group.values():
                _settle(futures, error=error)
            if not isinstance(exc, Exception):
                raise
            return
        for futures, reply in zip(group.values(), replies, strict=True):
            if isinstance(reply, Exception):
                _settle(futures, error=reply)
            else:
                _settle(futures, reply)


def _settle(
    futures: list[asyncio.Future[Any]], reply: Any = None, *, error: BaseException | None = None
) -> None:
    """Hand one read's reply (or error) to each of its callers still waiting."""
    for future in futures:
        if future.done():
            continue  # its caller was cancelled
        if error is None:
            future.set_result(reply)
        else:
            future.set_exception(error)
            future.exception()  # retrieved: no warning should its caller be gone by then


async def run_scripts(
    client: Redis,
    calls: Sequence[_Read],
    also: Sequence[tuple[Any, ...]] = (),
    *,
    channel: Channel | None = None,
) -> list[Any]:
    """Each call's reply (or its error, returned, not raised), in one pipeline of EVALSHA;
    ``also``: plain commands sent after them in the same pipeline (replies dropped). On
    ``channel`` when one is given (reads only: it sends a failed round trip again), else
    through the client's own pipeline.

    redis-py's own pipeline asks the server whether every script exists before each
    pipeline runs (SCRIPT EXISTS): a second round trip every time. Here a script the server
    does not know (after a restart or a SCRIPT FLUSH) answers NOSCRIPT; it is loaded then
    and those calls are sent again (so only idempotent scripts belong here)."""
    replies = (await _evalsha(client, channel, calls, also))[: len(calls)]
    missing = [i for i, reply in enumerate(replies) if isinstance(reply, NoScriptError)]
    if missing:
        for script in {calls[i][0] for i in missing}:
            script.sha = await client.script_load(script.script)
        again = await _evalsha(client, channel, [calls[i] for i in missing])
        for i, reply in zip(missing, again, strict=True):
            replies[i] = reply
    return replies


def raise_first(replies: Sequence[Any]) -> list[Any]:
    """The replies, unless one is an error: then that error is raised."""
    for reply in replies:
        if isinstance(reply, Exception):
            raise reply
    return list(replies)


async def _evalsha(
    client: Redis,
    channel: Channel | None,
    calls: Sequence[_Read],
    also: Sequence[tuple[Any, ...]] = (),
) -> list[Any]:
    if channel is not None:
        commands = [("EVALSHA", s.sha, len(keys), *keys, *args) for s, keys, args in calls]
        return await channel.execute([*commands, *also])
    async with client.pipeline(transaction=False) as pipe:
        for script, keys, args in calls:
            pipe.evalsha(script.sha, len(keys), *keys, *args)
        for command in also:
            pipe.execute_command(*command)
        return list(await pipe.execute(raise_on_error=False))


def _stopped() -> ConnectionError:
    return ConnectionError("the grouped Redis read was cancelled (shutting down)")
