"""``yarnball simulate --compare``: the study's trace under the FairScheduler and under its fs2cs conversion, the
per-queue tables checked against each run's own outputs, determinism, and the user errors (exit 2)."""

from __future__ import annotations

import csv
import itertools
import statistics
from pathlib import Path
from typing import Any

import pytest

from yarnball.launcher.cli import main

ROOT = Path(__file__).resolve().parents[1]
STUDY = ROOT / "examples" / "fs2cs-study"
TRACE = ["--tracelocation", str(STUDY / "study-sls.json"), "--nodes", str(STUDY / "study-nodes.json")]
DETERMINISTIC = ("compare.csv", "compare.md", "queue_share.csv", "compare.png", "fs2cs/capacity-scheduler.xml",
                 "fs2cs/yarn-site.xml")  # fmt: skip


def _compare(out: Path, *extra: str, conf_dir: Path = STUDY / "fair") -> int:
    return main(["simulate", *TRACE, "--conf-dir", str(conf_dir), "--output-dir", str(out), "--no-progress", *extra])


def _rows(path: Path) -> list[dict[str, str]]:
    with path.open(newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


@pytest.fixture(scope="module")
def study(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("study") / "out"
    assert _compare(out, "--compare") == 0
    return out


def test_both_schedulers_run_on_the_converted_configuration(study: Path) -> None:
    for run in ("fair", "capacity"):
        assert (study / run / "_SUCCESS").is_file() and (study / run / "jobruntime.csv").is_file()
    assert (study / "_SUCCESS").is_file()
    for name in ("compare.csv", "compare.md", "queue_share.csv", "compare.png"):
        assert (study / name).stat().st_size > 0, name
    # fs2cs converted the weights (weight mode) and maxRunningApps; the yarn-site keeps the input's keys
    cs = (study / "fs2cs" / "capacity-scheduler.xml").read_text()
    assert "<name>yarn.scheduler.capacity.root.prod.capacity</name><value>4.0w</value>" in cs
    assert "<name>yarn.scheduler.capacity.root.adhoc.max-parallel-apps</name><value>2</value>" in cs
    site = (study / "fs2cs" / "yarn-site.xml").read_text()
    assert "scheduler.capacity.CapacityScheduler</value>" in site
    assert "<name>yarn.scheduler.fair.allocation.file</name>" in site
    # each run under its own scheduler: the FairScheduler loads its allocation file, the CapacityScheduler does not
    assert "Loading allocation file" in (study / "fair" / "events.jsonl").read_text()
    assert "Loading allocation file" not in (study / "capacity" / "events.jsonl").read_text()
    assert "minResources" in (study / "compare.md").read_text()  # what fs2cs could not convert


def _expected(run_dir: Path) -> dict[str, dict[str, list[float]]]:
    """Per queue (by path): completion times from jobruntime.csv and AM waits from applications.csv, in s."""
    queue_of = {r["job_id"]: f"root.{r['queue'].removeprefix('root.')}" for r in _rows(run_dir / "metrics" /
                                                                                          "applications.csv")}
    out: dict[str, dict[str, list[float]]] = {}
    for r in _rows(run_dir / "jobruntime.csv"):
        times = (int(r["simulate_end_time"]) - int(r["simulate_start_time"])) / 1000.0
        out.setdefault(queue_of[r["JobID"]], {"completion": [], "wait": []})["completion"].append(times)
    for r in _rows(run_dir / "metrics" / "applications.csv"):
        if r["launch_time"]:
            wait = (int(r["launch_time"]) - int(r["submit_time"])) / 1000.0
            out.setdefault(queue_of[r["job_id"]], {"completion": [], "wait": []})["wait"].append(wait)
    return out


def _p95(values: list[float]) -> float:
    return statistics.quantiles(values, n=20, method="inclusive")[18] if len(values) > 1 else values[0]


def test_per_queue_rows_are_each_runs_own_jobruntime(study: Path) -> None:
    rows = _rows(study / "compare.csv")
    assert {r["scheduler"] for r in rows} == {"fair", "capacity"}
    for run in ("fair", "capacity"):
        expected = _expected(study / run)
        mine = {r["queue"]: r for r in rows if r["scheduler"] == run and r["queue"] != "all"}
        assert set(mine) == set(expected) == {"root.adhoc", "root.analytics", "root.etl", "root.prod"}
        for queue, times in expected.items():
            row = mine[queue]
            assert int(row["jobs"]) == len(times["completion"])
            for column, value in (("completion_mean_s", statistics.fmean(times["completion"])),
                                  ("completion_p50_s", statistics.median(times["completion"])),
                                  ("completion_p95_s", _p95(times["completion"])),
                                  ("am_wait_mean_s", statistics.fmean(times["wait"])),
                                  ("am_wait_p50_s", statistics.median(times["wait"])),
                                  ("am_wait_p95_s", _p95(times["wait"]))):  # fmt: skip
                assert float(row[column]) == pytest.approx(value, abs=1e-3), (run, queue, column)
        overall = next(r for r in rows if r["scheduler"] == run and r["queue"] == "all")
        assert int(overall["jobs"]) == len(_rows(study / run / "jobruntime.csv"))
    # the schedulers differ: etl's minResources holds under the FairScheduler only
    etl = {r["scheduler"]: float(r["completion_mean_s"]) for r in rows if r["queue"] == "root.etl"}
    assert etl["fair"] < etl["capacity"]


def test_queue_shares_are_each_runs_queue_metrics(study: Path) -> None:
    shares = _rows(study / "queue_share.csv")
    for run in ("fair", "capacity"):
        total = {r["time"]: int(r["cluster.total.memory"]) for r in _rows(study / run / "metrics" / "cluster.csv")}
        used = {(r["time"], r["queue"]): int(r["allocated.memory"])
                for r in _rows(study / run / "metrics" / "queues.csv") if r["leaf"] == "1"}  # fmt: skip
        last = max(total, key=int)
        checked = 0
        for r in shares:
            key = (r["time"], r["queue"])
            if key in used and total[r["time"]]:
                assert float(r[f"{run}.memory.pct"]) == pytest.approx(100 * used[key] / total[r["time"]], abs=1e-3)
                checked += 1
            elif int(r["time"]) > int(last):
                assert float(r[f"{run}.memory.pct"]) == 0.0  # the run is over
        assert checked > 100
        # the mean share column of compare.csv is the time-weighted mean of these samples
        rows = _rows(study / "compare.csv")
        series = [(int(r["time"]), float(r[f"{run}.memory.pct"])) for r in shares if r["queue"] == "root.prod"]
        area = sum(a[1] * (b[0] - a[0]) for a, b in itertools.pairwise(series))
        mean = area / (series[-1][0] - series[0][0])
        row = next(r for r in rows if r["queue"] == "root.prod" and r["scheduler"] == run)
        assert float(row["memory_share_mean_pct"]) == pytest.approx(mean, abs=1e-2)


def test_the_comparison_is_deterministic(study: Path, tmp_path: Path) -> None:
    again = tmp_path / "again"
    assert _compare(again, "--compare") == 0
    for name in DETERMINISTIC:
        assert (again / name).read_bytes() == (study / name).read_bytes(), name
    for run in ("fair", "capacity"):
        assert (again / run / "jobruntime.csv").read_bytes() == (study / run / "jobruntime.csv").read_bytes()


def test_a_given_capacity_conf_dir_is_used_as_it_is(study: Path, tmp_path: Path) -> None:
    out = tmp_path / "given"
    cs_dir = study / "fs2cs"
    assert _compare(out, "--compare", str(cs_dir), "--until-ms", "200000", "--no-plots") == 0
    assert not (out / "fs2cs").exists() and not (out / "compare.png").exists()
    assert f"`{cs_dir}`" in (out / "compare.md").read_text()
    assert "Loading allocation file" not in (out / "capacity" / "events.jsonl").read_text()


def _fair_dir(tmp_path: Path, site: str, allocations: str | None) -> Path:
    conf = tmp_path / "conf"
    conf.mkdir()
    (conf / "yarn-site.xml").write_text(site)
    if allocations is not None:
        (conf / "fair-scheduler.xml").write_text(allocations)
    return conf


FS_SITE = (STUDY / "fair" / "yarn-site.xml").read_text()


@pytest.mark.parametrize(
    ("site", "allocations", "named", "says"),
    [
        # not a FairScheduler configuration
        ("<configuration/>", None, "conf/yarn-site.xml", "is not a FairScheduler configuration"),
        # the allocation file is missing: fs2cs has nothing to convert
        (FS_SITE, None, "conf/yarn-site.xml", "fs2cs could not convert it"),
        # a bad allocation file: its own name and line
        (FS_SITE, "<allocations>\n<queue name='a.b'/>\n</allocations>", "conf/fair-scheduler.xml:2",
         "shouldn't contain period"),
    ],
    ids=["capacity-conf", "no-allocation-file", "bad-allocation-file"],
)
def test_bad_fair_conf_dirs_exit_2_naming_the_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], site: str, allocations: str | None, named: str, says: str
) -> None:
    conf = _fair_dir(tmp_path, site, allocations)
    out = tmp_path / "out"
    assert _compare(out, "--compare", conf_dir=conf) == 2
    err = capsys.readouterr().err.strip().splitlines()[-1]
    assert err.startswith("yarnball: error: ") and named in err and says in err, err
    assert not out.exists()  # refused before the output directory is claimed


