"""``yarnball simulate --compare``: one trace under a FairScheduler configuration and under its CapacityScheduler
conversion, side by side.

``--conf-dir`` names the FairScheduler's configuration directory. ``--compare`` alone converts it as ``yarnball
fs2cs`` does (weight mode) into ``OUTPUT_DIR/fs2cs/``; ``--compare CONF_DIR`` takes a CapacityScheduler
configuration directory instead (a conversion made by hand or edited after fs2cs). Both runs are ``yarnball
simulate`` runs of their own, with the same trace, seed and options, in ``OUTPUT_DIR/fair/`` and
``OUTPUT_DIR/capacity/``. Then ``OUTPUT_DIR`` receives, per leaf queue:

- ``compare.csv``: one row per queue and scheduler: finished jobs, job completion time and wait for the AM (mean,
  p50, p95, in simulated seconds, as ``summary.json`` ``job_times``), and the mean share of the cluster's memory;
- ``queue_share.csv``: the share of the cluster's memory each leaf queue held at each sample, both schedulers;
- ``compare.md``: the table as Markdown, and what fs2cs could not convert;
- ``compare.png``: each queue's share over time under both schedulers, and the mean times (launcher/_compareplot.py).

The converted directory holds ``capacity-scheduler.xml`` (fs2cs's), ``yarn-site.xml`` (the FairScheduler's
yarn-site.xml with fs2cs's keys set over it: what an administrator deploys) and the ``sls-runner.xml`` of
``--conf-dir`` when there is one.
"""

from __future__ import annotations

import dataclasses
import os
import shutil
import sys
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Final

from yarnball.errors import ConfigurationError, YarnballError, one_line
from yarnball.launcher._comparetables import (
    CAPACITY,
    CONVERTED,
    FAIR,
    RUNS,
    SCHEDULER_NAMES,
    QueueRow,
    queue_rows,
    share_series,
    write_tables,
)
from yarnball.launcher._console import PROG, note, warn
from yarnball.launcher._scenario import RunResult, ScenarioSpec

__all__ = ["COMPARE_FILES", "ComparisonResult", "QueueRow", "run_comparison"]

#: What --compare writes into OUTPUT_DIR besides the two runs' directories (launcher/_rundir.py patterns).
COMPARE_FILES: Final = ("compare.csv", "compare.md", "compare.png", "queue_share.csv", f"{CONVERTED}/*")
_SITE: Final = "yarn-site.xml"


@dataclass(frozen=True, slots=True)
class ComparisonResult:
    """Both runs, the rows of ``compare.csv``, the conversion's warnings, and the status: the worse of the runs'."""

    runs: dict[str, RunResult]
    rows: list[QueueRow]
    warnings: list[str]
    output_dir: Path
    converted: bool

    @property
    def status(self) -> int:
        return max(r.status for r in self.runs.values())

    @property
    def reason(self) -> str | None:
        for name, run in self.runs.items():
            if run.reason is not None:
                return f"the {SCHEDULER_NAMES[name]} run ({run.output_dir}): {run.reason}"
        return None


