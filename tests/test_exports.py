"""The public surface: pinned names, py.typed, and no Ray on import."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import yarnball

EXPECTED = {
    "Actor",
    "ActorError",
    "ActorRef",
    "ApplicationMaster",
    "Cluster",
    "Configuration",
    "ConfigurationError",
    "ContainerRequest",
    "DeadLetterError",
    "Future",
    "Kernel",
    "ProtocolError",
    "Resource",
    "SchedulingError",
    "SimulationError",
    "TimeoutError",
    "TraceFormatError",
    "VirtualClock",
    "WallClock",
    "YarnballError",
    "__version__",
    "configure_logging",
    "decode",
    "encode",
    "handler",
    "sweep",
}


def test_public_names_are_pinned() -> None:
    """yarnball.__all__ is exactly the documented API, and every name resolves."""
    assert set(yarnball.__all__) == EXPECTED
    for name in yarnball.__all__:
        assert getattr(yarnball, name) is not None


LAUNCHER_EXPECTED = {
    "Autoscaler",
    "Cluster",
    "ElasticConfig",
    "ElasticReport",
    "RunResult",
    "ScenarioSpec",
    "node_hours",
    "run_scenario",
}


def test_launcher_names_are_pinned() -> None:
    """yarnball.launcher.__all__ is exactly its documented API (the Cluster, the autoscaler, one scenario's run)."""
    import yarnball.launcher

    assert set(yarnball.launcher.__all__) == LAUNCHER_EXPECTED
    for name in yarnball.launcher.__all__:
        assert getattr(yarnball.launcher, name) is not None


def test_package_is_typed() -> None:
    """py.typed ships in the package."""
    assert (Path(yarnball.__file__).parent / "py.typed").is_file()


def test_import_does_not_import_ray() -> None:
    """import yarnball leaves Ray (and matplotlib) unimported; they load only when used."""
    code = "import sys, yarnball; print('ray' in sys.modules, 'matplotlib' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    assert out == ["False", "False"]


def test_errors_share_one_base() -> None:
    """Every yarnball error is a YarnballError."""
    for name in (
        "ActorError",
        "ConfigurationError",
        "DeadLetterError",
        "ProtocolError",
        "SchedulingError",
        "SimulationError",
        "TimeoutError",
        "TraceFormatError",
    ):
        assert issubclass(getattr(yarnball, name), yarnball.YarnballError)
