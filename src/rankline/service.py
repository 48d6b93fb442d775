"""The rankline service: builds its parts, starts them and stops them. Nothing else.

Each part gets the collaborators it works with, never the service (docs/design.md shows
the wiring):

- ``boards`` (``registry.Boards``): every board definition, current for every request;
  ``board_changes`` creates, updates and deletes them.
- ``gateway`` (``gateway.IndexGateway``): the ranking index, SQL when it cannot answer, the
  archive for periods past retention; ``keeper`` builds, recovers and repairs the index and
  ``health`` says whether reads may use it.
- ``reads`` (``reads.Reads``): every leaderboard read; ``scores`` (``scores.Scores``) and its
  ``writer`` (the group commit): the write path; ``players``: profiles, history, friend
  lists, bans and erasure; ``lifecycle``: closing and archiving periods; ``exports``: a
  leaderboard as the file ``rankline export`` writes; ``runtime_keys``: the server and read
  keys made, listed and revoked at runtime (``rankline.access.keys``).

    service = Rankline(Settings())
    await service.start()
    answer = await service.reads.player(
        PlayerRequest(board_id="arena-solo", window="daily", player_id="p:42")
    )
"""

from __future__ import annotations

import asyncio
import gc
import logging
import time
from collections.abc import AsyncIterator, Awaitable
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING, Any

from rankline.access.keys import RuntimeKeys
from rankline.audit.log import Audit
from rankline.errors import RanklineError
from rankline.index.base import BoardShapes, RankingIndex, SharedIndex
from rankline.index.gateway import CheckedVersions, IndexGateway
from rankline.index.keeper import IndexHealth, IndexKeeper
from rankline.index.memory import MemoryIndex
from rankline.index.sharded import ShardedIndex
from rankline.index.sharded_shared import ShardedShared
from rankline.lifecycle.closing import Lifecycle
from rankline.lifecycle.events import BoardEvents
from rankline.lifecycle.snapshots import Snapshots
from rankline.log.factory import logs_for
from rankline.moderation.entries import Moderation
from rankline.players.accounts import Players
from rankline.ratings.matches import Matches
from rankline.ratings.rated import Handoff, MatchApplier
from rankline.reading.cache import HotReads, TopCache
from rankline.reading.export import Exports
from rankline.reading.feed import LocalFeed
from rankline.reading.metadata import EntryMetadata
from rankline.reading.names import NAME_TTL_SECONDS, NameDirectory
from rankline.reading.reads import Reads
from rankline.reading.snapshots import SnapshotReads
from rankline.registry import BoardChanges, Boards
from rankline.runtime.clock import SystemClock
from rankline.settings import Settings
from rankline.store import migrate
from rankline.store.archive import ArchivedPeriod
from rankline.store.audit import AuditStore
from rankline.store.cohorts import CohortStore
from rankline.store.dead_letters import DeadLetters
from rankline.store.deliveries import BoardDeliveries
from rankline.store.keys import KeyStore
from rankline.store.lock import embedded_lock
from rankline.store.players import PlayerStore
from rankline.store.ratings import RatingStore
from rankline.store.recent_submissions import RecentSubmissions
from rankline.store.snapshots import SnapshotStore
from rankline.store.sql import SqlStore
from rankline.store.tournaments import TournamentStore
from rankline.tournaments.editions import Tournaments
from rankline.tournaments.webhooks import Webhooks
from rankline.types import Clock, LeaderboardId
from rankline.writing.admission import Admission
from rankline.writing.batches import ScoreBatch
from rankline.writing.client_rules import ClientWrites
from rankline.writing.cohorts import Cohorts
from rankline.writing.commit_lock import CommitLock
from rankline.writing.ingest import AsyncIngest
from rankline.writing.scores import Scores
from rankline.writing.validator import Validators
from rankline.writing.writer import GroupCommitWriter

if TYPE_CHECKING:
    from rankline.index.redis.link import RedisLink

log = logging.getLogger("rankline")
_BOARD_REFRESH_SECONDS = 2.0
_CLOSE_SECONDS = 10.0


async def _bounded(step: str, work: Awaitable[Any], seconds: float = _CLOSE_SECONDS) -> None:
    started = time.perf_counter()
    try:
        await asyncio.wait_for(work, seconds)
    except TimeoutError:
        log.error("closing the %s took over %.0f s; giving up on it", step, seconds)
        for task in asyncio.all_tasks():
            log.error("still running: %r", task, stack_info=False)
            for frame in task.get_stack():
                log.error(
                    "    %s:%d %s", frame.f_code.co_filename, frame.f_lineno, frame.f_code.co_name
                )
        return
    elapsed = time.perf_counter() - started
    if elapsed > 1:
        log.warning("closing the %s took %.1f s", step, elapsed)


