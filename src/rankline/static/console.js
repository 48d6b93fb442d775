// rankline operators' console: plain JavaScript over the public API, with the operator's key.
// The key lives in this tab's sessionStorage only. Every error shows the API's problem text.
"use strict";

const $ = (id) => document.getElementById(id);
const state = { board: null, shown: null, auditNext: null, player: null, tournament: null };

function key() { return sessionStorage.getItem("rankline-key") || ""; }

async function send(method, path, { query, body } = {}) {
  const url = new URL(path, location.origin);
  for (const [k, v] of Object.entries(query || {})) if (v) url.searchParams.set(k, v);
  const init = { method, headers: { Authorization: `Bearer ${key()}` } };
  if (body !== undefined) {
    init.headers["Content-Type"] = "application/json";
    init.body = typeof body === "string" ? body : JSON.stringify(body);
  }
  const response = await fetch(url, init);
  if (!response.ok) {
    const text = await response.text();
    let problem = {};
    try { problem = JSON.parse(text) || {}; } catch { /* not JSON: the text is the detail */ }
    throw new Error(`${response.status} ${problem.title || ""}: ${problem.detail || text}`);
  }
  return response;
}

async function api(method, path, options) {
  const text = await (await send(method, path, options)).text();
  return text ? JSON.parse(text) : null;
}

function show(message, kind = "notice") {
  const other = kind === "notice" ? "error" : "notice";
  $(other).hidden = true;
  $(other).textContent = "";
  $(kind).textContent = message;
  $(kind).hidden = false;
}

async function run(work, done) {
  try {
    await work();
    if (done) show(done);
  } catch (error) {
    show(error.message, "error");
  }
}

function row(cells) {
  const tr = document.createElement("tr");
  for (const cell of cells) {
    const td = document.createElement("td");
    if (cell instanceof Node) td.append(cell); else td.textContent = cell ?? "";
    tr.append(td);
  }
  return tr;
}

function button(label, onclick) {
  const b = document.createElement("button");
  b.type = "button";
  b.textContent = label;
  b.addEventListener("click", onclick);
  return b;
}

// Asks for a confirmation, then a reason; null when the operator cancels.
function confirmed(what) {
  if (!confirm(`${what}?`)) return null;
  const reason = prompt("Reason (kept in the audit log)", "");
  return reason === null ? null : reason;
}

function tab(name) {
  for (const id of ["notice", "error"]) {
    $(id).hidden = true;
    $(id).textContent = "";
  }
  for (const id of ["boards", "board", "players", "operations", "audit", "keys"]) $(id).hidden = id !== name;
  forgetSecret();
  if (name === "boards") run(loadBoards);
  if (name === "operations") run(loadOperations);
  if (name === "audit") run(() => loadAudit(false));
  if (name === "keys") run(loadKeys);
}

// --- boards ---------------------------------------------------------------------------

async function loadBoards() {
  const { boards } = await api("GET", "/v1/boards");
  const body = $("board-list").tBodies[0];
  body.replaceChildren();
  for (const b of boards) {
    const open = document.createElement("a");
    open.href = "#";
    open.textContent = b.id;
    open.addEventListener("click", (e) => { e.preventDefault(); run(() => openBoard(b)); });
    const frozen = b.status === "frozen";
    const actions = document.createElement("span");
    actions.append(
      button("Edit", () => edit(b)),
      button(frozen ? "Unfreeze" : "Freeze", () => freeze(b, !frozen)),
      button("Delete", () => removeBoard(b)),
    );
    body.append(row([open, b.title, b.policy, b.status, actions]));
  }
}

function edit(b) {
  $("edit-id").value = b.id;
  const spec = { ...b };
  delete spec.id;
  $("edit-spec").value = JSON.stringify(spec, null, 2);
}

