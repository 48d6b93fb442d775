// rankline live page: the tournaments strip. Lists every tournament with its current (or
// next) edition and a countdown to its start, end or close; choosing one shows its board
// (window `season`, the edition's leaderboard) in the page below.
"use strict";

(function () {
  const REFRESH_MS = 10000;
  const $ = (id) => document.getElementById(id);
  let tournaments = [];

  function clock(seconds) {
    const two = (n) => String(n).padStart(2, "0");
    const d = Math.floor(seconds / 86400);
    const h = Math.floor((seconds % 86400) / 3600);
    const m = Math.floor((seconds % 3600) / 60);
    return (d ? d + "d " : "") + two(h) + ":" + two(m) + ":" + two(seconds % 60);
  }

  // What the edition waits for next, and how long until then.
  function countdown(edition) {
    const now = Date.now();
    const steps = [
      ["starts in ", edition.starts_at],
      ["ends in ", edition.ends_at],
      ["final in ", edition.closes_at],
    ];
    for (const [label, at] of steps) {
      const left = Math.round((Date.parse(at) - now) / 1000);
      if (left > 0) return label + clock(left);
    }
    return "ended";
  }

  function render() {
    const list = $("tournament-list");
    $("tournaments").hidden = tournaments.length === 0;
    list.replaceChildren(
      ...tournaments.map((t) => {
        const item = document.createElement("li");
        const link = document.createElement("a");
        link.href = "#board=" + encodeURIComponent(t.id) + "&window=season";
        link.textContent = t.title || t.id;
        link.addEventListener("click", (e) => {
          e.preventDefault();
          location.hash = link.getAttribute("href").slice(1);
          location.reload();
        });
        const edition = t.edition;
        const info = document.createElement("span");
        info.className = "muted";
        const size = t.max_size ? "/" + t.max_size : "";
        const cohorts = t.cohort_size ? " · cohorts of " + t.cohort_size : "";
        info.textContent =
          " edition " + edition.edition + " · " + edition.players + size + " joined" + cohorts + " · ";
        const left = document.createElement("span");
        left.className = "countdown";
        left.dataset.tournament = t.id;
        left.textContent = countdown(edition);
        item.append(link, info, left);
        return item;
      })
    );
  }

  function tick() {
    for (const el of document.querySelectorAll("#tournament-list .countdown")) {
      const t = tournaments.find((x) => x.id === el.dataset.tournament);
      if (t) el.textContent = countdown(t.edition);
    }
  }

  async function load() {
    const key = sessionStorage.getItem("rankline.key") || "";
    const headers = key ? { Authorization: "Bearer " + key } : {};
    try {
      const response = await fetch("/v1/tournaments", { headers: headers });
      if (!response.ok) return;
      tournaments = (await response.json()).tournaments;
      render();
    } catch (err) {
      // The main page shows connection problems; the strip just waits for the next try.
    }
  }

  document.addEventListener("DOMContentLoaded", () => {
    load();
    setInterval(load, REFRESH_MS);
    setInterval(tick, 1000);
  });
})();
