"""Where a phase's CPU went, from ``/proc``: each process's user + system time before and
after, summed by the part it plays (the load, the server, PostgreSQL, Redis), beside the
machine's own busy time; in cores (CPU seconds per second of the phase).

Cheap enough to take around a benchmark phase: two reads of ``/proc/<pid>/stat`` per process
of a group and two of ``/proc/stat``. A process that appears during the phase counts from
zero; one that ends during it is not counted (its time is in the machine's)."""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

_TICK = os.sysconf("SC_CLK_TCK")

Groups = Callable[[], Mapping[str, Iterable[int]]]
"""The processes of each group, asked at the start and at the end of the phase."""


def process_seconds(pid: int) -> float | None:
    """A process's user + system CPU seconds so far (None once it has ended)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None
    return (int(fields[11]) + int(fields[12])) / _TICK


def machine_seconds() -> tuple[float, float]:
    """All cores' busy and total CPU seconds since boot (``/proc/stat``)."""
    values = [int(v) for v in Path("/proc/stat").read_text().splitlines()[0].split()[1:]]
    idle = values[3] + values[4]  # idle, iowait
    total = sum(values[:8])  # guest time is already in user
    return (total - idle) / _TICK, total / _TICK


def matching(words: Iterable[bytes]) -> list[int]:
    """The processes whose command line holds every one of ``words``."""
    wanted = list(words)
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            line = (entry / "cmdline").read_bytes().replace(b"\0", b" ")
        except OSError:
            continue
        if all(word in line for word in wanted):
            found.append(int(entry.name))
    return found


@dataclass(frozen=True)
class Sample:
    wall: float
    machine_busy: float
    machine_total: float
    by_pid: dict[str, dict[int, float]]


def sample(groups: Groups) -> Sample:
    by_pid: dict[str, dict[int, float]] = {}
    for name, pids in groups().items():
        seconds = {pid: process_seconds(pid) for pid in pids}
        by_pid[name] = {pid: s for pid, s in seconds.items() if s is not None}
    busy, total = machine_seconds()
    return Sample(time.monotonic(), busy, total, by_pid)


def cores(before: Sample, after: Sample) -> dict[str, float]:
    """Each group's CPU over the phase in cores, with ``machine`` (all busy time, of
    ``capacity`` cores) and ``other`` (the machine's busy time in none of the groups)."""
    wall = after.wall - before.wall
    found: dict[str, float] = {}
    for name, ended in after.by_pid.items():
        started = before.by_pid.get(name, {})
        used = sum(s - started.get(pid, 0.0) for pid, s in ended.items())
        found[name] = used / wall if wall > 0 else 0.0
    capacity = (after.machine_total - before.machine_total) / wall if wall > 0 else 0.0
    machine = (after.machine_busy - before.machine_busy) / wall if wall > 0 else 0.0
    found["other"] = max(0.0, machine - sum(found.values()))
    found["machine"] = machine
    found["capacity"] = capacity
    return found
