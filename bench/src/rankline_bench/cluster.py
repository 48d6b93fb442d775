"""A throwaway local Redis Cluster: ``redis-server`` processes on free loopback ports, joined
by ``redis-cli --cluster create``, stopped by pid. The benchmark and the tests use it; it is
no way to run a production cluster (no persistence, everything on one machine).

    with LocalCluster(primaries=3, replicas=1) as cluster:
        url = cluster.url            # redis+cluster://127.0.0.1:p1,127.0.0.1:p2,...
        cluster.kill_primary_of(slot)
"""

from __future__ import annotations

import os
import random
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType

import redis

HOST = "127.0.0.1"


class ClusterError(RuntimeError):
    """The local cluster could not be started (``redis-server`` or ``redis-cli`` missing, or
    the nodes did not come up)."""


def _free(port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        try:
            sock.bind((HOST, port))
        except OSError:
            return False
    return True


def _free_port(taken: set[int]) -> int:
    """A free port whose cluster bus port (+10,000) is free too: below the kernel's
    ephemeral range, so the bus port exists and no outgoing connection takes it meanwhile."""
    for _ in range(1000):
        port = random.randrange(20_000, 30_000)
        if port not in taken and _free(port) and _free(port + 10_000):
            return port
    raise ClusterError("no free port pair for a cluster node")


FLUSH_SECONDS = 600.0
"""How long emptying one node may take (a primary of 30M entries needs more than 10 s)."""


def _cli(port: int, *args: str, timeout: float = 10) -> str:
    done = subprocess.run(
        ["redis-cli", "-h", HOST, "-p", str(port), *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
    return done.stdout


def _client(port: int, *, timeout: float = 10) -> redis.Redis:
    """A client of one node (for the commands run between tests: cheaper than a
    ``redis-cli`` process each)."""
    return redis.Redis(host=HOST, port=port, socket_timeout=timeout, socket_connect_timeout=2)


@dataclass
class Node:
    port: int
    process: subprocess.Popen[bytes]

    @property
    def address(self) -> str:
        return f"{HOST}:{self.port}"

    def alive(self) -> bool:
        return self.process.poll() is None


@dataclass
class LocalCluster:
    """``primaries`` primaries with ``replicas`` replicas each; ``node_timeout_ms`` is the
    cluster's failure-detection time (a failover takes about that long)."""

    primaries: int = 3
    replicas: int = 1
    node_timeout_ms: int = 2000
    maxmemory: str | None = None
    nodes: list[Node] = field(default_factory=list)
    _dir: Path | None = None
    _clients: dict[tuple[int, float], redis.Redis] = field(default_factory=dict, repr=False)

    @property
    def url(self) -> str:
        seeds = ",".join(node.address for node in self.nodes if node.alive())
        return f"redis+cluster://{seeds}"

    def __enter__(self) -> LocalCluster:
        self.start()
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()

    def start(self) -> None:
        for tool in ("redis-server", "redis-cli"):
            if shutil.which(tool) is None:
                raise ClusterError(
                    f"{tool} is not installed; the cluster tests and benchmark need it "
                    "(Debian: apt-get install redis-server)"
                )
        self._dir = Path(tempfile.mkdtemp(prefix="rankline-cluster-"))
        try:
            taken: set[int] = set()
            for _ in range(self.primaries * (1 + self.replicas)):
                taken.add(port := _free_port(taken))
                self.nodes.append(self._spawn(port))
            for node in self.nodes:
                self._wait(lambda n=node: _cli(n.port, "PING").strip() == "PONG", "start")
            create = subprocess.run(
                [
                    "redis-cli",
                    "--cluster",
                    "create",
                    *(node.address for node in self.nodes),
                    "--cluster-replicas",
                    str(self.replicas),
                    "--cluster-yes",
                ],
                capture_output=True,
                text=True,
                timeout=60,
                check=False,
            )
            if create.returncode != 0:
                raise ClusterError(f"redis-cli --cluster create failed: {create.stdout[-500:]}")
            self.wait_ok()
        except BaseException:
            self.stop()
            raise

    def _spawn(self, port: int) -> Node:
        assert self._dir is not None
        workdir = self._dir / str(port)
        workdir.mkdir()
        args = [
            "redis-server",
            "--port",
            str(port),
            "--bind",
            HOST,
            "--cluster-enabled",
            "yes",
            "--cluster-config-file",
            str(workdir / "nodes.conf"),
            "--cluster-node-timeout",
            str(self.node_timeout_ms),
            "--dir",
            str(workdir),
            "--save",
            "",
            "--appendonly",
            "no",
            "--logfile",
            str(workdir / "redis.log"),
        ]
        if self.maxmemory:
            args += ["--maxmemory", self.maxmemory]
        process = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        return Node(port, process)

    def _wait(self, ready: object, what: str, seconds: float = 30) -> None:
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            if callable(ready) and ready():
                return
            time.sleep(0.05)
        raise ClusterError(f"the local Redis Cluster did not {what} within {seconds:.0f} s")

    def wait_ok(self, seconds: float = 30) -> None:
        """Until every live node says ``cluster_state:ok`` and sees every slot served."""

        def ok() -> bool:
            return all(
                "cluster_state:ok" in _cli(node.port, "CLUSTER", "INFO")
                for node in self.nodes
                if node.alive()
            )

        def replicating() -> bool:
            for node in self.nodes:
                if not node.alive():
                    continue
                info = _cli(node.port, "INFO", "replication")
                if "role:slave" in info and "master_link_status:up" not in info:
                    return False
            return True

        self._wait(ok, "reach cluster_state:ok", seconds)
        self._wait(replicating, "connect its replicas", seconds)

    def primary_of(self, slot: int) -> Node:
        """The node serving ``slot`` now, as a live node's ``CLUSTER NODES`` says."""
        for node in self.nodes:
            if not node.alive():
                continue
            for line in _cli(node.port, "CLUSTER", "NODES").splitlines():
                parts = line.split()
                if len(parts) < 9 or "master" not in parts[2] or "fail" in parts[2]:
                    continue
                for span in parts[8:]:
                    if span.startswith("["):
                        continue
                    low, _, high = span.partition("-")
                    if int(low) <= slot <= int(high or low):
                        port = int(parts[1].split("@")[0].rsplit(":", 1)[1])
                        return next(n for n in self.nodes if n.port == port)
            break
        raise ClusterError(f"no node serves slot {slot}")

    def _kept(self, node: Node, timeout: float = 10) -> redis.Redis:
        """A client of ``node`` kept for the commands run between tests (a role check and a
        flush of every node before each test): their connections are reused, not made anew
        each time (redis-py connects again when the node closed one)."""
        client = self._clients.get((node.port, timeout))
        if client is None:
            client = self._clients[node.port, timeout] = _client(node.port, timeout=timeout)
        return client

    def _forget(self, node: Node) -> None:
        for key in [key for key in self._clients if key[0] == node.port]:
            self._clients.pop(key).close()

    def is_primary(self, node: Node) -> bool:
        try:
            return bool(self._kept(node).info("replication")["role"] == "master")
        except redis.ConnectionError:
            return False

    def kill(self, node: Node) -> None:
        """SIGKILL one node (as a crash would)."""
        self._forget(node)
        node.process.send_signal(signal.SIGKILL)
        node.process.wait(10)

    def flush(self) -> None:
        """Empty every primary (the replicas follow). Synchronous, so the memory is free when
        this returns; tens of millions of entries take a while to free."""
        for node in self.nodes:
            if node.alive() and self.is_primary(node):
                client = self._kept(node, FLUSH_SECONDS)
                client.execute_command("FLUSHALL", "SYNC")  # type: ignore[no-untyped-call]

    def stop(self) -> None:
        for node in self.nodes:
            self._forget(node)
        for node in self.nodes:
            if node.alive():
                node.process.terminate()
        for node in self.nodes:
            try:
                node.process.wait(10)
            except subprocess.TimeoutExpired:
                os.kill(node.process.pid, signal.SIGKILL)
                node.process.wait(5)
        self.nodes = []
        if self._dir is not None:
            shutil.rmtree(self._dir, ignore_errors=True)
            self._dir = None


__all__ = ["ClusterError", "LocalCluster", "Node"]