async function save(event) {
  event.preventDefault();
  let spec;
  try { spec = JSON.parse($("edit-spec").value); } catch (error) {
    show(`the definition is not JSON: ${error.message}`, "error");
    return;
  }
  const id = $("edit-id").value.trim();
  await run(async () => {
    await api("PUT", `/v1/boards/${encodeURIComponent(id)}`, { body: spec, query: { reason: $("edit-reason").value } });
    await loadBoards();
  }, `board ${id} saved`);
}

async function freeze(b, frozen) {
  const reason = confirmed(`${frozen ? "Freeze" : "Unfreeze"} board ${b.id}`);
  if (reason === null) return;
  const spec = { ...b, status: frozen ? "frozen" : "active" };
  delete spec.id;
  await run(async () => {
    await api("PUT", `/v1/boards/${encodeURIComponent(b.id)}`, { body: spec, query: { reason } });
    await loadBoards();
  }, `board ${b.id} ${frozen ? "frozen" : "active"}`);
}

async function removeBoard(b) {
  const reason = confirmed(`Delete board ${b.id} and everything on it`);
  if (reason === null) return;
  await run(async () => {
    await api("DELETE", `/v1/boards/${encodeURIComponent(b.id)}`, { query: { reason } });
    await loadBoards();
  }, `board ${b.id} deleted`);
}

// --- one board ------------------------------------------------------------------------

async function openBoard(b) {
  state.board = b;
  state.shown = null;
  tab("board");
  $("board-title").textContent = `${b.title || b.id} (${b.id})`;
  $("b-window").replaceChildren(...b.windows.map((w) => new Option(w, w)));
  await loadPeriods();
  await loadEntries();
  await loadDeliveries();
}

async function loadDeliveries() {
  const b = state.board;
  const { deliveries } = await api("GET", `/v1/boards/${encodeURIComponent(b.id)}/deliveries`, { query: { limit: "50" } });
  $("deliveries").tBodies[0].replaceChildren(...deliveries.map((d) => row([d.created_at, d.window, d.period, d.scope, d.state, d.attempts])));
}

function where() {
  return { window: $("b-window").value, period: $("b-period").value, scope: $("b-scope").value.trim() };
}

async function loadPeriods() {
  const b = state.board;
  const { periods } = await api("GET", `/v1/boards/${encodeURIComponent(b.id)}/periods`, { query: { window: $("b-window").value } });
  $("b-period").replaceChildren(new Option("current", ""), ...periods.map((p) => new Option(`${p.period} (${p.state})`, p.period)));
}

async function loadEntries() {
  const b = state.board;
  const id = encodeURIComponent(b.id);
  const search = $("b-search").value.trim();
  let entries;
  let answer;
  if (search) {
    answer = await api("GET", `/v1/boards/${id}/players/${encodeURIComponent(search)}`, { query: where() });
    entries = [answer];
  } else {
    answer = await api("GET", `/v1/boards/${id}/top`, { query: { ...where(), limit: "100" } });
    entries = answer.entries;
  }
  // the leaderboard shown, its period named (a removal takes the entry off this one only)
  state.shown = { window: answer.window, period: answer.period, scope: answer.scope };
  const body = $("entries").tBodies[0];
  body.replaceChildren();
  for (const e of entries) {
    body.append(row([e.rank, e.player_id, e.score, e.achieved_at, button("Remove", () => removeEntry(e.player_id))]));
  }
}

async function removeEntry(player) {
  const b = state.board;
  const w = state.shown;
  const reason = confirmed(`Remove ${player}'s entry from ${b.id} (${w.window}, ${w.period}, ${w.scope})`);
  if (reason === null) return;
  await run(async () => {
    const answer = await api("DELETE", `/v1/boards/${encodeURIComponent(b.id)}/players/${encodeURIComponent(player)}`, { query: { ...w, reason } });
    await loadEntries();
    return answer;
  }, `${player}'s entry removed`);
}

