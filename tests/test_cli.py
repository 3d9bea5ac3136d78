"""The ``yarnball`` command: ``simulate`` end to end, SLS's option forms, user errors, and ``preempt`` wiring."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from yarnball.launcher import _console, cli


def _simulate_args(shared_data: Path, out: Path, *extra: str) -> list[str]:
    sls = shared_data / "sls"
    return [
        "simulate",
        "--tracetype",
        "SLS",
        "--tracelocation",
        str(sls / "inputsls.json"),
        "--nodes",
        str(sls / "nodes.json"),
        "--conf-dir",
        str(sls / "sample-conf"),
        "--output-dir",
        str(out),
        "--no-plots",
        *extra,
    ]


def _one_error_line(err: str) -> str:
    lines = [line for line in err.splitlines() if line.startswith("yarnball: error:")]
    assert len(lines) == 1, err
    assert "Traceback" not in err
    return lines[0]


def test_simulate_runs_the_sls_sample_end_to_end(shared_data: Path, tmp_path: Path, capsys: Any) -> None:
    """inputsls.json on nodes.json with the sample conf: exit 0, SLS's files and a summary on stdout."""
    out = tmp_path / "out"
    assert cli.main(_simulate_args(shared_data, out)) == 0
    for name in ("realtimetrack.json", "jobruntime.csv", "summary.json", "events.jsonl", "metrics/cluster.csv"):
        assert (out / name).is_file(), name
    summary = json.loads((out / "summary.json").read_text())
    assert summary["applications"]["finished"] == 2
    stdout = capsys.readouterr().out
    assert "2 finished" in stdout and "speed-up" in stdout and str(out) in stdout


def test_event_log_is_json_lines_stamped_with_simulated_time(shared_data: Path, tmp_path: Path) -> None:
    """events.jsonl in the output directory holds one JSON object per line, each with sim_ms."""
    out = tmp_path / "out"
    assert cli.main(_simulate_args(shared_data, out)) == 0
    events = [json.loads(line) for line in (out / "events.jsonl").read_text().splitlines()]
    assert events and all("sim_ms" in e for e in events)
    assert any(e["event"] == "application_finished" for e in events)


def test_equals_form_matches_the_space_form(shared_data: Path, tmp_path: Path) -> None:
    """SLS's --opt=value form gives the same run as --opt value (and the same event log)."""
    sls = shared_data / "sls"
    spaced = tmp_path / "spaced"
    equals = tmp_path / "equals"
    assert cli.main(_simulate_args(shared_data, spaced)) == 0
    argv = [
        "simulate",
        "--tracetype=SLS",
        f"--tracelocation={sls / 'inputsls.json'}",
        f"--nodes={sls / 'nodes.json'}",
        f"--conf-dir={sls / 'sample-conf'}",
        f"--output-dir={equals}",
        "--no-plots",
    ]
    assert cli.main(argv) == 0
    for name in ("jobruntime.csv", "realtimetrack.json", "events.jsonl", "metrics/queues.csv"):
        assert (spaced / name).read_bytes() == (equals / name).read_bytes(), name


def test_until_ms_stops_the_run_and_reports_unfinished_jobs(shared_data: Path, tmp_path: Path) -> None:
    """--until-ms ends the simulation at that time; jobs not done are listed in summary.json."""
    out = tmp_path / "out"
    assert cli.main(_simulate_args(shared_data, out, "--until-ms", "30000")) == 0
    summary = json.loads((out / "summary.json").read_text())
    assert summary["simulated_seconds"] == 30.0
    assert [u["job_id"] for u in summary["unfinished"]] == ["job_2"]


def test_track_jobs_writes_the_tracked_file_and_warns_on_unknown_ids(
    shared_data: Path, tmp_path: Path, capsys: Any
) -> None:
    """--track-jobs records the named jobs; an id not in the trace gives a warning, not an error."""
    out = tmp_path / "out"
    assert cli.main(_simulate_args(shared_data, out, "--track-jobs=job_2,job_404")) == 0
    rows = (out / "metrics" / "tracked_jobs.csv").read_text().splitlines()
    assert rows[0] == "time,job_id,application_id,live.containers"
    assert {r.split(",")[1] for r in rows[1:]} == {"job_2"}
    assert "job_404" in capsys.readouterr().err


