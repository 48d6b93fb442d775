"""How the store's errors leave it: driver and SQLAlchemy errors never reach the packages
above. A lost connection or a locked database becomes ``StoreUnavailable``, a unique-key race
between writers ``WriteConflict``. Every store module runs its statements inside
``mapped_errors``."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from sqlalchemy.exc import DBAPIError, IntegrityError, SQLAlchemyError

from rankline.errors import StoreUnavailable, WriteConflict
from rankline.metrics import BACKEND_ERRORS

log = logging.getLogger("rankline.store")


@asynccontextmanager
async def mapped_errors() -> AsyncIterator[None]:
    try:
        yield
    except IntegrityError as exc:
        raise WriteConflict("a concurrent writer changed the same rows") from exc
    except (DBAPIError, SQLAlchemyError, OSError) as exc:
        BACKEND_ERRORS.labels("sql").inc()
        log.warning("durable store error: %s", exc.__class__.__name__, exc_info=exc)
        raise StoreUnavailable(f"the durable store is unavailable ({type(exc).__name__})") from exc
