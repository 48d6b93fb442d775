"""``rankline import``: standings from a CSV or JSON-lines file, written as the same
submissions through the API would be, read back through a started service; a second import
of the file counts nothing twice; bad rows are reported with their line."""

from __future__ import annotations

import json
import subprocess
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest
from typer.testing import CliRunner

from helpers_api import AUTH, get_json, put_board, ranking, serve, submit
from helpers_backends import ALL, REDIS_URL, Backend, selected
from helpers_procs import HOST, cli_env, free_port, run_cli, serving
from rankline import Board, BoardSpec, ManualClock, Settings
from rankline.cli import app as cli_app
from rankline.errors import Conflict, NotFound
from rankline.runtime.clock import parse_time
from rankline.store.sql import SqlStore
from rankline.writing.importing import (
    ImportRefused,
    Rejected,
    Row,
    RowReader,
    Summary,
    derived_match_id,
    format_of,
    import_file,
)

NOW = parse_time("2026-11-21T12:00:00Z")  # the conftest clock's start
ARENA = {"windows": ["all_time", "daily"], "scopes": ["region"], "policy": "best"}


def _board(**spec: Any) -> Board:
    return Board.define("arena", BoardSpec(**{**ARENA, **spec}))


def _write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def _read(path: Path, board: Board | None = None, **options: Any) -> list[Row | Rejected]:
    reader = RowReader(path, format_of(path, None), board or _board(), now=NOW, **options)
    return list(reader.rows())


def _rejected(items: list[Row | Rejected]) -> list[tuple[int, str]]:
    return [(item.line, item.reason) for item in items if isinstance(item, Rejected)]


# --- reading and checking rows ----------------------------------------------------------------


def test_csv_rows_with_optional_columns_and_scopes(tmp_path: Path) -> None:
    path = _write(
        tmp_path,
        "old board.csv",
        "\ufeff player_id , score,achieved_at,match_id,region\n"
        "p:1,1200,2026-01-05T10:00:00Z,m-1,eu\r\n"
        "p:2, -5 ,,,\n"
        "\n"
        ",,,,\n"
        "p:3,7,2026-01-05T10:00:00+01:00,,na\n",
    )
    rows = _read(path, skew_micros=0)
    assert rows == [
        Row(2, "p:1", 1200, parse_time("2026-01-05T10:00:00Z"), "m-1", {"region": "eu"}, {}),
        Row(3, "p:2", -5, None, derived_match_id(path, 3), {}, {}),
        Row(
            6,
            "p:3",
            7,
            parse_time("2026-01-05T09:00:00Z"),
            derived_match_id(path, 6),
            {"region": "na"},
            {},
        ),
    ]


def test_a_derived_match_id_is_the_file_name_and_line(tmp_path: Path) -> None:
    assert derived_match_id(Path("/x/standings.csv"), 7) == "import:standings.csv:7"
    assert derived_match_id(Path("/elsewhere/standings.csv"), 7) == "import:standings.csv:7"
    odd = derived_match_id(Path("old board é.csv"), 7)
    assert odd.startswith("import:old_board__.csv~") and odd.endswith(":7")
    assert odd != derived_match_id(Path("old_board__.csv"), 7)
    long = derived_match_id(Path("x" * 300 + ".csv"), 123456)
    assert len(long) <= 128 and long.endswith(":123456")


def test_csv_bad_rows_are_rejected_with_their_line(tmp_path: Path) -> None:
    path = _write(
        tmp_path,
        "bad.csv",
        "player_id,score,achieved_at,match_id,region\n"
        "p:1,12.5,,,\n"  # 2
        "p:2,abc,,,\n"  # 3
        "p:3,99999999999999999999,,,\n"  # 4: above 2^63 - 1
        "bad id,1,,,\n"  # 5
        "p:4,1,2026-01-05 10:00:00,,\n"  # 6: no offset
        "p:5,1,2026-12-01T00:00:00Z,,\n"  # 7: the future
        "p:6,1,,has space,\n"  # 8
        "p:7,1,,,mars!\n"  # 9
        "p:8,1,,\n"  # 10: a field short
        '"p:9",1,,"multi\nline",eu\n'  # 11-12: a quoted line break is no match id
        "p:10,-1,,,\n"  # 13: below min_score
        ",1,,,\n"  # 14
        "p:11,,,,\n"  # 15
        "p:12,3,,,eu\n",  # 16: good
    )
    items = _read(path, _board(min_score=0), skew_micros=30_000_000)
    assert _rejected(items) == [
        (2, "score: not a 64-bit integer: '12.5'"),
        (3, "score: not a 64-bit integer: 'abc'"),
        (4, "score: not a 64-bit integer: '99999999999999999999'"),
        (5, "player_id: 'bad id' is not a player id"),
        (6, "achieved_at: expected an RFC 3339 time such as 2026-11-21T22:30:00.000Z"),
        (7, "achieved_at: in the future"),
        (8, "match_id: 'has space' is not a match id"),
        (9, "scope region: 'mars!' is not a scope value"),
        (10, "4 fields, where the header has 5"),
        (11, "match_id: 'multi\\nline' is not a match id"),
        (13, "the score is below min_score 0"),
        (14, "player_id: missing"),
        (15, "score: missing"),
    ]
    assert [item.line for item in items if isinstance(item, Row)] == [16]