async function resetPeriod() {
  const b = state.board;
  const w = where();
  const reason = confirmed(`Reset the current ${w.window} period of ${b.id}${w.scope ? ` (${w.scope})` : ""}`);
  if (reason === null) return;
  const body = { window: w.window, reason };
  if (w.scope) body.scope = w.scope;
  await run(async () => {
    await api("POST", `/v1/boards/${encodeURIComponent(b.id)}/reset`, { body });
    await loadEntries();
  }, `the ${w.window} period restarted`);
}

async function voidMatch() {
  const b = state.board;
  const match = $("void-id").value.trim();
  const reason = confirmed(`Void match ${match} on ${b.id}`);
  if (reason === null) return;
  await run(async () => {
    await api("POST", `/v1/boards/${encodeURIComponent(b.id)}/matches/${encodeURIComponent(match)}/void`, { body: { reason } });
    await loadEntries();
  }, `match ${match} voided`);
}

// The shown leaderboard as the file `rankline export` writes (GET /v1/boards/{id}/export:
// the same bytes), which `rankline import` reads back.
async function download(event) {
  event.preventDefault();
  const b = state.board;
  const format = $("x-format").value;
  const query = { ...(state.shown || where()), format };
  if (format === "jsonl" && $("x-metadata").checked) query.metadata = "true";
  let name = `${b.id}.${format}`;
  await run(async () => {
    const response = await send("GET", `/v1/boards/${encodeURIComponent(b.id)}/export`, { query });
    const given = /filename="([^"]+)"/.exec(response.headers.get("Content-Disposition") || "");
    if (given) name = given[1];
    const link = document.createElement("a");
    link.href = URL.createObjectURL(await response.blob());
    link.download = name;
    link.click();
    setTimeout(() => URL.revokeObjectURL(link.href), 60_000);
  }, `downloaded ${name}`);
}

// --- players --------------------------------------------------------------------------

async function lookUp(event) {
  if (event) event.preventDefault();
  const player = $("player-id").value.trim();
  state.player = player;
  await run(async () => {
    const profile = await api("GET", `/v1/players/${encodeURIComponent(player)}`);
    $("profile").textContent = JSON.stringify(profile, null, 2);
    const { items } = await api("GET", `/v1/players/${encodeURIComponent(player)}/history`, { query: { limit: "50" } });
    $("history").tBodies[0].replaceChildren(...items.map((i) => row([i.board, i.match_id, i.score, i.at, String(i.applied)])));
    $("player").hidden = false;
  });
}

async function playerAction(label, method, path) {
  const player = state.player;
  const reason = confirmed(`${label} ${player}`);
  if (reason === null) return;
  await run(async () => {
    await api(method, path(encodeURIComponent(player)), { query: { reason } });
    if (label !== "Erase") await lookUp(); else $("player").hidden = true;
  }, `${label.toLowerCase()}: ${player}`);
}

// --- tournaments and dead letters ----------------------------------------------------

async function loadOperations() {
  const { tournaments } = await api("GET", "/v1/tournaments");
  $("tournament-list").tBodies[0].replaceChildren(...tournaments.map((t) => {
    const e = t.edition || {};
    const open = document.createElement("a");
    open.href = "#";
    open.textContent = t.id;
    open.addEventListener("click", (event) => { event.preventDefault(); run(() => openTournament(t.id)); });
    const actions = document.createElement("span");
    actions.append(button("Edit", () => editTournament(t)), button("Delete", () => removeTournament(t)));
    return row([open, t.title, e.edition, e.state, e.players, e.ends_at, actions]);
  }));
  const dead = await api("GET", "/v1/dead-letters", { query: { limit: "100" } });
  $("dead-total").textContent = `${dead.total} dead letter(s) in all`;
  $("dead-letters").tBodies[0].replaceChildren(...dead.items.map((d) => row([d.failed_at, d.board, d.player_id, d.match_id, d.reason])));
}

function scoreOf(entry) {
  return entry.subscore == null ? entry.score : `${entry.score} (${entry.subscore})`;
}

