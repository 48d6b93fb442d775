"""The live page at ``/`` in a real browser: Debian's chromium, headless, through Playwright.

A real ``rankline serve`` runs; the test creates a board and scores over HTTP, opens the page,
sees the top list, submits more scores through the API and sees the list and the watched
player's rank change without a reload (through the SSE stream, or the page's polling fallback
when the stream is not available). It takes a screenshot of the page; with
``RANKLINE_UPDATE_SCREENSHOT=1`` it writes it to docs/screenshot.png (the README's picture),
otherwise to the test's temporary directory, so a test run leaves the tree as it was.
``make test`` installs chromium (scripts/ensure-tools.sh); ``playwright install`` is never
needed.
"""

from __future__ import annotations

import os
import re
import shutil
from collections.abc import Iterator
from datetime import datetime, timedelta
from pathlib import Path

import httpx
import pytest
from playwright.sync_api import Browser, Page, Route, expect, sync_playwright

from helpers_procs import REPO, Server, serving

pytestmark = pytest.mark.timeout(120)

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-background-networking",
    "--disable-gpu",
    "--no-first-run",
    "--disable-component-update",
    "--disable-sync",
]
KEY = "page-test-key"
AUTH = {"Authorization": f"Bearer {KEY}"}
BOARD = "arena-solo"
LIVE_TIMEOUT_MS = 10_000
SCREENSHOT = REPO / "docs" / "screenshot.png"
UPDATE_SCREENSHOT = os.environ.get("RANKLINE_UPDATE_SCREENSHOT") == "1"
NAMES = ["ada", "bo", "cy", "dee", "eli", "fay", "gus", "hal", "ivy", "jo", "kai", "lu"]


@pytest.fixture
def browser() -> Iterator[Browser]:
    if not Path(CHROMIUM).exists() and shutil.which("chromium") is None:
        pytest.fail("chromium is not installed: run `make tools` (apt-get install chromium)")
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS
        )
        try:
            yield browser
        finally:
            browser.close()


@pytest.fixture
def server(tmp_path: Path) -> Iterator[Server]:
    with serving(tmp_path / "data", tmp_path / "server.log", server_keys=KEY) as server:
        yield server


def _submit(api: httpx.Client, player: str, score: int, match: str) -> None:
    body = {"player_id": player, "score": score, "match_id": match, "scopes": {"region": "EU"}}
    response = api.post(f"/v1/boards/{BOARD}/scores", json=body, headers=AUTH)
    assert response.status_code == 200, response.text


def watch(page: Page, errors: list[str]) -> None:
    """Add ``page``'s script errors and Content-Security-Policy violations to ``errors``."""
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.on(
        "console",
        lambda message: (
            errors.append(message.text) if "Content Security Policy" in message.text else None
        ),
    )


def _open(browser: Browser, url: str, errors: list[str]) -> Page:
    """A new page at ``url`` whose script errors and CSP violations are added to ``errors``."""
    page = browser.new_page(viewport={"width": 1000, "height": 700})
    watch(page, errors)
    page.goto(url)
    return page


def _top_players(page: Page) -> list[str]:
    rows = page.locator("#top tbody tr")
    return [rows.nth(i).get_attribute("data-player") or "" for i in range(rows.count())]


