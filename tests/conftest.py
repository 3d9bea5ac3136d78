"""Shared fixtures: structlog is reset around every test (never configured on import)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
import structlog

from yarnball.actors._logging import close_logging

SHARED = Path(__file__).resolve().parents[1].parent / "shared"


@pytest.fixture(autouse=True)
def _reset_structlog() -> Iterator[None]:
    structlog.reset_defaults()
    yield
    close_logging()


@pytest.fixture(name="shared_data")
def fixture_shared_data() -> Path:
    """The shared sample inputs (../shared/data), skipping when the checkout has no shared/ beside it."""
    data = SHARED / "data"
    if not data.is_dir():
        pytest.skip("../shared/data is not present beside this checkout")
    return data
