"""The operators' console at ``/console`` in a real browser (Debian's chromium, headless,
through Playwright), against a real ``rankline serve``: each action done through the page
(a board created and frozen, an entry removed, a match voided, a period reset, a player
banned), then its effect checked through the API; the audit log shows them with their
reasons; a bad definition shows the API's problem; a key limited to one board cannot act on
another from the console. Tournaments are created, opened (current top, an ended edition's
results), changed and deleted from it; its download is the file ``rankline export`` writes,
and ``rankline import`` of it into an empty store gives the same standings. A screenshot
goes to the test's temporary directory, or with ``RANKLINE_UPDATE_SCREENSHOT=1`` to
docs/console.png (the README's picture)."""

from __future__ import annotations

import json
import os
import shutil
import time
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest
from playwright.sync_api import Browser, Dialog, Page, expect, sync_playwright

from helpers_procs import REPO, Server, cli_env, run_cli, serving

pytestmark = pytest.mark.timeout(120)

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking"]
KEY = "console-key"
LIMITED = "limited-key"
AUTH = {"Authorization": f"Bearer {KEY}"}
WAIT_MS = 10_000
SCREENSHOT = REPO / "docs" / "console.png"


@pytest.fixture
def browser() -> Iterator[Browser]:
    if not Path(CHROMIUM).exists() and shutil.which("chromium") is None:
        pytest.fail("chromium is not installed: run `make tools` (apt-get install chromium)")
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=ARGS)
        try:
            yield browser
        finally:
            browser.close()


@pytest.fixture
def server(tmp_path: Path) -> Iterator[Server]:
    keys = f"{KEY},{LIMITED}:game-a*"
    with serving(tmp_path / "data", tmp_path / "server.log", server_keys=keys) as server:
        yield server


def _submit(api: httpx.Client, board: str, player: str, score: int, match: str) -> None:
    body = {"player_id": player, "score": score, "match_id": match}
    response = api.post(f"/v1/boards/{board}/scores", json=body, headers=AUTH)
    assert response.status_code == 200, response.text


def _top(api: httpx.Client, board: str, **params: str) -> list[tuple[str, int]]:
    response = api.get(f"/v1/boards/{board}/top", params=params)
    assert response.status_code == 200, response.text
    return [(e["player_id"], e["score"]) for e in response.json()["entries"]]


def _login(browser: Browser, url: str, key: str, errors: list[str], reasons: list[str]) -> Page:
    """A console page signed in with ``key``; each confirmation is accepted and each
    reason asked for is the next of ``reasons``."""
    page = browser.new_page(viewport={"width": 1100, "height": 760})
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.on(  # a Content-Security-Policy violation is an error too
        "console",
        lambda message: (
            errors.append(message.text) if "Content Security Policy" in message.text else None
        ),
    )

    def answer(dialog: Dialog) -> None:
        if dialog.type == "prompt":
            dialog.accept(reasons.pop(0))
        else:
            dialog.accept()

    page.on("dialog", answer)
    page.goto(url + "/console")
    page.fill("#key", key)
    page.click("#login button")
    return page


def _open_board(page: Page, board: str) -> None:
    page.click("[data-tab=boards]")
    page.get_by_role("link", name=board, exact=True).click()
    expect(page.locator("#board-title")).to_contain_text(board, timeout=WAIT_MS)


