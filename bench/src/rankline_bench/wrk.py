"""Driving wrk: one Lua script per endpoint (package data in ``lua/``), results as numbers.

Each run's script is ``lua/common.lua`` followed by the endpoint's file. Its ``done()``
prints one line ``@@rankline-wrk {json}`` with the request count, the errors and the
latency percentiles (wrk's own summary has no p95), which ``parse`` reads back.
"""

from __future__ import annotations

import json
import subprocess
import tempfile
import time
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

MARK = "@@rankline-wrk "
ERROR_LIMIT = 0.001
"""An endpoint whose errors (non-2xx answers, timeouts, socket errors) pass 0.1% of its
requests fails the benchmark: a benchmark of error pages measures nothing."""


class WrkError(RuntimeError):
    """wrk failed, printed no result, or the endpoint answered too many errors."""


@dataclass(frozen=True)
class WrkResult:
    requests: int
    seconds: float
    p50_ms: float
    p95_ms: float
    p99_ms: float
    p999_ms: float
    mean_ms: float
    max_ms: float
    errors: dict[str, int] = field(default_factory=dict)
    connections: int = 0
    delay_ms: float = 0.0
    drain_s: float = 0.0
    """How long the server took to answer what wrk left queued when it stopped."""

    @property
    def rps(self) -> float:
        return self.requests / self.seconds if self.seconds else 0.0

    @property
    def error_count(self) -> int:
        return sum(self.errors.values())

    @property
    def error_rate(self) -> float:
        return self.error_count / self.requests if self.requests else 1.0

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["rps"] = round(self.rps, 1)
        data["error_rate"] = self.error_rate
        return data


def parse(output: str, connections: int = 0, delay_ms: float = 0.0) -> WrkResult:
    """The result line ``done()`` printed, as numbers (milliseconds, seconds)."""
    for line in reversed(output.splitlines()):
        if line.startswith(MARK):
            data = json.loads(line[len(MARK) :])
            break
    else:
        raise WrkError(f"wrk printed no result line:\n{output[-2000:]}")
    latency = data["latency_us"]
    pct = latency["percentiles"]
    return WrkResult(
        requests=int(data["requests"]),
        seconds=data["duration_us"] / 1e6,
        p50_ms=pct["50"] / 1000,
        p95_ms=pct["95"] / 1000,
        p99_ms=pct["99"] / 1000,
        p999_ms=pct["99.9"] / 1000,
        mean_ms=latency["mean"] / 1000,
        max_ms=latency["max"] / 1000,
        errors={k: int(v) for k, v in data["errors"].items()},
        connections=connections,
        delay_ms=delay_ms,
    )


def check(name: str, result: WrkResult, limit: float = ERROR_LIMIT) -> None:
    """Fail loudly when an endpoint answered errors: its numbers would be meaningless."""
    if result.requests == 0 or result.error_rate > limit:
        detail = ", ".join(f"{k} {v:,}" for k, v in result.errors.items() if v)
        raise WrkError(
            f"{name}: {result.error_count:,} errors in {result.requests:,} requests "
            f"({result.error_rate:.2%}; {detail or 'no requests'}): the endpoint is broken "
            "or overloaded, so its numbers are not reported"
        )


def script_text(endpoint: str) -> str:
    lua = resources.files("rankline_bench") / "lua"
    return (lua / "common.lua").read_text() + "\n" + (lua / f"{endpoint}.lua").read_text()


def command(
    url: str,
    script: Path,
    *,
    connections: int,
    threads: int,
    seconds: float,
    args: Mapping[str, object],
) -> list[str]:
    threads = max(1, min(threads, connections))
    argv = ["wrk", "-t", str(threads), "-c", str(connections), "-d", f"{max(1, round(seconds))}s"]
    argv += ["--timeout", "10s", "-s", str(script), url, "--"]
    return argv + [f"{k}={v}" for k, v in args.items()]


def run(
    url: str,
    endpoint: str,
    *,
    connections: int,
    threads: int,
    seconds: float,
    args: Mapping[str, object],
    tick: Callable[[float], None] | None = None,
) -> WrkResult:
    """Run wrk with the endpoint's script; ``tick`` gets the elapsed seconds meanwhile."""
    with tempfile.TemporaryDirectory(prefix="rankline-wrk-") as tmp:
        script = Path(tmp) / f"{endpoint}.lua"
        script.write_text(script_text(endpoint))
        argv = command(
            url, script, connections=connections, threads=threads, seconds=seconds, args=args
        )
        started = time.perf_counter()
        with subprocess.Popen(
            argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
        ) as proc:
            while proc.poll() is None:
                if tick is not None:
                    tick(time.perf_counter() - started)
                time.sleep(0.2)
                if time.perf_counter() - started > seconds + 60:
                    proc.kill()
                    raise WrkError(f"wrk did not finish {endpoint} in {seconds + 60:.0f} s")
            output = proc.stdout.read() if proc.stdout else ""
        if proc.returncode != 0:
            raise WrkError(f"wrk exited with {proc.returncode}:\n{output[-2000:]}")
    delay = float(str(args.get("delay", 0)))
    return parse(output, connections, delay)


def version() -> str:
    try:
        done = subprocess.run(["wrk", "--version"], capture_output=True, text=True, check=False)
    except FileNotFoundError:
        return "not installed"
    return (done.stdout + done.stderr).splitlines()[0].strip() if done.stdout + done.stderr else ""
