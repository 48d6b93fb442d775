"""The benchmark's output: the JSON result, the terminal tables, docs/performance.md's
generated section and the p99-against-throughput chart.

Everything here reads the result dictionary that ``run`` builds (and the JSON file holds),
so a report can be rendered again from a saved result.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from rankline_bench import cluster_run

BEGIN = "<!-- rankline bench: begin -->"
END = "<!-- rankline bench: end -->"
CLUSTER_BEGIN = "<!-- rankline bench cluster: begin -->"
CLUSTER_END = "<!-- rankline bench cluster: end -->"
READS = ("rank", "around", "top")
LEAN_LABELS = {"rank": "GET player rank", "around": "GET around k=5", "top": "GET top-100"}
LEAN_GOALS = {"rank": 0.9, "around": 1.0, "top": 4.0}
"""rankline's rate over the lean reference's (``bench.lean``) that each read should reach."""

# The performance goals for a 2-core machine, per backend (see ``targets``).
_GOALS: dict[str, dict[str, float]] = {
    "memory": {
        "read_ratio": 0.5,
        "friends_ratio": 0.25,
        "rebuild": 500_000,
        "bytes": 150,
        "rated": 5_000,
    },
    "redis": {"read_ratio": 0.3, "friends_ratio": 0.15, "rebuild": 150_000, "bytes": 160},
}


def ratio(value: float | None, ceiling: float | None) -> float | None:
    """``value / ceiling``, or None when either is missing or the ceiling is zero."""
    if value is None or not ceiling:
        return None
    return value / ceiling


def rate(value: float | None) -> str:
    return "—" if value is None else f"{value:,.0f}"


def ms(value: float | None) -> str:
    if value is None:
        return "—"
    return f"{value:.2f}" if value < 10 else f"{value:,.1f}"


def times(value: float | None) -> str:
    return "—" if value is None else f"{value:,.0f}x"


# --- tables --------------------------------------------------------------------------------

ENDPOINT_HEADER = ("endpoint", "req/s", "p50 ms", "p95 ms", "p99 ms", "of ceiling")


def mean_ceiling(section: dict[str, Any]) -> float | None:
    """The ceiling's requests/s that ratios are taken to: the mean of its run before the
    endpoints and, when there is one, its run again after the reads."""
    runs = [section.get(name) for name in ("ceiling", "ceiling_after")]
    rates = [run["rps"] for run in runs if isinstance(run, dict) and run.get("rps")]
    return sum(rates) / len(rates) if rates else None


def endpoint_rows(section: dict[str, Any]) -> list[list[str]]:
    """One row per wrk run of a backend: the ceiling first (and its second run, each with
    its share of their mean), then each endpoint."""
    mean = mean_ceiling(section)
    rows: list[list[str]] = []
    for name, label in (
        ("ceiling", "ceiling (raw ASGI, 20-byte JSON)"),
        ("ceiling_after", "ceiling again, after the reads"),
    ):
        run = section.get(name)
        if isinstance(run, dict) and "rps" in run:
            share = ratio(run["rps"], mean)
            rows.append([label, *_latency(run), "100%" if share is None else f"{share:.0%}"])
    lean = section.get("lean")
    lean = lean if isinstance(lean, dict) and "failed" not in lean else {}
    for name in READS:
        run = lean.get(name)
        if isinstance(run, dict) and "rps" in run:
            share = ratio(run["rps"], mean)
            label = f"lean reference: {LEAN_LABELS[name]}"
            rows.append([label, *_latency(run), "—" if share is None else f"{share:.0%}"])
    for item in section.get("endpoints", {}).values():
        if item.get("failed"):
            rows.append([item["label"], "FAILED", "—", "—", "—", item["failed"][:60]])
            continue
        share = item.get("ratio")
        rows.append([item["label"], *_latency(item), "—" if share is None else f"{share:.0%}"])
    return rows


def _setup(section: dict[str, Any]) -> str:
    """A backend's workers and where its servers kept the ingestion log (a result from
    before the bench recorded the log: the workers alone)."""
    engine = (section.get("log") or {}).get("engine")
    workers = f"{section['workers']} worker(s)"
    return workers if engine is None else f"{workers}; ingestion log: {engine}"


def _latency(item: dict[str, Any]) -> list[str]:
    return [rate(item["rps"]), ms(item["p50_ms"]), ms(item["p95_ms"]), ms(item["p99_ms"])]


def figure_rows(results: dict[str, Any]) -> tuple[list[str], list[list[str]]]:
    """The other figures, one column per backend: (header, rows)."""
    sections = results["backends"]
    header = ["figure", *(s["label"] for s in sections.values())]

    def row(label: str, render: Any) -> list[str]:
        cells = []
        for section in sections.values():
            try:
                cells.append(render(section))
            except (KeyError, TypeError):
                cells.append("—")
        return [label, *cells]

    rows = [
        row(
            "ingestion log (asynchronous submissions, rated matches)", lambda s: s["log"]["engine"]
        ),
        row("bulk load into SQL (rows/s)", lambda s: rate(s["load"]["rows_per_s"])),
        row(
            "index build at server start (entries/s)", lambda s: rate(s["rebuild"]["entries_per_s"])
        ),
        row(
            "`rankline rebuild`, wall incl. start-up and verify (entries/s)",
            lambda s: rate(s["rebuild_command"]["entries_per_s"]),
        ),
        row(
            "memory per entry at 1M entries (bytes)",
            lambda s: f"{_memory_1m(s)['bytes_per_entry']:,.0f}",
        ),
        row("memory per entry at N (bytes)", lambda s: f"{s['memory']['bytes_per_entry']:,.0f}"),
        row(
            "write→visible p50 / p99 (ms)",
            lambda s: f"{ms(s['write_visible']['p50_ms'])} / {ms(s['write_visible']['p99_ms'])}",
        ),
        row("batch ingest, durable (events/s)", lambda s: rate(s["batch_ingest"]["events_per_s"])),
        row(
            "async batch ingest, durable in the log (submissions/s)",
            lambda s: rate(s["async_ingest"]["accepted_per_s"]),
        ),
        row(
            "async burst applied behind the log (events/s; caught up s after the burst)",
            lambda s: (
                f"{rate(s['async_ingest']['applied_per_s'])}; "
                f"{s['async_ingest']['caught_up_s']:.1f} s"
            ),
        ),
        row(
            "single submissions, durable (events/s)",
            lambda s: rate(s["endpoints"]["submit"]["durable_events_per_s"]),
        ),
        row(
            "rated matches, batches of 1,000 two-player Elo matches (matches/s)",
            lambda s: rate(s["rated_matches"]["matches_per_s"]),
        ),
        row(
            "storage floor: the group commit's SQL alone (events/s; batch ingest's share)",
            _floor,
        ),
    ]
    for name in READS:
        rows.append(
            row(
                f"{name}: rankline's req/s over the lean reference's",
                lambda s, n=name: f"{s['endpoints'][n]['of_lean']:.2f}x",
            )
        )
    for name in READS:
        rows.append(
            row(
                f"{name}: p99 at ~80% of max load (ms @ req/s)",
                lambda s, n=name: _at80(s["at_80"][n]),
            )
        )
    rows += [
        row(
            "naive SQL rank, COUNT(*) (ms; x HTTP rank p50, light load)",
            lambda s: (
                f"{ms(s['naive_sql']['median_ms'])} ({times(s['naive_sql']['ratio_to_http_p50'])})"
            ),
        ),
        row(
            "redis-benchmark ZREVRANK (req/s; p50 ms)",
            lambda s: f"{rate(s['redis_benchmark']['rps'])}; {ms(s['redis_benchmark']['p50_ms'])}",
        ),
    ]
    return header, rows


def _floor(section: dict[str, Any]) -> str:
    """The storage floor, and the batch ingest's share of it when the batch run counted."""
    floor = section["write_floor"]["events_per_s"]
    share = ratio(_get(section, "batch_ingest", "events_per_s"), floor)
    return rate(floor) + ("" if share is None else f" ({share:.0%})")


