"""The operators' console at ``/console`` in a real browser (Debian's chromium, headless,
through Playwright), against a real ``rankline serve``: each action done through the page
(a board created and frozen, an entry removed, a match voided, a period reset, a player
banned), then its effect checked through the API; the audit log shows them with their
reasons; a bad definition shows the API's problem; a key limited to one board cannot act on
another from the console. A screenshot goes to the test's temporary directory, or with
``RANKLINE_UPDATE_SCREENSHOT=1`` to docs/console.png (the README's picture)."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from playwright.sync_api import Browser, Dialog, Page, expect, sync_playwright

from procs import REPO, Server, serving

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
        page.select_option("#b-window", "daily")
        expect(rows).to_have_count(3, timeout=WAIT_MS)
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