@pytest.mark.parametrize(
    ("header", "complaint"),
    [
        ("player_id,achieved_at", "the header has no score column"),
        ("score,region", "the header has no player_id column"),
        ("player_id,score,score", "the header names 'score' twice"),
        ("player_id,score,platform", "column 'platform' is neither"),
        ("player_id,score,at,achieved_at", "give achieved_at or at, not both"),
    ],
)
def test_a_bad_header_refuses_the_file(tmp_path: Path, header: str, complaint: str) -> None:
    path = _write(tmp_path, "h.csv", f"{header}\np:1,1\n")
    with pytest.raises(ImportRefused, match=complaint):
        _read(path, skew_micros=0)


def test_jsonl_rows_take_the_csv_fields_or_a_submission_body(tmp_path: Path) -> None:
    lines = [
        {"player_id": "p:1", "score": 10, "achieved_at": "2026-01-05T10:00:00Z", "region": "eu"},
        {
            "player_id": "p:2",
            "score": 20,
            "match_id": "m-2",
            "at": "2026-01-05T10:00:00Z",
            "scopes": {"region": "na"},
            "metadata": {"map": "dust"},
        },
        {"player_id": "p:3", "score": 30, "region": None, "match_id": None},
    ]
    path = _write(tmp_path, "s.jsonl", "".join(json.dumps(x) + "\n" for x in lines) + "\n")
    at = parse_time("2026-01-05T10:00:00Z")
    assert _read(path, skew_micros=0) == [
        Row(1, "p:1", 10, at, "import:s.jsonl:1", {"region": "eu"}, {}),
        Row(2, "p:2", 20, at, "m-2", {"region": "na"}, {"map": "dust"}),
        Row(3, "p:3", 30, None, "import:s.jsonl:3", {}, {}),
    ]


def test_jsonl_bad_rows_are_rejected_with_their_line(tmp_path: Path) -> None:
    path = _write(
        tmp_path,
        "bad.ndjson",
        '{"player_id": "p:1", "score": 1\n'
        "[1, 2]\n"
        '{"player_id": "p:2", "score": true}\n'
        '{"player_id": "p:3", "score": "5"}\n'
        '{"player_id": 4, "score": 5}\n'
        '{"player_id": "p:5", "score": 5, "platform": "pc"}\n'
        '{"player_id": "p:6", "score": 5, "metadata": {"x": "' + "y" * 100 + '"}}\n'
        '{"player_id": "p:7", "score": 5, "metadata": [1]}\n'
        '{"player_id": "p:8", "score": 5, "scopes": {"region": 3}}\n'
        '{"player_id": "p:9", "score": 5}\n',
    )
    items = _read(path, skew_micros=0, max_metadata_bytes=64)
    rejected = _rejected(items)
    assert [line for line, _ in rejected] == [1, 2, 3, 4, 5, 6, 7, 8, 9]
    assert rejected[0][1].startswith("not JSON")
    assert rejected[1:] == [
        (2, "not a JSON object"),
        (3, "score: not an integer: True"),
        (4, "score: not an integer: '5'"),
        (5, "player_id: not a string: 4"),
        (6, "the board declares no scope 'platform'"),
        (7, "metadata: longer than 64 bytes as JSON"),
        (8, "metadata: not a JSON object"),
        (9, "scope region: not a string: 3"),
    ]
    assert [item.line for item in items if isinstance(item, Row)] == [10]