def _at80(item: dict[str, Any]) -> str:
    return f"{ms(item['p99_ms'])} @ {rate(item['rps'])} ({item['fraction']:.0%})"


# --- targets -------------------------------------------------------------------------------


def targets(results: dict[str, Any]) -> list[dict[str, Any]]:
    """Every performance goal this run measured, with the figure and a verdict."""
    found: list[dict[str, Any]] = []
    for name, s in results["backends"].items():
        goals = _GOALS.get(name)
        if goals is None:
            continue
        points = s.get("endpoints", {})
        read, friends = goals["read_ratio"], goals["friends_ratio"]
        p99_targets = {f"{e} p99 <= 10 ms at 80% of max (ms)": e for e in READS}
        checks: list[tuple[str, float | None, float, bool]] = [
            *(
                (f"{e} >= {read:.0%} of ceiling", _get(points, e, "ratio"), read, True)
                for e in READS
            ),
            (
                f"friends-100 >= {friends:.0%} of ceiling",
                _get(points, "friends", "ratio"),
                friends,
                True,
            ),
            *(
                (t, _get(s.get("at_80", {}), e, "p99_ms"), 10, False)
                for t, e in p99_targets.items()
            ),
            (
                "sync batch ingest >= 20,000 durable/s",
                _get(s, "batch_ingest", "events_per_s"),
                20_000,
                True,
            ),
            (
                "async batch burst >= 50,000 durable/s",
                _get(s, "async_ingest", "accepted_per_s"),
                50_000,
                True,
            ),
            (
                "async burst applied within 30 s after it (s)",
                _get(s, "async_ingest", "caught_up_s"),
                30,
                False,
            ),
            ("single submissions >= 25% of ceiling", _get(points, "submit", "ratio"), 0.25, True),
            ("write->visible p99 <= 20 ms", _get(s, "write_visible", "p99_ms"), 20, False),
            (
                f"rebuild >= {goals['rebuild']:,.0f} entries/s",
                _get(s, "rebuild", "entries_per_s"),
                goals["rebuild"],
                True,
            ),
            (
                f"memory <= {goals['bytes']:.0f} B/entry at 1M entries",
                (_memory_1m(s) or {}).get("bytes_per_entry"),
                goals["bytes"],
                False,
            ),
        ]
        checks += [
            (f"{e} >= {goal:.1f}x the lean reference", _get(points, e, "of_lean"), goal, True)
            for e, goal in LEAN_GOALS.items()
        ]
        if "rated" in goals:
            checks.append(
                (
                    f"rated matches >= {goals['rated']:,.0f}/s (batch path)",
                    _get(s, "rated_matches", "matches_per_s"),
                    goals["rated"],
                    True,
                )
            )
        if "naive_sql" in s:
            naive = _get(s, "naive_sql", "ratio_to_http_p50")
            checks.append(("HTTP rank >= 100x faster than naive SQL", naive, 100, True))
        at_80 = s.get("at_80", {})
        log = s.get("log") or {}
        for what, value, goal, at_least in checks:
            met = None if value is None else (value >= goal if at_least else value <= goal)
            item = {"backend": name, "target": what, "measured": value, "goal": goal, "met": met}
            if log.get("url"):  # not the backend's own log: its rows say which
                item["log"] = log["engine"]
            point = at_80.get(p99_targets.get(what))
            if met and point is not None and point.get("fraction", 1.0) < AT_80_LEAST:
                # A p99 within the goal at a lighter load than 80% says nothing of 80%.
                item["met"] = None
                item["note"] = f"at {point['fraction']:.0%} of max"
            found.append(item)
    return found


