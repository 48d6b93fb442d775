"""SIGTERM with a write in flight: the server stops, but first answers the request it was
reading, keeps the write it acknowledged, and exits cleanly, on either HTTP server.

The write in flight is a submission sent over a raw socket with ``Expect: 100-continue``:
the server's ``100 Continue`` says the app is reading the request. Then the signal, and
the body once the server logged that it is shutting down. A server that dropped the
request would close the connection without an answer.
"""

from __future__ import annotations

import json
import signal
import socket
import time
from collections.abc import Callable
from pathlib import Path

import httpx
import pytest

from helpers_procs import HOST, Server
from rankline.http.server import SERVERS

pytestmark = pytest.mark.timeout(120)

KEY = "k"
AUTH = {"Authorization": f"Bearer {KEY}"}
BOARD = "b"
SHUTTING_DOWN = {"uvicorn": "Shutting down", "granian": "Shutting down granian"}
"""The line each server logs when the signal has reached it."""


def _wait_logged(server: Server, line: str, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while line not in server.output():
        assert time.monotonic() < deadline, f"never logged {line!r}:\n{server.output()}"
        time.sleep(0.02)


def _read_until(sock: socket.socket, done: Callable[[bytes], bool]) -> bytes:
    """What the server sends until ``done`` says it is all (or it closes the connection)."""
    received = b""
    while not done(received):
        chunk = sock.recv(65536)
        if not chunk:
            break
        received += chunk
    return received


def _head_read(received: bytes) -> bool:
    return b"\r\n\r\n" in received


def _response_read(received: bytes) -> bool:
    head, _, body = received.partition(b"\r\n\r\n")
    for line in head.split(b"\r\n")[1:]:
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            return len(body) >= int(value)
    return False


@pytest.mark.parametrize("software", SERVERS)
def test_a_write_in_flight_at_sigterm_is_answered_and_kept(tmp_path: Path, software: str) -> None:
    data_dir = tmp_path / "data"
    first = Server(data_dir, tmp_path / "first.log", server_keys=KEY, server=software)
    second = Server(data_dir, tmp_path / "second.log", server_keys=KEY, server=software)
    submission = {"player_id": "p1", "score": 42, "match_id": "held"}
    body = json.dumps(submission).encode()
    head = (
        f"POST /v1/boards/{BOARD}/scores HTTP/1.1\r\nHost: {HOST}\r\n"
        f"Authorization: Bearer {KEY}\r\nContent-Type: application/json\r\n"
        f"Content-Length: {len(body)}\r\nExpect: 100-continue\r\n\r\n"
    ).encode()
    try:
        first.start()
        first.wait_ready()
        with httpx.Client(base_url=first.url, headers=AUTH, timeout=30) as client:
            assert client.put(f"/v1/boards/{BOARD}", json={}).status_code == 201
        with socket.create_connection((HOST, first.port), timeout=30) as sock:
            sock.sendall(head)
            go_on = _read_until(sock, _head_read)
            assert go_on.startswith(b"HTTP/1.1 100 Continue"), go_on
            assert first.proc is not None
            first.proc.send_signal(signal.SIGTERM)
            _wait_logged(first, SHUTTING_DOWN[software])
            sock.sendall(body)
            answer = _read_until(sock, _response_read)
        status = answer.split(b"\r\n", 1)[0]
        assert status == b"HTTP/1.1 200 OK", answer
        assert json.loads(answer.split(b"\r\n\r\n", 1)[1])["duplicate"] is False
        assert first.proc.wait(timeout=30) in (0, -signal.SIGTERM), first.output()

        second.start()
        second.wait_ready()
        with httpx.Client(base_url=second.url, headers=AUTH, timeout=30) as client:
            again = client.post(f"/v1/boards/{BOARD}/scores", json=submission)
            assert again.json()["duplicate"] is True  # acknowledged while stopping: kept
            top = client.get(f"/v1/boards/{BOARD}/top").json()["entries"]
            assert [(e["player_id"], e["score"]) for e in top] == [("p1", 42)]
    finally:
        first.stop()
        second.stop()
