"""One embedded server per data directory.

The in-process index is a projection that only its own process keeps up to date: two
servers on one SQLite database would each answer from their own, and diverge. A server on
the embedded store therefore holds an OS lock (``fcntl.flock``) on ``DATA_DIR/server.lock``
for its lifetime, with the server's pid written inside so a refused
start can name the process to stop. The kernel drops the lock with its process, however it
ends, so a killed server leaves nothing stale behind. (``fcntl`` is POSIX: the server runs
on Linux and macOS, not on Windows.)
"""

from __future__ import annotations

import fcntl
import multiprocessing
import os
import threading
from pathlib import Path

from rankline.errors import RanklineError, StoreUnavailable

LOCK_FILE = "server.lock"


class DataDirInUse(RanklineError):
    title, slug = "Data directory in use", "data-dir-in-use"


class _Held:
    """The descriptor whose ``flock`` a process holds on one lock file, and how many
    acquisitions in the process share it."""

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self.count = 1


# flock belongs to an open file description: a second descriptor on the same file in the same
# process would be refused like another process. So a process shares one per path.
_HELD: dict[Path, _Held] = {}
_HELD_GUARD = threading.Lock()


def _take(path: Path) -> bool:
    """Hold ``path``'s flock (once per process, counted); False if another process holds it."""
    with _HELD_GUARD:
        held = _HELD.get(path)
        if held is not None:
            held.count += 1
            return True
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            return False
        except BaseException:
            os.close(fd)
            raise
        _HELD[path] = _Held(fd)
        return True


def _drop(path: Path) -> None:
    with _HELD_GUARD:
        held = _HELD.get(path)
        if held is None:
            return
        held.count -= 1
        if held.count == 0:
            del _HELD[path]
            fcntl.flock(held.fd, fcntl.LOCK_UN)
            os.close(held.fd)


class DataDirLock:
    """The lock of one data directory. Reentrant within a process (counted per path): a
    process is one server, however many services it starts on the directory."""

    def __init__(self, data_dir: Path) -> None:
        self.data_dir = data_dir
        self.path = data_dir / LOCK_FILE
        self._acquired = 0

    def acquire(self) -> None:
        """Take the lock, or raise ``DataDirInUse`` naming the process that holds it."""
        try:
            self.data_dir.mkdir(parents=True, exist_ok=True)
            taken = _take(self.path)
        except OSError as exc:  # the data directory cannot be made or opened
            raise StoreUnavailable(f"cannot use the data directory {self.data_dir}") from exc
        if not taken:
            holder = self.holder()
            who = "another process" if holder is None else f"process {holder}"
            raise DataDirInUse(
                f"the data directory {self.data_dir} is in use by {who} (lock {self.path}); "
                "stop it or set RANKLINE_DATA_DIR to another directory"
            )
        self._acquired += 1
        # Another descriptor on the same file: the flock belongs to the held one.
        self.path.write_text(f"{_server_pid()}\n")

    def release(self) -> None:
        if self._acquired:
            self._acquired -= 1
            _drop(self.path)

    def holder(self) -> int | None:
        """The pid the holder wrote, if any."""
        try:
            return int(self.path.read_text().strip())
        except (OSError, ValueError):
            return None


def _server_pid() -> int:
    """The process to stop to free the directory: this one, or, in a worker process that a
    server started (granian's, even with one worker), that server, which would start the
    worker again if the worker alone were stopped."""
    parent = multiprocessing.parent_process()
    return parent.pid if parent is not None and parent.pid is not None else os.getpid()


def embedded_lock(data_dir: Path, database: str, shared_index: bool) -> DataDirLock | None:
    """The data directory's lock when a server on it must be the only one: its durable store
    is SQLite and its index in-process (a shared index serves several processes)."""
    if shared_index or not database.startswith("sqlite"):
        return None
    return DataDirLock(data_dir.resolve())