def test_each_console_action_shows_through_the_api(
    server: Server, browser: Browser, tmp_path: Path
) -> None:
    errors: list[str] = []
    with httpx.Client(base_url=server.url, timeout=30) as api:
        assert api.get("/static/console.js").status_code == 200
        board = {"title": "Game A", "windows": ["all_time", "daily"]}
        assert api.put("/v1/boards/game-a", json=board, headers=AUTH).status_code == 201
        assert api.put("/v1/boards/other", json={}, headers=AUTH).status_code == 201
        for i, player in enumerate(["ada", "bo", "cy", "dee"]):
            _submit(api, "game-a", player, 10 * (i + 1), f"m-{player}")
            _submit(api, "other", player, i, f"m-{player}")
        _submit(api, "game-a", "ada", 90, "big")
        _submit(api, "game-a", "bo", 80, "big")

        reasons = ["freeze it", "cheater", "bad server", "restart", "smurf"]
        page = _login(browser, server.url, KEY, errors, reasons)
        expect(page.locator("#board-list tbody tr")).to_have_count(2, timeout=WAIT_MS)

        # a board created through the editor; a bad definition shows the API's problem
        page.fill("#edit-id", "game-a-new")
        page.fill("#edit-spec", '{"order": "sideways"}')
        page.click("#editor button")
        expect(page.locator("#error")).to_contain_text("422", timeout=WAIT_MS)
        page.fill("#edit-spec", '{"title": "New", "windows": ["all_time", "weekly"]}')
        page.click("#editor button")
        expect(page.locator("#notice")).to_contain_text("saved", timeout=WAIT_MS)
        assert api.get("/v1/boards/game-a-new").json()["windows"] == ["all_time", "weekly"]
        # frozen from the list
        page.locator("#board-list tr", has_text="game-a-new").get_by_text("Freeze").click()
        expect(page.locator("#notice")).to_contain_text("frozen", timeout=WAIT_MS)
        assert api.get("/v1/boards/game-a-new").json()["status"] == "frozen"

        # a board: the top, an entry removed, a match voided, a period reset
        _open_board(page, "game-a")
        rows = page.locator("#entries tbody tr")
        expect(rows.first).to_contain_text("ada", timeout=WAIT_MS)
        rows.filter(has_text="cy").get_by_text("Remove").click()
        expect(page.locator("#notice")).to_contain_text("removed", timeout=WAIT_MS)
        assert "cy" not in dict(_top(api, "game-a"))
        page.fill("#void-id", "big")
        page.click("#void")
        expect(page.locator("#notice")).to_contain_text("voided", timeout=WAIT_MS)
        assert _top(api, "game-a") == [("dee", 40), ("bo", 20), ("ada", 10)]
        # the removal took cy off the leaderboard shown only: the daily one still has it
        assert _top(api, "game-a", window="daily") == [
            ("dee", 40),
            ("cy", 30),
            ("bo", 20),
            ("ada", 10),
        ]
        page.select_option("#b-window", "daily")
        expect(rows).to_have_count(4, timeout=WAIT_MS)
        page.click("#reset")
        expect(page.locator("#notice")).to_contain_text("restarted", timeout=WAIT_MS)
        assert _top(api, "game-a", window="daily") == []
        assert len(_top(api, "game-a")) == 3

        # players: ban
        page.click("[data-tab=players]")
        page.fill("#player-id", "dee")
        page.click("#player-form button")
        expect(page.locator("#history tbody tr")).to_have_count(2, timeout=WAIT_MS)
        page.click("#ban")
        expect(page.locator("#notice")).to_contain_text("ban: dee", timeout=WAIT_MS)
        assert api.get("/v1/players/dee").json()["banned"] is True

        # tournaments and dead letters
        tournament = {
            "title": "Weekly Cup",
            "order": "desc",
            "policy": "best",
            "starts_at": "2026-01-01T00:00:00Z",
            "ends_at": "2036-01-01T00:00:00Z",
        }
        response = api.put("/v1/tournaments/cup", json=tournament, headers=AUTH)
        assert response.status_code == 201, response.text
        page.click("[data-tab=operations]")
        expect(page.locator("#tournament-list tbody tr")).to_contain_text(
            "Weekly Cup", timeout=WAIT_MS
        )
        expect(page.locator("#dead-total")).to_contain_text("0 dead letter(s)")

        # the audit log, newest first, with the reasons given
        page.click("[data-tab=audit]")
        audit = page.locator("#audit-list tbody tr")
        expect(audit.first).to_contain_text("tournament.create", timeout=WAIT_MS)
        expect(audit.filter(has_text="player.ban")).to_contain_text("smurf")
        for action, reason in [
            ("board.reset", "restart"),
            ("match.void", "bad server"),
            ("entry.remove", "cheater"),
        ]:
            expect(audit.filter(has_text=action)).to_contain_text(reason)
        shot = (
            SCREENSHOT
            if os.environ.get("RANKLINE_UPDATE_SCREENSHOT") == "1"
            else tmp_path / "console.png"
        )
        _open_board(page, "game-a")
        page.select_option("#b-window", "all_time")
        expect(rows).to_have_count(2, timeout=WAIT_MS)
        page.screenshot(path=str(shot), full_page=True)

        # a key limited to game-a*: another board's entry cannot be removed from the console
        page.close()
        limited = _login(browser, server.url, LIMITED, errors, ["not mine", "not mine"])
        _open_board(limited, "other")
        limited.locator("#entries tbody tr", has_text="ada").get_by_text("Remove").click()
        expect(limited.locator("#error")).to_contain_text("403", timeout=WAIT_MS)
        assert "ada" in dict(_top(api, "other"))
        limited.fill("#void-id", "m-bo")
        limited.click("#void")
        expect(limited.locator("#error")).to_contain_text("403", timeout=WAIT_MS)
        assert "bo" in dict(_top(api, "other"))
    assert not errors, errors
    assert reasons == []