@pytest.mark.parametrize("transport", ["stream", "polling"])
def test_the_page_shows_the_board_moving_live(
    server: Server, browser: Browser, transport: str, tmp_path: Path
) -> None:
    """``stream``: the page as served. ``polling``: the SSE endpoint answers 404 (as on a
    server without it), so the page must fall back to polling GET top every 2 s."""
    with httpx.Client(base_url=server.url, timeout=30) as api:
        board = {
            "title": "Arena Solo",
            "windows": ["all_time", "daily", "weekly"],
            "scopes": ["region"],
        }
        assert api.put(f"/v1/boards/{BOARD}", json=board, headers=AUTH).status_code == 201
        for i, name in enumerate(NAMES):
            _submit(api, f"p:{name}", 1000 + 250 * i, f"m:{name}:1")
        # "p:bo" (1250) is second to last of 12: rank 11.

        for path in ("/static/app.js", "/static/app.css"):
            assert api.get(path).status_code == 200

        page = browser.new_page(viewport={"width": 1000, "height": 700})
        errors: list[str] = []
        watch(page, errors)
        if transport == "polling":
            page.route("**/v1/boards/*/stream?*", lambda route: route.fulfill(status=404))
        page.goto(server.url + "/")

        # The top list.
        top = page.locator("#top tbody tr")
        expect(top).to_have_count(len(NAMES), timeout=LIVE_TIMEOUT_MS)
        expect(top.first).to_have_attribute("data-player", "p:lu")
        expect(page.locator("#total")).to_contain_text("of 12")
        expect(page.locator("#updated")).to_contain_text("s ago")

        # Watch a player: rank, percentile and the players around them.
        page.fill("#player", "p:bo")
        page.click("#search button")
        expect(page.locator("#me-rank")).to_have_text("#11", timeout=LIVE_TIMEOUT_MS)
        expect(page.locator("#around tbody tr.me")).to_have_attribute("data-player", "p:bo")
        expect(page.locator("#me-pct")).to_have_text("8.3%")

        # Friends: a typed, comma-separated list (POST friends).
        page.click("#tab-friends")
        page.fill("#friends-list", "p:ada, p:kai")
        page.click("#friends-form button")
        expect(page.locator("#friends tbody tr")).to_have_count(3, timeout=LIVE_TIMEOUT_MS)
        expect(page.locator("#friends-note")).to_contain_text("#2 of 3 among friends")
        page.click("#tab-around")

        # Scores through the API: the list and the watched player move without a reload.
        page.evaluate("window.__sameDocument = true")
        _submit(api, "p:bo", 9000, "m:bo:2")
        _submit(api, "p:new", 5000, "m:new:1")
        expect(top.first).to_have_attribute("data-player", "p:bo", timeout=LIVE_TIMEOUT_MS)
        expect(page.locator("#me-rank")).to_have_text("#1", timeout=LIVE_TIMEOUT_MS)
        expect(page.locator("#me-pct")).to_have_text("92.3%", timeout=LIVE_TIMEOUT_MS)
        expect(top.nth(1)).to_have_attribute("data-player", "p:new", timeout=LIVE_TIMEOUT_MS)
        expect(page.locator("#total")).to_contain_text("of 13", timeout=LIVE_TIMEOUT_MS)
        assert page.evaluate("window.__sameDocument") is True  # no reload happened
        assert _top_players(page)[:2] == ["p:bo", "p:new"]
        if transport == "polling":
            expect(page.locator("#mode")).to_have_text("polling")
        else:
            # "live" once the SSE endpoint exists; "polling" on a server without it.
            expect(page.locator("#mode")).to_have_text(re.compile("^(live|polling)$"))
            page.wait_for_timeout(1300)  # let the row highlight fade for the picture
            picture = SCREENSHOT if UPDATE_SCREENSHOT else tmp_path / "screenshot.png"
            page.screenshot(path=str(picture))
            assert picture.stat().st_size > 10_000

        # Readable on a phone: one column, nothing wider than the screen.
        page.set_viewport_size({"width": 390, "height": 800})
        expect(top).to_have_count(len(NAMES) + 1)
        assert page.evaluate("document.documentElement.scrollWidth") <= 390

        assert errors == []


def test_the_docs_page_lists_the_operations(server: Server, browser: Browser) -> None:
    """``/docs`` renders the OpenAPI 3.1 document: every operation is listed, nothing is
    loaded from another host, and the viewer shows no error about the document."""
    with httpx.Client(base_url=server.url, timeout=30) as api:
        document = api.get("/openapi.json").json()
    summaries = [op["summary"] for ops in document["paths"].values() for op in ops.values()]
    assert document["openapi"].startswith("3.1") and len(summaries) > 20

    page = browser.new_page(viewport={"width": 1200, "height": 900})
    errors: list[str] = []
    elsewhere: list[str] = []
    watch(page, errors)

    def local_only(route: Route) -> None:
        if route.request.url.startswith(server.url):
            route.continue_()
        else:
            elsewhere.append(route.request.url)
            route.abort()

    page.route("**/*", local_only)
    page.goto(server.url + "/docs")
    operations = page.locator(".opblock")
    expect(operations).to_have_count(len(summaries), timeout=LIVE_TIMEOUT_MS)
    expect(page.locator(".opblock-summary-path").first).to_be_visible()
    for summary in ("The top of a leaderboard", "Submit a score", "A player's rank"):
        expect(page.get_by_text(summary, exact=True)).to_be_visible()
    assert "valid version field" not in page.content()
    assert errors == []
    assert elsewhere == []

    # The page's policy refuses an inline script, and ``watch`` sees the refusal.
    page.evaluate(
        "() => { const s = document.createElement('script');"
        " s.textContent = 'window.__inline = 1'; document.body.append(s); }"
    )
    page.wait_for_timeout(200)
    assert page.evaluate("window.__inline") is None
    assert any("Content Security Policy" in e for e in errors), errors