def test_the_format_comes_from_the_extension_unless_given() -> None:
    assert format_of(Path("a.CSV"), None) == "csv"
    assert format_of(Path("a.jsonl"), None) == "jsonl"
    assert format_of(Path("a.ndjson"), None) == "jsonl"
    assert format_of(Path("a.txt"), "csv") == "csv"
    with pytest.raises(ValueError, match="--format csv or --format jsonl"):
        format_of(Path("a.txt"), None)
    with pytest.raises(ValueError, match="must be one of"):
        format_of(Path("a.csv"), "xml")


# --- into the store, read back through a started service --------------------------------------

_STORES = [name for name in ("memory-sqlite", "memory-postgresql") if name in selected()]


@pytest.fixture(params=_STORES)
def stack(request: pytest.FixtureRequest) -> Backend:
    """SQLite and PostgreSQL under the in-process index, which loads what was imported
    when the service starts."""
    return ALL[request.param]


@asynccontextmanager
async def _store(settings: Settings) -> AsyncIterator[SqlStore]:
    store = SqlStore(settings.database)
    await store.start()
    try:
        yield store
    finally:
        await store.close()


async def _import(
    settings: Settings, clock: ManualClock, path: Path, board: str, **options: Any
) -> Summary:
    async with _store(settings) as store:
        return await import_file(store, path, board, clock=clock, **options)


async def _define(settings: Settings, clock: ManualClock, **boards: dict[str, Any]) -> None:
    async with serve(settings, clock) as client:
        for board_id, spec in boards.items():
            await put_board(client, board_id, **spec)


STANDINGS = (
    "player_id,score,achieved_at,region\n"
    "p:1,1200,2026-11-21T09:00:00Z,eu\n"
    "p:2,1500,2026-11-21T10:00:00Z,na\n"
    "p:3,900,2026-11-20T10:00:00Z,eu\n"  # a closed day
    "p:4,1500,2026-11-21T09:30:00Z,eu\n"  # ties p:2 and got there first
    "p:1,1100,2026-11-21T11:00:00Z,eu\n"  # lower: the best policy keeps 1200
    "p:5,oops,,\n"
)


async def test_a_csv_import_reads_back_ranked_and_a_second_import_counts_nothing_twice(
    settings: Settings, clock: ManualClock, tmp_path: Path
) -> None:
    await _define(settings, clock, arena=ARENA)
    path = _write(tmp_path, "standings.csv", STANDINGS)

    first = await _import(settings, clock, path, "arena", batch=2)
    assert (first.read, first.imported, first.changed, first.duplicates) == (6, 5, 4, 0)
    assert first.first_rejected == [Rejected(7, "score: not a 64-bit integer: 'oops'")]

    async def check(client: httpx.AsyncClient) -> None:
        everyone = [("p:4", 1500), ("p:2", 1500), ("p:1", 1200), ("p:3", 900)]
        assert await ranking(client, "arena") == everyone
        assert await ranking(client, "arena", scope="region:eu") == [
            ("p:4", 1500),
            ("p:1", 1200),
            ("p:3", 900),
        ]
        # p:3's day had closed: its score went to all_time only, as a submission's would
        today = [("p:4", 1500), ("p:2", 1500), ("p:1", 1200)]
        assert await ranking(client, "arena", window="daily") == today
        player = await get_json(client, "/v1/boards/arena/players/p:1")
        assert (player["rank"], player["score"]) == (3, 1200)
        assert player["achieved_at"] == "2026-11-21T09:00:00.000Z"

    async with serve(settings, clock) as client:
        await check(client)

    again = await _import(settings, clock, path, "arena")
    assert (again.read, again.imported, again.changed, again.duplicates) == (6, 0, 0, 5)
    assert again.rejected == 1
    async with serve(settings, clock) as client:
        await check(client)
        history = await get_json(client, "/v1/players/p:1/history", board="arena")
        assert [item["score"] for item in history["items"]] == [1100, 1200]


async def test_a_jsonl_import_into_a_sum_board_adds_each_row_once(
    settings: Settings, clock: ManualClock, tmp_path: Path
) -> None:
    await _define(settings, clock, xp={"policy": "sum"})
    rows = [
        {"player_id": "p:1", "score": 10, "match_id": "a"},
        {"player_id": "p:2", "score": 25},
        {"player_id": "p:1", "score": 30, "match_id": "b"},
        {"player_id": "p:1", "score": 30, "match_id": "b"},  # the same row twice: once
        {"player_id": "p:3", "score": 5, "achieved_at": "2026-11-01T00:00:00Z"},
    ]
    path = _write(tmp_path, "xp.jsonl", "".join(json.dumps(r) + "\n" for r in rows))
    for _ in range(2):
        await _import(settings, clock, path, "xp")
    async with serve(settings, clock) as client:
        assert await ranking(client, "xp") == [("p:1", 40), ("p:2", 25), ("p:3", 5)]