def _wait(check: Callable[[], bool], what: str, seconds: float = 60) -> None:
    """Poll ``check`` until it holds: the server's scheduler acts on its own time."""
    deadline = time.monotonic() + seconds
    while not check():
        if time.monotonic() > deadline:
            pytest.fail(f"{what}: not after {seconds} s")
        time.sleep(0.2)


def _instant(delta: timedelta) -> str:
    return (datetime.now(UTC) + delta).strftime("%Y-%m-%dT%H:%M:%SZ")


def test_tournaments_from_the_console(server: Server, browser: Browser) -> None:
    """A tournament created, opened (its current top, an ended edition's results), changed
    and deleted from the console, each checked through the API; a bad definition shows the
    API's problem, and so does an edition without results."""
    errors: list[str] = []

    def cup() -> dict[str, Any]:
        """The definition, timed from now: edition 1 ends in a few seconds (the scores
        below go in it), edition 2 follows it at once and runs ten minutes. Made just
        before it is saved, not before the browser has logged in (slow on a loaded
        machine: edition 1 could be over before the tournament is)."""
        return {
            "title": "Friday Cup",
            "starts_at": _instant(timedelta(seconds=-600)),
            "ends_at": _instant(timedelta(seconds=4)),
            "every_seconds": 604,
            "grace_seconds": 0,
            "rewards": [{"ranks": [1, 1], "reward": {"gems": 5}}],
        }

    with httpx.Client(base_url=server.url, timeout=30) as api:
        reasons = ["new cup", "renamed", "cancelled"]
        page = _login(browser, server.url, KEY, errors, reasons)
        page.click("[data-tab=operations]")
        expect(page.locator("#dead-total")).to_contain_text("dead letter(s)", timeout=WAIT_MS)

        # created through the editor; a bad definition shows the API's problem
        page.fill("#t-id", "cup")
        page.fill("#t-spec", json.dumps({**cup(), "policy": "most"}))
        page.click("#t-editor button")
        expect(page.locator("#error")).to_contain_text("422", timeout=WAIT_MS)
        assert api.get("/v1/tournaments/cup").status_code == 404
        page.fill("#t-spec", json.dumps(cup()))
        page.fill("#t-reason", reasons.pop(0))
        page.click("#t-editor button")
        expect(page.locator("#notice")).to_contain_text("tournament cup saved", timeout=WAIT_MS)
        made = api.get("/v1/tournaments/cup").json()
        assert made["title"] == "Friday Cup" and made["every_seconds"] == 604
        assert made["edition"]["edition"] == "1", made  # the scores below go in edition 1
        expect(page.locator("#tournament-list tbody tr")).to_contain_text("Friday Cup")

        for player, score in [("ada", 10), ("bo", 20)]:
            body = {"player_id": player, "score": score, "match_id": f"m-{player}"}
            response = api.post("/v1/tournaments/cup/scores", json=body, headers=AUTH)
            assert response.status_code == 200, response.text
        _wait(
            lambda: api.get("/v1/tournaments/cup/results?edition=1").status_code == 200,
            "the results of edition 1",
        )
        body = {"player_id": "cy", "score": 30, "match_id": "m-cy"}
        response = api.post("/v1/tournaments/cup/scores", json=body, headers=AUTH)
        assert response.status_code == 200, response.text
        assert api.get("/v1/tournaments/cup").json()["edition"]["edition"] == "2"

        # opened: the current edition's top, and edition 1's results with the rewards
        page.click("[data-tab=operations]")
        page.locator("#tournament-list").get_by_role("link", name="cup", exact=True).click()
        expect(page.locator("#t-top-title")).to_contain_text("edition 2", timeout=WAIT_MS)
        top = page.locator("#t-top tbody tr")
        expect(top).to_have_count(1)
        expect(top.first).to_contain_text("cy")
        results = page.locator("#t-results tbody tr")
        expect(results).to_have_count(2, timeout=WAIT_MS)
        expect(page.locator("#t-edition")).to_have_value("1")
        expect(results.nth(0)).to_contain_text("bo")
        expect(results.nth(0)).to_contain_text('{"gems":5}')
        expect(results.nth(1)).to_contain_text("ada")
        recorded = api.get("/v1/tournaments/cup/results?edition=1").json()["results"]
        assert [(r["player_id"], r.get("reward")) for r in recorded] == [
            ("bo", {"gems": 5}),
            ("ada", None),
        ]

        # an edition without results: the API's problem
        page.evaluate("document.getElementById('t-edition').append(new Option('2', '2'))")
        page.select_option("#t-edition", "2")
        page.click("#t-editions button")
        expect(page.locator("#error")).to_contain_text("404", timeout=WAIT_MS)
        assert api.get("/v1/tournaments/cup/results?edition=2").status_code == 404

        # changed from the list: the definition comes back in the editor
        page.locator("#tournament-list tr", has_text="Friday Cup").get_by_text("Edit").click()
        edited = json.loads(page.input_value("#t-spec"))
        assert edited["title"] == "Friday Cup" and "edition" not in edited
        page.fill("#t-spec", json.dumps({**edited, "title": "Saturday Cup"}))
        page.fill("#t-reason", reasons.pop(0))
        page.click("#t-editor button")
        expect(page.locator("#notice")).to_contain_text("tournament cup saved", timeout=WAIT_MS)
        assert api.get("/v1/tournaments/cup").json()["title"] == "Saturday Cup"
        expect(page.locator("#tournament-title")).to_contain_text("Saturday Cup")

        # deleted, after a confirmation and with a reason
        page.locator("#tournament-list tr", has_text="Saturday Cup").get_by_text("Delete").click()
        expect(page.locator("#notice")).to_contain_text("tournament cup deleted", timeout=WAIT_MS)
        assert api.get("/v1/tournaments/cup").status_code == 404
        expect(page.locator("#tournament-list tbody tr")).to_have_count(0)
        expect(page.locator("#tournament")).to_be_hidden()

        audit = api.get("/v1/audit", params={"board": "cup"}, headers=AUTH).json()["items"]
        assert [(i["action"], i.get("reason")) for i in audit] == [
            ("tournament.delete", "cancelled"),
            ("tournament.change", "renamed"),
            ("tournament.create", "new cup"),
        ]
    assert not errors, errors
    assert reasons == []


