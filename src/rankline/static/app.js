// rankline live page: plain JS, no build step, no CDN.
// Live updates come from the SSE stream (GET /v1/boards/{board}/stream, events `top` and
// `player`); when EventSource is unavailable or fails, the page polls GET top every 2 s
// (with If-None-Match when the server sent an ETag) and the watched player with it.
"use strict";

(function () {
  const LIMIT = 20;
  const AROUND_K = 5;
  const POLL_MS = 2000;
  const $ = (id) => document.getElementById(id);

  const state = {
    boards: [],
    board: null,
    window: "all_time",
    period: "",
    scope: "global",
    player: "",
    friends: null, // null: not shown; "" stored list; "a,b": typed list
    key: "",
    asOf: null, // Date.parse of the newest as_of shown
    endsAt: null, // Date.parse of the shown period's period_ends_at (null: it never ends)
    etag: null,
    source: null,
    pollTimer: null,
    generation: 0, // bumps on every (re)connect so stale answers are dropped
    lastRanks: new Map(),
    playerBusy: false,
    playerAgain: false,
  };

  // ---- HTTP ---------------------------------------------------------------------------

  // Scores are exact signed 64-bit integers: keep integers beyond 2^53 as strings so that
  // JSON.parse never rounds them.
  function parseJSON(text) {
    return JSON.parse(text.replace(/([:[,]\s*)(-?\d{16,})(?=\s*[,}\]])/g, '$1"$2"'));
  }

  class HttpError extends Error {
    constructor(status, problem) {
      super((problem && (problem.detail || problem.title)) || "HTTP " + status);
      this.status = status;
    }
  }

  async function api(path, options) {
    const opts = options || {};
    const headers = Object.assign({ Accept: "application/json" }, opts.headers || {});
    if (state.key) headers.Authorization = "Bearer " + state.key;
    if (opts.body !== undefined) headers["Content-Type"] = "application/json";
    const response = await fetch(path, {
      method: opts.method || "GET",
      headers: headers,
      body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
      cache: "no-store",
    });
    if (response.status === 304) return { notModified: true, response: response };
    const text = await response.text();
    let body = null;
    try {
      body = text ? parseJSON(text) : null;
    } catch (_) {
      body = null;
    }
    if (response.status === 401 || response.status === 403) {
      $("key-box").open = true;
    }
    if (!response.ok) throw new HttpError(response.status, body);
    return { body: body, response: response };
  }

  function where(extra) {
    const q = new URLSearchParams();
    q.set("window", state.window);
    if (state.period) q.set("period", state.period);
    q.set("scope", state.scope);
    for (const [k, v] of Object.entries(extra || {})) q.set(k, String(v));
    return q.toString();
  }

  // The metadata of the submission behind an entry, short enough for a row (all of it in
  // the title); nothing for none.
  function metaNote(metadata) {
    if (!metadata || typeof metadata !== "object") return null;
    const parts = Object.entries(metadata).map(
      ([k, v]) => k + ": " + (typeof v === "object" ? JSON.stringify(v) : String(v)),
    );
    if (!parts.length) return null;
    const span = document.createElement("span");
    span.className = "meta";
    const text = parts.join(" · ");
    span.textContent = text.length > 48 ? text.slice(0, 47) + "…" : text;
    span.title = JSON.stringify(metadata);
    return span;
  }

  // Reads of entries ask for each one's submission metadata, shown beside its name.
  function described(extra) {
    return where(Object.assign({ metadata: "true" }, extra || {}));
  }

  function boardPath(rest) {
    return "/v1/boards/" + encodeURIComponent(state.board.id) + rest;
  }

  // ---- rendering ----------------------------------------------------------------------

  function fmtInt(v) {
    return String(v).replace(/\B(?=(\d{3})+(?!\d))/g, ",");
  }

  function showError(message) {
    const el = $("error");
    el.textContent = message || "";
    el.hidden = !message;
  }

  function noteAsOf(asOf) {
    const t = Date.parse(asOf);
    if (!Number.isNaN(t) && (state.asOf === null || t > state.asOf)) state.asOf = t;
    tick();
  }

  function tick() {
    const el = $("updated");
    if (state.asOf === null) {
      el.textContent = "";
      return;
    }
    const s = Math.max(0, Math.round((Date.now() - state.asOf) / 1000));
    el.textContent = "updated " + s + " s ago";
    countdown();
  }

  function countdown() {
    const el = $("ends");
    if (state.endsAt === null) {
      el.hidden = true;
      el.textContent = "";
      return;
    }
    el.hidden = false;
    let left = Math.round((state.endsAt - Date.now()) / 1000);
    if (left <= 0) {
      el.textContent = "period ended";
      return;
    }
    const d = Math.floor(left / 86400);
    left -= d * 86400;
    const h = Math.floor(left / 3600);
    left -= h * 3600;
    const m = Math.floor(left / 60);
    const sec = left - m * 60;
    const two = (n) => String(n).padStart(2, "0");
    const what = cronOf(state.window) ? "resets in " : "ends in ";
    el.textContent = what + (d ? d + "d " : "") + two(h) + ":" + two(m) + ":" + two(sec);
  }

  function setMode(mode) {
    const el = $("mode");
    el.dataset.mode = mode;
    el.textContent = mode;
  }

  function row(entry, opts) {
    const tr = document.createElement("tr");
    tr.dataset.player = entry.player_id;
    if (entry.player_id === state.player) tr.classList.add("me");
    const rank = document.createElement("td");
    rank.className = "num rank";
    const friends = Boolean(opts && opts.friendsRank);
    rank.textContent = friends ? entry.friends_rank : entry.rank;
    const name = document.createElement("td");
    name.className = "name";
    name.textContent = entry.display_name || entry.player_id;
    if (entry.display_name) name.title = entry.player_id;
    const meta = metaNote(entry.metadata);
    if (meta) name.append(" ", meta);
    if (entry.tier) {
      const tier = document.createElement("span");
      tier.className = "tier";
      tier.dataset.tier = entry.tier;
      tier.textContent = entry.tier;
      name.append(" ", tier);
    }
    const previous = opts && opts.previous ? opts.previous.get(entry.player_id) : undefined;
    if (previous !== undefined && previous !== entry.rank) {
      const move = document.createElement("span");
      move.className = previous > entry.rank ? "up" : "down";
      move.textContent = previous > entry.rank ? " ▲" : " ▼";
      name.appendChild(move);
      tr.classList.add("moved");
    } else if (opts && opts.previous && previous === undefined && opts.previous.size) {
      tr.classList.add("moved");
    }
    if (!friends && entry.dense_rank != null && entry.dense_rank !== entry.rank) {
      rank.title = "dense rank " + fmtInt(entry.dense_rank);
    }
    const score = document.createElement("td");
    score.className = "num";
    score.textContent = fmtInt(entry.score);
    if (entry.subscore != null) {
      const sub = document.createElement("span");
      sub.className = "subscore";
      sub.title = "subscore (breaks ties of score)";
      sub.textContent = " · " + fmtInt(entry.subscore);
      score.appendChild(sub);
    }
    tr.append(rank, name, score);
    if (friends) {
      const global = document.createElement("td");
      global.className = "num muted";
      global.textContent = "#" + entry.rank;
      tr.appendChild(global);
    }
    tr.addEventListener("click", () => watch(entry.player_id));
    return tr;
  }

  function renderTop(body) {
    $("snapshot-note").hidden = !body.taken_at;
    if (body.taken_at) $("snapshot-note").textContent = "snapshot taken " + body.taken_at;
    const tbody = $("top").querySelector("tbody");
    const previous = state.lastRanks;
    const rows = body.entries.map((e) => row(e, { previous: previous }));
    tbody.replaceChildren(...rows);
    state.lastRanks = new Map(body.entries.map((e) => [e.player_id, e.rank]));
    $("top-empty").hidden = body.entries.length > 0;
    $("total").textContent = "of " + fmtInt(body.total) + " · " + body.period;
    const ends = body.period_ends_at ? Date.parse(body.period_ends_at) : NaN;
    state.endsAt = Number.isNaN(ends) ? null : ends;
    if (body.period_ends_at) {
      const cron = cronOf(state.window);
      const closes = "closes for submissions at " + body.closes_at;
      $("ends").title = cron ? "next reset of " + cron + "; " + closes : closes;
    }
    noteAsOf(body.as_of);
  }

  function renderPlayer(p) {
    $("me").hidden = false;
    $("me-missing").hidden = true;
    $("me-rank").textContent = "#" + fmtInt(p.rank);
    $("me-pct").textContent = Number(p.percentile).toFixed(1) + "%";
    $("me-score").textContent =
      fmtInt(p.score) + (p.subscore != null ? " · " + fmtInt(p.subscore) : "");
    const tie = p.competition_rank !== p.rank ? " · tied at #" + p.competition_rank : "";
    const dense = p.dense_rank != null ? " · dense #" + fmtInt(p.dense_rank) : "";
    const tier = p.tier ? " · tier " + p.tier : "";
    $("me-note").textContent = (p.display_name || p.player_id) + tie + dense + tier;
    renderMovement(p);
  }

  // Movement: previous_rank (the rank just before the player's last change) and best_rank
  // (the best held this period); each is null when the server cannot vouch for it.
  function renderMovement(p) {
    const parts = [];
    let direction = "same";
    if (p.previous_rank != null) {
      const by = p.previous_rank - p.rank;
      direction = by > 0 ? "up" : by < 0 ? "down" : "same";
      const arrow = by > 0 ? "▲ " + fmtInt(by) : by < 0 ? "▼ " + fmtInt(-by) : "=";
      parts.push(arrow + " since #" + fmtInt(p.previous_rank));
    } else if (p.best_rank != null) {
      parts.push("new entry");
    }
    if (p.best_rank != null) parts.push("best #" + fmtInt(p.best_rank));
    const move = $("me-move");
    move.hidden = parts.length === 0;
    move.dataset.direction = direction;
    move.textContent = parts.join(" · ");
  }

  function renderMissing(message) {
    $("me").hidden = true;
    $("me-missing").hidden = false;
    $("me-missing").textContent = message;
  }

  // ---- loading ------------------------------------------------------------------------

  async function loadTop(generation) {
    const headers = state.etag ? { "If-None-Match": state.etag } : {};
    const got = await api(boardPath("/top?" + described({ limit: LIMIT })), { headers: headers });
    if (generation !== state.generation) return;
    if (got.notModified) {
      // The server confirmed the page is current.
      state.asOf = Date.now();
      tick();
      return;
    }
    state.etag = got.response.headers.get("ETag");
    renderTop(got.body);
  }

  // A board with `snapshots`: the top as it was at the instant picked (the latest snapshot
  // taken at or before it), instead of live.
  async function loadSnapshot(generation) {
    const picked = new Date($("snapshot-at").value); // local time, as the input shows it
    if (Number.isNaN(picked.getTime())) return;
    const at = picked.toISOString();
    try {
      const got = await api(boardPath("/top?" + described({ limit: LIMIT, at: at })));
      if (generation !== state.generation) return;
      renderTop(got.body);
    } catch (err) {
      if (generation !== state.generation) return;
      if (!(err instanceof HttpError) || err.status !== 404) throw err;
      $("top").querySelector("tbody").replaceChildren();
      $("top-empty").hidden = false;
      $("snapshot-note").hidden = false;
      $("snapshot-note").textContent = "no snapshot at or before " + at;
    }
  }

  // ---- rating boards: the watched player's rating after each match -------------------

  const SVG = "http://www.w3.org/2000/svg";

  function drawRating(items) {
    const svg = $("rating-chart");
    const scores = items.map((i) => Number(i.score));
    const lo = Math.min(...scores);
    const hi = Math.max(...scores);
    const span = hi - lo || 1;
    const x = (i) => (items.length === 1 ? 160 : 4 + (312 * i) / (items.length - 1));
    const y = (v) => 92 - (84 * (v - lo)) / span;
    const line = document.createElementNS(SVG, "polyline");
    line.setAttribute("points", scores.map((v, i) => x(i) + "," + y(v)).join(" "));
    line.setAttribute("class", "rating-line");
    const dots = items.map((item, i) => {
      const dot = document.createElementNS(SVG, "circle");
      dot.setAttribute("cx", x(i));
      dot.setAttribute("cy", y(scores[i]));
      dot.setAttribute("r", 2.5);
      dot.setAttribute("class", item.provisional ? "rating-dot provisional" : "rating-dot");
      const title = document.createElementNS(SVG, "title");
      title.textContent = item.match_id + ": " + item.previous.rating.toFixed(1) + " → " +
        item.rating.rating.toFixed(1);
      dot.appendChild(title);
      return dot;
    });
    svg.replaceChildren(line, ...dots);
  }

  async function loadRating(generation) {
    const figure = $("rating");
    if (!state.player || !state.board || state.board.policy !== "rating") {
      figure.hidden = true;
      return;
    }
    const who = encodeURIComponent(state.player);
    const q = new URLSearchParams({ board: state.board.id, limit: "100" });
    let history, now;
    try {
      history = await api("/v1/players/" + who + "/history?" + q);
      now = await api(boardPath("/players/" + who + "/rating?" + where({})));
    } catch (err) {
      if (generation !== state.generation) return;
      if (err.status === 404) {
        figure.hidden = true;
        return;
      }
      throw err;
    }
    if (generation !== state.generation) return;
    const items = history.body.items.slice().reverse(); // oldest first
    const r = now.body;
    const rd = r.rating.rd !== undefined ? " ± " + Math.round(r.rating.rd) : "";
    $("rating-note").textContent = "Rating " + fmtInt(r.score) + rd + " after " + r.games +
      (r.games === 1 ? " game" : " games") + (r.provisional ? " · provisional (not ranked yet)" : "");
    figure.hidden = false;
    if (items.length) drawRating(items);
  }

  async function loadPlayer(generation) {
    if (!state.player) return;
    guard(loadRating(generation));
    if (state.playerBusy) {
      state.playerAgain = true; // refresh once more when the current read ends
      return;
    }
    state.playerBusy = true;
    state.playerAgain = false;
    try {
      const path = "/players/" + encodeURIComponent(state.player) + "/around?";
      const got = await api(boardPath(path + described({ k: AROUND_K })));
      if (generation !== state.generation) return;
      renderPlayer(got.body.player);
      if (state.board.cohort_size) guard(loadCohort(generation));
      $("around").querySelector("tbody").replaceChildren(...got.body.entries.map((e) => row(e)));
      noteAsOf(got.body.as_of);
      if (state.friends !== null) await loadFriends(generation);
    } catch (err) {
      if (generation !== state.generation) return;
      if (err.status === 404) renderMissing(state.player + " has no entry on this leaderboard.");
      else throw err;
    } finally {
      state.playerBusy = false;
      if (state.playerAgain && generation === state.generation) {
        state.playerAgain = false;
        guard(loadPlayer(generation));
      }
    }
  }

  // On a board with cohorts: the watched player's cohort and rank in it.
  async function loadCohort(generation) {
    const path = "/players/" + encodeURIComponent(state.player) + "?";
    try {
      const got = await api(boardPath(path + where({ scope: "cohort" })));
      if (generation !== state.generation) return;
      const cohort = got.body.scope.replace("cohort:", "");
      $("me-note").textContent +=
        " · cohort " + cohort + ": #" + fmtInt(got.body.rank) + " of " + fmtInt(got.body.total);
    } catch (err) {
      if (err.status !== 404) throw err; // 404: no cohort in this period (yet)
    }
  }

  async function loadFriends(generation) {
    const path = boardPath(
      "/players/" + encodeURIComponent(state.player) + "/friends?" + described(),
    );
    const typed = (state.friends || "")
      .split(",")
      .map((s) => s.trim())
      .filter(Boolean);
    let got;
    try {
      got = typed.length
        ? await api(path, { method: "POST", body: { friends: typed } })
        : await api(path);
    } catch (err) {
      if (err.status === 404) {
        $("friends").querySelector("tbody").replaceChildren();
        $("friends-note").textContent = "No friends list found: type friends above.";
        return;
      }
      throw err;
    }
    if (generation !== state.generation) return;
    const entries = got.body.entries || [];
    $("friends").querySelector("tbody")
      .replaceChildren(...entries.map((e) => row(e, { friendsRank: true })));
    const me = got.body.player;
    $("friends-note").textContent = me
      ? "#" + me.friends_rank + " of " + got.body.friends_total + " among friends" +
        (typed.length ? "" : " (stored list)")
      : "";
  }

  function guard(promise) {
    promise.then(() => showError(""), (err) => showError(err.message));
  }

  // ---- live updates: SSE first, polling as the fallback ---------------------------------

  function stopLive() {
    if (state.source) {
      state.source.close();
      state.source = null;
    }
    if (state.pollTimer) {
      clearInterval(state.pollTimer);
      state.pollTimer = null;
    }
  }

  function startPolling(generation) {
    if (generation !== state.generation || state.pollTimer) return;
    if (state.source) {
      state.source.close();
      state.source = null;
    }
    setMode("polling");
    state.pollTimer = setInterval(() => {
      guard(loadTop(generation).then(() => loadPlayer(generation)));
    }, POLL_MS);
  }

  function startStream(generation) {
    // EventSource cannot send an Authorization header: with a read key, poll instead.
    if (!("EventSource" in window) || state.key) {
      startPolling(generation);
      return;
    }
    const extra = { limit: LIMIT };
    if (state.player) extra.players = state.player;
    let source;
    try {
      source = new EventSource(boardPath("/stream?" + described(extra)));
    } catch (_) {
      startPolling(generation);
      return;
    }
    state.source = source;
    let opened = false;
    source.onopen = () => {
      opened = true;
      setMode("live");
    };
    source.addEventListener("top", (event) => {
      if (generation !== state.generation) return;
      renderTop(parseJSON(event.data));
      // The watched player's percentile and neighbours move with the board's total too,
      // which a `player` event (score or rank changes) does not cover.
      guard(loadPlayer(generation));
    });
    source.addEventListener("player", (event) => {
      if (generation !== state.generation) return;
      const p = parseJSON(event.data);
      if (p.player_id !== state.player) return;
      renderPlayer(p);
      noteAsOf(p.as_of);
      guard(loadPlayer(generation)); // the neighbours moved too
    });
    source.onerror = () => {
      // A 404/500 answer closes the EventSource for good; a dropped connection that
      // never opened means the stream is not there: fall back to polling either way.
      if (source.readyState === EventSource.CLOSED || !opened) {
        source.close();
        startPolling(generation);
      } else {
        setMode("reconnecting");
      }
    };
  }

  function connect() {
    stopLive();
    state.generation += 1;
    state.etag = null;
    state.asOf = null;
    state.lastRanks = new Map();
    const generation = state.generation;
    if (!state.board) return;
    saveHash();
    if ($("snapshot-at").value && state.board.snapshots) {
      setMode("snapshot");
      guard(loadSnapshot(generation).then(() => loadPlayer(generation)));
      return;
    }
    $("snapshot-note").hidden = true;
    setMode("connecting");
    guard(
      loadTop(generation)
        .then(() => loadPlayer(generation))
        .finally(() => startStream(generation)),
    );
  }

  // ---- controls -----------------------------------------------------------------------

  function fillSelect(select, options, value) {
    select.replaceChildren(
      ...options.map(([v, label]) => {
        const o = document.createElement("option");
        o.value = v;
        o.textContent = label;
        return o;
      }),
    );
    if (options.some(([v]) => v === value)) select.value = value;
  }

  async function loadPeriods() {
    const options = [["", "current"]];
    try {
      const got = await api(boardPath("/periods?window=" + encodeURIComponent(state.window)));
      for (const p of got.body.periods) {
        if (p.window === state.window) options.push([p.period, p.period + " (" + p.state + ")"]);
      }
    } catch (err) {
      showError(err.message);
    }
    fillSelect($("period"), options, state.period);
    state.period = $("period").value;
  }

  // A board's windows are names ("daily") or objects: a calendar window in a time zone
  // ({"id": "daily", "timezone"}) or a cron window ({"id", "cron", "timezone"?}).
  function windowId(w) {
    return typeof w === "string" ? w : w.id;
  }

  function windowLabel(w) {
    const zone = (typeof w === "string" ? null : w.timezone) || state.board.timezone || null;
    const id = windowId(w);
    if (typeof w !== "string" && w.cron) return id + " (" + w.cron + ", " + (zone || "UTC") + ")";
    const zoned = ["daily", "weekly", "monthly"].includes(id) && zone;
    return id.replace("_", " ") + (zoned ? " (" + zone + ")" : "");
  }

  function cronOf(id) {
    const found = ((state.board && state.board.windows) || []).find(
      (w) => typeof w !== "string" && w.id === id && w.cron,
    );
    return found ? windowLabel(found) : null;
  }

  async function selectBoard(id) {
    state.board = state.boards.find((b) => b.id === id) || state.boards[0] || null;
    if (!state.board) return;
    $("board").value = state.board.id;
    $("snapshot-box").hidden = !state.board.snapshots;
    if (!state.board.snapshots) $("snapshot-at").value = "";
    const windows = state.board.windows || ["all_time"];
    fillSelect($("window"), windows.map((w) => [windowId(w), windowLabel(w)]), state.window);
    state.window = $("window").value;
    const dims = [["", "global"]].concat((state.board.scopes || []).map((d) => [d, d]));
    if (state.board.cohort_size) dims.push(["cohort", "cohort"]); // scope cohort:<k>
    const [dim, value] = state.scope === "global" ? ["", ""] : state.scope.split(/:(.*)/s);
    fillSelect($("scope-dim"), dims, dim);
    $("scope-value").hidden = !$("scope-dim").value;
    $("scope-value").value = $("scope-dim").value ? value || "" : "";
    readScope();
    await loadPeriods();
    connect();
  }

  function readScope() {
    const dim = $("scope-dim").value;
    const value = $("scope-value").value.trim();
    $("scope-value").hidden = !dim;
    state.scope = dim && value ? dim + ":" + value : "global";
  }

  async function loadBoards() {
    const got = await api("/v1/boards");
    state.boards = got.body.boards;
    fillSelect($("board"), state.boards.map((b) => [b.id, b.title || b.id]), "");
    if (!state.boards.length) {
      setMode("no boards");
      showError("No boards yet: create one with PUT /v1/boards/{board_id}.");
      return;
    }
    await selectBoard(state.board ? state.board.id || state.board : state.boards[0].id);
  }

  function watch(player) {
    state.player = player.trim();
    $("player").value = state.player;
    if (!state.player) {
      $("me").hidden = true;
      $("me-missing").hidden = true;
    }
    connect(); // the stream watches this player
  }

  function showTab(friends) {
    $("tab-around").setAttribute("aria-selected", String(!friends));
    $("tab-friends").setAttribute("aria-selected", String(friends));
    $("around-view").hidden = friends;
    $("friends-view").hidden = !friends;
    state.friends = friends ? $("friends-list").value : null;
  }

  function saveHash() {
    const q = new URLSearchParams();
    if (state.board) q.set("board", state.board.id);
    q.set("window", state.window);
    if (state.period) q.set("period", state.period);
    if (state.scope !== "global") q.set("scope", state.scope);
    if (state.player) q.set("player", state.player);
    history.replaceState(null, "", "#" + q.toString());
  }

  function readHash() {
    const q = new URLSearchParams(location.hash.slice(1));
    state.board = q.get("board");
    state.window = q.get("window") || "all_time";
    state.period = q.get("period") || "";
    state.scope = q.get("scope") || "global";
    state.player = q.get("player") || "";
    $("player").value = state.player;
  }

  function init() {
    state.key = sessionStorage.getItem("rankline.key") || "";
    $("key").value = state.key;
    readHash();
    $("controls").addEventListener("submit", (e) => e.preventDefault());
    $("board").addEventListener("change", () => {
      state.period = "";
      guard(selectBoard($("board").value));
    });
    $("window").addEventListener("change", () => {
      state.window = $("window").value;
      state.period = "";
      guard(loadPeriods().then(connect));
    });
    $("period").addEventListener("change", () => {
      state.period = $("period").value;
      connect();
    });
    $("scope-dim").addEventListener("change", () => {
      readScope();
      if (!$("scope-dim").value || $("scope-value").value.trim()) connect();
      else $("scope-value").focus();
    });
    $("scope-value").addEventListener("change", () => {
      readScope();
      connect();
    });
    $("snapshot-at").addEventListener("change", connect);
    $("snapshot-live").addEventListener("click", () => {
      $("snapshot-at").value = "";
      connect();
    });
    $("key").addEventListener("change", () => {
      state.key = $("key").value.trim();
      sessionStorage.setItem("rankline.key", state.key);
      guard(loadBoards());
    });
    $("search").addEventListener("submit", (e) => {
      e.preventDefault();
      watch($("player").value);
    });
    $("tab-around").addEventListener("click", () => showTab(false));
    $("tab-friends").addEventListener("click", () => {
      showTab(true);
      if (state.player) guard(loadFriends(state.generation));
    });
    $("friends-form").addEventListener("submit", (e) => {
      e.preventDefault();
      state.friends = $("friends-list").value;
      if (state.player) guard(loadFriends(state.generation));
    });
    setInterval(tick, 1000);
    guard(loadBoards());
  }

  document.addEventListener("DOMContentLoaded", init);
})();
