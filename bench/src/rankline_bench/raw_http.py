"""A lean HTTP/1.1 client for load processes: one keep-alive connection, requests sent as
prepared bytes, answers read with as little work as HTTP/1.1 needs (the status, the headers
as lower-cased names, a body by Content-Length or chunked).

A load generator that runs on the same cores as the server measures itself too: a full
client (httpx: its pool, h11, its request and response models) spends milliseconds of CPU a
request, and on a busy machine that time, not the server's, becomes most of the latency it
reports. This one spends little more than the socket's own.

    connection = Connection("127.0.0.1", 8000)
    status, headers, body = await connection.send(request(b"GET", "/v1/boards/b/top", auth))
    await connection.close()
"""

from __future__ import annotations

import asyncio
import contextlib

_CRLF = b"\r\n"


class Closed(Exception):
    """The connection ended before a whole answer was read."""


def request(
    method: bytes, path: str, headers: dict[str, str], body: bytes = b"", host: str = "rankline"
) -> bytes:
    """The bytes of one request: its line, ``Host``, ``headers``, ``Content-Length`` (when
    there is a body) and the body."""
    lines = [method + b" " + path.encode() + b" HTTP/1.1", b"Host: " + host.encode()]
    lines += [f"{name}: {value}".encode() for name, value in headers.items()]
    if body or method in (b"POST", b"PUT", b"PATCH"):
        lines.append(b"Content-Length: " + str(len(body)).encode())
    return _CRLF.join(lines) + _CRLF + _CRLF + body


class Connection:
    """One keep-alive connection, opened on first use and again after the server closed it
    (seen before a request is sent: a server may close a connection after answering a
    request whose body it did not read)."""

    def __init__(self, host: str, port: int) -> None:
        self._host = host
        self._port = port
        self._reader: asyncio.StreamReader | None = None
        self._writer: asyncio.StreamWriter | None = None

    async def send(
        self, data: bytes, *, again: bool = True
    ) -> tuple[int, dict[bytes, bytes], bytes]:
        """Send a prepared request (``request``) and read its answer: (status, headers,
        body). ``Closed`` (or an ``OSError``) when the connection failed; the next request
        opens a new one. A kept connection that the server had closed before the request
        reached it (nothing of an answer came) is replaced and the request sent once more
        (``again``): the server never saw it."""
        if self._reader is not None and self._reader.at_eof():
            await self.close()  # the server closed it after the last answer
        kept = self._reader is not None
        if self._reader is None or self._writer is None:
            self._reader, self._writer = await asyncio.open_connection(self._host, self._port)
        reader, writer = self._reader, self._writer
        try:
            writer.write(data)
            # a server may answer and close before the whole body is sent: read on
            with contextlib.suppress(OSError):
                await writer.drain()
            try:
                head = await reader.readuntil(_CRLF + _CRLF)
            except (asyncio.IncompleteReadError, ConnectionResetError) as exc:
                nothing = not isinstance(exc, asyncio.IncompleteReadError) or not exc.partial
                if kept and again and nothing:
                    await self.close()
                    return await self.send(data, again=False)
                raise
            status, headers = _head(head)
            if headers.get(b"transfer-encoding", b"").lower() == b"chunked":
                body = await _chunked(reader)
            else:
                body = await reader.readexactly(int(headers.get(b"content-length", b"0")))
        except (asyncio.IncompleteReadError, asyncio.LimitOverrunError, ValueError) as exc:
            await self.close()
            raise Closed(str(exc)) from exc
        except OSError:
            await self.close()
            raise
        if headers.get(b"connection", b"").lower() == b"close":
            await self.close()
        return status, headers, body

    async def close(self) -> None:
        writer, self._reader, self._writer = self._writer, None, None
        if writer is not None:
            writer.close()
            with contextlib.suppress(OSError):
                await writer.wait_closed()


def _head(head: bytes) -> tuple[int, dict[bytes, bytes]]:
    lines = head[: -len(_CRLF + _CRLF)].split(_CRLF)
    status = int(lines[0].split(b" ", 2)[1])
    headers = {}
    for line in lines[1:]:
        name, _, value = line.partition(b":")
        headers[name.strip().lower()] = value.strip()
    return status, headers


async def _chunked(reader: asyncio.StreamReader) -> bytes:
    body = bytearray()
    while True:
        size = int((await reader.readuntil(_CRLF)).split(b";", 1)[0].strip(), 16)
        if size == 0:
            await reader.readuntil(_CRLF)  # no trailers are sent to this client
            return bytes(body)
        body += await reader.readexactly(size)
        await reader.readexactly(len(_CRLF))


__all__ = ["Closed", "Connection", "request"]
