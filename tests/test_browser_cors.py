"""A browser game on another origin, in a real browser (Debian's chromium, headless, through
Playwright) against a real ``rankline serve`` with ``RANKLINE_CORS_ORIGINS`` and player tokens
from the test's identity provider (its key set served on loopback): a page served by a second
small HTTP server on another loopback port reads a top (with a key, which takes a
preflight), reads "my rank" and submits the player's own score with a token where the board
takes client writes, and follows the live stream with EventSource and ``?access_token=``.
The same page from an origin that is not listed gets no CORS headers, so the browser refuses
it every answer."""

from __future__ import annotations

import shutil
import threading
from collections.abc import Iterator
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import httpx
import pytest
from playwright.sync_api import Browser, Page, sync_playwright

from helpers_idp import AUDIENCE, ISSUER, IdentityProvider, claims, mint, rsa_key
from helpers_procs import HOST, Server, free_port, serving

pytestmark = pytest.mark.timeout(180)

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking"]
SERVER_KEY = "cors-server-key"
READ_KEY = "cors-read-key"
BOARD = "arena"
OPEN = "open-arena"
"""A board that takes players' own scores (client writes)."""

PAGE = """<!doctype html>
<title>a game</title>
<script type="module" src="/game.js"></script>
"""
# The game's script, as a studio would write it: plain fetch and EventSource.
GAME_JS = """
const api = new URLSearchParams(location.search).get("api");
const failed = (error) => ({ failed: String(error) });
const keyed = (key) => (key ? { headers: { Authorization: `Bearer ${key}` } } : {});
window.readTop = (key) =>
  fetch(`${api}/v1/boards/arena/top?limit=5`, keyed(key))
    .then(async (r) => ({ status: r.status, body: await r.json(), etag: r.headers.get("ETag") }))
    .catch(failed);
window.me = (board, token) =>
  fetch(`${api}/v1/boards/${board}/me`, keyed(token))
    .then(async (r) => ({ status: r.status, body: await r.json() }))
    .catch(failed);
window.submit = (key, body, board = "arena") =>
  fetch(`${api}/v1/boards/${board}/scores`, {
    method: "POST",
    headers: { Authorization: `Bearer ${key}`, "Content-Type": "application/json" },
    body: JSON.stringify(body),
  })
    .then(async (r) => ({ status: r.status, body: await r.json() }))
    .catch(failed);
window.firstTop = (token) =>
  new Promise((resolve) => {
    const query = token === null ? "" : `&access_token=${encodeURIComponent(token)}`;
    const source = new EventSource(`${api}/v1/boards/arena/stream?limit=3${query}`);
    source.addEventListener("top", (event) => (source.close(), resolve(JSON.parse(event.data))));
    source.onerror = () => (source.close(), resolve({ failed: "the stream failed" }));
  });
window.ready = true;
"""


class _Pages:
    """A second HTTP server on a loopback port of its own: another origin than the API's."""

    def __init__(self, root: Path) -> None:
        handler = partial(_Quiet, directory=str(root))
        self.server = ThreadingHTTPServer((HOST, 0), handler)
        self.origin = f"http://{HOST}:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self) -> _Pages:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()
        self.thread.join(10)


