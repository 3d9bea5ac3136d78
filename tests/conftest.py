"""Shared fixtures: structlog is reset around every test (never configured on import)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import structlog
from structlog.testing import LogCapture, capture_logs

from yarnball.actors._logging import close_logging
from yarnball.launcher._cluster import Cluster
from yarnball.protocols import keys
from yarnball.testing import assert_invariants

# (YARNBALL_SHARED_DIR names it for a checkout elsewhere, e.g. a git worktree)
SHARED = Path(os.environ.get("YARNBALL_SHARED_DIR") or Path(__file__).resolve().parents[1].parent / "shared")


@pytest.fixture(autouse=True)
def _reset_structlog() -> Iterator[None]:
    structlog.reset_defaults()
    yield
    close_logging()


def _log_capture() -> LogCapture | None:
    """The LogCapture of an active ``capture_logs`` block (a test's ``captured_events``), if any."""
    if not structlog.is_configured():
        return None
    for processor in structlog.get_config()["processors"]:
        if isinstance(processor, LogCapture):
            return processor
    return None


@pytest.fixture(autouse=True)
def _invariants_checked(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Issue 21: the event-log invariants (yarnball/launcher/_invariants.py) hold in every run a test makes.

    Each embedded ``Cluster.run`` is checked on the records it logs, debug included: captured around the run when
    nothing captures them yet, else read from the test's own capture. Every events.jsonl the test leaves under its
    ``tmp_path`` (CLI runs) is checked at the end. ``@pytest.mark.no_invariants`` opts a test out (one that breaks
    the rules on purpose); ``YARNBALL_CHECK_INVARIANTS=0`` turns the check off (to time the suite without it)."""
    opted_out = request.node.get_closest_marker("no_invariants") is not None
    if opted_out or os.environ.get("YARNBALL_CHECK_INVARIANTS") == "0":
        yield
        return
    original = Cluster.run

    def run(self: Cluster, *args: Any, **kwargs: Any) -> float:
        if self.backend != "embedded":  # the sharded backends check their merged event logs
            return original(self, *args, **kwargs)
        # vcores count only under the DominantResourceCalculator (Hadoop's default schedules on memory alone)
        vcores = self.conf.get(keys.RESOURCE_CALCULATOR_CLASS, "") == keys.DOMINANT_RESOURCE_CALCULATOR_CLASS
        capture = _log_capture()
        if capture is not None:
            start = len(capture.entries)
            result = original(self, *args, **kwargs)
            assert_invariants(capture.entries[start:], "the run's captured events", vcores=vcores)
            return result
        if structlog.is_configured():  # the test's own logging (an events.jsonl: checked at the end)
            return original(self, *args, **kwargs)
        with capture_logs() as events:
            result = original(self, *args, **kwargs)
        assert_invariants(events, "the run's events", vcores=vcores)
        return result

    monkeypatch.setattr(Cluster, "run", run)
    yield
    tmp = request.node.funcargs.get("tmp_path")
    if isinstance(tmp, Path):
        for log in sorted(tmp.rglob("events.jsonl")):
            assert_invariants(log)


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


@dataclass(frozen=True)
class BackendCase:
    """A runtime backend of the behaviour suite: its ``Cluster(backend=...)`` name and shard hosts."""

    name: str
    hosts: int | None = None

    @property
    def options(self) -> dict[str, Any]:
        """The Cluster keyword arguments that select this backend."""
        return {"backend": self.name, **({"hosts": self.hosts} if self.hosts is not None else {})}

    @property
    def sharded(self) -> bool:
        return self.name != "embedded"


BACKEND_CASES = [
    pytest.param(BackendCase("embedded"), id="embedded"),
    pytest.param(BackendCase("inprocess", 1), id="inprocess1"),
    pytest.param(BackendCase("inprocess", 2), id="inprocess2"),
    pytest.param(BackendCase("ray", 2), id="ray", marks=pytest.mark.ray),
]


@pytest.fixture(name="backend", params=BACKEND_CASES)
def fixture_backend(request: pytest.FixtureRequest) -> BackendCase:
    """The runtime backend a behaviour test runs on: embedded, the shard hosts in this process (one host, two), and
    two Ray shard hosts (the Ray lane)."""
    if request.param.name == "ray":
        request.getfixturevalue("ray_cluster")
    return request.param  # type: ignore[no-any-return]