def test_the_page_shows_tiers_and_counts_down_to_the_period_end(
    server: Server, browser: Browser
) -> None:
    """A board with tiers, read by day: each row and the watched player show their tier,
    and the header counts down to the end of the day (nothing on all_time)."""
    with httpx.Client(base_url=server.url, timeout=30) as api:
        board = {
            "windows": ["all_time", "daily"],
            "tiers": [{"name": "gold", "top_rank": 1}, {"name": "silver", "top_percent": 50}],
        }
        assert api.put("/v1/boards/tiered", json=board, headers=AUTH).status_code == 201
        for i, name in enumerate(NAMES[:4]):
            body = {"player_id": f"p:{name}", "score": 100 * (i + 1), "match_id": "m"}
            assert api.post("/v1/boards/tiered/scores", json=body, headers=AUTH).is_success
        daily = api.get("/v1/boards/tiered/top", params={"window": "daily"}).json()

    errors: list[str] = []
    page = _open(browser, server.url + "/#board=tiered&window=daily&player=p:cy", errors)
    top = page.locator("#top tbody tr")
    expect(top).to_have_count(4, timeout=LIVE_TIMEOUT_MS)
    tiers = [top.nth(i).locator(".tier") for i in range(4)]
    expect(tiers[0]).to_have_text("gold")
    expect(tiers[1]).to_have_text("silver")
    expect(tiers[2]).to_have_count(0)
    expect(page.locator("#me-note")).to_contain_text("tier silver", timeout=LIVE_TIMEOUT_MS)
    # a board without subscores or dense ranks shows neither
    expect(page.locator("#top .subscore")).to_have_count(0)
    expect(page.locator("#me-note")).not_to_contain_text("dense")
    assert top.nth(1).locator(".rank").get_attribute("title") is None
    ends = page.locator("#ends")
    expect(ends).to_have_text(re.compile(r"^ends in (\d+d )?\d\d:\d\d:\d\d$"))
    assert page.get_attribute("#ends", "title") == "closes for submissions at " + daily["closes_at"]
    # the time left is the period's end less the page's clock
    found = re.search(r"(?:(\d+)d )?(\d\d):(\d\d):(\d\d)$", ends.text_content() or "")
    assert found is not None
    days, hours, minutes, seconds = (int(g or 0) for g in found.groups())
    shown = ((days * 24 + hours) * 60 + minutes) * 60 + seconds
    now_ms = page.evaluate("Date.now()")
    end_ms = datetime.fromisoformat(daily["period_ends_at"].replace("Z", "+00:00")).timestamp()
    assert abs(shown - (end_ms - now_ms / 1000)) <= 2

    forever = _open(browser, server.url + "/#board=tiered&window=all_time", errors)
    expect(forever.locator("#top tbody tr")).to_have_count(4, timeout=LIVE_TIMEOUT_MS)
    expect(forever.locator("#ends")).to_be_hidden()
    assert errors == []


