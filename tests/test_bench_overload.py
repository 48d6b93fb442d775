"""``rankline bench overload`` at a tiny scale: it runs end to end on the embedded stack, and
what it counts adds up (every acknowledged submission stored, nothing refused written); and
its lean HTTP/1.1 client against a socket server answering each way HTTP/1.1 allows."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

import pytest

from rankline_bench import cpu_share, overload, raw_http


def test_the_load_is_split_over_processes_and_percentiles_are_taken() -> None:
    assert overload._split(128, 3) == [43, 43, 42]
    assert overload._split(1, 2) == [1]
    assert overload._percentile([0.3, 0.1, 0.2], 0.5) == 0.2
    assert overload._percentile([float(n) for n in range(100)], 0.99) == 99.0


@pytest.mark.timeout(300)
def test_a_small_overload_run_reports_its_row_and_loses_nothing() -> None:
    options = overload.Options(
        backends=("memory",),
        clients=6,
        batch=50,
        seconds=1.5,
        readers=2,
        rounds=1,
        processes=1,
        unloaded_clients=1,
        players=200,
        deadline_ms=200,
    )
    found = overload.measure(options, progress=lambda _: None)
    [round_] = found["backends"]["memory"]["rounds"]
    assert round_["lost_or_extra"] == 0
    assert round_["no_retry_after"] == 0
    assert round_["unloaded_rate"] > 0 and round_["goodput"] > 0
    assert round_["reads"] > 0 and round_["goodput_with_reads"] > 0
    # what the server timed itself in the phase with the reads: shares, from its /metrics
    assert 0 < round_["server_reads_within_100ms"] <= 1
    assert 0 < round_["loop_lag_within_25ms"] <= 1
    assert round_["other"] == {}
    # where the overload's CPU went: the load's processes and the server's did work
    assert round_["cpu_load"] > 0 and round_["cpu_server"] > 0
    assert "cpu_postgresql" not in round_  # the embedded stack has none
    table = overload.table(found)
    assert table.splitlines()[2].startswith("| embedded (1 worker, SQLite) |")
    shown = f" / - / - / {round_['cpu_other']:.2f} of {round_['cpu_capacity']:.1f} |"
    assert table.splitlines()[2].endswith(shown)


@pytest.mark.parametrize("heed", [True, False])
async def test_writers_that_heed_retry_after_wait_before_sending_again(heed: bool) -> None:
    """With ``heed`` a refused writer waits the 429's Retry-After (here 1 s) before its next
    request: in 1.5 s a connection refused every time sends twice; one that ignores it sends
    again at once, many times."""
    sent = 0

    async def serve(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        nonlocal sent
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                length = [
                    int(line.split(b":")[1]) for line in head.split(b"\r\n") if b"Length" in line
                ]
                await reader.readexactly(length[0] if length else 0)
                sent += 1
                writer.write(b"HTTP/1.1 429 Too Many Requests\r\nRetry-After: 1\r\n")
                writer.write(b"Content-Length: 0\r\n\r\n")
                await writer.drain()
        except (asyncio.IncompleteReadError, ConnectionError):
            writer.close()

    server = await asyncio.start_server(serve, "127.0.0.1", 0)
    url = f"http://127.0.0.1:{server.sockets[0].getsockname()[1]}"
    job = overload.Job(url, "write", "b", 1, 1.5, 3, "p", 10, heed)
    try:
        outcome = await overload._job(job)
    finally:
        server.close()
        await server.wait_closed()
    assert outcome.no_retry_after == 0 and len(outcome.refused) == sent
    if heed:
        assert sent == 2  # at 0 s, then once its Retry-After had passed
    else:
        assert sent > 10


def test_cpu_is_counted_by_part_from_proc() -> None:
    """Each part's CPU seconds over the phase per second of it, a process that appeared
    meanwhile counted from zero; what no part used is the machine's ``other``."""
    before = cpu_share.Sample(10.0, 100.0, 400.0, {"load": {1: 5.0}, "server": {2: 1.0}})
    after = cpu_share.Sample(12.0, 103.0, 404.0, {"load": {1: 6.0, 3: 0.5}, "server": {2: 2.0}})
    assert cpu_share.cores(before, after) == {
        "load": 0.75,
        "server": 0.5,
        "other": 0.25,
        "machine": 1.5,
        "capacity": 2.0,
    }
    mine = cpu_share.process_seconds(os.getpid())
    assert mine is not None and mine > 0
    # this process by its own command line (an xdist worker's holds no "pytest")
    program = Path(f"/proc/{os.getpid()}/cmdline").read_bytes().split(b"\0")[0]
    assert os.getpid() in cpu_share.matching([program])
    busy, total = cpu_share.machine_seconds()
    assert 0 < busy <= total