def test_print_simulation_prints_slss_table(shared_data: Path, tmp_path: Path, capsys: Any) -> None:
    """--print-simulation prints the cluster line and the JobId/Queue/AMType/Duration/#Tasks table."""
    assert cli.main(_simulate_args(shared_data, tmp_path / "out", "--print-simulation")) == 0
    stdout = capsys.readouterr().out
    assert "# nodes = 20, # racks = 5, capacity of each node 10240 MB memory and 10 vcores." in stdout
    assert "JobId\tQueue\tAMType\tDuration\t#Tasks" in stdout
    assert "job_1\tsls_queue_1\tmapreduce\t95375\t3" in stdout
    assert "estimated simulation time is 198 seconds" in stdout


def test_missing_trace_file_is_a_one_line_error(shared_data: Path, tmp_path: Path, capsys: Any) -> None:
    """A trace that does not exist: exit 2 and one 'yarnball: error:' line naming the file."""
    argv = ["simulate", "--tracelocation", str(tmp_path / "absent.json"), "--output-dir", str(tmp_path / "o")]
    assert cli.main(argv) == 2
    assert "absent.json" in _one_error_line(capsys.readouterr().err)


def test_malformed_trace_is_a_one_line_error(tmp_path: Path, capsys: Any) -> None:
    """A trace that is not SLS JSON: exit 2 naming the file, without a traceback."""
    bad = tmp_path / "bad.json"
    bad.write_text('{"job.start.ms": 0, "job.tasks": [')
    assert cli.main(["simulate", "--tracelocation", str(bad), "--output-dir", str(tmp_path / "o")]) == 2
    assert "bad.json" in _one_error_line(capsys.readouterr().err)


def test_bad_capacity_scheduler_xml_is_a_one_line_error(shared_data: Path, tmp_path: Path, capsys: Any) -> None:
    """A capacity-scheduler.xml that is not XML: exit 2 naming that file."""
    conf_dir = tmp_path / "conf"
    conf_dir.mkdir()
    (conf_dir / "capacity-scheduler.xml").write_text("<configuration><property><name>x</name>")
    argv = [
        "simulate",
        "--tracelocation",
        str(shared_data / "sls" / "inputsls.json"),
        "--conf-dir",
        str(conf_dir),
        "--output-dir",
        str(tmp_path / "o"),
    ]
    assert cli.main(argv) == 2
    assert "capacity-scheduler.xml" in _one_error_line(capsys.readouterr().err)


def test_invalid_queue_capacities_are_a_one_line_error(shared_data: Path, tmp_path: Path, capsys: Any) -> None:
    """Child capacities that do not sum to 100 are refused with the scheduler's message, exit 2."""
    conf_dir = tmp_path / "conf"
    conf_dir.mkdir()
    (conf_dir / "capacity-scheduler.xml").write_text(
        "<configuration>"
        "<property><name>yarn.scheduler.capacity.root.queues</name><value>a,b</value></property>"
        "<property><name>yarn.scheduler.capacity.root.a.capacity</name><value>30</value></property>"
        "<property><name>yarn.scheduler.capacity.root.b.capacity</name><value>30</value></property>"
        "</configuration>"
    )
    argv = _simulate_args(shared_data, tmp_path / "o")
    argv[argv.index("--conf-dir") + 1] = str(conf_dir)
    assert cli.main(argv) == 2
    assert "Illegal capacity" in _one_error_line(capsys.readouterr().err)


def test_missing_conf_dir_is_a_one_line_error(shared_data: Path, tmp_path: Path, capsys: Any) -> None:
    """--conf-dir that does not exist: exit 2 naming the directory."""
    argv = _simulate_args(shared_data, tmp_path / "o")
    argv[argv.index("--conf-dir") + 1] = str(tmp_path / "no-such-conf")
    assert cli.main(argv) == 2
    assert "no-such-conf" in _one_error_line(capsys.readouterr().err)


