"""Display names for reads (rankline.reading.names): the in-memory replica follows changes made by
other workers, and beyond its limit names are looked up per read, with the same answers."""

from __future__ import annotations

from rankline import ManualClock, Settings
from rankline.reading.names import NameDirectory
from rankline.service import Rankline
from rankline.store.players import PlayerStore, Profile


async def _other_worker_saves(service: Rankline, player: str, name: str | None) -> None:
    """What another worker's profile change leaves behind: only the SQL row."""
    store = PlayerStore(service.store)
    await store.save_profile(Profile(player, display_name=name), service.clock.now())


async def test_the_replica_follows_profiles_changed_elsewhere(service: Rankline) -> None:
    directory = NameDirectory(PlayerStore(service.store), limit=100)
    await _other_worker_saves(service, "p1", "Ada")
    await directory.sync()
    assert directory.complete
    assert await directory.get(["p1", "p2"]) == {"p1": "Ada", "p2": None}

    await _other_worker_saves(service, "p2", "Grace")
    await _other_worker_saves(service, "p1", None)
    assert await directory.get(["p2"]) == {"p2": None}  # not synced yet
    await directory.sync()
    assert await directory.get(["p1", "p2"]) == {"p1": None, "p2": "Grace"}

    directory.put("p3", "Linus")  # a change made through this worker shows at once
    assert await directory.get(["p3"]) == {"p3": "Linus"}


async def test_beyond_the_limit_names_are_looked_up(service: Rankline) -> None:
    for n in range(3):
        await _other_worker_saves(service, f"p{n}", f"name {n}")
    directory = NameDirectory(PlayerStore(service.store), limit=2)
    await directory.sync()
    assert not directory.complete
    found = await directory.get(["p0", "p2", "nobody"])
    assert found == {"p0": "name 0", "p2": "name 2", "nobody": None}


async def test_reads_show_names_from_the_replica(settings: Settings, clock: ManualClock) -> None:
    service = Rankline(settings, clock=clock)
    await service.start(wait_ready=True)
    try:
        await _other_worker_saves(service, "p1", "Ada")
        await service.names.sync()
        assert await service.names.get(["p1", "p9"]) == {"p1": "Ada", "p9": None}
    finally:
        await service.close()
