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

/** A fetch answering 200 to `Bearer accepted` and 401 to anything else; what it was asked. */
function fetchAccepting(accepted) {
  const asked = [];
  const fetch = async (url, init) => {
    const authorization = new Headers(init.headers).get("authorization");
    asked.push([init.method ?? "GET", url, authorization]);
    if (authorization === `Bearer ${accepted}`)
      return new Response('{"ok":true}', {
        status: 200,
        headers: { "content-type": "application/json" },
      });
    const problem = { type: "t", title: "Missing credentials", status: 401, detail: "expired" };
    return new Response(JSON.stringify(problem), {
      status: 401,
      headers: { "content-type": "application/problem+json" },
    });
  };
  return { fetch, asked };
}

/** A token function handing out `values` in turn (the last from then on), as a Promise
 * when `promised`. */
function tokens(values, promised) {
  const handed = [];
  const next = () => {
    handed.push(values[Math.min(handed.length, values.length - 1)]);
    return handed.at(-1);
  };
  return { token: promised ? async () => next() : next, handed };
}

test("a token is sent with reads and writes; a token string is not refreshed", async () => {
  const { fetch, asked } = fetchAccepting("t1");
  const client = new Client("http://rankline.test", { token: "t1", fetch });
  await client.top("arena");
  await client.submit("arena", { player_id: "p", score: 1, match_id: "m" });
  await client.me("arena");
  assert.deepEqual(
    asked.map(([, , auth]) => auth),
    ["Bearer t1", "Bearer t1", "Bearer t1"],
  );
  const stale = new Client("http://rankline.test", { token: "old", fetch });
  await assert.rejects(stale.me("arena"), (error) => error.status === 401);
  assert.equal(asked.length, 4);
});

for (const promised of [false, true]) {
  test(`a token function (${promised ? "a Promise" : "a string"}) is asked again once after a 401`, async () => {
    const { fetch, asked } = fetchAccepting("second");
    const { token, handed } = tokens(["first", "second"], promised);
    const client = new Client("http://rankline.test", { token, fetch });
    assert.deepEqual(await client.meAround("arena", { k: 2 }), { ok: true });
    assert.deepEqual(await client.meFriends("arena"), { ok: true });
    assert.deepEqual(handed, ["first", "second"]);
    assert.deepEqual(asked, [
      ["GET", "http://rankline.test/v1/boards/arena/me/around?k=2", "Bearer first"],
      ["GET", "http://rankline.test/v1/boards/arena/me/around?k=2", "Bearer second"],
      ["GET", "http://rankline.test/v1/boards/arena/me/friends", "Bearer second"],
    ]);
  });
}

test("a refreshed token refused again throws the 401, without a loop", async () => {
  const { fetch, asked } = fetchAccepting("never");
  const { token, handed } = tokens(["a", "b", "c"], false);
  const client = new Client("http://rankline.test", { token, fetch });
  await assert.rejects(client.top("arena"), (error) => error.status === 401);
  assert.deepEqual(handed, ["a", "b"]);
  assert.equal(asked.length, 2);
});

test("a client is one caller: a token or keys", () => {
  assert.throws(() => new Client("http://t", { token: "t", serverKey: "k" }), TypeError);
  assert.throws(() => new Client("http://t", { token: () => "t", readKey: "r" }), TypeError);
});

test("the stream over fetch sends the token, and a new one after a 401", async () => {
  const { token, handed } = tokens(["old", "new"], true);
  const asked = [];
  const fetch = async (url, init) => {
    const authorization = new Headers(init.headers).get("authorization");
    asked.push([url, authorization]);
    if (authorization !== "Bearer new") {
      const problem = { type: "t", title: "Missing credentials", status: 401, detail: "expired" };
      return new Response(JSON.stringify(problem), { status: 401 });
    }
    const body = new ReadableStream({
      start(controller) {
        controller.enqueue(new TextEncoder().encode('event: top\ndata: {"n":1}\n\n'));
        init.signal.addEventListener("abort", () => controller.error(init.signal.reason));
      },
    });
    return new Response(body, { status: 200, headers: { "content-type": "text/event-stream" } });
  };
  const client = new Client("http://rankline.test", { token, fetch });
  const stream = client.stream("arena", { limit: 1 }); // Node has no EventSource: fetch
  for await (const event of stream) {
    assert.equal(event.data.n, 1);
    stream.close();
  }
  assert.deepEqual(handed, ["old", "new"]);
  assert.deepEqual(asked, [
    ["http://rankline.test/v1/boards/arena/stream?limit=1", "Bearer old"],
    ["http://rankline.test/v1/boards/arena/stream?limit=1", "Bearer new"],
  ]);
});

test("the keys methods' requests", async () => {
  const asked = [];
  const fetch = async (url, init) => {
    asked.push([
      init.method,
      url,
      init.body ?? null,
      new Headers(init.headers).get("authorization"),
    ]);
    return new Response("{}", { status: 200 });
  };
  const client = new Client("http://rankline.test", { serverKey: "s", fetch });
  await client.createKey({ name: "web", role: "read", boards: ["game-a-*"] });
  await client.listKeys();
  await client.revokeKey("k_1");
  assert.deepEqual(asked, [
    [
      "POST",
      "http://rankline.test/v1/keys",
      '{"name":"web","role":"read","boards":["game-a-*"]}',
      "Bearer s",
    ],
    ["GET", "http://rankline.test/v1/keys", null, "Bearer s"],
    ["DELETE", "http://rankline.test/v1/keys/k_1", null, "Bearer s"],
  ]);
});