def test_output_dir_that_is_a_file_is_a_one_line_error(shared_data: Path, tmp_path: Path, capsys: Any) -> None:
    """--output-dir naming an existing file: exit 2 naming it."""
    target = tmp_path / "a-file"
    target.write_text("")
    assert cli.main(_simulate_args(shared_data, target)) == 2
    assert "a-file" in _one_error_line(capsys.readouterr().err)


@pytest.mark.parametrize(
    "argv",
    [
        ["simulate", "--tracetype", "XML", "--tracelocation", "t.json", "--output-dir", "o"],
        ["simulate", "--tracelocation", "t.json"],
        ["simulate", "--tracelocation", "t.json", "--output-dir", "o", "--until-ms", "-5"],
        ["launch"],
        [],
    ],
)
def test_bad_options_exit_2(argv: list[str], capsys: Any) -> None:
    """argparse errors (unknown trace type, missing --output-dir, bad --until-ms, unknown command) exit 2."""
    assert cli.main(argv) == 2
    assert "error:" in capsys.readouterr().err


def test_preempt_hands_its_arguments_to_the_whatif_tool(monkeypatch: pytest.MonkeyPatch) -> None:
    """`yarnball preempt SNAPSHOT.json ...` calls yarnball.launcher.whatif.main with the rest of the line."""
    from yarnball.launcher import whatif

    seen: list[list[str]] = []

    def fake_main(argv: list[str]) -> int:
        seen.append(list(argv))
        return 5

    monkeypatch.setattr(whatif, "main", fake_main)
    assert cli.main(["preempt", "snap.json", "--indent", "0"]) == 5
    assert seen == [["snap.json", "--indent", "0"]]


def test_preempt_reports_a_missing_snapshot(tmp_path: Path, capsys: Any) -> None:
    """The real what-if tool behind `yarnball preempt` exits 2 on a missing snapshot."""
    assert cli.main(["preempt", str(tmp_path / "snap.json")]) == 2
    assert "snap.json" in capsys.readouterr().err


def test_progress_redraws_in_place_on_a_terminal() -> None:
    """On a terminal the progress line is redrawn with '\\r' and ends at 100% with a newline."""

    class Tty(io.StringIO):
        def isatty(self) -> bool:
            return True

    class FakeRM:
        counters = Counter(apps_finished=1)

    class FakeCluster:
        rm = FakeRM()
        masters = [object(), object()]

        class kernel:
            now = 50_000.0

    stream = Tty()
    progress = _console.Progress(FakeCluster(), 100_000, stream, max_hz=1e9)
    progress.last = float("-inf")
    progress(50_000)
    progress.finish()
    text = stream.getvalue()
    assert text.startswith("\r[") and " 50.0%" in text and "apps 1 finished, 0 rejected of 2" in text
    assert text.endswith("100.0%  simulated 50 s  apps 1 finished, 0 rejected of 2\n")


def test_progress_counts_rejected_and_failed_apps_apart_from_finished() -> None:
    """Rejected applications are not counted as finished in the progress line; failed ones are shown when any."""

    class FakeRM:
        counters = Counter(apps_finished=2, apps_rejected=5, apps_failed=1, apps_killed=1)

    class FakeCluster:
        rm = FakeRM()
        masters = [object()] * 10

    stream = io.StringIO()
    progress = _console.Progress(FakeCluster(), 100_000, stream)
    progress._draw(1_000, final=False)
    assert "apps 2 finished, 5 rejected, 2 failed of 10" in stream.getvalue()


def test_progress_is_throttled(tmp_path: Path) -> None:
    """Within the minimum gap between redraws, further progress calls draw nothing."""

    class FakeCluster:
        class rm:
            apps_done = 0

        masters: list[object] = []

    stream = io.StringIO()
    progress = _console.Progress(FakeCluster(), 10_000, stream)
    progress.min_gap = 3600.0
    for t in range(0, 10_000, 1000):
        progress(t)
    assert stream.getvalue() == ""


def test_python_dash_m_runs_the_cli() -> None:
    """`python -m yarnball.launcher --help` prints the usage with both subcommands."""
    result = subprocess.run(
        [sys.executable, "-m", "yarnball.launcher", "--help"], capture_output=True, text=True, check=False
    )
    assert result.returncode == 0
    assert "simulate" in result.stdout and "preempt" in result.stdout
