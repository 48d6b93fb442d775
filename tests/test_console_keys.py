"""The console's Keys tab in a real browser (Debian's chromium, headless, through Playwright)
against a real ``rankline serve``: a key created from the page shows its secret once, which
then writes exactly the boards it was limited to; the list shows it without the secret; a
revocation from the page is refused by the API at once; the audit log has both with their
reasons; a bad expiry shows the API's problem; a key limited to boards cannot manage keys."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from playwright.sync_api import Browser, expect

from helpers_procs import Server, serving
from test_console import WAIT_MS, _login, browser  # noqa: F401 (the browser fixture)

pytestmark = pytest.mark.timeout(120)

KEY = "console-keys-key"
LIMITED = "console-keys-limited"
AUTH = {"Authorization": f"Bearer {KEY}"}


@pytest.fixture
def server(tmp_path: Path) -> Iterator[Server]:
    keys = f"{KEY},{LIMITED}:game-a*"
    with serving(tmp_path / "data", tmp_path / "server.log", server_keys=keys) as server:
        yield server


def _writes(api: httpx.Client, board: str, secret: str) -> int:
    headers = {"Authorization": f"Bearer {secret}"}
    return api.put(f"/v1/boards/{board}", json={}, headers=headers).status_code


def test_keys_are_created_listed_and_revoked_from_the_console(
    server: Server,
    browser: Browser,  # noqa: F811 (the fixture imported above)
) -> None:
    errors: list[str] = []
    reasons = ["leaked"]
    with httpx.Client(base_url=server.url, timeout=30) as api:
        page = _login(browser, server.url, KEY, errors, reasons)
        page.click("[data-tab=keys]")
        expect(page.locator("#key-list tbody tr")).to_have_count(0, timeout=WAIT_MS)

        # an expiry that is no time: the API's problem is shown, nothing is created
        page.fill("#k-name", "game-eu")
        page.fill("#k-expires", "tomorrow")
        page.click("#key-form button")
        expect(page.locator("#error")).to_contain_text("422", timeout=WAIT_MS)
        assert api.get("/v1/keys", headers=AUTH).json() == {"keys": []}

        page.fill("#k-expires", "")
        page.fill("#k-boards", "game-a-* shared")
        page.fill("#k-reason", "new region")
        page.click("#key-form button")
        expect(page.locator("#k-made")).to_be_visible(timeout=WAIT_MS)
        secret = page.locator("#k-secret").inner_text().strip()
        assert secret.startswith("rk_")
        expect(page.locator("#key-list tbody tr")).to_have_count(1, timeout=WAIT_MS)
        row = page.locator("#key-list tbody tr").first
        expect(row).to_contain_text("game-eu")
        expect(row).to_contain_text("game-a-* shared")
        expect(row).to_contain_text("live")
        assert secret not in page.locator("#key-list").inner_text()

        assert _writes(api, "game-a-1", secret) == 201
        assert _writes(api, "shared", secret) == 201
        assert _writes(api, "other", secret) == 403
        [listed] = api.get("/v1/keys", headers=AUTH).json()["keys"]
        assert listed["boards"] == ["game-a-*", "shared"] and "secret" not in listed

        # the secret leaves the page once copied
        page.click("#k-done")
        expect(page.locator("#k-made")).to_be_hidden()
        assert secret not in page.content()

        row.get_by_text("Revoke").click()
        expect(page.locator("#notice")).to_contain_text("revoked", timeout=WAIT_MS)
        expect(page.locator("#key-list tbody tr").first).to_contain_text("revoked")
        assert _writes(api, "game-a-2", secret) == 403

        audit = api.get("/v1/audit", headers=AUTH).json()["items"]
        actions = [(i["action"], i.get("reason")) for i in audit if i["action"].startswith("key.")]
        assert actions == [("key.revoke", "leaked"), ("key.create", "new region")]

        # a key limited to boards cannot manage keys
        page.close()
        limited = _login(browser, server.url, LIMITED, errors, [])
        limited.click("[data-tab=keys]")
        expect(limited.locator("#error")).to_contain_text("403", timeout=WAIT_MS)
    assert not errors, errors
    assert reasons == []