AT_80_LEAST = 0.75
"""A sweep's 80% point that reached less of the maximum than this does not judge a p99
target (the sweep's pause is corrected once; on a busy machine it can still fall short)."""


def _memory_1m(section: dict[str, Any]) -> Any:
    """Memory per entry at 1M entries: measured on its own in a larger run, else the run's
    own figure when N is 1M (the memory goals are set at 1M)."""
    if "memory_1m" in section:
        return section["memory_1m"]
    memory = section.get("memory")
    if memory is not None and memory.get("entries") == 1_000_000:
        return memory
    return None


def _get(data: dict[str, Any], key: str, field: str) -> float | None:
    value = (data.get(key) or {}).get(field)
    return None if value is None else float(value)


def _measured(item: dict[str, Any]) -> str:
    value = item["measured"]
    if value is None:
        return "—"
    if "of ceiling" in item["target"]:
        return f"{value:.0%}"
    if "100x" in item["target"]:
        return f"{value:,.0f}x"
    if "lean reference" in item["target"]:
        return f"{value:.2f}x"
    return ms(value) if "ms" in item["target"] else rate(value)


def target_rows(results: dict[str, Any]) -> list[list[str]]:
    verdict = {True: "met", False: "not met", None: "not measured"}
    return [
        [_backend(t), t["target"], _measured(t), _verdict(t, verdict[t["met"]])]
        for t in targets(results)
    ]