async def test_an_import_leaves_what_the_same_submissions_through_the_api_leave(
    settings: Settings, clock: ManualClock, tmp_path: Path
) -> None:
    spec = {"windows": ["all_time", "weekly"], "scopes": ["region"], "policy": "latest"}
    await _define(settings, clock, api=spec, imported=spec)
    rows = [
        ("p:1", 50, "2026-11-02T10:00:00.000Z", "eu"),  # a closed week: all_time only
        ("p:2", 70, "2026-11-20T10:00:00.000Z", "na"),
        ("p:1", 40, "2026-11-21T10:00:00.000Z", "eu"),
        ("p:3", 90, "2026-11-21T11:00:00.000Z", ""),
        ("p:2", 10, "2026-11-19T10:00:00.000Z", "na"),  # older than its latest: no change
    ]
    text = "player_id,score,achieved_at,match_id,region\n" + "".join(
        f"{p},{s},{at},m{n},{region}\n" for n, (p, s, at, region) in enumerate(rows)
    )
    assert (
        await _import(settings, clock, _write(tmp_path, "x.csv", text), "imported")
    ).imported == 5
    async with serve(settings, clock) as client:
        for n, (player, score, at, region) in enumerate(rows):
            extra = {"scopes": {"region": region}} if region else {}
            await submit(client, "api", player, score, f"m{n}", at, **extra)
        for query in ({}, {"window": "weekly"}, {"scope": "region:eu"}, {"scope": "region:na"}):
            assert await ranking(client, "imported", **query) == await ranking(
                client, "api", **query
            )
        for player in ("p:1", "p:2", "p:3"):
            answers = [
                await get_json(client, f"/v1/players/{player}/history", board=board)
                for board in ("api", "imported")
            ]
            kept = [
                [(i["match_id"], i["score"], i["at"], i["applied"]) for i in a["items"]]
                for a in answers
            ]
            assert kept[0] == kept[1] and kept[0]
        periods = [await get_json(client, f"/v1/boards/{b}/periods") for b in ("api", "imported")]
        assert periods[0]["periods"] == periods[1]["periods"]


async def test_a_match_id_taken_with_another_score_is_rejected_with_its_line(
    settings: Settings, clock: ManualClock, tmp_path: Path
) -> None:
    await _define(settings, clock, arena=ARENA)
    first = _write(tmp_path, "a.csv", "player_id,score,match_id\np:1,10,m-1\np:2,20,m-2\n")
    second = _write(tmp_path, "b.csv", "player_id,score,match_id\np:2,20,m-2\np:1,11,m-1\n")
    await _import(settings, clock, first, "arena")
    summary = await _import(settings, clock, second, "arena")
    assert (summary.imported, summary.duplicates, summary.rejected) == (0, 1, 1)
    assert summary.first_rejected == [
        Rejected(
            3,
            "match_id 'm-1' of player 'p:1' is already recorded with another score, time or scopes",
        )
    ]


async def test_only_an_existing_board_that_takes_scores_takes_an_import(
    settings: Settings, clock: ManualClock, tmp_path: Path
) -> None:
    await _define(
        settings,
        clock,
        open={},
        frozen={"status": "frozen"},
        elo={"policy": "rating", "rating": {"system": "elo"}},
    )
    path = _write(tmp_path, "s.csv", "player_id,score\np:1,1\n")
    with pytest.raises(NotFound, match="no board 'nope'"):
        await _import(settings, clock, path, "nope")
    with pytest.raises(Conflict, match="frozen"):
        await _import(settings, clock, path, "frozen")
    with pytest.raises(Conflict, match="rating board"):
        await _import(settings, clock, path, "elo")
    future = "2026-11-22T00:00:00Z"
    with pytest.raises(ImportRefused, match="in the future"):
        await _import(settings, clock, path, "open", default_at=parse_time(future))


async def test_many_rows_go_in_transactions_of_the_batch_size(
    settings: Settings, clock: ManualClock, tmp_path: Path
) -> None:
    await _define(settings, clock, arena=ARENA)
    n = 5003
    text = "player_id,score\n" + "".join(f"p:{i},{(i * 7919) % 10007}\n" for i in range(n))
    path = _write(tmp_path, "many.csv", text)
    seen: list[tuple[int, int]] = []
    summary = await _import(
        settings,
        clock,
        path,
        "arena",
        batch=1000,
        progress=lambda b, s: seen.append((b, s.written)),
    )
    assert summary.imported == n
    assert [written for _, written in seen] == [1000, 2000, 3000, 4000, 5000, 5003]
    assert seen[-1][0] == path.stat().st_size
    async with serve(settings, clock) as client:
        top = await ranking(client, "arena")
        scores = sorted(((i * 7919) % 10007 for i in range(n)), reverse=True)
        assert [score for _, score in top] == scores[:1000]


