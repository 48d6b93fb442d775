// The built client against a real `rankline serve` (tests/test_ts_client.py starts it and
// passes RANKLINE_URL and RANKLINE_SERVER_KEY; reads over its key are limited to 2 a second).
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { test } from "node:test";
import { ApiError, Client } from "../dist/index.js";

const url = process.env.RANKLINE_URL;
const serverKey = process.env.RANKLINE_SERVER_KEY;
assert.ok(url && serverKey, "RANKLINE_URL and RANKLINE_SERVER_KEY must be set");

/** Writes with the server key; reads go through `reader`, keyless (reads are public here),
 * so that the tight per-key read limit only meets the test that is about it. */
const admin = new Client(url, { serverKey });
const reader = new Client(url);
const fresh = (name) => `${name}-${randomUUID().slice(0, 8)}`;

test("a submission round-trips through the reads", async () => {
  const board = fresh("arena");
  const made = await admin.putBoard(board, { windows: ["all_time", "daily"], scopes: ["region"] });
  assert.equal(made.id, board);
  const first = await admin.submit(board, {
    player_id: "p:42",
    score: 4500,
    match_id: "m:1",
    scopes: { region: "EU" },
  });
  assert.deepEqual(
    [first.applied, first.duplicate, first.previous_score, first.score],
    [true, false, null, 4500],
  );
  assert.ok(
    first.standings.some((s) => s.window === "daily" && s.scope === "region:EU" && s.rank === 1),
  );
  await admin.submit(board, { player_id: "p:7", score: 5200, match_id: "m:2" });
  const again = await admin.submit(board, {
    player_id: "p:42",
    score: 4500,
    match_id: "m:1",
    scopes: { region: "EU" },
  });
  assert.equal(again.duplicate, true);

  const top = await reader.top(board, { limit: 10 });
  assert.deepEqual(
    top.entries.map((e) => [e.rank, e.player_id, e.score]),
    [
      [1, "p:7", 5200],
      [2, "p:42", 4500],
    ],
  );
  const me = await reader.player(board, "p:42");
  assert.deepEqual([me.rank, me.competition_rank, me.percentile], [2, 2, 0]);
  const regional = await reader.top(board, { scope: "region:EU" });
  assert.deepEqual(
    regional.entries.map((e) => e.player_id),
    ["p:42"],
  );
  const around = await reader.around(board, "p:42", { k: 1 });
  assert.deepEqual(
    around.entries.map((e) => e.player_id),
    ["p:7", "p:42"],
  );
  assert.equal((await reader.rankOf(board, { score: 5000 })).rank, 2);
  const ranked = await reader.ranks(board, ["p:42", "nobody", "p:7"]);
  assert.deepEqual(
    ranked.entries.map((e) => e.player_id),
    ["p:7", "p:42"],
  );
  const friends = await reader.friends(board, "p:42", ["p:7"], { k: 5 });
  assert.equal(friends.player.friends_rank, 2);
  assert.equal(
    (await reader.listBoards()).boards.some((b) => b.id === board),
    true,
  );
  await admin.deleteBoard(board);
});

test("an upload of 2,500 is sent 1,000 at a time, its results indexed over the whole upload", async () => {
  const board = fresh("upload");
  await admin.putBoard(board);
  const items = Array.from({ length: 2500 }, (_, n) => ({
    board,
    player_id: `p${n}`,
    score: n,
    match_id: `m${n}`,
  }));
  items[1500] = { ...items[1500], score: 1.5 }; // not an integer: that item alone is refused
  const sent = [];
  const counting = new Client(url, {
    serverKey,
    fetch: (input, init) => (sent.push(JSON.parse(init.body).scores.length), fetch(input, init)),
  });
  const { results } = await counting.submitBatch(items);
  assert.deepEqual(sent, [1000, 1000, 500]);
  assert.deepEqual(
    results.map((r) => r.index),
    items.map((_, n) => n),
  );
  assert.deepEqual(
    results.filter((r) => r.error).map((r) => r.index),
    [1500],
  );
  const refused = results[1500].error;
  assert.equal(refused.status, 422);
  assert.deepEqual(refused.errors[0].loc.slice(0, 3), ["body", "scores", 1500]);
  assert.equal(results[2499].player_id, "p2499");
  assert.equal((await reader.top(board, { limit: 1 })).total, 2499);
});