// A tournament: the top of its current edition, and the editions that ended, with results.
async function openTournament(id) {
  const t = await api("GET", `/v1/tournaments/${encodeURIComponent(id)}`);
  state.tournament = t;
  const e = t.edition || {};
  $("tournament").hidden = false;
  $("tournament-title").textContent = `${t.title || t.id} (${t.id})`;
  $("t-top-title").textContent = `Top of edition ${e.edition} (${e.state})`;
  $("t-top-info").hidden = true;
  try {
    const top = await api("GET", `/v1/tournaments/${encodeURIComponent(id)}/top`, { query: { edition: e.edition, limit: "100" } });
    $("t-top").tBodies[0].replaceChildren(...top.entries.map((x) => row([x.rank, x.player_id, scoreOf(x), x.achieved_at])));
  } catch (error) {
    $("t-top").tBodies[0].replaceChildren();
    $("t-top-info").textContent = error.message;
    $("t-top-info").hidden = false;
  }
  // editions 1 .. the last ended one, newest first (the edition shown ends later)
  const last = Number(e.edition || 0) - (e.state === "ended" ? 0 : 1);
  const editions = [];
  for (let n = last; n >= 1; n -= 1) editions.push(new Option(String(n), String(n)));
  $("t-edition").replaceChildren(...editions);
  $("t-results").tBodies[0].replaceChildren();
  $("t-results-info").textContent = last >= 1 ? "" : "no edition has ended yet";
  if (last >= 1) await loadResults();
}

async function loadResults() {
  const t = state.tournament;
  const edition = $("t-edition").value;
  $("t-results").tBodies[0].replaceChildren();
  $("t-results-info").textContent = `edition ${edition}`;
  const r = await api("GET", `/v1/tournaments/${encodeURIComponent(t.id)}/results`, { query: { edition } });
  $("t-results-info").textContent = `edition ${r.edition}: ${r.starts_at} to ${r.ends_at}, ${r.total} player(s)`;
  $("t-results").tBodies[0].replaceChildren(...r.results.map((x) => row([x.rank, x.player_id, scoreOf(x), x.reward ? JSON.stringify(x.reward) : ""])));
}

function editTournament(t) {
  $("t-id").value = t.id;
  const spec = { ...t };
  delete spec.id;
  delete spec.edition;
  $("t-spec").value = JSON.stringify(spec, null, 2);
  $("t-spec").focus();
}

async function saveTournament(event) {
  event.preventDefault();
  let spec;
  try { spec = JSON.parse($("t-spec").value); } catch (error) {
    show(`the definition is not JSON: ${error.message}`, "error");
    return;
  }
  const id = $("t-id").value.trim();
  await run(async () => {
    await api("PUT", `/v1/tournaments/${encodeURIComponent(id)}`, { body: spec, query: { reason: $("t-reason").value } });
    await loadOperations();
    if (state.tournament && state.tournament.id === id) await openTournament(id);
  }, `tournament ${id} saved`);
}

async function removeTournament(t) {
  const reason = confirmed(`Delete tournament ${t.id}, its board, joins and results`);
  if (reason === null) return;
  await run(async () => {
    await api("DELETE", `/v1/tournaments/${encodeURIComponent(t.id)}`, { query: { reason } });
    if (state.tournament && state.tournament.id === t.id) {
      state.tournament = null;
      $("tournament").hidden = true;
    }
    await loadOperations();
  }, `tournament ${t.id} deleted`);
}

// --- audit log ------------------------------------------------------------------------

async function loadAudit(more) {
  const query = { board: $("audit-board").value.trim(), player: $("audit-player").value.trim(), limit: "50" };
  if (more) query.cursor = state.auditNext;
  const page = await api("GET", "/v1/audit", { query });
  const body = $("audit-list").tBodies[0];
  if (!more) body.replaceChildren();
  for (const i of page.items) body.append(row([i.at, i.actor, i.action, i.board, i.player_id, i.match_id, i.reason]));
  state.auditNext = page.next || null;
  $("audit-more").hidden = !state.auditNext;
}

