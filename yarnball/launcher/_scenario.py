"""What one ``yarnball simulate`` run is given and what it gives back, as data: :class:`ScenarioSpec` and
:class:`RunResult` (launcher/_simulate.py runs one)."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from yarnball.errors import ConfigurationError

__all__ = ["TRACE_TYPES", "RunResult", "ScenarioSpec"]

TRACE_TYPES = ("SLS", "RUMEN", "SYNTH")
LOG_LEVELS = ("debug", "info", "warning", "error")


@dataclass(frozen=True, slots=True)
class ScenarioSpec:
    """One simulation: what ``yarnball simulate``'s options hold, each field named for its option.

    ``trace`` is ``--tracelocation`` (one file, or several comma-separated), ``conf`` the ``--conf KEY=VALUE``
    pairs in order, ``refreshes`` the ``--refresh-queues AT_MS:CONF_DIR`` values, ``plots`` and ``progress`` the
    opposites of ``--no-plots`` and ``--no-progress``. ``log_level`` None is the default level (info);
    :meth:`argv` is the command line that runs the same scenario."""

    trace: str
    output_dir: str | os.PathLike[str]
    trace_type: str = "SLS"
    nodes: str | None = None
    conf_dir: str | None = None
    conf: tuple[tuple[str, str], ...] = ()
    seed: int = 0
    until_ms: int | None = None
    latency_ms: float | None = None
    log_level: str | None = None
    track_jobs: str = ""
    plots: bool = True
    faults: str | None = None
    refreshes: tuple[str, ...] = ()
    backend: str = "embedded"
    address: str | None = None
    hosts: int = 2
    clock: str = "virtual"
    pace: float | None = None
    webapp: str | None = None
    webapp_exit: bool = False
    report: bool = False
    strict: bool = False
    print_simulation: bool = False
    progress: bool = True

    def check(self) -> None:
        """The checks argparse makes on the command line, and the combinations of options that cannot go together;
        a bad one raises ConfigurationError naming the option."""
        choices = (
            ("--tracetype", self.trace_type, TRACE_TYPES),
            ("--backend", self.backend, ("embedded", "ray")),
            ("--clock", self.clock, ("virtual", "wall")),
            ("--log-level", self.log_level_name, LOG_LEVELS),
        )
        for option, value, allowed in choices:
            if value not in allowed:
                raise ConfigurationError(f"{option}: expected one of {', '.join(allowed)}, got {value!r}")
        if not self.trace:
            raise ConfigurationError("--tracelocation is required (the trace file or files, comma-separated)")
        if self.until_ms is not None and self.until_ms < 0:
            raise ConfigurationError(f"--until-ms: expected a time >= 0 ms, got {self.until_ms}")
        if self.address is not None and self.backend != "ray":
            raise ConfigurationError("--address needs --backend ray")
        if self.webapp_exit and self.webapp is None:
            raise ConfigurationError("--webapp-exit needs --webapp")
        if self.clock == "wall" and self.backend != "ray":
            raise ConfigurationError("--clock wall (live mode) needs --backend ray")
        if self.pace is not None and not self.pace > 0:
            raise ConfigurationError(f"--pace: expected a positive factor of real time, got {self.pace}")

    @property
    def log_level_name(self) -> str:
        return self.log_level or "info"

    @property
    def tracked(self) -> list[str]:
        """The ``--track-jobs`` job ids."""
        return [j.strip() for j in self.track_jobs.split(",") if j.strip()]

    def options(self) -> list[str]:
        """The ``yarnball simulate`` options of this scenario, without ``--output-dir`` and ``--no-progress``."""
        args = ["--tracetype", self.trace_type, *_option("--tracelocation", self.trace)]
        if self.nodes is not None:
            args += _option("--nodes", self.nodes)
        if self.conf_dir is not None:
            args += _option("--conf-dir", self.conf_dir)
        for key, value in self.conf:
            args += _option("--conf", f"{key}={value}")
        args += ["--seed", str(self.seed)]
        if self.until_ms is not None:
            args += ["--until-ms", str(self.until_ms)]
        if self.latency_ms is not None:
            args += ["--latency-ms", repr(float(self.latency_ms))]
        if self.log_level is not None:
            args += _option("--log-level", self.log_level)
        if self.track_jobs:
            args += _option("--track-jobs", self.track_jobs)
        if not self.plots:
            args.append("--no-plots")
        if self.faults is not None:
            args += _option("--faults", self.faults)
        for refresh in self.refreshes:
            args += _option("--refresh-queues", refresh)
        if self.backend != "embedded":
            args += ["--backend", self.backend, "--hosts", str(self.hosts)]
        if self.address is not None:
            args += _option("--address", self.address)
        if self.clock != "virtual":
            args += _option("--clock", self.clock)
        if self.pace is not None:
            args += ["--pace", repr(float(self.pace))]
        if self.webapp is not None:
            args += _option("--webapp", self.webapp)
        flags = (
            ("--webapp-exit", self.webapp_exit),
            ("--report", self.report),
            ("--strict", self.strict),
            ("--print-simulation", self.print_simulation),
        )
        args += [flag for flag, on in flags if on]
        return args

    def argv(self) -> list[str]:
        """The ``yarnball`` arguments that run this scenario (``yarnball simulate ...``)."""
        return [
            "simulate",
            *self.options(),
            *_option("--output-dir", os.fspath(self.output_dir)),
            *([] if self.progress else ["--no-progress"]),
        ]


@dataclass(frozen=True, slots=True)
class RunResult:
    """A finished run: its ``summary.json`` (as a dict), its exit status (0, or 3 when the run went wrong: an actor
    handler raised, the run stalled, every application was rejected, or none finished), the one-line reason for a
    3, and the directory holding its outputs."""

    summary: dict[str, Any] = field(repr=False)
    status: int
    reason: str | None
    output_dir: Path

    @property
    def ok(self) -> bool:
        return self.status == 0


def _option(name: str, value: str) -> list[str]:
    """``[name, value]``, or ``[name=value]`` for a value that starts with "-", which argparse would otherwise take
    for an option of its own (``--track-jobs -x``)."""
    return [f"{name}={value}"] if value.startswith("-") else [name, value]
