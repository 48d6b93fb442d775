"""A worker that owns ingestion-log partitions until it is killed (tests/test_log.py kills it
with SIGKILL, to show that a dead owner's partitions are taken over).

Usage: python tests/helpers_log_owner.py '{"log_url": …, "database": …, "name": …, "partitions": …,
"lease": …, "owner": …}'. Prints the partitions it owns (a JSON list) after every claim.
"""

from __future__ import annotations

import asyncio
import json
import sys

from rankline.log import LogOptions, open_log


async def main(spec: dict[str, object]) -> None:
    lease = float(str(spec["lease"]))
    log = open_log(
        str(spec["log_url"] or ""),
        str(spec["database"]),
        LogOptions(
            name=str(spec["name"]), partitions=int(str(spec["partitions"])), lease_seconds=lease
        ),
    )
    await log.start()
    consumer = log.consumer(str(spec["owner"]))
    while True:
        owned = await consumer.claim()
        print(json.dumps(sorted(owned)), flush=True)
        await asyncio.sleep(lease / 5)


if __name__ == "__main__":
    asyncio.run(main(json.loads(sys.argv[1])))
