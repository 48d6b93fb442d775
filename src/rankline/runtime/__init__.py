"""What every part runs on: the clock (the one source of time, which tests move), a bounded
cache (``lru``), and background tasks that stop when asked (``tasks``)."""