# --- the command ------------------------------------------------------------------------------


def _env(settings: Settings) -> dict[str, str]:
    env = cli_env(settings.data_dir)
    if settings.database_url:
        env["RANKLINE_DATABASE_URL"] = settings.database_url
    if settings.redis_url:
        env["RANKLINE_REDIS_URL"] = settings.redis_url
    env["COLUMNS"] = "200"
    return env


@pytest.mark.parametrize("stack", ["memory-sqlite"], indirect=True)
async def test_the_command_prints_what_it_did_and_exits_1_on_rejected_rows(
    settings: Settings, clock: ManualClock, tmp_path: Path
) -> None:
    await _define(settings, clock, arena=ARENA)
    path = _write(tmp_path, "standings.csv", STANDINGS)
    done = run_cli("import", str(path), "--board", "arena", env=_env(settings))
    assert done.returncode == 1, done.stderr
    lines = done.stderr.strip().splitlines()
    assert lines == [
        "board arena: imported 5 of 6 rows (4 changed a standing); 0 duplicates skipped "
        "(already imported); 1 rejected:",
        "  line 7: score: not a 64-bit integer: 'oops'",
        "servers show these standings once they start: `rankline serve` loads them into its "
        "in-process index (restart a server that is running on this store)",
    ]
    good = _write(tmp_path, "standings.csv", STANDINGS.replace("p:5,oops,,\n", ""))
    again = run_cli("import", str(good), "--board", "arena", "--format", "csv", env=_env(settings))
    assert again.returncode == 0, again.stderr
    assert again.stderr.strip().splitlines() == [
        "board arena: imported 0 of 5 rows (0 changed a standing); 5 duplicates skipped "
        "(already imported); 0 rejected"
    ]
    async with serve(settings, clock) as client:
        assert (await ranking(client, "arena"))[0] == ("p:4", 1500)


@pytest.mark.parametrize("stack", ["memory-sqlite"], indirect=True)
async def test_the_command_says_what_is_wrong_in_one_line(
    settings: Settings, clock: ManualClock, tmp_path: Path
) -> None:
    """Errors found in the store, in the command's own process; the options it refuses
    before opening anything (exit 2), rendered in this one (typer's runner)."""
    await _define(settings, clock, arena=ARENA)
    path = _write(tmp_path, "s.csv", "player_id,score\np:1,1\n")
    env = _env(settings)
    done = run_cli("import", str(path), "--board", "nope", env=env)
    assert done.returncode == 1, done.stderr
    assert done.stderr.strip().startswith("error: no board 'nope' in the durable store: create it")
    assert len(done.stderr.strip().splitlines()) == 1 and "Traceback" not in done.stderr
    usage = [
        ([], "error: --board is required"),
        (["--board", "Not A Board"], "error: --board 'Not A Board' is not a board id"),
        (["--board", "arena", "--format", "xml"], "error: --format must be one of csv"),
        (["--board", "arena", "--at", "yesterday"], "error: --at: expected an RFC 3339"),
    ]
    for options, message in usage:
        refused = CliRunner().invoke(cli_app, ["import", str(path), *options], env=env)
        assert refused.exit_code == 2, refused.output
        assert refused.stdout == "" and refused.stderr.strip().startswith(message), refused.output
        assert len(refused.stderr.strip().splitlines()) == 1, refused.output
    header = _write(tmp_path, "h.csv", "player_id,score,platform\np:1,1\n")
    done = run_cli("import", str(header), "--board", "arena", env=env)
    assert done.returncode == 1
    assert done.stderr.strip() == (
        "error: h.csv: column 'platform' is neither player_id, score, achieved_at nor "
        "match_id, nor a scope of board 'arena' (its scopes: region)"
    )


@pytest.mark.parametrize("stack", ["memory-sqlite"], indirect=True)
def test_the_command_refuses_while_a_server_holds_the_data_dir(
    settings: Settings, tmp_path: Path
) -> None:
    path = _write(tmp_path, "s.csv", "player_id,score\np:1,1\n")
    with serving(settings.data_dir, tmp_path / "server.log", server_keys="k") as server:
        done = run_cli("import", str(path), "--board", "arena", env=_env(settings))
    assert done.returncode == 2, done.stderr
    assert f"is in use by process {server.pid}" in done.stderr