test("an asynchronous upload's token makes a later read include all of it", async () => {
  const board = fresh("later");
  await admin.putBoard(board);
  const one = await admin.submit(
    board,
    { player_id: "solo", score: 1, match_id: "s" },
    { respondAsync: true },
  );
  assert.equal(one.accepted, 1);
  assert.equal((await reader.player(board, "solo", { after: one.token })).score, 1);

  // 1,000 on one board, then 200 on another: two requests, whose tokens may name different
  // partitions of the log; the upload's one token waits for both.
  const other = fresh("later-too");
  await admin.putBoard(other);
  const items = Array.from({ length: 1200 }, (_, n) => ({
    board: n < 1000 ? board : other,
    player_id: `a${n}`,
    score: 10 + n,
    match_id: `x${n}`,
  }));
  const taken = await admin.submitBatch(items, { respondAsync: true });
  assert.equal(taken.accepted, 1200);
  assert.deepEqual(
    taken.results.map((r) => [r.index, r.accepted]),
    items.map((_, n) => [n, true]),
  );
  const first = await reader.top(board, { limit: 1, after: taken.token });
  assert.equal(first.total, 1001);
  assert.deepEqual(
    first.entries.map((e) => [e.player_id, e.score]),
    [["a999", 1009]],
  );
  const second = await reader.top(other, { limit: 1, after: taken.token });
  assert.equal(second.total, 200);
  assert.deepEqual(
    second.entries.map((e) => [e.player_id, e.score]),
    [["a1199", 1209]],
  );
});

test("scores at the ends of the 64-bit range round-trip exactly", async () => {
  const board = fresh("int64");
  await admin.putBoard(board);
  const top = 9223372036854775807n;
  const bottom = -9223372036854775808n;
  const answer = await admin.submit(board, { player_id: "max", score: top, match_id: "a" });
  assert.equal(answer.score, top);
  await admin.submitBatch([{ board, player_id: "min", score: bottom, match_id: "b" }]);
  await admin.submit(board, { player_id: "small", score: 7, match_id: "c" });
  const { entries } = await reader.top(board);
  assert.deepEqual(
    entries.map((e) => e.score),
    [top, 7, bottom],
  );
  assert.equal((await reader.rankOf(board, { score: top - 1n })).rank, 2);
  const read = await reader.player(board, "max");
  assert.equal(read.score, top);
});

test("errors throw ApiError carrying the problem", async () => {
  const board = fresh("errors");
  await admin.putBoard(board);
  await assert.rejects(reader.player(board, "nobody"), (error) => {
    assert.ok(error instanceof ApiError);
    assert.equal(error.status, 404);
    assert.equal(error.problem.status, 404);
    assert.ok(error.title && error.detail);
    return true;
  });
  await assert.rejects(
    admin.submit(board, { player_id: "p", score: 2.5, match_id: "m" }),
    (error) => {
      assert.equal(error.status, 422);
      assert.ok(
        error.errors.some((e) => e.loc.includes("score")),
        JSON.stringify(error.problem),
      );
      return true;
    },
  );
  await admin.submit(board, { player_id: "p", score: 3, match_id: "m" });
  await assert.rejects(
    admin.submit(board, { player_id: "p", score: 4, match_id: "m" }),
    (error) => {
      assert.equal(error.status, 409);
      assert.equal(error.problem.existing.score, 3);
      return true;
    },
  );
  await assert.rejects(
    reader.submit(board, { player_id: "p", score: 5, match_id: "n" }),
    (error) => {
      assert.equal(error.status, 401);
      return true;
    },
  );
});

