"""Settings, declared once. Each is read from a ``RANKLINE_*`` environment variable, or
from the file that ``RANKLINE_*_FILE`` names (a mounted secret).

``rankline settings`` and the README list them; a test fails when one of them is not
documented in the README.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any, Literal

from limits import parse_many
from pydantic import Field, SecretStr, field_validator
from pydantic.fields import FieldInfo
from pydantic_settings import (
    BaseSettings,
    PydanticBaseSettingsSource,
    SettingsConfigDict,
    SettingsError,
)
from sqlalchemy.engine import make_url

FILE_SUFFIX = "_FILE"


def _sqlite_cache_mb() -> int:
    """1/256 of the machine's memory, between 16 and 64 MiB: room for the upper B-tree pages
    of a big store and for a batch's changes. More was slower at ten million players (every
    page new to a growing cache is fresh memory to fault in; the operating system caches the
    file anyway)."""
    try:
        memory = os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError):
        return 64
    return max(16, min(64, memory // 256 // 2**20))


_ORIGIN = re.compile(r"https?://(?:[A-Za-z0-9.-]+|\[[0-9A-Fa-f:.]+\])(?::[0-9]{1,5})?")
"""An origin as browsers send it: scheme, host and port, no path."""


def _split(value: str) -> list[str]:
    return [part.strip() for part in value.split(",") if part.strip()]


class _SecretFiles(PydanticBaseSettingsSource):
    """``RANKLINE_<NAME>_FILE=path``: the setting's value is the file's content, without its
    surrounding whitespace. This is how Docker and compose secrets (``/run/secrets/...``) and
    Kubernetes Secret volumes hand over a value; setting both variables is an error."""

    def get_field_value(self, field: FieldInfo, field_name: str) -> tuple[Any, str, bool]:
        return None, field_name, False  # __call__ reads them all

    def __call__(self) -> dict[str, Any]:
        values: dict[str, Any] = {}
        for name in self.settings_cls.model_fields:
            variable = f"RANKLINE_{name.upper()}"
            path = os.environ.get(variable + FILE_SUFFIX)
            if path is None:
                continue
            if variable in os.environ:
                raise SettingsError(f"set {variable} or {variable}{FILE_SUFFIX}, not both")
            try:
                values[name] = Path(path).read_text(encoding="utf-8").strip()
            except OSError as exc:
                raise SettingsError(
                    f"{variable}{FILE_SUFFIX}: cannot read {path}: {exc.strerror}"
                ) from exc
        return values


class Settings(BaseSettings):
    """rankline's configuration. Every field is ``RANKLINE_<NAME>`` in the environment, or
    the content of the file ``RANKLINE_<NAME>_FILE`` names."""

    model_config = SettingsConfigDict(env_prefix="RANKLINE_", extra="ignore")

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        files = _SecretFiles(settings_cls)
        return init_settings, env_settings, files, dotenv_settings, file_secret_settings

    data_dir: Path = Field(
        Path("rankline-data"),
        description="Directory for the embedded SQLite database (rankline.db, and its "
        "ingestion log rankline-log.db) and the generated server key.",
    )
    database_url: str | None = Field(
        None,
        description="SQLAlchemy async URL of the durable store, e.g. "
        "postgresql+asyncpg://user@host/db. Default: SQLite at DATA_DIR/rankline.db.",
    )
    database_password: SecretStr | None = Field(
        None,
        description="Password of DATABASE_URL's user, replacing any password in the URL; "
        "meant to come from a secret file: RANKLINE_DATABASE_PASSWORD_FILE=/run/secrets/...",
    )
    database_pool_size: int = Field(
        10,
        ge=1,
        description="Connections each server process keeps open to a PostgreSQL or MariaDB "
        "store (not SQLite).",
    )
    database_pool_overflow: int = Field(
        10,
        ge=0,
        description="Connections a PostgreSQL or MariaDB store may open beyond the pool "
        "under load, closed again when returned.",
    )
    redis_url: str | None = Field(
        None,
        description="Redis URL of a shared ranking index, e.g. redis://127.0.0.1:6379/0, or "
        "of a Redis Cluster: redis+cluster://host1:port1,host2:port2 (any seed nodes). "
        "Default: the in-process index (one process only).",
    )
    redis_cluster_wait_replicas: int = Field(
        1,
        ge=0,
        le=16,
        description="On a Redis Cluster: how many replicas must confirm each batch of index "
        "writes (WAIT) before it counts as done; a batch confirmed by fewer is reloaded from "
        "SQL, so a failover loses nothing. 0 for a cluster without replicas.",
    )
    server_keys: str = Field(
        "",
        description="Comma-separated keys accepted for writes. A key may be limited to boards: "
        "`key:game-a-*|game-b-*` writes only boards whose id matches one of the patterns "
        "(`*`, `?`, `[...]` as in shell globs) and cannot change players. If empty, one "
        "unlimited key is generated into DATA_DIR/server-key on first start and printed once.",
    )
    read_keys: str = Field(
        "",
        description="Comma-separated keys required for reads. Empty: reads are public.",
    )
    cors_origins: str = Field(
        "",
        description="Comma-separated origins whose pages may call the API from a browser, "
        "e.g. https://game.example.com, or `*`: any page may read (GET), none may write. "
        "Never with cookies (credentials go in the Authorization header). Empty: no CORS "
        "headers at all.",
    )
    player_jwks_url: str | None = Field(
        None,
        description="URL of the identity provider's JSON Web Key Set (https://.../jwks.json): "
        "requests may then carry a player's token (`Authorization: Bearer <JWT>`, signed "
        "RS256/384/512, PS256/384/512, ES256/384/512 or EdDSA by a key of the set) and call as "
        "that player. Needs PLAYER_JWT_ISSUER and PLAYER_JWT_AUDIENCE.",
    )
    player_jwt_secret: SecretStr | None = Field(
        None,
        description="A shared secret (at least 32 bytes) that verifies players' tokens signed "
        "HS256, for studios that mint their own: instead of PLAYER_JWKS_URL, not with it.",
    )
    player_jwt_issuer: str | None = Field(
        None,
        description="The `iss` every player token must carry (required with PLAYER_JWKS_URL).",
    )
    player_jwt_audience: str | None = Field(
        None,
        description="The `aud` every player token must carry (required with PLAYER_JWKS_URL).",
    )
    player_claim: str = Field(
        "sub",
        min_length=1,
        description="The token claim that holds the player id (which must be a valid player "
        "id: 1 to 64 letters, digits and `_.:@-`).",
    )
    player_jwks_max_stale_seconds: float = Field(
        3600.0,
        gt=0,
        description="How long the identity provider's keys last fetched keep verifying tokens "
        "while it cannot be reached; beyond it, player tokens answer 503.",
    )
    player_jwks_refetch_seconds: float = Field(
        5.0,
        ge=1,
        le=300,
        description="Least time between two fetches of the key set: a token naming a key "
        "(`kid`) not in the set fetches it again at most this often.",
    )
    host: str = Field("127.0.0.1", description="Interface `rankline serve` listens on.")
    port: int = Field(8000, ge=0, le=65535, description="Port `rankline serve` listens on.")
    grpc_port: int | None = Field(
        None,
        ge=0,
        le=65535,
        description="Port of the gRPC API (rankline.v1, docs/clients.md), served by "
        "`rankline serve` beside HTTP on HOST, in the same processes. Unset: no gRPC.",
    )
    log_level: Literal["debug", "info", "warning", "error"] = Field(
        "info", description="Log level of the server."
    )
    log_format: Literal["text", "json"] = Field(
        "text",
        description="Format of the server's log lines on stderr: text, or json (one JSON "
        "object per line: time, level, logger, message, request_id; and one line per "
        "request with its board, status and duration).",
    )
    server: Literal["uvicorn", "granian"] = Field(
        "granian",
        description="The HTTP server `rankline serve` runs: granian (Rust; every worker a "
        "process of its own; faster on reads, docs/performance.md) or uvicorn (uvloop, "
        "httptools).",
    )
    max_body_bytes: int = Field(
        4 * 1024 * 1024, ge=1024, description="Largest request body accepted (413 above)."
    )
    max_metadata_bytes: int = Field(
        4096,
        ge=2,
        description="Largest `metadata` of a score submission or a player profile, in bytes "
        "of compact JSON (422 above).",
    )
    write_queue_max: int = Field(
        20_000,
        ge=1,
        description="Score submissions that may wait for the writer, a memory guard; while "
        "this many wait, writes answer 429 with Retry-After and record nothing.",
    )
    write_deadline_ms: int = Field(
        1000,
        ge=1,
        le=600_000,
        description="Deadline of a score submission, from when the server received it: a "
        "write is admitted only when the wait it would meet (what is queued ahead of it over "
        "the rate writes were committed at lately, plus its own size) fits in what is left of "
        "it, else it answers 429 at once with Retry-After and records nothing. A client's "
        "Request-Timeout header (or gRPC deadline) applies when smaller. Asynchronous "
        "submissions are admitted the same way by the wait for the ingestion log.",
    )
    write_hold_early: bool = Field(
        True,
        description="Hold a write that comes on an HTTP/1.1 connection before the Retry-After "
        "of that connection's last overload refusal has passed: it waits, unread, until then "
        "(at most the write deadline), and is then taken as any other, its deadline counted "
        "from when it came. A client that resends at once after a 429 is then paced by the "
        "Retry-After it ignores. false answers every write at once.",
    )
    rate_limits: bool = Field(
        True,
        description="Apply the RATE_LIMIT_* limits (per server process). false turns them off.",
    )
    rate_limit_key_writes: str = Field(
        "20000/second",
        description="Write requests per key, e.g. `20000/second` or `100/second;5000/minute`; "
        "429 with Retry-After beyond it. Empty: no limit.",
    )
    rate_limit_key_reads: str = Field(
        "20000/second",
        description="Read requests per key (reads that send one), as RATE_LIMIT_KEY_WRITES.",
    )
    rate_limit_address_writes: str = Field(
        "20000/second",
        description="Write requests per client IP address, as RATE_LIMIT_KEY_WRITES.",
    )
    rate_limit_address_reads: str = Field(
        "20000/second",
        description="Read requests per client IP address, as RATE_LIMIT_KEY_WRITES.",
    )
    rate_limit_player_writes: str = Field(
        "10/second",
        description="Write requests per player calling with a token (counted by player id), "
        "as RATE_LIMIT_KEY_WRITES.",
    )
    rate_limit_player_reads: str = Field(
        "50/second",
        description="Read requests per player calling with a token (counted by player id), "
        "as RATE_LIMIT_KEY_WRITES.",
    )
    commit_max_batch: int = Field(
        2000, ge=1, description="Most submissions written in one group-commit transaction."
    )
    commit_linger_ms: float = Field(
        0.0,
        ge=0,
        le=1000,
        description="How long the writer waits for more submissions before committing a "
        "batch. 0 commits as soon as the previous commit ends (batches still form under load).",
    )
    names_in_memory: int = Field(
        1_000_000,
        ge=0,
        description="Keep every display name in memory (synced from SQL every 2 s) while the "
        "store holds at most this many; beyond it, names are looked up per read and cached 5 s.",
    )
    hot_read_ttl_ms: float = Field(
        250.0,
        ge=0,
        le=60_000,
        description="How long one player's rank or neighbours answer is shared by identical "
        "reads (single-flight for hot players; `as_of` shows its age). Writes through the same "
        "server make it fresh at once. 0 turns it off.",
    )
    clock_skew_seconds: int = Field(
        30, ge=0, description="How far in the future a submission's `at` may be (422 beyond)."
    )
    sqlite_synchronous: Literal["FULL", "NORMAL"] = Field(
        "FULL",
        description="SQLite fsync mode. FULL survives power loss; NORMAL survives process "
        "crashes only and writes faster.",
    )
    sqlite_cache_mb: int = Field(
        default_factory=_sqlite_cache_mb,
        ge=1,
        description="Page cache of the embedded SQLite's group-commit connection, in MiB: "
        "B-tree pages stay in memory between batches, and a batch's changes until its commit. "
        "Default: 1/256 of RAM, between 16 and 64.",
    )
    index_check_seconds: float = Field(
        0.5,
        gt=0,
        description="How often a shared (Redis) index is checked while degraded or lost.",
    )
    retention_sweep_seconds: float = Field(
        60.0, gt=0, description="How often expired periods are dropped from the ranking index."
    )
    tournament_check_seconds: float = Field(
        1.0,
        gt=0,
        description="How often each worker records the results of tournament editions whose "
        "grace has passed and sends the webhooks due, tournaments' and boards' (each edition's "
        "results and each closed leaderboard's event are recorded and delivered once, "
        "whichever worker gets there first).",
    )
    snapshot_check_seconds: float = Field(
        1.0,
        ge=0,
        description="How often each worker looks for top-K snapshots due on boards with "
        "`snapshots` (each interval's snapshot is taken once, whichever worker gets there "
        "first); 0: this worker takes none.",
    )
    archive_interval_seconds: float = Field(
        60.0,
        gt=0,
        description="How often the scheduler closes the periods whose grace has passed and "
        "archives their final standings to the durable store (one worker does each period).",
    )

    stream_heartbeat_seconds: float = Field(
        15.0,
        gt=0,
        description="How often a live stream (`/stream`, Server-Sent Events) sends a "
        "heartbeat comment, so proxies keep the idle connection open.",
    )

    log_url: str | None = Field(
        None,
        description="Where the ingestion log lives: empty keeps it in a SQLite file of its own "
        "beside a SQLite store (<store>-log.db beside its file: DATA_DIR/rankline-log.db by "
        "default), and in the "
        "database of a PostgreSQL or MariaDB store; sqlite+aiosqlite:///path/log.db names the "
        "SQLite file; nats://host:4222 uses "
        "a NATS JetStream stream, kafka://host:9092 (several brokers: kafka://a:9092,b:9092) a "
        "Kafka or Redpanda topic.",
    )
    log_name: str = Field(
        "rankline",
        pattern=r"^[A-Za-z0-9_-]{1,100}$",
        description="The ingestion log's name: several deployments can share one NATS or "
        "Kafka cluster (or one database) under different names. The stream is rl_<name>, "
        "the topic and consumer group rl.<name>.",
    )
    log_partitions: int = Field(
        16,
        ge=1,
        le=4096,
        description="Partitions of the ingestion log; boards are spread over them by a hash of "
        "their id and each is applied in order by one worker at a time. Fixed when the log is "
        "created: every process must use the same number.",
    )
    log_dedup_window_seconds: float = Field(
        7 * 24 * 3600.0,
        gt=0,
        description="How long the log recognises a retried submission (same board, player "
        "and match_id) and keeps it once.",
    )
    log_lease_seconds: float = Field(
        10.0,
        gt=0,
        le=600,
        description="How long a worker owns a log partition without renewing it; after a "
        "crash, another worker takes the partition over once this has passed.",
    )
    log_apply: bool = Field(
        True,
        description="Whether this worker applies the ingestion log (takes its share of the "
        "partitions): false makes a worker that only takes asynchronous submissions into the "
        "log, which the other workers sharing it apply; at least one must.",
    )
    log_retention_seconds: float = Field(
        14 * 24 * 3600.0,
        gt=0,
        description="How long the ingestion log keeps records: the NATS stream or Kafka "
        "topic's max age (set when it is created); the SQL log's workers delete its applied "
        "records older than this and the dedup window.",
    )

    @field_validator(
        "rate_limit_key_writes",
        "rate_limit_key_reads",
        "rate_limit_address_writes",
        "rate_limit_address_reads",
        "rate_limit_player_writes",
        "rate_limit_player_reads",
    )
    @classmethod
    def _rate_limit(cls, value: str) -> str:
        if value.strip():
            parse_many(value)  # a ValueError names the form it expects
        return value.strip()

    @field_validator("cors_origins")
    @classmethod
    def _origins(cls, value: str) -> str:
        origins = _split(value)
        if "*" in origins and len(origins) > 1:
            raise ValueError("CORS_ORIGINS is either * or a list of origins, not both")
        for origin in origins:
            if origin != "*" and not _ORIGIN.fullmatch(origin):
                raise ValueError(
                    f"{origin!r} is not an origin: scheme://host[:port], no path, "
                    "e.g. https://game.example.com"
                )
        return ",".join(origins)

    @property
    def database(self) -> str:
        if self.database_url and self.database_password is not None:
            url = make_url(self.database_url).set(
                password=self.database_password.get_secret_value()
            )
            return url.render_as_string(hide_password=False)
        if self.database_url:
            return self.database_url
        return f"sqlite+aiosqlite:///{(self.data_dir / 'rankline.db').as_posix()}"

    @property
    def server_key_list(self) -> list[str]:
        return _split(self.server_keys)

    @property
    def read_key_list(self) -> list[str]:
        return _split(self.read_keys)

    @property
    def cors_origin_list(self) -> list[str]:
        return _split(self.cors_origins)

    @property
    def is_embedded(self) -> bool:
        return self.database.startswith("sqlite")


def documented_settings() -> dict[str, str]:
    """Every setting's environment variable and help text."""
    return {
        f"RANKLINE_{name.upper()}": field.description or ""
        for name, field in Settings.model_fields.items()
    }
