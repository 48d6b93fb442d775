"""Keys made at runtime (``/v1/keys``) on every stack: created with their secret shown once and
stored only as a hash; listed without secrets; a server key writes, a read key only reads, a
key limited to boards only writes those; revoked and expired keys are refused at once; the
bootstrap keys keep working; the audit log names runtime keys by name and id; only a server
key without board limits manages keys."""

from __future__ import annotations

import asyncio
import hashlib
from typing import Any

import grpc
import httpx
import pytest
from sqlalchemy import select

from helpers_api import AUTH, NOW, SERVER_KEY, assert_problem, error_locs, open_app, open_client
from helpers_backends import EDGE_STACK, selected
from helpers_grpc import rig
from rankline import ManualClock, Settings
from rankline.grpc.gen.rankline.v1 import rankline_pb2 as pb
from rankline.http.app import Application
from rankline.runtime.clock import parse_time
from rankline.store import schema as t

BOOTSTRAP_ACTOR = "key:" + hashlib.sha256(SERVER_KEY.encode()).hexdigest()[:12]
READ_KEY = "bootstrap-read"
LIMITED = "bootstrap-limited"


def bearer(secret: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {secret}"}


async def create(client: httpx.AsyncClient, headers: dict[str, str] = AUTH, **body: Any) -> Any:
    response = await client.post("/v1/keys", json=body, headers=headers)
    assert response.status_code == 201, response.text
    return response.json()


async def put_board(client: httpx.AsyncClient, board: str, headers: dict[str, str]) -> int:
    response = await client.put(f"/v1/boards/{board}", json={}, headers=headers)
    return response.status_code


async def post_score(client: httpx.AsyncClient, board: str, headers: dict[str, str]) -> int:
    body = {"player_id": "p1", "score": 10, "match_id": f"m-{len(headers)}-{board}"}
    response = await client.post(f"/v1/boards/{board}/scores", json=body, headers=headers)
    return response.status_code


@pytest.fixture
def keyed(settings: Settings) -> Settings:
    """Reads need a key; besides the unlimited bootstrap key, one limited to game-a boards."""
    return settings.model_copy(
        update={"read_keys": READ_KEY, "server_keys": f"{SERVER_KEY},{LIMITED}:game-a-*"}
    )


async def test_created_key_is_shown_once_listed_without_secret_and_stored_hashed(
    keyed: Settings, clock: ManualClock
) -> None:
    async with open_app(keyed, clock) as app, open_client(app) as client:
        made = await create(client, name="game-server-eu", role="server")
        assert made["secret"].startswith("rk_") and len(made["secret"]) > 40
        assert made["id"].startswith("key_")
        assert made["role"] == "server" and made["name"] == "game-server-eu"
        assert made["boards"] is None and made["expires_at"] is None
        assert made["created_at"] == NOW and made["created_by"] == BOOTSTRAP_ACTOR
        assert made["state"] == "live"

        listed = await client.get("/v1/keys", headers=AUTH)
        assert listed.status_code == 200, listed.text
        [shown] = listed.json()["keys"]
        assert "secret" not in shown
        assert made["secret"] not in listed.text
        assert shown == {k: v for k, v in made.items() if k != "secret"}

        rows = await _rows(app)
        assert len(rows) == 1
        stored = " ".join(str(value) for value in rows[0])
        assert made["secret"] not in stored
        digest = hashlib.sha256(made["secret"].encode()).hexdigest()
        assert rows[0]._mapping["secret_sha256"] == digest


async def _rows(app: Application) -> list[Any]:
    async with app.state.service.store.engine.connect() as conn:
        return list((await conn.execute(select(t.keys))).all())


async def test_server_key_writes_read_key_only_reads(keyed: Settings, clock: ManualClock) -> None:
    async with open_app(keyed, clock) as app, open_client(app) as client:
        server = bearer((await create(client, name="writer", role="server"))["secret"])
        read = bearer((await create(client, name="page", role="read"))["secret"])
        assert await put_board(client, "arena", server) == 201
        assert await post_score(client, "arena", server) == 200
        top = await client.get("/v1/boards/arena/top", headers=read)
        assert top.status_code == 200 and top.json()["entries"][0]["player_id"] == "p1"
        assert (await client.get("/v1/boards/arena/top", headers=server)).status_code == 200
        assert_problem(await client.get("/v1/boards/arena/top"), 401)
        assert_problem(await client.get("/v1/boards/arena/top", headers=bearer("rk_x")), 403)
        for status in (
            await put_board(client, "arena2", read),
            await post_score(client, "arena", read),
        ):
            assert status == 403
        assert_problem(await client.post("/v1/keys", json={}, headers=read), 403)


async def test_board_limited_key_writes_only_its_boards(
    settings: Settings, clock: ManualClock
) -> None:
    async with open_app(settings, clock) as app, open_client(app) as client:
        made = await create(client, name="game-a", role="server", boards=["game-a-*", "shared"])
        assert made["boards"] == ["game-a-*", "shared"]
        limited = bearer(made["secret"])
        assert await put_board(client, "game-a-duel", limited) == 201
        assert await put_board(client, "shared", limited) == 201
        assert await post_score(client, "game-a-duel", limited) == 200
        assert await put_board(client, "game-b-duel", AUTH) == 201
        refused = await client.post(
            "/v1/boards/game-b-duel/scores",
            json={"player_id": "p1", "score": 1, "match_id": "m1"},
            headers=limited,
        )
        assert "game-a-*|shared" in assert_problem(refused, 403)["detail"]
        assert_problem(await client.delete("/v1/players/p1", headers=limited), 403)
        assert_problem(await client.get("/v1/keys", headers=limited), 403)


async def test_revoked_key_is_refused_at_once_and_revoking_again_changes_nothing(
    settings: Settings, clock: ManualClock
) -> None:
    async with open_app(settings, clock) as app, open_client(app) as client:
        made = await create(client, name="old", role="server")
        key = bearer(made["secret"])
        assert await put_board(client, "arena", key) == 201
        clock.set(parse_time(NOW) + 5_000_000)
        revoked = await client.delete(f"/v1/keys/{made['id']}", headers=AUTH)
        assert revoked.status_code == 200, revoked.text
        body = revoked.json()
        assert body["state"] == "revoked" and body["revoked_by"] == BOOTSTRAP_ACTOR
        assert body["revoked_at"] == "2026-11-21T12:00:05.000Z"
        assert_problem(await client.put("/v1/boards/arena", json={}, headers=key), 403)
        assert_problem(await client.get("/v1/audit", headers=key), 403)

        clock.set(parse_time(NOW) + 9_000_000)
        again = await client.delete(f"/v1/keys/{made['id']}", headers=AUTH)
        assert again.status_code == 200 and again.json() == body
        audit = (await client.get("/v1/audit", headers=AUTH)).json()["items"]
        assert [i["action"] for i in audit if i["action"].startswith("key.")] == [
            "key.revoke",
            "key.create",
        ]
        assert_problem(await client.delete("/v1/keys/key_0000000000000000", headers=AUTH), 404)
        assert error_locs(await client.delete("/v1/keys/no-such!", headers=AUTH)) == [
            ["path", "key id"]
        ]


async def test_expired_key_is_refused_from_its_expiry(
    settings: Settings, clock: ManualClock
) -> None:
    async with open_app(settings, clock) as app, open_client(app) as client:
        expires = parse_time(NOW) + 3_600_000_000
        made = await create(
            client, name="temp", role="server", expires_at="2026-11-21T13:00:00.000Z"
        )
        assert made["expires_at"] == "2026-11-21T13:00:00.000Z"
        key = bearer(made["secret"])
        clock.set(expires - 1)
        assert await put_board(client, "arena", key) == 201
        clock.set(expires)
        assert_problem(await client.put("/v1/boards/arena", json={}, headers=key), 403)
        [shown] = (await client.get("/v1/keys", headers=AUTH)).json()["keys"]
        assert shown["state"] == "expired"


async def test_bootstrap_keys_keep_working_beside_runtime_ones(
    keyed: Settings, clock: ManualClock
) -> None:
    async with open_app(keyed, clock) as app, open_client(app) as client:
        await create(client, name="one", role="server")
        await create(client, name="two", role="read")
        assert await put_board(client, "arena", AUTH) == 201
        assert await put_board(client, "game-a-1", bearer(LIMITED)) == 201
        top = await client.get("/v1/boards/arena/top", headers=bearer(READ_KEY))
        assert top.status_code == 200


async def test_audit_names_runtime_keys_by_name_and_id(
    settings: Settings, clock: ManualClock
) -> None:
    async with open_app(settings, clock) as app, open_client(app) as client:
        made = await create(client, name="deployer", role="server")
        actor = f"key:deployer#{made['id']}"
        key = bearer(made["secret"])
        response = await client.put("/v1/boards/arena?reason=launch", json={}, headers=key)
        assert response.status_code == 201
        other = await create(client, key, name="ci", role="read", expires_at="2027-01-01T00:00:00Z")
        revoked = await client.delete(f"/v1/keys/{other['id']}?reason=leaked", headers=key)
        assert revoked.status_code == 200 and revoked.json()["revoked_by"] == actor

        items = (await client.get("/v1/audit", headers=AUTH)).json()["items"]
        brief = [(i["action"], i["actor"], i.get("reason")) for i in items]
        assert brief == [
            ("key.revoke", actor, "leaked"),
            ("key.create", actor, None),
            ("board.create", actor, "launch"),
            ("key.create", BOOTSTRAP_ACTOR, None),
        ]
        assert items[1]["detail"] == {
            "id": other["id"],
            "name": "ci",
            "role": "read",
            "boards": None,
            "expires_at": "2027-01-01T00:00:00.000Z",
        }
        assert items[0]["detail"] == {"id": other["id"], "name": "ci", "role": "read"}
        text = (await client.get("/v1/audit", headers=AUTH)).text
        assert made["secret"] not in text and other["secret"] not in text


@pytest.mark.edge
async def test_only_an_unlimited_server_key_manages_keys(
    keyed: Settings, clock: ManualClock
) -> None:
    async with open_app(keyed, clock) as app, open_client(app) as client:
        made = await create(client, name="target", role="server")
        limited_runtime = await create(client, name="lim", role="server", boards=["x-*"])
        read_runtime = await create(client, name="reader", role="read")
        for headers in (
            bearer(READ_KEY),
            bearer(LIMITED),
            bearer(limited_runtime["secret"]),
            bearer(read_runtime["secret"]),
        ):
            for method, path in (
                ("POST", "/v1/keys"),
                ("GET", "/v1/keys"),
                ("DELETE", f"/v1/keys/{made['id']}"),
            ):
                response = await client.request(
                    method, path, json={"name": "x", "role": "server"}, headers=headers
                )
                assert_problem(response, 403)
        for method, path in (("POST", "/v1/keys"), ("GET", "/v1/keys")):
            assert_problem(await client.request(method, path), 401)
        listed = (await client.get("/v1/keys", headers=AUTH)).json()["keys"]
        assert [k["state"] for k in listed] == ["live", "live", "live"]


@pytest.mark.edge
@pytest.mark.parametrize(
    ("body", "loc"),
    [
        ({"role": "server"}, ["body"]),
        ({"name": "", "role": "server"}, ["body", "name"]),
        ({"name": "has space", "role": "server"}, ["body", "name"]),
        ({"name": "x" * 65, "role": "server"}, ["body", "name"]),
        ({"name": "ok"}, ["body"]),
        ({"name": "ok", "role": "admin"}, ["body", "role"]),
        ({"name": "ok", "role": "read", "boards": ["a-*"]}, ["body", "boards"]),
        ({"name": "ok", "role": "server", "boards": []}, ["body", "boards"]),
        ({"name": "ok", "role": "server", "boards": ["a b"]}, ["body", "boards", 0]),
        ({"name": "ok", "role": "server", "boards": ["a", "x|y"]}, ["body", "boards", 1]),
        ({"name": "ok", "role": "server", "expires_at": "tomorrow"}, ["body", "expires_at"]),
        ({"name": "ok", "role": "server", "expires_at": NOW}, ["body", "expires_at"]),
        ({"name": "ok", "role": "server", "secret": "mine"}, ["body"]),
    ],
)
async def test_invalid_creations_are_422(
    client: httpx.AsyncClient, body: dict[str, Any], loc: list[Any]
) -> None:
    response = await client.post("/v1/keys", json=body, headers=AUTH)
    assert error_locs(response) == [loc]
    listed = await client.get("/v1/keys", headers=AUTH)
    assert listed.json() == {"keys": []}


@pytest.mark.edge
async def test_keys_are_in_the_openapi_document(client: httpx.AsyncClient) -> None:
    paths = (await client.get("/openapi.json")).json()["paths"]
    assert set(paths["/v1/keys"]) == {"get", "post"}
    assert set(paths["/v1/keys/{key_id}"]) == {"delete"}
    created = paths["/v1/keys"]["post"]["responses"]["201"]["content"]["application/json"]
    assert created["schema"]


@pytest.mark.parametrize("stack", [n for n in selected() if n != EDGE_STACK], indirect=True)
async def test_a_second_app_on_the_same_store_learns_of_keys_on_refresh(
    settings: Settings, clock: ManualClock
) -> None:
    """Two servers on one store (what the workers of one server are; the embedded store has
    one server): what one creates and revokes, the other takes in at its next refresh. Each
    server also refreshes on its own every quarter second, so what the second answers between
    a change and its refresh depends on timing and is not asserted here
    (test_runtime_keys_workers.py measures the delay on a real server)."""
    async with (
        open_app(settings, clock) as first,
        open_app(settings, clock) as second,
        open_client(first) as one,
        open_client(second) as two,
    ):
        made = await create(one, name="shared", role="server")
        key = bearer(made["secret"])
        await second.state.service.runtime_keys.refresh()
        assert (await two.get("/v1/audit", headers=key)).status_code == 200
        assert (await one.delete(f"/v1/keys/{made['id']}", headers=AUTH)).status_code == 200
        await second.state.service.runtime_keys.refresh()
        assert_problem(await two.get("/v1/audit", headers=key), 403)


@pytest.mark.edge
async def test_runtime_keys_over_grpc(settings: Settings, clock: ManualClock) -> None:
    """gRPC answers each RPC through the HTTP request wrapper: a runtime key writes there
    too, a read key cannot, and a revoked key is PERMISSION_DENIED."""
    async with rig(settings, clock) as r:
        made = await create(r.http, name="grpc-writer", role="server")
        reader = await create(r.http, name="grpc-reader", role="read")
        key = (("authorization", f"Bearer {made['secret']}"),)
        await r.stub.PutBoard(pb.PutBoardRequest(board_id="arena"), metadata=key)
        score = pb.ScoreIn(player_id="p1", score=5, match_id="m1")
        submit = pb.SubmitScoreRequest(board_id="arena", body=score)
        assert (await r.stub.SubmitScore(submit, metadata=key)).result.applied
        read_only = (("authorization", f"Bearer {reader['secret']}"),)
        with pytest.raises(grpc.aio.AioRpcError) as refused:
            await r.stub.SubmitScore(submit, metadata=read_only)
        assert refused.value.code() == grpc.StatusCode.PERMISSION_DENIED
        revoked = await r.http.delete(f"/v1/keys/{made['id']}", headers=AUTH)
        assert revoked.status_code == 200
        with pytest.raises(grpc.aio.AioRpcError) as refused:
            await r.stub.SubmitScore(submit, metadata=key)
        assert refused.value.code() == grpc.StatusCode.PERMISSION_DENIED


async def test_concurrent_changes_each_take_their_own_revision(
    settings: Settings, clock: ManualClock
) -> None:
    """Creations and revocations racing on one store each get a revision of their own (the
    loser of a race tries again), so a worker reading the changes since a revision misses
    none of them."""
    async with open_app(settings, clock) as app, open_client(app) as client:
        made = await asyncio.gather(
            *(create(client, name=f"racer-{i}", role="server") for i in range(12))
        )
        revoked = await asyncio.gather(
            *(client.delete(f"/v1/keys/{m['id']}", headers=AUTH) for m in made[:6])
        )
        assert [r.status_code for r in revoked] == [200] * 6
        rows = await _rows(app)
        assert len({row._mapping["revision"] for row in rows}) == 12
        assert max(row._mapping["revision"] for row in rows) == 18
        for m in made[:6]:
            assert_problem(await client.get("/v1/audit", headers=bearer(m["secret"])), 403)
        for m in made[6:]:
            assert (await client.get("/v1/audit", headers=bearer(m["secret"]))).status_code == 200


@pytest.mark.parametrize("stack", [n for n in selected() if n != EDGE_STACK], indirect=True)
async def test_two_servers_racing_for_revisions_both_succeed(
    settings: Settings, clock: ManualClock
) -> None:
    """Two servers on one store create keys at once: the loser of each race for a revision
    tries again, so every creation succeeds with a revision of its own."""
    async with (
        open_app(settings, clock) as first,
        open_app(settings, clock) as second,
        open_client(first) as one,
        open_client(second) as two,
    ):
        made = await asyncio.gather(
            *(create((one, two)[i % 2], name=f"racer-{i}", role="server") for i in range(10))
        )
        assert len({m["id"] for m in made}) == 10
        rows = await _rows(first)
        assert sorted(row._mapping["revision"] for row in rows) == list(range(1, 11))
        await first.state.service.runtime_keys.refresh()
        for m in made:
            assert (await one.get("/v1/audit", headers=bearer(m["secret"]))).status_code == 200


@pytest.mark.edge
async def test_what_the_store_or_the_list_holds_is_no_key(
    settings: Settings, clock: ManualClock
) -> None:
    """Whoever reads the keys table or the list gets nothing to call with: the stored hash,
    the id and the name are refused; so is the secret with a character changed or cut."""
    async with open_app(settings, clock) as app, open_client(app) as client:
        made = await create(client, name="target", role="server")
        secret = made["secret"]
        [row] = await _rows(app)
        tampered = secret[:-1] + ("A" if secret[-1] != "A" else "B")
        for guess in (
            row._mapping["secret_sha256"],
            made["id"],
            made["name"],
            tampered,
            secret[:-1],
        ):
            assert_problem(await client.get("/v1/audit", headers=bearer(guess)), 403)
        assert (await client.get("/v1/audit", headers=bearer(secret))).status_code == 200


@pytest.mark.edge
async def test_a_stored_role_this_version_does_not_know_grants_nothing(
    settings: Settings, clock: ManualClock
) -> None:
    async with open_app(settings, clock) as app, open_client(app) as client:
        made = await create(client, name="odd", role="server")
        async with app.state.service.store.engine.begin() as conn:
            await conn.execute(t.keys.update().values(role="admin", revision=t.keys.c.revision + 1))
        await app.state.service.runtime_keys.refresh()
        assert_problem(await client.get("/v1/audit", headers=bearer(made["secret"])), 403)