def _backend(target: dict[str, Any]) -> str:
    return f"{target['backend']} + {target['log']}" if "log" in target else target["backend"]


def _verdict(target: dict[str, Any], word: str) -> str:
    return f"{word} ({target['note']})" if "note" in target else word


# --- terminal ------------------------------------------------------------------------------


def print_report(results: dict[str, Any], console: Console) -> None:
    cluster = results.get("cluster")
    if isinstance(cluster, dict) and cluster.get("boards"):
        table = Table(title=f"Redis Cluster ({cluster['nodes']}), N={results['n']:,} per board")
        for i, column in enumerate(cluster_run.HEADER):
            table.add_column(column, justify="left" if i == 0 else "right")
        for row in cluster_run.rows(cluster):
            table.add_row(*row)
        console.print(table)
        for line in cluster_lines(cluster):
            console.print(line)
    for name, section in results["backends"].items():
        table = Table(title=f"{section['label']} (N={results['n']:,}, {_setup(section)})")
        for column in ENDPOINT_HEADER:
            table.add_column(column, justify="left" if column == "endpoint" else "right")
        for row in endpoint_rows(section):
            table.add_row(*row)
        console.print(table)
        del name
    if not results["backends"]:
        return
    header, rows = figure_rows(results)
    figures = Table(title="other figures")
    for i, column in enumerate(header):
        figures.add_column(column, justify="left" if i == 0 else "right")
    for row in rows:
        figures.add_row(*row)
    console.print(figures)
    checks = Table(title="targets (performance goals)")
    for column in ("backend", "target", "measured", "verdict"):
        checks.add_column(column)
    for row in target_rows(results):
        checks.add_row(*row)
    console.print(checks)


# --- files ---------------------------------------------------------------------------------


