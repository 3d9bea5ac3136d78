"""Reading input files: regular files only, bounded size and nesting, one-line errors naming the file
(yarnball/_inputs.py and its readers); --refresh-queues arguments; a trace read with the wrong --tracetype."""

from __future__ import annotations

import json
import os
import signal
from pathlib import Path

import pytest

from yarnball import _inputs
from yarnball._inputs import nesting_depth, read_input
from yarnball.errors import ConfigurationError, TraceFormatError
from yarnball.launcher._faults import load_faults
from yarnball.launcher._refresh import parse_refresh_spec
from yarnball.launcher.cli import main
from yarnball.launcher.sweep._spec import load_spec
from yarnball.launcher.whatif import load_snapshot
from yarnball.launcher.workloads import load_workload
from yarnball.protocols import Configuration

DATA = Path("/work/shared/data/sls")


def test_fifo_is_refused_without_blocking(tmp_path: Path) -> None:
    """A FIFO (nobody writing to it) is refused as not a regular file instead of blocking the reader."""
    fifo = tmp_path / "faults.json"
    os.mkfifo(fifo)

    def blocked(signum: int, frame: object) -> None:
        raise AssertionError("reading the FIFO blocked")

    old = signal.signal(signal.SIGALRM, blocked)
    signal.alarm(5)
    try:
        with pytest.raises(ConfigurationError, match=r"faults\.json: cannot read fault schedule: not a regular file"):
            load_faults(fifo)
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)


@pytest.mark.parametrize(
    ("read", "error"),
    [
        (lambda p: load_workload("RUMEN", [p]), TraceFormatError),
        (lambda p: load_workload("SLS", [DATA / "inputsls.json"], p), TraceFormatError),
        (load_faults, ConfigurationError),
        (lambda p: Configuration().add_resource(p), ConfigurationError),
        (load_spec, ConfigurationError),
        (load_snapshot, ConfigurationError),
    ],
)
def test_dev_zero_and_directories_are_refused(tmp_path: Path, read, error) -> None:  # type: ignore[no-untyped-def]
    """/dev/zero (a character device, endless) and a directory are refused at once, naming the file."""
    with pytest.raises(error, match=r"^/dev/zero: cannot read .*: not a regular file \(a character device\)"):
        read(Path("/dev/zero"))
    with pytest.raises(error, match=r": not a regular file \(a directory\)"):
        read(tmp_path)