test("a token function's refused credential is replaced after the 401, once", async () => {
  // The server takes a token as any bearer credential: here the server key, handed out
  // after an empty one, which the server refuses with 401.
  const handed = [];
  const token = async () => (handed.push(handed.length === 0 ? "" : serverKey), handed.at(-1));
  const player = new Client(url, { token });
  const board = fresh("token");
  await player.putBoard(board);
  const submitted = await player.submit(board, { player_id: "p:1", score: 7, match_id: "m:1" });
  assert.equal(submitted.score, 7);
  assert.deepEqual(handed, ["", serverKey]);
  const wrong = new Client(url, { token: "not-a-key" });
  await assert.rejects(
    wrong.submit(board, { player_id: "p:1", score: 8, match_id: "m:2" }),
    (error) => error.status === 403,
  );
  await admin.deleteBoard(board);
});

test("a player reads their own rank with a token, refreshed once after it expired", async () => {
  const fresh_ = process.env.RANKLINE_PLAYER_TOKEN;
  const expired = process.env.RANKLINE_EXPIRED_TOKEN;
  assert.ok(fresh_ && expired, "RANKLINE_PLAYER_TOKEN and RANKLINE_EXPIRED_TOKEN must be set");
  const board = fresh("mine");
  await admin.putBoard(board);
  await admin.submit(board, { player_id: "p:ts", score: 5, match_id: "m:1" });
  await admin.submit(board, { player_id: "p:other", score: 9, match_id: "m:2" });
  const handed = [];
  const token = async () => (handed.push(handed.length === 0 ? expired : fresh_), handed.at(-1));
  const player = new Client(url, { token });
  const me = await player.me(board);
  assert.deepEqual([me.player_id, me.rank], ["p:ts", 2]);
  assert.deepEqual(handed, [expired, fresh_]);
  const around = await player.meAround(board, { k: 1 });
  assert.deepEqual(
    around.entries.map((e) => e.player_id),
    ["p:other", "p:ts"],
  );
  await assert.rejects(
    player.putBoard(fresh("not-mine")),
    (error) => error.status === 403 && error.problem.type.endsWith("/not-for-players"),
  );
  const stale = new Client(url, { token: expired });
  await assert.rejects(stale.me(board), (error) => error.status === 401);
  await admin.deleteBoard(board);
});

test("429 answers are retried after their Retry-After", async () => {
  const board = fresh("limited");
  await admin.putBoard(board);
  const retries = [];
  const keyed = new Client(url, { serverKey, onRetry: (retry) => retries.push(retry) });
  for (let n = 0; n < 8 && retries.length === 0; n++) {
    assert.equal((await keyed.top(board)).total, 0); // every read ends in an answer
  }
  assert.ok(retries.length > 0, "2 reads a second per key: one of 8 in a row is refused");
  const [retry] = retries;
  assert.equal(retry.status, 429);
  assert.ok(retry.retryAfter >= 1, JSON.stringify(retry));
  assert.ok(retry.delayMs >= retry.retryAfter * 1000, JSON.stringify(retry));
});

test("the stream sends the top, then each change of it and of a watched player", async () => {
  const board = fresh("live");
  await admin.putBoard(board);
  const stream = reader.stream(board, { limit: 5, players: ["p:1"] });
  const events = stream[Symbol.asyncIterator]();
  const first = await events.next();
  assert.equal(first.value.event, "top");
  assert.deepEqual(first.value.data.entries, []);
  await admin.submit(board, { player_id: "p:1", score: 99, match_id: "m:1" });
  const seen = [];
  while (!seen.some((e) => e.event === "top") || !seen.some((e) => e.event === "player")) {
    const { value } = await events.next();
    seen.push(value);
  }
  const top = seen.find((e) => e.event === "top").data;
  assert.deepEqual(
    top.entries.map((e) => [e.player_id, e.score]),
    [["p:1", 99]],
  );
  const watched = seen.find((e) => e.event === "player").data;
  assert.deepEqual([watched.player_id, watched.rank], ["p:1", 1]);
  stream.close();
  assert.equal((await events.next()).done, true);
});