class _Quiet(SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        pass


@pytest.fixture
def site(tmp_path: Path) -> Path:
    root = tmp_path / "site"
    root.mkdir()
    (root / "index.html").write_text(PAGE, encoding="utf-8")
    (root / "game.js").write_text(GAME_JS, encoding="utf-8")
    return root


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


def _game(browser: Browser, origin: str, api: str, errors: list[str]) -> Page:
    page = browser.new_page()
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.goto(f"{origin}/index.html?api={api}")
    page.wait_for_function("window.ready === true")
    return page


@pytest.fixture
def idp() -> Iterator[IdentityProvider]:
    provider = IdentityProvider(rsa_key()).start()
    yield provider
    provider.stop()


def _serve_api(tmp_path: Path, origins: str, idp: IdentityProvider) -> Iterator[Server]:
    with serving(
        tmp_path / "data",
        tmp_path / "server.log",
        server_keys=SERVER_KEY,
        read_keys=READ_KEY,
        cors_origins=origins,
        player_jwks_url=idp.url,
        player_jwt_issuer=ISSUER,
        player_jwt_audience=AUDIENCE,
    ) as server:
        with httpx.Client(base_url=server.url, timeout=30) as api:
            auth = {"Authorization": f"Bearer {SERVER_KEY}"}
            assert api.put(f"/v1/boards/{BOARD}", json={}, headers=auth).status_code == 201
            writes = {"client_writes": {"max_per_minute": 10}}
            assert api.put(f"/v1/boards/{OPEN}", json=writes, headers=auth).status_code == 201
            for n, score in enumerate((300, 100, 200)):
                body = {"player_id": f"p:{n}", "score": score, "match_id": f"m:{n}"}
                assert (
                    api.post(f"/v1/boards/{BOARD}/scores", json=body, headers=auth).status_code
                    == 200
                )
        yield server


def test_a_listed_origin_reads_writes_and_follows_the_stream(
    tmp_path: Path, site: Path, browser: Browser, idp: IdentityProvider
) -> None:
    errors: list[str] = []
    [signing] = idp.published
    token = mint(signing, claims("p:2"))
    other = mint(signing, claims("p:7"))
    with _Pages(site) as pages:
        for server in _serve_api(tmp_path, pages.origin, idp):
            page = _game(browser, pages.origin, server.url, errors)

            # A read with a key: Authorization is not a simple header, so a preflight first.
            read = page.evaluate(f"readTop({READ_KEY!r})")
            assert read["status"] == 200, read
            assert [e["player_id"] for e in read["body"]["entries"]] == ["p:0", "p:2", "p:1"]
            assert read["etag"], "ETag is exposed to the page"
            # Without it: the API's refusal, readable by the page.
            refused = page.evaluate("readTop(null)")
            assert refused["status"] == 401 and refused["body"]["status"] == 401

            # A write through a preflight (POST, Authorization, Content-Type: JSON).
            body = {"player_id": "p:9", "score": 500, "match_id": "m:9"}
            written = page.evaluate(f"submit({SERVER_KEY!r}, {body!r})")
            assert written["status"] == 200, written
            assert written["body"]["applied"] is True

            # A player: "my rank" with the token, then their own score where the board allows
            # it; the server-authoritative board refuses it, readably.
            me = page.evaluate(f"me({BOARD!r}, {token!r})")
            assert me["status"] == 200, me
            assert (me["body"]["player_id"], me["body"]["rank"]) == ("p:2", 3)
            own = {"score": 700, "match_id": "run-1"}
            mine = page.evaluate(f"submit({token!r}, {own!r}, {OPEN!r})")
            assert mine["status"] == 200, mine
            assert (mine["body"]["player_id"], mine["body"]["score"]) == ("p:2", 700)
            again = page.evaluate(f"submit({token!r}, {own!r}, {OPEN!r})")
            assert again["status"] == 200 and again["body"]["duplicate"] is True
            assert page.evaluate(f"me({OPEN!r}, {token!r})")["body"]["rank"] == 1
            naming = {**own, "player_id": "p:2"}  # p:7's token, naming p:2
            as_other = page.evaluate(f"submit({other!r}, {naming!r}, {OPEN!r})")
            assert as_other["status"] == 403, as_other
            refused = page.evaluate(f"submit({token!r}, {own!r}, {BOARD!r})")
            assert refused["status"] == 403 and refused["body"]["status"] == 403, refused

            # The stream: EventSource sends no header, so the key or token goes as
            # access_token.
            top = page.evaluate(f"firstTop({READ_KEY!r})")
            assert [e["player_id"] for e in top["entries"]] == ["p:9", "p:0", "p:2"]
            assert page.evaluate(f"firstTop({token!r})")["entries"] == top["entries"]
            assert page.evaluate("firstTop(null)") == {"failed": "the stream failed"}
    assert errors == []
    output = server.output()
    for secret in (READ_KEY, SERVER_KEY, token, other):
        assert secret not in output


def test_an_origin_not_listed_gets_nothing_it_can_read(
    tmp_path: Path, site: Path, browser: Browser, idp: IdentityProvider
) -> None:
    errors: list[str] = []
    listed = f"http://{HOST}:{free_port()}"  # some other game's origin
    token = mint(idp.published[0], claims("p:2"))
    with _Pages(site) as pages:
        for server in _serve_api(tmp_path, listed, idp):
            page = _game(browser, pages.origin, server.url, errors)
            for read in (page.evaluate("readTop(null)"), page.evaluate(f"readTop({READ_KEY!r})")):
                assert "Failed to fetch" in read["failed"], read
            body = {"player_id": "p:9", "score": 500, "match_id": "m:9"}
            written = page.evaluate(f"submit({SERVER_KEY!r}, {body!r})")
            assert "Failed to fetch" in written["failed"], written
            assert "Failed to fetch" in page.evaluate(f"me({BOARD!r}, {token!r})")["failed"]
            own = {"score": 700, "match_id": "run-1"}
            mine = page.evaluate(f"submit({token!r}, {own!r}, {OPEN!r})")
            assert "Failed to fetch" in mine["failed"], mine
            assert page.evaluate(f"firstTop({READ_KEY!r})") == {"failed": "the stream failed"}
            # The write's preflight was refused, so the write itself was never sent.
            with httpx.Client(base_url=server.url, timeout=30) as api:
                top = api.get(
                    f"/v1/boards/{BOARD}/top", headers={"Authorization": f"Bearer {READ_KEY}"}
                )
            assert [e["player_id"] for e in top.json()["entries"]] == ["p:0", "p:2", "p:1"]
    assert errors == []