// --- keys -----------------------------------------------------------------------------

async function loadKeys() {
  const { keys } = await api("GET", "/v1/keys");
  $("key-list").tBodies[0].replaceChildren(...keys.map((k) => {
    const revoke = k.state === "revoked" ? "" : button("Revoke", () => revokeKey(k));
    const boards = k.boards ? k.boards.join(" ") : "every board";
    return row([k.id, k.name, k.role, boards, k.expires_at || "never", k.state, `${k.created_at} by ${k.created_by}`, revoke]);
  }));
}

async function createKey(event) {
  event.preventDefault();
  const body = { name: $("k-name").value.trim(), role: $("k-role").value };
  const boards = $("k-boards").value.trim();
  if (boards) body.boards = boards.split(/\s+/);
  const expires = $("k-expires").value.trim();
  if (expires) body.expires_at = expires;
  await run(async () => {
    const made = await api("POST", "/v1/keys", { body, query: { reason: $("k-reason").value } });
    $("k-made-name").textContent = `${made.name} (${made.id})`;
    $("k-secret").textContent = made.secret;
    $("k-made").hidden = false;
    $("key-form").reset();
    await loadKeys();
  }, "key created: copy its secret now");
}

// The secret leaves the page once the operator has copied it.
function forgetSecret() {
  $("k-secret").textContent = "";
  $("k-made").hidden = true;
}

async function revokeKey(k) {
  const reason = confirmed(`Revoke key ${k.name} (${k.id}); every server refuses it within a second`);
  if (reason === null) return;
  await run(async () => {
    await api("DELETE", `/v1/keys/${encodeURIComponent(k.id)}`, { query: { reason } });
    await loadKeys();
  }, `key ${k.name} revoked`);
}

// --- wiring ---------------------------------------------------------------------------

function start() {
  $("login").hidden = true;
  $("tabs").hidden = false;
  tab("boards");
}

document.addEventListener("DOMContentLoaded", () => {
  $("login").addEventListener("submit", (event) => {
    event.preventDefault();
    sessionStorage.setItem("rankline-key", $("key").value.trim());
    start();
  });
  for (const b of document.querySelectorAll("#tabs button")) b.addEventListener("click", () => tab(b.dataset.tab));
  $("editor").addEventListener("submit", save);
  $("where").addEventListener("submit", (e) => { e.preventDefault(); run(loadEntries); });
  $("b-window").addEventListener("change", () => run(async () => { await loadPeriods(); await loadEntries(); }));
  $("reset").addEventListener("click", resetPeriod);
  $("void").addEventListener("click", voidMatch);
  $("download").addEventListener("submit", download);
  $("x-format").addEventListener("change", () => { $("x-metadata").disabled = $("x-format").value !== "jsonl"; });
  $("t-editor").addEventListener("submit", saveTournament);
  $("t-editions").addEventListener("submit", (e) => { e.preventDefault(); run(loadResults); });
  $("player-form").addEventListener("submit", lookUp);
  $("ban").addEventListener("click", () => playerAction("Ban", "POST", (p) => `/v1/players/${p}/ban`));
  $("unban").addEventListener("click", () => playerAction("Unban", "DELETE", (p) => `/v1/players/${p}/ban`));
  $("erase").addEventListener("click", () => playerAction("Erase", "DELETE", (p) => `/v1/players/${p}`));
  $("audit-form").addEventListener("submit", (e) => { e.preventDefault(); run(() => loadAudit(false)); });
  $("audit-more").addEventListener("click", () => run(() => loadAudit(true)));
  $("key-form").addEventListener("submit", createKey);
  $("k-done").addEventListener("click", forgetSecret);
  if (key()) start();
});
