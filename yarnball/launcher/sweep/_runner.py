"""Running a sweep: every scenario on Ray Tune (one trial, one CPU, one embedded simulation each), or in-process.

Ray Tune does the trial management: the grid of scenario names, at most ``workers`` trials at a time, one CPU per
trial, and the retry of a trial whose worker process died (``FailureConfig(max_failures)``). Trials reuse their
worker process (``reuse_actors``), so each worker imports Ray Tune and yarnball once, not once per scenario. A
scenario's own failure (a user error, or an exception in the simulation) is not a trial failure: the trial reports
it as its row and ends normally, so a deterministic failure is not retried. ``--resume`` is decided before Tune
starts: the scenarios whose outputs are complete are left out of the grid (simpler than restoring Tune's
experiment state, and it also skips the scenarios an earlier sweep with a different spec already ran).

``workers=0`` runs the scenarios one after another in this process, without Ray (the benchmark's baseline).
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import IO, Any

from yarnball.errors import ConfigurationError
from yarnball.launcher.sweep._scenario import STATE_DIR, run_row
from yarnball.launcher.sweep._spec import Scenario

__all__ = ["SweepProgress", "require_tune", "run_in_process", "run_on_ray"]


def require_tune() -> None:
    """Fail with the install command when Ray Tune cannot be imported (Ray itself may be there without Tune's
    dependencies, so this imports it rather than asking ``find_spec``)."""
    try:
        import ray.tune  # noqa: F401
    except ImportError as exc:
        from yarnball.launcher._about import RAY_INSTALL

        raise ConfigurationError(
            f"yarnball sweep needs Ray Tune, which is not installed ({exc}): install the extra with "
            f"`{RAY_INSTALL}` (or `pip install 'yarnball[ray]'`), or run the scenarios in this process with "
            "--workers 0"
        ) from exc


class SweepProgress:
    """One progress line over the scenarios on stderr: done/total, failures, elapsed and ETA.

    The ETA is the mean wall time per finished scenario of this run times the scenarios left, which already
    accounts for the scenarios running in parallel. Redrawn in place on a terminal, one line per scenario otherwise.
    """

    def __init__(self, total: int, skipped: int, stream: IO[str] | None = None, *, enabled: bool = True) -> None:
        self.total = total
        self.done = skipped
        self.skipped = skipped
        self.failed = 0
        self.stream = stream if stream is not None else sys.stderr
        self.enabled = enabled
        self.tty = bool(getattr(self.stream, "isatty", lambda: False)())
        self.start = time.monotonic()
        if enabled and skipped:
            self.stream.write(f"yarnball sweep: --resume: {skipped} of {total} scenarios are complete, skipped\n")
        self.draw()

    def scenario_done(self, failed: bool) -> None:
        self.done += 1
        self.failed += int(failed)
        self.draw()

    def text(self) -> str:
        elapsed = time.monotonic() - self.start
        ran = self.done - self.skipped
        left = self.total - self.done
        eta = f"{_clock(elapsed / ran * left)}" if ran and left else ("0:00" if not left else "?")
        filled = int(30 * self.done / self.total) if self.total else 30
        return (
            f"[{'#' * filled}{'.' * (30 - filled)}] {self.done}/{self.total} scenarios  "
            f"{self.failed} failed  elapsed {_clock(elapsed)}  ETA {eta}"
        )

    def draw(self) -> None:
        if not self.enabled:
            return
        if self.tty:
            self.stream.write("\r" + self.text() + ("\n" if self.done >= self.total else ""))
        else:
            self.stream.write(self.text() + "\n")
        self.stream.flush()


def run_in_process(scenarios: Sequence[Scenario], output_dir: Path, progress: SweepProgress) -> None:
    """Run the scenarios one after another in this process (no Ray)."""
    for scenario in scenarios:
        row = run_row(scenario, output_dir)
        progress.scenario_done(row["status"] == "error")


def _trainable(config: dict[str, Any], scenarios: dict[str, Scenario], output_dir: str) -> None:
    """One Tune trial: one scenario, reported as one result (the row itself is recorded under .sweep/)."""
    from ray import tune

    row = run_row(scenarios[config["scenario"]], output_dir)
    tune.report({"failed": int(row["status"] == "error"), "attempts": row["attempts"]})


def run_on_ray(
    scenarios: Sequence[Scenario],
    output_dir: Path,
    progress: SweepProgress,
    *,
    workers: int | None,
    address: str | None,
    max_failures: int,
) -> dict[str, str]:
    """Run the scenarios as a Ray Tune grid; return the scenarios whose trial failed for good -> Tune's error."""
    import ray
    from ray import tune

    # Tune's classic reporter, which verbose=0 silences (the new one still prints its configuration box): the
    # progress line is ours.
    os.environ.setdefault("RAY_AIR_NEW_OUTPUT", "0")
    started = False
    if not ray.is_initialized():
        options: dict[str, Any] = {"include_dashboard": False, "log_to_driver": False, "configure_logging": False}
        if address is None:
            options["num_cpus"] = workers or os.cpu_count() or 1
        try:
            ray.init(address=address, **options)
        except (ConnectionError, RuntimeError, ValueError) as exc:  # Ray's errors, translated at the boundary
            where = f"the Ray cluster at {address}" if address else "a local Ray"
            raise ConfigurationError(f"--address: cannot start or join {where}: {exc}") from exc
        started = True
    try:
        concurrency = workers or max(1, int(ray.cluster_resources().get("CPU", 1)))
        by_name = {s.name: s for s in scenarios}
        trainable = tune.with_resources(
            tune.with_parameters(_trainable, scenarios=by_name, output_dir=os.fspath(output_dir)), {"cpu": 1}
        )
        tuner = tune.Tuner(
            trainable,
            param_space={"scenario": tune.grid_search(list(by_name))},
            tune_config=tune.TuneConfig(max_concurrent_trials=concurrency, reuse_actors=True),
            run_config=tune.RunConfig(
                name="tune",
                storage_path=os.fspath(output_dir / STATE_DIR),
                failure_config=tune.FailureConfig(max_failures=max_failures),
                verbose=0,
                callbacks=[_progress_callback(tune.Callback, progress.scenario_done)],
            ),
        )
        grid = tuner.fit()
        failures: dict[str, str] = {}
        for result in grid:
            if result.error is not None:
                lines = [line for line in str(result.error).splitlines() if line.strip()]
                failures[result.config["scenario"]] = lines[-1].strip() if lines else type(result.error).__name__
        return failures
    finally:
        if started:
            ray.shutdown()


def _progress_callback(base: type, on_done: Callable[[bool], None]) -> Any:
    """A Tune callback advancing the progress line when a trial reports its row or fails for good."""

    class _Progress(base):  # type: ignore[misc, valid-type]
        def __init__(self, on_done: Callable[[bool], None]) -> None:  # no closure: the class is pickled by value
            self.on_done = on_done

        def __getstate__(self) -> dict[str, Any]:  # Tune pickles its callbacks with the experiment state
            return {}

        def __setstate__(self, state: dict[str, Any]) -> None:
            self.on_done = lambda failed: None

        def on_trial_result(self, iteration: int, trials: list[Any], trial: Any, result: dict[str, Any]) -> None:
            self.on_done(bool(result.get("failed")))

        def on_trial_error(self, iteration: int, trials: list[Any], trial: Any) -> None:
            self.on_done(True)

    return _Progress(on_done)


def _clock(seconds: float) -> str:
    minutes, secs = divmod(int(seconds + 0.5), 60)
    hours, minutes = divmod(minutes, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes}:{secs:02d}"