def test_the_page_counts_down_to_a_cron_reset_and_names_zoned_windows(
    server: Server, browser: Browser
) -> None:
    """A board in a time zone with a cron window: the window picker shows the zone and the
    schedule, and the header counts down to the next firing (the period's end)."""
    event = {"id": "friday-event", "cron": "0 18 * * FRI", "timezone": "Europe/Paris"}
    with httpx.Client(base_url=server.url, timeout=30) as api:
        board = {"windows": ["all_time", "daily", event], "timezone": "America/Los_Angeles"}
        assert api.put("/v1/boards/event", json=board, headers=AUTH).status_code == 201
        body = {"player_id": "p:ada", "score": 5, "match_id": "m"}
        assert api.post("/v1/boards/event/scores", json=body, headers=AUTH).is_success
        current = api.get("/v1/boards/event/top", params={"window": "friday-event"}).json()

    errors: list[str] = []
    page = _open(browser, server.url + "/#board=event&window=friday-event", errors)
    expect(page.locator("#top tbody tr")).to_have_count(1, timeout=LIVE_TIMEOUT_MS)
    options = page.locator("#window option")
    expect(options).to_have_text(
        ["all time", "daily (America/Los_Angeles)", "friday-event (0 18 * * FRI, Europe/Paris)"]
    )
    expect(page.locator("#window")).to_have_value("friday-event")
    ends = page.locator("#ends")
    expect(ends).to_have_text(re.compile(r"^resets in (\d+d )?\d\d:\d\d:\d\d$"))
    assert page.get_attribute("#ends", "title") == (
        "next reset of friday-event (0 18 * * FRI, Europe/Paris); closes for submissions at "
        + current["closes_at"]
    )
    found = re.search(r"(?:(\d+)d )?(\d\d):(\d\d):(\d\d)$", ends.text_content() or "")
    assert found is not None
    days, hours, minutes, seconds = (int(g or 0) for g in found.groups())
    shown = ((days * 24 + hours) * 60 + minutes) * 60 + seconds
    now_ms = page.evaluate("Date.now()")
    end_ms = datetime.fromisoformat(current["period_ends_at"].replace("Z", "+00:00")).timestamp()
    assert abs(shown - (end_ms - now_ms / 1000)) <= 2
    assert errors == []


def test_the_page_shows_the_watched_players_movement(server: Server, browser: Browser) -> None:
    """The watched player's card says how far they moved at their last change and their best
    rank this period; a first entry says so."""
    with httpx.Client(base_url=server.url, timeout=30) as api:
        assert api.put("/v1/boards/moving", json={}, headers=AUTH).status_code == 201
        for i, name in enumerate(NAMES[:4]):
            body = {"player_id": f"p:{name}", "score": 100 * (i + 1), "match_id": "m"}
            assert api.post("/v1/boards/moving/scores", json=body, headers=AUTH).is_success
        climb = {"player_id": f"p:{NAMES[0]}", "score": 350, "match_id": "climb"}
        assert api.post("/v1/boards/moving/scores", json=climb, headers=AUTH).is_success
        me = api.get(f"/v1/boards/moving/players/p:{NAMES[0]}").json()
    assert (me["previous_rank"], me["rank"], me["best_rank"]) == (4, 2, 1)

    errors: list[str] = []
    page = _open(browser, server.url + f"/#board=moving&player=p:{NAMES[0]}", errors)
    move = page.locator("#me-move")
    expect(move).to_have_text("▲ 2 since #4 · best #1", timeout=LIVE_TIMEOUT_MS)
    assert move.get_attribute("data-direction") == "up"
    other = _open(browser, server.url + f"/#board=moving&player=p:{NAMES[3]}", errors)
    expect(other.locator("#me-move")).to_have_text("new entry · best #1", timeout=LIVE_TIMEOUT_MS)
    assert errors == []


def test_the_page_shows_subscores_and_dense_ranks(server: Server, browser: Browser) -> None:
    """On a board with a subscore and dense ranks, each row shows its subscore beside the
    score and its dense rank when it differs from its rank (as the rank's title); the
    watched player's card shows both."""
    with httpx.Client(base_url=server.url, timeout=30) as api:
        board = {"subscore": "asc", "dense_rank": True}
        assert api.put("/v1/boards/timed", json=board, headers=AUTH).status_code == 201
        scores = [(NAMES[0], 300, 40), (NAMES[1], 300, 40), (NAMES[2], 200, 12)]
        for name, score, subscore in scores:
            body = {"player_id": f"p:{name}", "score": score, "subscore": subscore, "match_id": "m"}
            assert api.post("/v1/boards/timed/scores", json=body, headers=AUTH).is_success
        me = api.get(f"/v1/boards/timed/players/p:{NAMES[2]}").json()
    assert (me["rank"], me["dense_rank"], me["subscore"]) == (3, 2, 12)

    errors: list[str] = []
    page = _open(browser, server.url + f"/#board=timed&player=p:{NAMES[2]}", errors)
    top = page.locator("#top tbody tr")
    expect(top).to_have_count(3, timeout=LIVE_TIMEOUT_MS)
    assert _top_players(page) == [f"p:{NAMES[0]}", f"p:{NAMES[1]}", f"p:{NAMES[2]}"]
    expect(top.nth(1).locator(".subscore")).to_have_text(" · 40")
    # tied with the first: second in order, first of the dense ranks
    expect(top.nth(1).locator(".rank")).to_have_attribute("title", "dense rank 1")
    expect(top.nth(2).locator(".rank")).to_have_attribute("title", "dense rank 2")
    assert top.nth(0).locator(".rank").get_attribute("title") is None
    expect(top.nth(2).locator(".subscore")).to_have_text(" · 12")
    expect(page.locator("#me-score")).to_have_text("200 · 12", timeout=LIVE_TIMEOUT_MS)
    expect(page.locator("#me-note")).to_contain_text("dense #2")
    assert errors == []