def make_link(settings: Settings) -> RedisLink | None:
    """The Redis (or Redis Cluster) that holds the index when RANKLINE_REDIS_URL is set;
    None for the in-process index."""
    if not settings.redis_url:
        return None
    from rankline.index.redis.cluster import ClusterLink, cluster_seeds
    from rankline.index.redis.link import RedisLink

    if cluster_seeds(settings.redis_url) is not None:
        return ClusterLink(settings.redis_url, wait_replicas=settings.redis_cluster_wait_replicas)
    return RedisLink(settings.redis_url)


def make_feed(link: RedisLink | None) -> LocalFeed:
    """The change feed: Redis pub/sub when the index is shared in Redis, else in-process
    (redis-py is then never imported)."""
    if link is None:
        return LocalFeed()
    from rankline.reading.redis_feed import RedisFeed

    return RedisFeed(link.url)


def make_index(
    link: RedisLink | None, shapes: BoardShapes
) -> tuple[RankingIndex, SharedIndex | None]:
    """The index backend on ``link`` with the lifecycle of a shared one, or the in-process
    index (which has none)."""
    if link is None:
        return MemoryIndex(shapes), None
    from rankline.index.redis.index import RedisIndex

    return RedisIndex(link, shapes), link.shared_index(shapes)


class Rankline:
    """One rankline instance: a durable store, a ranking index and the parts over them."""

    def __init__(
        self,
        settings: Settings,
        *,
        clock: Clock | None = None,
        auto_migrate: bool | None = None,
        freeze_gc: bool = False,
    ) -> None:
        self.settings = settings
        self._freeze_gc = freeze_gc
        """Freeze the objects alive after the index build (a serving process's choice)."""
        self._auto_migrate = settings.is_embedded if auto_migrate is None else auto_migrate
        self.clock: Clock = clock or SystemClock()
        clock = self.clock
        self.store = store = SqlStore.from_settings(settings)
        link = make_link(settings)
        self._data_dir_lock = embedded_lock(
            settings.data_dir, settings.database, shared_index=link is not None
        )
        """Held while started: one server per data directory on the embedded store."""

        self.health = health = IndexHealth("memory" if link is None else link.name, clock)
        versions = None if link is None else CheckedVersions(link.board_versions(), health)
        self.boards = boards = Boards(store, clock, versions)
        backend, shared = make_index(link, boards)
        self.index = index = ShardedIndex(backend, boards.shards_of)
        """The backend, with each board's leaderboards split over its ``shards``."""
        self.shared = None if shared is None else ShardedShared(shared, backend, boards.shards_of)
        """The lifecycle of a shared index (Redis), shards included; None in-process."""
        self.keeper = keeper = IndexKeeper(
            index,
            health,
            store,
            clock,
            boards,
            shared=self.shared,
            check_seconds=settings.index_check_seconds,
        )
        self.gateway = gateway = IndexGateway(keeper, store, boards.keys_of, clock)
        self.feed = make_feed(link)
        """Which leaderboards changed, for live streams (in-process or Redis pub/sub)."""
        commit_lock = CommitLock()
        self.writer = writer = GroupCommitWriter(
            store,
            gateway,
            clock,
            feed=self.feed,
            commit_lock=commit_lock,
            max_batch=settings.commit_max_batch,
            linger_seconds=settings.commit_linger_ms / 1000,
            max_queued=settings.write_queue_max,
            admission=Admission(settings.write_deadline_ms / 1000),
        )
        self.dead_letters = DeadLetters(store)
        handoff = Handoff()
        rater = MatchApplier(
            store,
            gateway,
            clock,
            commit_lock,
            ready=lambda: writer.running,
            feed=self.feed,
            handoff=handoff,
        )
        ingestion_log, retired_log = logs_for(settings, store_engines=store.log_engines())
        self.ingest = AsyncIngest(
            ingestion_log,
            writer,
            boards,
            self.dead_letters,
            clock,
            matches=rater,
            retired=retired_log,
            apply=settings.log_apply,
            admission=Admission(
                settings.write_deadline_ms / 1000,
                what="the ingestion log's intake",
                unit="appends",
            ),
        )
        """Submissions taken asynchronously: the ingestion log and this process's applier
        (which also rates the matches of rating boards, in log order)."""
        self.ratings = RatingStore(store)
        """Rating boards' matches, rating changes and states in SQL."""
        self.matches = Matches(
            boards,
            self.ingest,
            self.ratings,
            gateway,
            clock,
            clock_skew_seconds=settings.clock_skew_seconds,
            handoff=handoff,
        )
        """Match results on rating boards, and the ratings they give."""
        self.board_changes = BoardChanges(boards, store, index, commit_lock, clock)
        self.lifecycle = lifecycle = Lifecycle(store, clock, boards)
        self.tops = tops = TopCache(NAME_TTL_SECONDS, coalesce=shared is not None)
        """The first entries of each leaderboard as JSON bytes (see ``rankline.reading.cache``)."""
        self.hot = hot = HotReads(settings.hot_read_ttl_ms / 1000)
        """Single-flight for one player's reads, shared for a short TTL."""
        player_store = PlayerStore(store)
        self.names = names = NameDirectory(player_store, settings.names_in_memory)
        self.entry_metadata = entry_metadata = EntryMetadata(store)
        """The metadata of the submissions behind entries, for reads that carry it."""
        self.cohorts = cohorts = Cohorts(CohortStore(store), clock)
        """Each player's cohort per period on boards with ``cohort_size``."""
        self.reads = reads = Reads(
            boards,
            gateway,
            names,
            tops,
            hot,
            store,
            clock,
            metadata=entry_metadata,
            cohort_of=cohorts.scope_for,
        )
        snapshot_store = SnapshotStore(store)
        self.snapshots = Snapshots(snapshot_store, boards, gateway, clock)
        """Takes the top-K snapshots of boards that keep them (one worker per interval)."""
        self.snapshot_reads = SnapshotReads(snapshot_store, boards)
        self.exports = Exports(store, boards, clock)
        self.scores = scores = Scores(
            boards,
            writer,
            gateway,
            clock,
            clock_skew_seconds=settings.clock_skew_seconds,
            cohorts=self.cohorts,
            max_metadata_bytes=settings.max_metadata_bytes,
        )
        self.score_batches = ScoreBatch(scores, boards, self.ingest)
        """Score batches, whichever edge they come by: checked, then written or logged."""
        tournament_store = TournamentStore(store)
        self.tournaments = tournaments = Tournaments(
            tournament_store, boards, self.board_changes, scores, clock
        )
        self.webhooks = Webhooks(tournament_store, tournaments.secret_of, clock)
        """Sends each ended edition's results to its tournament's webhook."""
        self.board_events = BoardEvents(BoardDeliveries(store), boards, clock)
        """Sends each closed leaderboard's final top to its board's webhook."""
        self.players = Players(
            player_store,
            names,
            boards,
            reads,
            gateway,
            health,
            lifecycle,
            tops,
            commit_lock,
            clock,
            self.matches,
            max_metadata_bytes=settings.max_metadata_bytes,
        )
        self.audit = audit = Audit(AuditStore(store.engine), clock)
        """Every change made by hand: who, when, what, why."""
        self.validators = validators = Validators()
        self.client_writes = ClientWrites(
            boards,
            scores,
            gateway,
            RecentSubmissions(store),
            audit.store,
            validators,
            clock,
        )
        """Players' own scores on boards with ``client_writes``: limits and validator."""
        self.moderation = Moderation(
            store, boards, gateway, health, lifecycle, self.ratings, audit, commit_lock, clock
        )
        """Entries removed and leaderboards reset by hand."""
        self.runtime_keys = RuntimeKeys(KeyStore(store), clock)
        """The server and read keys made at runtime, as current on this worker as the store
        was ``REFRESH_SECONDS`` ago (the bootstrap keys are the settings')."""
        # Answers cached for the old definitions go when definitions change; a board made
        # again after a deletion records its periods again.
        boards.on_change(tops.clear)
        boards.on_change(hot.clear)
        boards.on_change(entry_metadata.forget)
        boards.on_change(writer.forget_periods)
        self._tasks: list[asyncio.Task[None]] = []

    async def start(self, *, wait_ready: bool = False) -> None:
        """Connect, check the schema, load boards and build the index in the background.

        ``DataDirInUse`` when another process serves the same embedded data directory."""
        if self._data_dir_lock is not None:
            self._data_dir_lock.acquire()
        try:
            await self.store.start()
            await migrate.ensure_current(self.store.engine, upgrade_if_behind=self._auto_migrate)
        except BaseException:
            if self._data_dir_lock is not None:
                self._data_dir_lock.release()  # a failed start holds nothing
            raise
        await self.players.start()
        await self.runtime_keys.refresh()
        await self.feed.start()
        with self.gateway.degrading():
            await self.index.start()
        await self.boards.start()
        await self.ingest.start()
        if self.shared is not None:
            # Writes go to SQL and a shared index guards by revision, so they need not
            # wait for the build; reads are served from SQL until it is done.
            self.writer.start()
        self._tasks = [
            asyncio.create_task(self._build(), name="rankline-build"),
            asyncio.create_task(self._sweep(), name="rankline-retention"),
            asyncio.create_task(
                self.lifecycle.run(
                    self.settings.archive_interval_seconds, lambda: self.health.stopping
                ),
                name="rankline-archive",
            ),
        ]
        self._tasks.append(
            asyncio.create_task(
                self.tournaments.run(
                    self.settings.tournament_check_seconds,
                    lambda: self.health.stopping,
                    self._send_webhooks,
                ),
                name="rankline-tournaments",
            )
        )
        self._tasks.append(
            asyncio.create_task(
                self.runtime_keys.run(lambda: self.health.stopping), name="rankline-keys"
            )
        )
        if self.settings.snapshot_check_seconds > 0:
            every = self.settings.snapshot_check_seconds
            self._tasks.append(
                asyncio.create_task(
                    self.snapshots.run(every, lambda: self.health.stopping),
                    name="rankline-snapshots",
                )
            )
        if self.shared is not None:
            self._tasks.append(asyncio.create_task(self.keeper.watch(), name="rankline-watch"))
            self._tasks.append(asyncio.create_task(self._refresh_boards(), name="rankline-boards"))
        if wait_ready:
            await self.wait_ready()

    @asynccontextmanager
    async def maintaining(self) -> AsyncIterator[Rankline]:
        """The store (migrated), the boards and the index open, and nothing running: what an
        operator's ``rankline rebuild``, ``verify`` and ``replay`` work with, beside servers."""
        await self.store.start()
        try:
            await migrate.ensure_current(self.store.engine, upgrade_if_behind=False)
            await self.boards.reload()
            await self.index.start()
            try:
                yield self
            finally:
                await self.index.close()
        finally:
            await self.store.close()

    async def _build(self) -> None:
        while not self.health.stopping:
            with self.gateway.degrading():
                await self.keeper.build()
                # Periods whose retention ended while the service was down go now, not at
                # the first sweep.
                await self.keeper.sweep()
                if self._freeze_gc:
                    # The index is millions of long-lived objects: keep them out of every
                    # garbage collection from now on (they are freed by reference counting).
                    gc.freeze()
                break
            await asyncio.sleep(self.settings.index_check_seconds)
        self.writer.start()

    async def _sweep(self) -> None:
        while not self.health.stopping:
            await asyncio.sleep(self.settings.retention_sweep_seconds)
            if self.health.usable:
                with self.gateway.degrading():
                    await self.keeper.sweep()

    async def _refresh_boards(self) -> None:
        """Keep the background work (archiving, retention) on current definitions while no
        request comes; requests check for changes themselves (``Boards.current``)."""
        while not self.health.stopping:
            await asyncio.sleep(_BOARD_REFRESH_SECONDS)
            try:
                await self.boards.refresh()
            except RanklineError as exc:
                log.warning("could not refresh boards: %s", exc.detail)

    async def wait_ready(self) -> None:
        """Wait until the ranking index is built, the periods whose retention ended while
        the service was down are dropped from it, and the writer runs (raises if the build
        failed)."""
        build = self._tasks[0]
        await asyncio.wait({build})
        build.result()

    async def close(self) -> None:
        """Finish queued writes, stop background work and close connections; each step
        is bounded, so a stuck connection cannot hold up a shutdown forever."""
        log.info("stopping: finishing queued writes, then closing connections")
        await _bounded("applier", self.ingest.close())
        await _bounded("writer", self.writer.close())
        await _bounded("player tasks", self.players.close())
        await _bounded("moderation tasks", self.moderation.close())
        await _bounded("validator connections", self.validators.close())
        self.health.stopping = True
        tasks = [*self._tasks, *self.keeper.repairs]
        for task in tasks:
            task.cancel()
        await _bounded("background tasks", asyncio.gather(*tasks, return_exceptions=True))
        await _bounded("change feed", self.feed.close())
        await _bounded("index", self.index.close())
        await _bounded("store", self.store.close())
        if self._data_dir_lock is not None:
            self._data_dir_lock.release()
        log.info("stopped")

    # --- what operators and tests ask of a running instance ------------------------------

    async def expire_periods(self) -> list[LeaderboardId]:
        """Drop the live leaderboards of closed periods whose retention has passed."""
        return await self.keeper.sweep()

    async def finish_tournaments(self) -> list[tuple[str, str, bool]]:
        """Record the results of the editions whose grace has passed and send the webhooks
        due now (what the scheduler does every interval): each attempt's (tournament,
        edition, delivered)."""
        await self.tournaments.finish()
        return await self.webhooks.deliver()

    async def _send_webhooks(self) -> None:
        await self.webhooks.deliver()
        await self.board_events.deliver()

    async def send_board_events(self) -> list[tuple[str, bool]]:
        """Send the period-close events due now (what the scheduler does every
        ``tournament_check_seconds``): each attempt's (board/window/period/scope, delivered)."""
        return await self.board_events.deliver()

    async def archive_periods(self) -> list[ArchivedPeriod]:
        """Archive the closed periods now (what the scheduler does every interval)."""
        return await self.lifecycle.step()


__all__ = ["Rankline", "make_index", "make_link"]
