// The parts that need no server: the event stream parser, Retry-After, the batch helpers,
// exact 64-bit integers in JSON.
import assert from "node:assert/strict";
import { test } from "node:test";
import { batches, Client } from "../dist/index.js";
import { retryAfter } from "../dist/http.js";
import { parseJson, stringifyJson } from "../dist/json.js";
import { SseParser } from "../dist/sse.js";

test("the parser reads events across chunks and line endings, skipping comments", () => {
  const parser = new SseParser();
  const text =
    ': ping\r\nevent: top\r\ndata: {"a":\r\ndata: 1}\r\n\r\nretry: 250\nid: 7\ndata: x\n\n';
  const messages = [];
  for (const char of text) messages.push(...parser.push(char)); // split anywhere, even inside \r\n
  assert.deepEqual(messages, [
    { event: "top", data: '{"a":\n1}', id: "" },
    { event: "message", data: "x", id: "7" },
  ]);
  assert.equal(parser.retryMs, 250);
});

test("Retry-After is read as seconds or as an HTTP date", () => {
  assert.equal(retryAfter("3"), 3);
  assert.equal(retryAfter(null), null);
  assert.equal(retryAfter("soon"), null);
  const now = Date.parse("2026-11-26T10:00:00Z");
  assert.equal(retryAfter("Thu, 26 Nov 2026 10:00:05 GMT", now), 5);
});

test("batches are at most 1,000 items, in order", () => {
  const sizes = [...batches(Array.from({ length: 2001 }, (_, n) => n))].map((b) => b.length);
  assert.deepEqual(sizes, [1000, 1000, 1]);
});

test("integers beyond 2^53 are read as exact bigints and written exactly", () => {
  const text =
    '{"p:9007199254740993":"9223372036854775807","score":9223372036854775807,' +
    '"low":-9223372036854775808,"safe":9007199254740991,"x":[1.5e300,12345678901234567.5]}';
  assert.deepEqual(parseJson(text), {
    "p:9007199254740993": "9223372036854775807", // strings stay strings
    score: 9223372036854775807n,
    low: -9223372036854775808n,
    safe: 9007199254740991, // still a number
    x: [1.5e300, 12345678901234567.5], // not integers: numbers, as JSON.parse reads them
  });
  const body = { score: 9223372036854775807n, subscore: -5n, name: "9223372036854775807" };
  assert.equal(
    stringifyJson(body),
    '{"score":9223372036854775807,"subscore":-5,"name":"9223372036854775807"}',
  );
  assert.equal(stringifyJson({ a: 1 }), '{"a":1}');
});

test("a dropped stream reconnects and starts a new event stream", async () => {
  const bodies = [
    'event: top\ndata: {"n":1}\n\nevent: top\ndata: {"cut', // the connection drops mid-event
    'retry: 5\n\nevent: top\ndata: {"n":2}\n\n',
  ];
  const asked = [];
  const fetch = async (url, init) => {
    asked.push(url);
    const text = bodies.shift();
    const body = new ReadableStream({
      start(controller) {
        controller.enqueue(new TextEncoder().encode(text));
        if (bodies.length > 0)
          controller.close(); // the last one stays open
        else init.signal.addEventListener("abort", () => controller.error(init.signal.reason));
      },
    });
    return new Response(body, { status: 200, headers: { "content-type": "text/event-stream" } });
  };
  const client = new Client("http://rankline.test", { fetch });
  const stream = client.stream("arena", { limit: 3, transport: "fetch", reconnectMs: 10 });
  const seen = [];
  for await (const event of stream) {
    seen.push(event.data.n);
    if (seen.length === 2) stream.close();
  }
  assert.deepEqual(seen, [1, 2]);
  assert.deepEqual(asked, [
    "http://rankline.test/v1/boards/arena/stream?limit=3",
    "http://rankline.test/v1/boards/arena/stream?limit=3",
  ]);
});
