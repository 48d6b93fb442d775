"""The live page on a rating board, in a real browser: the watched player's rating chart grows
with each match, and a provisional player's rating shows while they are not ranked."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest
from playwright.sync_api import Browser, expect

from helpers_procs import Server
from test_page import AUTH, LIVE_TIMEOUT_MS, browser, server

pytestmark = pytest.mark.timeout(120)
__all__ = ["browser", "server"]


def _match(api: httpx.Client, match_id: str, winner: str, loser: str) -> None:
    body = {
        "match_id": match_id,
        "results": [{"player_id": winner, "place": 1}, {"player_id": loser, "place": 2}],
    }
    response = api.post("/v1/boards/chess-rapid/matches", json=body, headers=AUTH)
    assert response.status_code == 200, response.text


def test_the_page_charts_a_watched_players_rating(
    server: Server, browser: Browser, tmp_path: Path
) -> None:
    with httpx.Client(base_url=server.url, timeout=30) as api:
        board = {"policy": "rating", "rating": {"system": "elo", "provisional_games": 3}}
        assert api.put("/v1/boards/chess-rapid", json=board, headers=AUTH).status_code == 201
        _match(api, "g1", "ana", "ben")
        _match(api, "g2", "ana", "cy")

        page = browser.new_page(viewport={"width": 1000, "height": 700})
        errors: list[str] = []
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        page.on(  # a Content-Security-Policy violation is an error too
            "console",
            lambda message: (
                errors.append(message.text) if "Content Security Policy" in message.text else None
            ),
        )
        page.goto(server.url + "/?board=chess-rapid")
        page.fill("#player", "ana")
        page.click("#search button")
        # two games of three: rated, charted, not ranked yet
        expect(page.locator("#rating-note")).to_contain_text(
            "after 2 games", timeout=LIVE_TIMEOUT_MS
        )
        expect(page.locator("#rating-note")).to_contain_text("provisional")
        expect(page.locator("#rating-chart circle")).to_have_count(2)
        expect(page.locator("#me-missing")).to_be_visible()

        _match(api, "g3", "ana", "ben")  # established: ranked, a third point on the chart
        page.reload()
        page.fill("#player", "ana")
        page.click("#search button")
        expect(page.locator("#rating-chart circle")).to_have_count(3, timeout=LIVE_TIMEOUT_MS)
        expect(page.locator("#rating-note")).to_contain_text("Rating 1,5")
        expect(page.locator("#rating-note")).not_to_contain_text("provisional")
        expect(page.locator("#me-rank")).to_have_text("#1")
        assert errors == []
