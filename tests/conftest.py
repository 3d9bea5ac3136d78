"""Shared fixtures: structlog is reset around every test (never configured on import)."""

from __future__ import annotations

import os
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


@pytest.fixture(name="ray_cluster", scope="session")
def fixture_ray_cluster() -> Iterator[str]:
    """One local Ray head (2 CPUs, no dashboard) shared by every Ray test of the session, as its GCS address
    (``host:port``, what ``--address`` takes); shut down at the end."""
    ray = pytest.importorskip("ray")
    started = not ray.is_initialized()
    if started:
        # Workers import the AMs that tests define (cloudpickle ships them by module name).
        paths = [str(Path(__file__).parent), *filter(None, os.environ.get("PYTHONPATH", "").split(os.pathsep))]
        ray.init(
            num_cpus=2,
            include_dashboard=False,
            log_to_driver=False,
            configure_logging=False,
            runtime_env={"env_vars": {"PYTHONPATH": os.pathsep.join(paths)}},
        )
    yield str(ray.get_runtime_context().gcs_address)
    if started:
        ray.shutdown()


@pytest.fixture(name="backend", params=["embedded", pytest.param("ray", marks=pytest.mark.ray)])
def fixture_backend(request: pytest.FixtureRequest) -> str:
    """The runtime backend a behaviour test runs on: each such test runs embedded and on 2 Ray shard hosts."""
    if request.param == "ray":
        request.getfixturevalue("ray_cluster")
    return str(request.param)