def test_the_page_shows_entry_metadata_and_a_snapshot_at_a_picked_time(
    server: Server, browser: Browser
) -> None:
    """Each row shows the metadata of the submission behind it beside the name; on a board
    with snapshots, picking a time shows the top as the latest snapshot before it kept it,
    and "live" goes back to the live top."""
    with httpx.Client(base_url=server.url, timeout=30) as api:
        board = {"snapshots": {"every_seconds": 10, "k": 5}}
        assert api.put("/v1/boards/shots", json=board, headers=AUTH).status_code == 201
        for i, name in enumerate(NAMES[:3]):
            body = {"player_id": f"p:{name}", "score": 100 * (i + 1), "match_id": "m",
                    "metadata": {"car": name}}  # fmt: skip
            assert api.post("/v1/boards/shots/scores", json=body, headers=AUTH).is_success
        # the server takes a snapshot in the interval it is in (it looks every second)
        deadline = datetime.now().timestamp() + 15
        while not (taken := api.get("/v1/boards/shots/snapshots").json()["snapshots"]):
            assert datetime.now().timestamp() < deadline, "no snapshot was taken"
            api.get("/healthz")
        first = taken[-1]["taken_at"]
        body = {"player_id": "p:new", "score": 1000, "match_id": "m", "metadata": {"car": "x"}}
        assert api.post("/v1/boards/shots/scores", json=body, headers=AUTH).is_success

    errors: list[str] = []
    page = _open(browser, server.url + "/#board=shots", errors)
    top = page.locator("#top tbody tr")
    expect(top).to_have_count(4, timeout=LIVE_TIMEOUT_MS)
    expect(top.nth(0).locator(".meta")).to_have_text("car: x")
    expect(top.nth(1).locator(".meta")).to_have_text(f"car: {NAMES[2]}")
    expect(page.locator("#snapshot-box")).to_be_visible()
    # the picker takes local time to the second: a second after the first snapshot
    local = page.evaluate(
        """(iso) => {
          const d = new Date(Date.parse(iso) + 1000);
          const p = (n) => String(n).padStart(2, "0");
          return d.getFullYear() + "-" + p(d.getMonth() + 1) + "-" + p(d.getDate()) + "T" +
            p(d.getHours()) + ":" + p(d.getMinutes()) + ":" + p(d.getSeconds());
        }""",
        first,
    )
    picked = datetime.fromisoformat(first.replace("Z", "+00:00")) + timedelta(seconds=1)
    with httpx.Client(base_url=server.url, timeout=30) as api:
        params = {"at": picked.replace(microsecond=0).isoformat(), "limit": 20}
        then = api.get("/v1/boards/shots/top", params=params).json()
    page.fill("#snapshot-at", local)
    page.dispatch_event("#snapshot-at", "change")
    expect(page.locator("#mode")).to_have_text("snapshot", timeout=LIVE_TIMEOUT_MS)
    expect(page.locator("#snapshot-note")).to_have_text("snapshot taken " + then["taken_at"])
    expect(top).to_have_count(len(then["entries"]))
    assert _top_players(page) == [e["player_id"] for e in then["entries"]]
    page.click("#snapshot-live")
    expect(top).to_have_count(4, timeout=LIVE_TIMEOUT_MS)
    expect(page.locator("#snapshot-note")).to_be_hidden()
    assert errors == []
