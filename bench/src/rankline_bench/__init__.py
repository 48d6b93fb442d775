"""``rankline bench``: a reproducible benchmark of rankline against the machine's ceiling.

``run`` orchestrates; ``load`` makes and bulk-loads the data; ``servers`` starts and stops
``rankline serve`` and the ``ceiling`` app; ``wrk`` drives wrk with the Lua scripts in
``lua/``; ``probes`` takes the other measurements; ``report`` writes JSON, tables, the doc
section and the chart. docs/performance.md explains every figure.

``rankline bench probe NAME`` (``probe/``) runs one narrow measurement: a read's CPU, a
write or rating rate through HTTP, the log's appends, the standings' SQL, a rebuild, a replay.

``rankline soak`` (``soak``) and ``rankline check-history`` (``history_run`` records,
``history`` checks) run against the servers ``stack`` starts, one backend at a time.

Nothing is imported here, so ``python -m rankline_bench.ceiling`` stays a bare server.
"""
