"""``rankline.runtime.tasks.stop``: a background task stopped even when a cancellation is dropped
below it (as ``asyncio.wait_for`` does on Python 3.11 when its result lands in the same turn)."""

from __future__ import annotations

import asyncio

import pytest

from rankline.runtime import tasks


async def test_a_task_that_drops_its_first_cancellation_is_stopped_all_the_same() -> None:
    cancels = 0

    async def stubborn() -> None:
        nonlocal cancels
        while True:
            try:
                await asyncio.sleep(3600)
            except asyncio.CancelledError:
                cancels += 1
                if cancels == 1:
                    continue  # dropped, as a cancellation that lands with a result is
                raise

    task = asyncio.create_task(stubborn())
    await asyncio.sleep(0)
    await asyncio.wait_for(tasks.stop(task), timeout=5)
    assert task.cancelled() and cancels == 2


async def test_what_ended_a_task_otherwise_is_raised() -> None:
    async def failing() -> None:
        raise ValueError("broken")

    task = asyncio.create_task(failing())
    await asyncio.sleep(0)
    with pytest.raises(ValueError, match="broken"):
        await tasks.stop(task)


async def test_a_finished_task_is_left_as_it_is() -> None:
    task = asyncio.create_task(asyncio.sleep(0, result=7))
    await task
    await tasks.stop(task)
    assert task.result() == 7


async def test_the_callers_own_cancellation_is_not_swallowed() -> None:
    started, done = asyncio.Event(), asyncio.Event()

    async def deaf() -> None:
        started.set()
        while not done.is_set():  # takes no cancellation until it is told to end
            try:
                await done.wait()
            except asyncio.CancelledError:
                continue

    task = asyncio.create_task(deaf())
    await started.wait()
    stopping = asyncio.create_task(tasks.stop(task))
    await asyncio.sleep(0.25)  # a few rounds of cancelling again
    stopping.cancel()
    with pytest.raises(asyncio.CancelledError):
        await stopping
    assert not task.done()
    done.set()
    await task
