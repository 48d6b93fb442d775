"""``rankline bench probe NAME``: narrow measurements beside the benchmark, one module each.

``reads`` (CPU per read, in process), ``server`` (server CPU per request under wrk),
``ingest`` (durable writes through HTTP), ``ratings`` (rated matches through HTTP), ``log``
(ingestion-log appends), ``projection`` (the standings' SQL alone, in plain sqlite3),
``rebuild`` (a Redis index's rebuild from PostgreSQL) and ``replay`` (``rankline replay``'s
rate). Each module has an ``Options`` dataclass and ``run(options)``, which prints what it
measured and raises ``ValueError`` for options that do not go together.
"""