def write_json(path: Path, results: dict[str, Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(results, indent=2, sort_keys=False) + "\n")


def _md_table(header: Sequence[str], rows: list[list[str]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    lines += ["| " + " | ".join(cell.replace("|", "\\|") for cell in row) + " |" for row in rows]
    return "\n".join(lines)


def cluster_lines(cluster: dict[str, Any]) -> list[str]:
    """The cluster run's other figures, one sentence each."""
    lines = []
    for board, memory in cluster.get("memory", {}).items():
        if "primaries" not in memory:
            continue
        ready = cluster.get("ready_seconds", {}).get(board)
        built = "" if ready is None else f"; index built from SQL at start in {ready:.1f} s"
        lines.append(
            f"{board}: {memory['primaries']['bytes_per_entry']:,.0f} B per entry on the "
            f"primaries, {memory['with_replicas']['bytes_per_entry']:,.0f} B with the replicas "
            f"({memory['entries']:,} entries){built}."
        )
    bench = cluster.get("redis_benchmark", {})
    if "rps" in bench:
        lines.append(
            f"Raw redis-benchmark ZREVRANK on one primary ({bench['members']:,} members, "
            f"{bench['clients']} clients): {bench['rps']:,.0f} req/s."
        )
    return lines


def cluster_markdown(results: dict[str, Any]) -> str:
    """The cluster run's part of docs/performance.md, between its own markers."""
    cluster = results["cluster"]
    return "\n".join(
        [
            CLUSTER_BEGIN,
            f"## Redis Cluster: N={results['n']:,} per board",
            "",
            f"Produced by `{results['command']}` on {results['started_at']}: "
            f"{cluster['nodes']}; each read at full load for {results['duration_s']:.0f} s, "
            f"{results['connections']} connections; the unsharded and the sharded board "
            "one after the other, each alone in the store and the cluster.",
            "",
            _md_table(cluster_run.HEADER, cluster_run.rows(cluster)),
            "",
            *[f"- {line}" for line in cluster_lines(cluster)],
            CLUSTER_END,
        ]
    )


def markdown_section(results: dict[str, Any], chart: str | None) -> str:
    """The generated part of docs/performance.md, between the BEGIN and END markers."""
    m, v = results["machine"], results["versions"]
    parts = [
        BEGIN,
        f"## Results: N={results['n']:,} ({results['mode']} run)",
        "",
        f"Produced by `{results['command']}` on {results['started_at']} "
        f"in {results['wall_seconds'] / 60:.1f} minutes; {results['duration_s']:.0f} s per "
        f"endpoint, {results['connections']} connections, {results['threads']} wrk thread(s); "
        f"HTTP server {results.get('server', 'uvicorn')} (rankline and the ceiling).",
        "",
        f"**Machine:** {m['cpu']}, {m['cores']} cores, {m['ram_gb']:.1f} GB RAM, "
        f"Linux {m['kernel']}; load average {m['load_before']} before the run. "
        "wrk runs on the same machine.",
        "",
        "**Versions:** " + ", ".join(f"{k} {val}" for k, val in v.items()),
        "",
    ]
    for section in results["backends"].values():
        parts += [
            f"### {section['label']} ({_setup(section)})",
            "",
            _md_table(ENDPOINT_HEADER, endpoint_rows(section)),
            "",
        ]
    header, rows = figure_rows(results)
    parts += ["### Other figures", "", _md_table(header, rows), ""]
    parts += [
        "### Targets",
        "",
        _md_table(("backend", "target", "measured", "verdict"), target_rows(results)),
        "",
    ]
    if chart:
        parts += [f"![p99 latency against throughput]({chart})", ""]
    for name, section in results["backends"].items():
        profile = section.get("profile") or {}
        if profile.get("self"):
            parts += [
                f"### Where the server spends its time: player rank, {name} (py-spy)",
                "",
                _md_table(
                    ("share of samples", "frame (self time)"),
                    [[f"{f['share']:.1%}", f"`{f['frame']}`"] for f in profile["self"]],
                ),
                "",
            ]
    parts.append(END)
    return "\n".join(parts)


def write_markdown(path: Path, results: dict[str, Any], chart: str | None) -> None:
    """Replace the generated sections of ``path`` (or append them; or create the file): the
    backends' section when the run measured any, the cluster's when it ran."""
    text = path.read_text() if path.exists() else "# rankline performance\n\n"
    if results["backends"]:
        text = _replace(text, BEGIN, END, markdown_section(results, chart))
    if isinstance(results.get("cluster"), dict) and results["cluster"].get("boards"):
        text = _replace(text, CLUSTER_BEGIN, CLUSTER_END, cluster_markdown(results))
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def _replace(text: str, begin: str, end: str, section: str) -> str:
    start, stop = text.find(begin), text.find(end)
    if start != -1 and stop > start:
        return text[:start] + section + text[stop + len(end) :]
    return text.rstrip("\n") + "\n\n" + section + "\n"


def plot(results: dict[str, Any], path: Path) -> bool:
    """p99 latency against throughput for each read endpoint and backend (the load sweep);
    False when matplotlib is missing (``pip install 'rankline[bench]'``)."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return False
    fig, ax = plt.subplots(figsize=(8, 5), dpi=120)
    for section in results["backends"].values():
        for name, points in section.get("sweeps", {}).items():
            if not isinstance(points, list):  # a failed sweep
                continue
            ordered = sorted(points, key=lambda p: p["rps"])
            ax.plot(
                [p["rps"] for p in ordered],
                [p["p99_ms"] for p in ordered],
                marker="o",
                label=f"{name} ({section['label']})",
            )
    ax.axhline(10, color="grey", linestyle="--", linewidth=1, label="10 ms target")
    ax.set_xlabel("throughput (requests/s)")
    ax.set_ylabel("p99 latency (ms)")
    ax.set_yscale("log")
    ax.set_title(f"rankline read endpoints, N={results['n']:,}: p99 latency against load")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path)
    plt.close(fig)
    return True