async def test_the_lean_client_reads_each_kind_of_answer_and_reconnects() -> None:
    """Keep-alive with Content-Length, then chunked with ``Connection: close``: the next
    request opens a new connection. What the server received is the prepared request."""
    received: list[bytes] = []
    connections = 0
    answers = [
        b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\nRetry-After: 1\r\n\r\nhello",
        b"HTTP/1.1 429 Too Many Requests\r\nTransfer-Encoding: chunked\r\n"
        b"Connection: close\r\n\r\n3\r\nabc\r\n2\r\nde\r\n0\r\n\r\n",
        b"HTTP/1.1 204 No Content\r\nContent-Length: 0\r\n\r\n",
    ]

    async def serve(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        nonlocal connections
        connections += 1
        while answers:
            head = await reader.readuntil(b"\r\n\r\n")
            length = [int(line.split(b":")[1]) for line in head.split(b"\r\n") if b"Length" in line]
            received.append(head + (await reader.readexactly(length[0]) if length else b""))
            answer = answers.pop(0)
            writer.write(answer)
            await writer.drain()
            if b"close" in answer:
                break
        writer.close()

    server = await asyncio.start_server(serve, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    connection = raw_http.Connection("127.0.0.1", port)
    try:
        post = raw_http.request(b"POST", "/v1/x", {"A": "b"}, b'{"k":1}')
        assert await connection.send(post) == (
            200,
            {b"content-length": b"5", b"retry-after": b"1"},
            b"hello",
        )
        status, headers, body = await connection.send(raw_http.request(b"GET", "/y", {}))
        assert (status, body, headers[b"connection"]) == (429, b"abcde", b"close")
        status, _, body = await connection.send(raw_http.request(b"GET", "/z", {}))
        assert (status, body) == (204, b"")
    finally:
        await connection.close()
        server.close()
        await server.wait_closed()
    assert connections == 2
    assert received[0] == (
        b'POST /v1/x HTTP/1.1\r\nHost: rankline\r\nA: b\r\nContent-Length: 7\r\n\r\n{"k":1}'
    )
    assert received[1] == b"GET /y HTTP/1.1\r\nHost: rankline\r\n\r\n"


async def test_the_lean_client_sends_again_when_a_kept_connection_was_closed() -> None:
    """A server that closes every connection after one answer, without saying so: each next
    request goes over a new connection, none is lost, none is sent twice."""
    seen: list[bytes] = []

    async def serve(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            seen.append(await reader.readuntil(b"\r\n\r\n"))
        except asyncio.IncompleteReadError:
            return
        writer.write(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
        await writer.drain()
        writer.close()

    server = await asyncio.start_server(serve, "127.0.0.1", 0)
    connection = raw_http.Connection("127.0.0.1", server.sockets[0].getsockname()[1])
    try:
        for n in range(3):
            status, _, body = await connection.send(raw_http.request(b"GET", f"/{n}", {}))
            assert (status, body) == (200, b"ok")
    finally:
        await connection.close()
        server.close()
        await server.wait_closed()
    assert [head.split(b" ")[1] for head in seen] == [b"/0", b"/1", b"/2"]