def test_an_unreachable_database_is_one_line(tmp_path: Path) -> None:
    path = _write(tmp_path, "s.csv", "player_id,score\np:1,1\n")
    missing = f"rl_missing_{uuid.uuid4().hex[:12]}"
    env = cli_env(
        tmp_path / "data", database_url=f"postgresql+asyncpg://postgres@{HOST}:5432/{missing}"
    )
    done: subprocess.CompletedProcess[str] = run_cli(
        "import", str(path), "--board", "arena", env=env
    )
    assert done.returncode == 1 and "Traceback" not in done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and f'database "{missing}" does not exist' in lines[0], done.stderr
    env = cli_env(
        tmp_path / "data", database_url=f"postgresql+asyncpg://postgres@{HOST}:{free_port()}/x"
    )
    done = run_cli("import", str(path), "--board", "arena", env=env)
    assert done.returncode == 1 and len(done.stderr.strip().splitlines()) == 1, done.stderr
    assert "cannot use the durable store" in done.stderr


@pytest.mark.parametrize("stack", [b for b in ("redis-sqlite",) if b in selected()], indirect=True)
async def test_a_shared_index_shows_an_import_after_rankline_rebuild(
    settings: Settings, clock: ManualClock, tmp_path: Path
) -> None:
    """What the command's last line says: a server start keeps the shared index it finds
    built, so the import shows once `rankline rebuild` has run."""
    assert settings.redis_url == REDIS_URL
    async with serve(settings, clock) as client:
        await put_board(client, "arena", **ARENA)
        await client.post(
            "/v1/boards/arena/scores",
            json={"player_id": "p:0", "score": 1, "match_id": "x"},
            headers=AUTH,
        )
    path = _write(tmp_path, "standings.csv", STANDINGS.replace("p:5,oops,,\n", ""))
    done = run_cli("import", str(path), "--board", "arena", env=_env(settings))
    assert done.returncode == 0, done.stderr
    assert done.stderr.strip().splitlines()[-1] == (
        "the shared index does not have these standings yet: run `rankline rebuild` "
        "(a server start keeps a shared index already built)"
    )
    async with serve(settings, clock) as client:
        assert await ranking(client, "arena") == [("p:0", 1)]
    rebuilt = run_cli("rebuild", env=_env(settings))
    assert rebuilt.returncode == 0, rebuilt.stderr
    async with serve(settings, clock) as client:
        assert await ranking(client, "arena") == [
            ("p:4", 1500),
            ("p:2", 1500),
            ("p:1", 1200),
            ("p:3", 900),
            ("p:0", 1),
        ]


@pytest.mark.parametrize("stack", ["memory-sqlite"], indirect=True)
async def test_an_import_stopped_midway_keeps_what_it_wrote_and_a_rerun_finishes(
    settings: Settings, clock: ManualClock, tmp_path: Path
) -> None:
    """The board is frozen after the first transaction: the import stops there, and the
    same file imported again (the board open again) writes the rest only."""
    import sqlite3
    from contextlib import closing

    from rankline.store.schema import boards

    await _define(settings, clock, arena=ARENA)
    path = _write(
        tmp_path, "s.csv", "player_id,score\n" + "".join(f"p:{i},{i}\n" for i in range(10))
    )
    database = settings.data_dir / "rankline.db"

    def set_status(status: str) -> None:
        # sqlite3's own context only commits: closing() closes (Python 3.13 warns otherwise)
        with closing(sqlite3.connect(database)) as db, db:
            db.execute(
                f"UPDATE \"{boards.name}\" SET definition = json_set(definition, '$.status', ?)",
                (status,),
            )

    stopped = await _import(
        settings, clock, path, "arena", batch=4, progress=lambda *_: set_status("frozen")
    )
    assert (stopped.imported, stopped.duplicates, stopped.rejected) == (4, 0, 0)
    assert isinstance(stopped.stopped, Conflict) and "frozen" in stopped.stopped.detail
    set_status("active")
    finished = await _import(settings, clock, path, "arena", batch=4)
    assert (finished.imported, finished.duplicates, finished.rejected) == (6, 4, 0)
    async with serve(settings, clock) as client:
        assert await ranking(client, "arena") == [(f"p:{i}", i) for i in reversed(range(10))]
