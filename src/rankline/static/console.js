// rankline operators' console: plain JavaScript over the public API, with the operator's key.
// The key lives in this tab's sessionStorage only. Every error shows the API's problem text.
"use strict";

const $ = (id) => document.getElementById(id);
const state = { board: null, shown: null, auditNext: null, player: null };

function key() { return sessionStorage.getItem("rankline-key") || ""; }

async function api(method, path, { query, body } = {}) {
  const url = new URL(path, location.origin);
  for (const [k, v] of Object.entries(query || {})) if (v) url.searchParams.set(k, v);
  const init = { method, headers: { Authorization: `Bearer ${key()}` } };
  if (body !== undefined) {
    init.headers["Content-Type"] = "application/json";
    init.body = typeof body === "string" ? body : JSON.stringify(body);
  }
  const response = await fetch(url, init);
  const text = await response.text();
  const data = text ? JSON.parse(text) : null;
  if (!response.ok) {
    const problem = data || {};
    throw new Error(`${response.status} ${problem.title || ""}: ${problem.detail || text}`);
  }
  return data;
}

function show(message, kind = "notice") {
  const other = kind === "notice" ? "error" : "notice";
  $(other).hidden = true;
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
  $("notice").hidden = true;
  $("error").hidden = true;
  for (const id of ["boards", "board", "players", "operations", "audit"]) $(id).hidden = id !== name;
  if (name === "boards") run(loadBoards);
  if (name === "operations") run(loadOperations);
  if (name === "audit") run(() => loadAudit(false));
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
  const q = new URLSearchParams(Object.entries(where()).filter(([, v]) => v));
  $("export").href = `#${q}`;
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

// A CSV of the shown leaderboard, built from its pages (rank order; the columns rankline import reads).
async function download(event) {
  event.preventDefault();
  const b = state.board;
  await run(async () => {
    const lines = ["player_id,score,achieved_at"];
    for (let offset = 0; ; offset += 1000) {
      const page = await api("GET", `/v1/boards/${encodeURIComponent(b.id)}/top`, { query: { ...where(), limit: "1000", offset: String(offset) } });
      for (const e of page.entries) lines.push(`${e.player_id},${e.score},${e.achieved_at}`);
      if (page.entries.length < 1000) break;
    }
    const link = document.createElement("a");
    link.href = URL.createObjectURL(new Blob([lines.join("\n") + "\n"], { type: "text/csv" }));
    link.download = `${b.id}.csv`;
    link.click();
  });
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
    return row([t.id, t.title, e.edition, e.state, e.players, e.ends_at]);
  }));
  const dead = await api("GET", "/v1/dead-letters", { query: { limit: "100" } });
  $("dead-total").textContent = `${dead.total} dead letter(s) in all`;
  $("dead-letters").tBodies[0].replaceChildren(...dead.items.map((d) => row([d.failed_at, d.board, d.player_id, d.match_id, d.reason])));
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
  $("export").addEventListener("click", download);
  $("player-form").addEventListener("submit", lookUp);
  $("ban").addEventListener("click", () => playerAction("Ban", "POST", (p) => `/v1/players/${p}/ban`));
  $("unban").addEventListener("click", () => playerAction("Unban", "DELETE", (p) => `/v1/players/${p}/ban`));
  $("erase").addEventListener("click", () => playerAction("Erase", "DELETE", (p) => `/v1/players/${p}`));
  $("audit-form").addEventListener("submit", (e) => { e.preventDefault(); run(() => loadAudit(false)); });
  $("audit-more").addEventListener("click", () => run(() => loadAudit(true)));
  if (key()) start();
});