def test_size_is_bounded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A file larger than the bound is refused naming the file and the bound; traces have their own bound."""
    path = tmp_path / "faults.json"
    path.write_text("[]" + " " * 100)
    with pytest.raises(ConfigurationError, match=r"faults\.json: cannot read x: larger than 64 bytes"):
        read_input(path, "x", limit=64)
    monkeypatch.setattr(_inputs, "MAX_FILE_BYTES", 64)
    with pytest.raises(ConfigurationError, match=r"larger than 64 bytes, the most yarnball reads for a fault"):
        load_faults(path)
    monkeypatch.setattr(_inputs, "MAX_TRACE_BYTES", 1024)
    with pytest.raises(TraceFormatError, match=r"larger than 1 KiB"):
        load_workload("RUMEN", [DATA / "2jobs2min-rumen-jh.json"])


def test_deep_json_in_faults_is_one_line_error(tmp_path: Path) -> None:
    """Deeply nested JSON in --faults is refused naming the file and the depth (it was a RecursionError)."""
    path = tmp_path / "faults.json"
    path.write_text("[" * 100_000 + "]" * 100_000)
    with pytest.raises(ConfigurationError, match=r"faults\.json: JSON nested too deeply \(more than 200 levels"):
        load_faults(path)


def test_deep_toml_in_a_sweep_spec_is_one_line_error(tmp_path: Path) -> None:
    """Deeply nested TOML in a sweep spec is refused naming the file (it was a RecursionError)."""
    path = tmp_path / "spec.toml"
    path.write_text("seeds = " + "[" * 5000 + "]" * 5000 + "\n")
    with pytest.raises(ConfigurationError, match=r"spec\.toml: TOML nested too deeply \(more than 200 levels"):
        load_spec(path)


def test_deep_xml_in_a_configuration_file_is_refused_with_its_line(tmp_path: Path) -> None:
    path = tmp_path / "yarn-site.xml"
    path.write_text("<configuration>\n" + "<a>" * 300 + "</a>" * 300 + "</configuration>")
    with pytest.raises(ConfigurationError, match=r"yarn-site\.xml:2: XML nested too deeply"):
        Configuration().add_resource(path)


def test_deep_json_snapshot_and_trace_are_refused(tmp_path: Path) -> None:
    path = tmp_path / "deep.json"
    path.write_text('{"a": ' + "[" * 3000 + "]" * 3000 + "}")
    with pytest.raises(ConfigurationError, match=r"deep\.json: \$: JSON nested too deeply"):
        load_snapshot(path)
    with pytest.raises(TraceFormatError, match=r"deep\.json: JSON nested too deeply"):
        load_workload("SLS", [path])


def test_nesting_depth_ignores_brackets_in_strings_and_comments() -> None:
    assert nesting_depth('{"a": "[[[[", "b": [1, {"c": "}}"}]}', "JSON") == 3
    assert nesting_depth('a = "[[[" # [[[\n[t]\nb = [[1], \'[[\']', "TOML") == 2
    assert nesting_depth("<a><!-- <b><b> --><c/><d><![CDATA[<e>]]></d></a>", "XML") == 2


@pytest.mark.parametrize("at", ["NaN", "1e3", "20000.5", "9223372036854775808", "-5", " 5", "1_000", "\u0661"])
def test_refresh_queues_time_must_be_whole_ms_in_a_long(tmp_path: Path, at: str) -> None:
    """AT_MS of NaN, 1e3, 20000.5, beyond a Java long, negative or not ASCII digits: refused naming it."""
    (tmp_path / "capacity-scheduler.xml").write_text("<configuration/>")
    with pytest.raises(ConfigurationError, match=r"--refresh-queues .*: AT_MS .* is not a whole number of mil"):
        parse_refresh_spec(f"{at}:{tmp_path}")
    assert parse_refresh_spec(f"9223372036854775807:{tmp_path}") == (float(2**63 - 1), str(tmp_path))


def test_refresh_queues_dir_must_hold_capacity_scheduler_xml(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A CONF_DIR without capacity-scheduler.xml, or that is not a directory, exits 2 with one line naming it."""
    with pytest.raises(ConfigurationError, match=r"CONF_DIR .* holds no capacity-scheduler\.xml"):
        parse_refresh_spec(f"1000:{tmp_path}")
    with pytest.raises(ConfigurationError, match=r"CONF_DIR .* is not a directory"):
        parse_refresh_spec(f"1000:{tmp_path / 'nope'}")
    args = ["simulate", "--tracelocation", str(DATA / "inputsls.json"), "--output-dir", str(tmp_path / "o")]
    assert main([*args, "--no-progress", "--refresh-queues", f"1000:{tmp_path}"]) == 2
    errors = [line for line in capsys.readouterr().err.splitlines() if "error:" in line]
    assert len(errors) == 1 and "holds no capacity-scheduler.xml" in errors[0]


@pytest.mark.parametrize(
    ("kind", "file", "looks_like", "option"),
    [
        ("SLS", "2jobs2min-rumen-jh.json", "a Rumen trace", "--tracetype RUMEN"),
        ("RUMEN", "inputsls.json", "an SLS trace", "--tracetype SLS"),
        ("SYNTH", "2jobs2min-rumen-jh.json", "a Rumen trace", "--tracetype RUMEN"),
        ("SLS", "syn.json", "a SYNTH trace", "--tracetype SYNTH"),
    ],
)
def test_wrong_trace_type_says_what_the_file_looks_like(kind: str, file: str, looks_like: str, option: str) -> None:
    """A trace read as another type is one error saying which type it looks like, not a warning per unknown key."""
    with pytest.raises(TraceFormatError) as err:
        load_workload(kind, [DATA / file])
    message = str(err.value)
    assert message.startswith(f"{DATA / file}: this looks like {looks_like}") and message.endswith(option)


def test_a_node_file_given_as_a_trace_says_so() -> None:
    with pytest.raises(TraceFormatError, match=r"this looks like a node file .* read it with --nodes"):
        load_workload("SLS", [DATA / "nodes.json"])


def test_deep_rest_body_is_a_remote_exception() -> None:
    """A deeply nested JSON body on a REST write is a 400 RemoteException (it was a plain-text 500)."""
    pytest.importorskip("aiohttp")
    from tests.test_web_writes import APPS, acl_conf, running_app, serve

    async def scenario(client, cluster, source):  # type: ignore[no-untyped-def]
        app = await running_app(client)
        body = '{"queue": ' + "[" * 100_000 + "]" * 100_000 + "}"
        resp = await client.put(
            f"{APPS}/{app['id']}/queue", params={"user.name": app["user"]}, data=body,
            headers={"Content-Type": "application/json"},
        )  # fmt: skip
        return resp.status, json.loads(await resp.text())

    (status, body), _ = serve(scenario, acl_conf())
    assert status == 400
    assert body["RemoteException"]["exception"] == "BadRequestException"
    assert "nested too deeply" in body["RemoteException"]["message"]