def run_comparison(spec: ScenarioSpec, capacity_conf_dir: str | None) -> ComparisonResult:
    """Run ``spec`` (whose ``conf_dir`` is a FairScheduler configuration) under the FairScheduler and under the
    CapacityScheduler of ``capacity_conf_dir``, or of fs2cs's conversion when it is None; write the comparison.

    A user error (a conf directory that is not the scheduler's, a failed conversion, an option that cannot go with
    --compare) raises :class:`~yarnball.errors.YarnballError` naming the file or option; the conversion fails before
    any run starts."""
    from yarnball.launcher._rundir import claim
    from yarnball.launcher._simulate import run_scenario

    _check_options(spec)
    assert spec.conf_dir is not None
    fair_dir = Path(spec.conf_dir)
    _require_scheduler(fair_dir, "FairScheduler", "--conf-dir")
    if capacity_conf_dir is not None:
        _require_scheduler(Path(capacity_conf_dir), "CapacityScheduler", "--compare")
    warnings: list[str] = []
    converted = capacity_conf_dir is None
    with tempfile.TemporaryDirectory(prefix="yarnball-fs2cs-") as staging:
        if converted:  # before the output directory is claimed: a failed conversion leaves it as it was
            warnings = convert(fair_dir, Path(staging), spec.conf)
        run_dir = claim(spec.output_dir, "simulate --compare", COMPARE_FILES, nested=RUNS)
        out = run_dir.path
        if converted:
            shutil.copytree(staging, out / CONVERTED, dirs_exist_ok=True)
            capacity_conf_dir = os.fspath(out / CONVERTED)
    for message in warnings:
        warn(f"fs2cs: {message}")
    assert capacity_conf_dir is not None
    runs: dict[str, RunResult] = {}
    for name, conf_dir in ((FAIR, spec.conf_dir), (CAPACITY, capacity_conf_dir)):
        note(f"--compare: the {SCHEDULER_NAMES[name]} run ({conf_dir}) into {out / name}")
        runs[name] = run_scenario(dataclasses.replace(spec, conf_dir=conf_dir, output_dir=out / name))
    series = share_series({name: run.output_dir for name, run in runs.items()})
    rows = queue_rows({name: run.summary for name, run in runs.items()}, series)
    write_tables(out, rows, series, warnings, capacity_conf_dir if not converted else None)
    if spec.plots:
        from yarnball.launcher._compareplot import write_compare_plot

        write_compare_plot(out / "compare.png", rows, series)
    run_dir.complete()
    result = ComparisonResult(runs, rows, warnings, out, converted)
    print_comparison(result, sys.stdout)
    return result


def _check_options(spec: ScenarioSpec) -> None:
    """The options that cannot go with --compare, each named."""
    if spec.conf_dir is None:
        raise ConfigurationError("--compare needs --conf-dir: the FairScheduler's configuration directory")
    refused = (
        ("--webapp", spec.webapp is not None),
        ("--pace", spec.pace is not None),
        ("--refresh-queues", bool(spec.refreshes)),
    )
    for option, given in refused:
        if given:
            raise ConfigurationError(f"{option} cannot go with --compare (two runs, each of its own scheduler)")
    from yarnball.protocols import keys

    if any(key == keys.RM_SCHEDULER for key, _ in spec.conf):
        raise ConfigurationError(
            f"--conf {keys.RM_SCHEDULER} cannot go with --compare: each run's conf directory names its scheduler"
        )


def _require_scheduler(conf_dir: Path, expected: str, option: str) -> None:
    """``conf_dir``'s yarn-site.xml must select ``expected``; else a ConfigurationError naming the file."""
    from yarnball.policies.scheduler import CAPACITY_SCHEDULER, FAIR_SCHEDULER, scheduler_class
    from yarnball.protocols import Configuration, keys
    from yarnball.protocols._configuration import DEFAULT_SOURCE

    site = conf_dir / _SITE
    if not conf_dir.is_dir():
        raise ConfigurationError(f"{conf_dir}: {option} is not a directory (expected a {expected} conf directory)")
    conf = Configuration.from_conf_dir(conf_dir)
    kind = scheduler_class(conf)
    want = FAIR_SCHEDULER if expected == "FairScheduler" else CAPACITY_SCHEDULER
    if kind == want:
        return
    from_file = keys.RM_SCHEDULER in conf and conf.source_of(keys.RM_SCHEDULER) != DEFAULT_SOURCE
    where = conf.location_of(keys.RM_SCHEDULER) if from_file else os.fspath(site)
    if not site.is_file():
        found = "no such file"
    else:
        found = f"{keys.RM_SCHEDULER} is {kind.rsplit('.', 1)[1]}{'' if from_file else ' (the default)'}"
    raise ConfigurationError(
        f"{where}: {option} {conf_dir} is not a {expected} configuration ({found}; expected "
        f"{keys.RM_SCHEDULER} = {want})"
    )