def test_a_fair_conf_dir_as_the_capacity_side_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert _compare(tmp_path / "out", "--compare", str(STUDY / "fair")) == 2
    err = capsys.readouterr().err
    assert f"{STUDY / 'fair' / 'yarn-site.xml'}:" in err and "is not a CapacityScheduler configuration" in err


@pytest.mark.parametrize(
    ("argv", "says"),
    [
        (["--compare"], "--compare needs --conf-dir"),
        (["--compare", "--refresh-queues", "1000:x"], "--refresh-queues cannot go with --compare"),
        (["--compare", "--conf", "yarn.resourcemanager.scheduler.class=FairScheduler"], "cannot go with --compare"),
    ],
)
def test_options_that_cannot_go_with_compare(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], argv: list[str], says: str
) -> None:
    base: list[Any] = ["simulate", *TRACE, "--output-dir", str(tmp_path / "out"), "--no-progress"]
    if argv != ["--compare"]:
        base += ["--conf-dir", str(STUDY / "fair")]
    assert main([*base, *argv]) == 2
    assert says in capsys.readouterr().err


def test_the_study_page_quotes_what_the_command_gives(study: Path) -> None:
    """docs/guides/fs2cs.md's table is the study's compare.md table, row for row."""
    page = (ROOT / "docs" / "guides" / "fs2cs.md").read_text(encoding="utf-8")
    table = [line for line in (study / "compare.md").read_text().splitlines() if line.startswith("| ")]
    assert len(table) == 11
    quoted = [line for line in page.splitlines() if line.startswith("| root.") or line.startswith("| all |")]
    assert quoted == table[1:]
    assert table[0] in page
