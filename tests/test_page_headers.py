"""The headers of the pages and everything else served outside the v1 API: a
Content-Security-Policy with no inline script and no framing, no sniffing, no referrer; and
pages that need nothing the policy forbids. That they still work in chromium, with no
violation reported, is checked by test_page.py and test_console.py."""

from __future__ import annotations

import re

import httpx
import pytest

from helpers_api import put_board
from rankline.http.pages import CONTENT_SECURITY_POLICY

pytestmark = pytest.mark.edge


@pytest.mark.parametrize(
    "path",
    ["/", "/console", "/docs", "/static/app.js", "/static/docs.js", "/docs/static/swagger-ui.css"],
)
async def test_pages_send_security_headers(client: httpx.AsyncClient, path: str) -> None:
    response = await client.get(path)
    assert response.status_code == 200, path
    policy = response.headers["content-security-policy"]
    assert policy == CONTENT_SECURITY_POLICY
    directives = dict(d.strip().split(" ", 1) for d in policy.split(";"))
    assert directives["script-src"] == "'self'"
    assert directives["frame-ancestors"] == "'none'"
    assert "'unsafe-inline'" not in policy and "'unsafe-eval'" not in policy
    assert response.headers["x-content-type-options"] == "nosniff"
    assert response.headers["referrer-policy"] == "no-referrer"


@pytest.mark.parametrize("path", ["/", "/console", "/docs"])
async def test_pages_have_no_inline_script(client: httpx.AsyncClient, path: str) -> None:
    html = (await client.get(path)).text
    scripts = html.count("<script")
    assert scripts >= 1
    assert html.count("<script src=") == scripts, "a script without src is inline"
    assert re.search(r"<[^>]*\son[a-z]+\s*=", html) is None, "an inline event handler"


async def test_the_api_answers_take_no_page_headers(client: httpx.AsyncClient) -> None:
    await put_board(client, "arena")
    response = await client.get("/v1/boards/arena/top")
    assert response.status_code == 200
    assert "content-security-policy" not in response.headers
