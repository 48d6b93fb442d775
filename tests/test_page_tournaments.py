"""The live page's tournaments in a real browser (chromium through Playwright, as in
test_page.py): the strip lists a tournament with its edition and a countdown, choosing it
shows its edition's leaderboard, and a watched player on it shows their cohort."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

import httpx
import pytest
from playwright.sync_api import Browser, expect

from helpers_procs import Server
from test_page import AUTH, LIVE_TIMEOUT_MS, browser, server

pytestmark = pytest.mark.timeout(120)
__all__ = ["browser", "server"]


def _iso(when: datetime) -> str:
    return when.strftime("%Y-%m-%dT%H:%M:%S.000Z")


def test_the_page_lists_tournaments_with_a_countdown_and_shows_a_cohort(
    server: Server, browser: Browser
) -> None:
    now = datetime.now(UTC).replace(microsecond=0)
    spec = {
        "title": "Sprint",
        "starts_at": _iso(now - timedelta(minutes=1)),
        "ends_at": _iso(now + timedelta(hours=1)),
        "cohort_size": 2,
        "max_size": 10,
    }
    with httpx.Client(base_url=server.url, timeout=30) as api:
        assert api.put("/v1/tournaments/sprint", json=spec, headers=AUTH).status_code == 201
        for i, name in enumerate(["ada", "bo", "cy"]):
            assert api.post("/v1/tournaments/sprint/join", json={"player_id": name}, headers=AUTH)
            body = {"player_id": name, "score": 10 * (i + 1), "match_id": "m"}
            answer = api.post("/v1/tournaments/sprint/scores", json=body, headers=AUTH)
            assert answer.status_code == 200, answer.text

    page = browser.new_page(viewport={"width": 1000, "height": 700})
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.on(  # a Content-Security-Policy violation is an error too
        "console",
        lambda message: (
            errors.append(message.text) if "Content Security Policy" in message.text else None
        ),
    )
    page.goto(server.url + "/")
    item = page.locator("#tournament-list li")
    expect(item).to_have_count(1, timeout=LIVE_TIMEOUT_MS)
    expect(item).to_contain_text("Sprint")
    expect(item).to_contain_text("edition 1 · 3/10 joined · cohorts of 2")
    countdown = item.locator(".countdown")
    expect(countdown).to_have_text(re.compile(r"^ends in 00:(59|5\d):\d\d$"))
    item.locator("a").click()
    top = page.locator("#top tbody tr")
    expect(top).to_have_count(3, timeout=LIVE_TIMEOUT_MS)
    page.fill("#player", "cy")
    page.click("#search button")
    # cy came third: alone in cohort 2, so first there.
    expect(page.locator("#me-note")).to_contain_text("cohort 2: #1 of 1", timeout=LIVE_TIMEOUT_MS)
    assert errors == []