ARENA: dict[str, Any] = {
    "title": "Arena",
    "windows": ["all_time", "daily"],
    "scopes": ["region"],
    "subscore": "asc",
}
SCOPES = ["global", "region:EU", "region:US"]


def _standings(api: httpx.Client, board: str) -> dict[str, Any]:
    """Every all-time leaderboard of ``board``: its total and entries, with metadata."""
    found = {}
    for scope in SCOPES:
        params = {"scope": scope, "metadata": "true", "limit": "100"}
        response = api.get(f"/v1/boards/{board}/top", params=params)
        assert response.status_code == 200, response.text
        found[scope] = (response.json()["total"], response.json()["entries"])
    return found


def _download(page: Page, path: Path) -> str:
    """Click the download button; the file saved at ``path``; its suggested name."""
    with page.expect_download() as info:
        page.click("#export")
    info.value.save_as(path)
    expect(page.locator("#notice")).to_contain_text("downloaded", timeout=WAIT_MS)
    return info.value.suggested_filename


def test_a_download_imports_into_an_empty_store(
    server: Server, browser: Browser, tmp_path: Path
) -> None:
    """The console's download is the file `rankline export` writes for the leaderboard shown
    (JSON lines with metadata, CSV with its scope): `rankline import` of each into an empty
    store gives the same standings, scopes, subscores and metadata."""
    errors: list[str] = []
    with httpx.Client(base_url=server.url, timeout=30) as api:
        assert api.put("/v1/boards/arena", json=ARENA, headers=AUTH).status_code == 201
        for i in range(8):
            for round_, score in enumerate([100 + i % 3, 100 + i % 4]):
                body = {
                    "player_id": f"p:{i}",
                    "score": score,
                    "subscore": (i + round_) % 2,
                    "match_id": f"m{round_}-{i}",
                    "scopes": {"region": "EU" if i % 3 else "US"},
                    "metadata": {"kills": i * (round_ + 1), "round": round_},
                }
                response = api.post("/v1/boards/arena/scores", json=body, headers=AUTH)
                assert response.status_code == 200, response.text
        before = _standings(api, "arena")
        assert before["region:EU"][0] == 5 and before["region:US"][0] == 3

        page = _login(browser, server.url, KEY, errors, [])
        _open_board(page, "arena")
        expect(page.locator("#entries tbody tr")).to_have_count(8, timeout=WAIT_MS)
        page.select_option("#x-format", "jsonl")
        page.check("#x-metadata")
        jsonl = tmp_path / "arena.jsonl"
        assert _download(page, jsonl) == "arena.jsonl"
        page.fill("#b-scope", "region:EU")
        page.click("#where button")
        expect(page.locator("#entries tbody tr")).to_have_count(5, timeout=WAIT_MS)
        page.select_option("#x-format", "csv")
        expect(page.locator("#x-metadata")).to_be_disabled()
        csv = tmp_path / "arena-eu.csv"
        assert _download(page, csv) == "arena.csv"
        page.close()
    assert not errors, errors

    # the very bytes `rankline export` writes (it reads beside the running server)
    env = cli_env(server.data_dir)
    for path, options in [
        (jsonl, ["--format", "jsonl", "--metadata"]),
        (csv, ["--format", "csv", "--scope", "region:EU"]),
    ]:
        done = run_cli("export", "--board", "arena", *options, env=env)
        assert done.returncode == 0, done.stderr
        assert path.read_text(encoding="utf-8") == done.stdout
    header = csv.read_text().splitlines()[0]
    assert header == "player_id,score,subscore,achieved_at,match_id,region"
    assert all(json.loads(line)["metadata"] for line in jsonl.read_text().splitlines())

    # an empty store with the same definitions, the files imported, then served again
    copy = tmp_path / "copy"
    copy.mkdir()
    with (
        serving(copy, tmp_path / "copy.log", server_keys=KEY) as empty,
        httpx.Client(base_url=empty.url, timeout=30) as api,
    ):
        for board in ("arena", "arena-eu"):
            response = api.put(f"/v1/boards/{board}", json=ARENA, headers=AUTH)
            assert response.status_code == 201, response.text
    for path, board in [(jsonl, "arena"), (csv, "arena-eu")]:
        done = run_cli("import", str(path), "--board", board, env=cli_env(copy))
        assert done.returncode == 0, done.stdout + done.stderr
    with (
        serving(copy, tmp_path / "copy-again.log", server_keys=KEY) as imported,
        httpx.Client(base_url=imported.url, timeout=30) as api,
    ):
        assert _standings(api, "arena") == before
        eu = _standings(api, "arena-eu")
    assert eu["region:EU"][0] == 5
    # the CSV carries no metadata: the same standings otherwise
    plain = [{k: v for k, v in e.items() if k != "metadata"} for e in before["region:EU"][1]]
    assert [{k: v for k, v in e.items() if k != "metadata"} for e in eu["region:EU"][1]] == plain
