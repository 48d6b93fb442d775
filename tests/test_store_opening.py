"""``open_store``: the one way to open the durable store the settings name, its schema
checked as asked, and every failure one of rankline's errors with the driver's as cause."""

from __future__ import annotations

import uuid
from pathlib import Path

import pytest

from helpers_backends import PG_URL
from rankline import Settings
from rankline.errors import StoreUnavailable
from rankline.store import migrate
from rankline.store.opening import check_store, migrated, open_store, redacted, store_settings


async def test_the_embedded_store_is_migrated_as_it_opens(tmp_path: Path) -> None:
    settings = Settings(data_dir=tmp_path / "data")
    async with open_store(settings) as store:
        assert await migrate.is_current(store.engine)
    assert (tmp_path / "data" / "rankline.db").is_file()


async def test_a_store_asked_to_be_current_is_not_migrated_behind_the_operators_back(
    tmp_path: Path,
) -> None:
    settings = Settings(data_dir=tmp_path)
    with pytest.raises(migrate.NotMigrated, match=r"run `rankline migrate` first"):
        async with open_store(settings, schema="current"):
            pass
    assert await migrated(settings) == migrate.head_revision()
    async with open_store(settings, schema="current") as store:
        assert await migrate.is_current(store.engine)


def test_the_head_every_start_checks_is_the_last_migration() -> None:
    """``migrate.HEAD`` (what a start compares the database with, without alembic) names
    the newest migration file: a new migration moves it too."""
    assert migrate.head_revision() == migrate.HEAD


async def test_a_database_at_an_older_revision_is_not_current(tmp_path: Path) -> None:
    settings = Settings(data_dir=tmp_path)
    async with open_store(settings, schema="upgraded") as store:
        assert await migrate.current_revision(store.engine) == migrate.HEAD
        async with store.engine.begin() as conn:
            await conn.exec_driver_sql("UPDATE alembic_version SET version_num = '0010m'")
        assert await migrate.current_revision(store.engine) == "0010m"
        assert not await migrate.is_current(store.engine)


async def test_a_server_database_that_does_not_exist_is_store_unavailable() -> None:
    missing = PG_URL.rsplit("/", 1)[0] + f"/rl_missing_{uuid.uuid4().hex[:12]}"
    with pytest.raises(StoreUnavailable) as caught:
        await check_store(store_settings(missing))
    assert "does not exist" in str(caught.value.__cause__)


async def test_a_data_directory_under_a_file_is_store_unavailable(tmp_path: Path) -> None:
    (tmp_path / "taken").write_text("a file where the data directory should go")
    with pytest.raises(StoreUnavailable) as caught:
        async with open_store(Settings(data_dir=tmp_path / "taken" / "data")):
            pass
    assert isinstance(caught.value.__cause__, OSError)


async def test_an_invalid_url_is_store_unavailable() -> None:
    with pytest.raises(StoreUnavailable, match="not valid"):
        async with open_store(store_settings("not a url")):
            pass


def test_a_printed_url_hides_its_password() -> None:
    shown = redacted("postgresql+asyncpg://rankline:s3cret@db:5432/rankline")
    assert "s3cret" not in shown and "db:5432/rankline" in shown
    assert redacted("::") == "(an invalid URL)"