def convert(fair_dir: Path, target: Path, overrides: Sequence[tuple[str, str]] = ()) -> list[str]:
    """fs2cs (weight mode) of the FairScheduler configuration in ``fair_dir`` (its yarn-site.xml with the --conf
    ``overrides`` over it, and its allocation file) into ``target``: capacity-scheduler.xml, yarn-site.xml (the
    input's keys with the converted ones set over them) and a copy of sls-runner.xml. Returns fs2cs's warnings;
    a failure raises ConfigurationError with Hadoop's message, naming the yarn-site.xml."""
    from yarnball.launcher._settings import SLS_RUNNER_FILE
    from yarnball.policies.fair import get_allocation_file
    from yarnball.policies.fair.converter import (
        CAPACITY_SCHEDULER_XML,
        ConversionOptions,
        ConvertedConfiguration,
        ConvertedConfigValidator,
        FSConfigToCSConfigConverter,
    )
    from yarnball.protocols import Configuration, keys

    site = fair_dir / _SITE
    warnings: list[str] = []
    converter = FSConfigToCSConfigConverter(conversion_options=ConversionOptions(warn=warnings.append))
    try:
        conf = Configuration()
        conf.add_resource(site)
        for key, value in overrides:
            conf.set(key, value, source="--conf")
        allocation = get_allocation_file(conf, fair_dir, quiet=True)
        if allocation is None:
            raise ConfigurationError(
                f"no allocation file: {conf.get(keys.ALLOCATION_FILE) or keys.DEFAULT_ALLOCATION_FILE} "
                f"({keys.ALLOCATION_FILE}) is not in {fair_dir}, so fs2cs has no queues to convert"
            )
        conf.set(keys.ALLOCATION_FILE, os.fspath(allocation.absolute()), source=os.fspath(site))
        result = converter.convert_configuration(conf, conf_dir=os.fspath(fair_dir))
        merged = ConvertedConfiguration()
        original = Configuration(load_defaults=False)
        original.add_resource(site)
        for key in original.keys():
            raw = original.get_raw(key)
            if raw is not None:
                merged.set(key, raw)
        for key, value in converter.yarn_site.items():
            merged.set(key, value)
        (target / CAPACITY_SCHEDULER_XML).write_text(result.capacity_scheduler_xml, encoding="utf-8")
        (target / _SITE).write_text(merged.write_xml(), encoding="utf-8")
        if (fair_dir / SLS_RUNNER_FILE).is_file():
            shutil.copyfile(fair_dir / SLS_RUNNER_FILE, target / SLS_RUNNER_FILE)
        ConvertedConfigValidator().validate_converted_config(target)
    except (YarnballError, ValueError) as err:  # Hadoop's messages: precondition, unsupported, fatal, verification
        raise ConfigurationError(f"{site}: fs2cs could not convert it for --compare: {one_line(err)}") from err
    return warnings


def print_comparison(result: ComparisonResult, stream: IO[str]) -> None:
    """The per-queue table on the terminal, the FairScheduler's row above the CapacityScheduler's."""
    head = f"{'queue':<24} {'scheduler':<18} {'jobs':>5}   {'completion (s): mean':>20} {'p50':>8} {'p95':>8}"
    head += f"   {'AM wait (s): mean':>17} {'p50':>8} {'p95':>8}   {'memory %':>8}"
    lines = [f"{PROG}: {SCHEDULER_NAMES[FAIR]} ({result.output_dir / FAIR}) against {SCHEDULER_NAMES[CAPACITY]} "
             f"({result.output_dir / CAPACITY}), per leaf queue", head]  # fmt: skip
    previous = None
    for row in result.rows:
        queue = row.queue if row.queue != previous else ""
        previous = row.queue
        c, w = row.completion, row.am_wait
        lines.append(
            f"{queue:<24} {SCHEDULER_NAMES[row.scheduler]:<18} {row.jobs:>5}   {_cell(c[0]):>20} {_cell(c[1]):>8} "
            f"{_cell(c[2]):>8}   {_cell(w[0]):>17} {_cell(w[1]):>8} {_cell(w[2]):>8}   "
            f"{_cell(row.memory_share_pct, 1):>8}"
        )
    lines.append(f"  outputs:      {result.output_dir} (compare.csv, compare.md, queue_share.csv, compare.png)")
    print("\n".join(lines), file=stream)


def _cell(value: float | None, digits: int = 2) -> str:
    return "-" if value is None else f"{value:,.{digits}f}"