test("pages follow cursors, entries carry their submission's metadata", async () => {
  const board = fresh("cursor");
  await admin.putBoard(board, {});
  for (let i = 0; i < 5; i += 1) {
    await admin.submit(board, {
      player_id: `p:${i}`,
      score: 100 - i,
      match_id: "m",
      metadata: { car: `c${i}` },
    });
  }
  const seen = [];
  for await (const page of reader.pages(board, { limit: 2, metadata: true })) {
    seen.push(...page.entries.map((e) => [e.player_id, e.metadata.car]));
  }
  assert.deepEqual(seen, [
    ["p:0", "c0"],
    ["p:1", "c1"],
    ["p:2", "c2"],
    ["p:3", "c3"],
    ["p:4", "c4"],
  ]);
  await assert.rejects(reader.snapshots(board), (e) => e instanceof ApiError && e.status === 404);
});

test("a board's webhook deliveries are listed with the server key only", async () => {
  const board = fresh("hook");
  await admin.putBoard(board, {
    windows: ["all_time", "daily"],
    webhook: { url: "http://127.0.0.1:9/hook", secret: "s3cret-s3cret-s3cret" },
  });
  const listed = await admin.deliveries(board, { window: "daily" });
  assert.equal(listed.board, board);
  assert.deepEqual(listed.deliveries, []);
  await assert.rejects(reader.deliveries(board), (e) => e instanceof ApiError && e.status === 401);
});

test("moderation: an entry removed, a match voided, a period reset, each in the audit log", async () => {
  const board = fresh("moderated");
  const [p1, p2, p3] = ["p:1", "p:2", "p:3"].map((p) => `${p}-${board}`);
  await admin.putBoard(board, { windows: ["all_time", "daily"] });
  for (const [player, score] of [
    [p1, 10],
    [p2, 20],
    [p3, 30],
  ]) {
    await admin.submit(board, { player_id: player, score, match_id: "round/1" });
  }
  await admin.submit(board, { player_id: p1, score: 5, match_id: "m2" });

  const removed = await admin.removeEntry(board, p3, { window: "daily", reason: "dup" });
  assert.deepEqual([removed.player_id, removed.window, removed.removed], [p3, "daily", 1]);
  const voided = await admin.voidMatch(board, "round/1", { reason: "bad server" });
  assert.deepEqual(voided, { board, match_id: "round/1", players: [p1, p2, p3] });
  const top = await reader.top(board);
  assert.deepEqual(
    top.entries.map((e) => [e.player_id, e.score]),
    [[p1, 5]],
  );
  const reset = await admin.reset(board, { window: "daily" });
  assert.deepEqual([reset.window, reset.removed], ["daily", 1]);
  await assert.rejects(
    admin.voidMatch(board, "round/1"),
    (e) => e instanceof ApiError && e.status === 409,
  );
  await assert.rejects(
    admin.removeEntry(board, "nobody"),
    (e) => e instanceof ApiError && e.status === 404,
  );

  const page = await admin.audit({ board, limit: 2 });
  assert.deepEqual(
    page.items.map((i) => i.action),
    ["board.reset", "match.void"],
  );
  assert.equal(page.items[1].reason, "bad server");
  assert.ok(page.next);
  const older = await admin.audit({ board, limit: 2, cursor: page.next });
  assert.deepEqual(
    older.items.map((i) => i.action),
    ["entry.remove", "board.create"],
  );
  assert.equal(older.next, undefined);
  const mine = await admin.audit({ player_id: p3 });
  assert.deepEqual(
    mine.items.map((i) => [i.action, i.board, i.reason]),
    [["entry.remove", board, "dup"]],
  );
  await assert.rejects(reader.audit(), (e) => e instanceof ApiError && e.status === 401);

  const letters = await admin.deadLetters({ board, limit: 10 });
  assert.deepEqual(letters.items, []);
  assert.equal(typeof letters.total, "number");
  await assert.rejects(reader.deadLetters(), (e) => e instanceof ApiError && e.status === 401);
});
