"""Values checked for their domain when read, malformed XML declarations, and the CLI's one-line exit-2 errors."""

from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path
from typing import Any

import pytest

from yarnball.errors import ConfigurationError
from yarnball.launcher import cli, whatif
from yarnball.launcher._cluster import Cluster
from yarnball.policies.preemption import ProportionalCapacityPreemptionPolicy
from yarnball.protocols import Configuration
from yarnball.protocols import keys as k

try:  # pytest puts tests/ on sys.path (no package) or the project root (tests as a package)
    from test_fuzz_whatif_codec import base_snapshot
except ImportError:  # pragma: no cover
    from tests.test_fuzz_whatif_codec import base_snapshot


def site(tmp_path: Path, body: dict[str, str], declaration: str = '<?xml version="1.0"?>') -> Path:
    props = "".join(f"<property><name>{n}</name><value>{v}</value></property>" for n, v in body.items())
    path = tmp_path / "yarn-site.xml"
    path.write_text(f"{declaration}<configuration>{props}</configuration>", encoding="latin-1")
    return path


def loaded(tmp_path: Path, body: dict[str, str]) -> Configuration:
    conf = Configuration()
    conf.add_resource(site(tmp_path, body))
    return conf


@pytest.mark.parametrize(
    ("key", "value", "message"),
    [
        (k.RM_NM_HEARTBEAT_INTERVAL_MS, "0", "Invalid Configuration. yarn.resourcemanager.nodemanagers."
         "heartbeat-interval-ms should be larger than 0."),
        (k.RM_AM_MAX_ATTEMPTS, "-1", "Invalid global max attempts configuration, yarn.resourcemanager.am."
         "max-attempts=-1, it should be a positive integer."),
        (k.NM_VMEM_PMEM_RATIO, "0.5", "yarn.nodemanager.vmem-pmem-ratio should be at least 1.0"),
        (k.RM_AM_EXPIRY_INTERVAL_MS, "0", "expected a positive number of ms"),
        (k.TOTAL_PREEMPTION_PER_ROUND, "NaN", "expected a finite fraction >= 0"),
        (k.PREEMPTION_NATURAL_TERMINATION_FACTOR, "-0.5", "expected a finite fraction >= 0"),
    ],
)  # fmt: skip
def test_out_of_domain_value_names_file_line_key_and_range(tmp_path: Path, key: str, value: str, message: str) -> None:
    """A value outside its domain fails when read, with file:line, the key, Hadoop's words and the range."""
    conf = loaded(tmp_path, {key: value})
    getter = conf.get_float if "." in value or value == "NaN" or key == k.NM_VMEM_PMEM_RATIO else conf.get_int
    with pytest.raises(ConfigurationError) as info:
        getter(key)
    text = str(info.value)
    assert text.startswith(f"{tmp_path / 'yarn-site.xml'}:1: property {key!r}")
    assert message in text and "expected" in text


def test_bad_values_fail_building_the_cluster(tmp_path: Path, backend: Any) -> None:
    """The cluster reads them on construction: a zero heartbeat never reaches the kernel's timers."""
    with pytest.raises(ConfigurationError, match="should be larger than 0"):
        Cluster(loaded(tmp_path, {k.RM_NM_HEARTBEAT_INTERVAL_MS: "0"}), **backend.options)


def test_expiry_below_heartbeat_is_hadoops_message(tmp_path: Path, backend: Any) -> None:
    """ResourceManager.validateConfigs: NM expiry must be no less than the heartbeat interval."""
    conf = loaded(tmp_path, {k.RM_NM_HEARTBEAT_INTERVAL_MS: "5000", k.RM_NM_EXPIRY_INTERVAL_MS: "4000"})
    with pytest.raises(ConfigurationError, match=r"yarn-site\.xml:1: Nodemanager expiry interval should be no less"):
        Cluster(conf, **backend.options)


def test_preemption_fraction_read_when_monitor_is_created(tmp_path: Path, backend: Any) -> None:
    """With the monitor on, a negative per-round fraction fails the RM's construction, naming file and key."""
    conf = loaded(tmp_path, {k.RM_SCHEDULER_ENABLE_MONITORS: "true", k.TOTAL_PREEMPTION_PER_ROUND: "-0.1"})
    with pytest.raises(ConfigurationError, match=r"yarn-site\.xml:1: property '.*total_preemption_per_round'"):
        Cluster(conf, **backend.options)


def test_java_float_overflow_is_infinity_and_rejected(tmp_path: Path) -> None:
    """1e39 is Infinity to Float.parseFloat, so a finite-only key refuses it."""
    conf = loaded(tmp_path, {k.NM_CONTAINER_QUEUING_LIMIT_STDEV: "1e39", "other": "1e39"})
    assert conf.get_float("other") == float("inf")
    with pytest.raises(ConfigurationError, match="finite number of standard deviations"):
        conf.get_float(k.NM_CONTAINER_QUEUING_LIMIT_STDEV)


@pytest.mark.parametrize("encoding", ["bogus", "rot13", "idna"])
def test_unknown_xml_encoding_is_a_configuration_error(tmp_path: Path, encoding: str) -> None:
    """An encoding the parser cannot use is a ConfigurationError naming the file, not a LookupError."""
    path = site(tmp_path, {"a": "1"}, f'<?xml version="1.0" encoding="{encoding}"?>')
    with pytest.raises(ConfigurationError, match=rf"{path}:1: malformed XML declaration"):
        Configuration().add_resource(path)


def test_latin1_declared_file_loads(tmp_path: Path) -> None:
    """A file declared ISO-8859-1 (which Java reads) loads with its non-ASCII bytes decoded."""
    conf = Configuration()
    conf.add_resource(site(tmp_path, {"who": "Jos\u00e9"}, '<?xml version="1.0" encoding="ISO-8859-1"?>'))
    assert conf.get("who") == "Jos\u00e9"


def test_non_utf8_bytes_are_a_configuration_error(tmp_path: Path) -> None:
    """Bytes that are not UTF-8 in a UTF-8 file are malformed XML, with the line."""
    path = tmp_path / "yarn-site.xml"
    path.write_bytes(b"<configuration>\n<property><name>a\xff</name><value>1</value></property></configuration>")
    with pytest.raises(ConfigurationError, match=rf"{path}:2: malformed XML"):
        Configuration().add_resource(path)


def test_policy_rejects_nan_fraction_from_a_snapshot() -> None:
    """The pure policy checks its fractions too (the what-if path has no Configuration)."""
    policy = ProportionalCapacityPreemptionPolicy({k.PREEMPTION_MAX_IGNORED_OVER_CAPACITY: "NaN"})
    with pytest.raises(ConfigurationError, match="max_ignored_over_capacity: 'NaN': expected a finite fraction"):
        policy.settings()


# -- what-if snapshots -------------------------------------------------------------------------------------------
def preempt(path: Path) -> tuple[int, str]:
    err = io.StringIO()
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
        status = whatif.main([str(path)])
    return status, err.getvalue()


def test_snapshot_not_utf8_names_file_and_json_path(tmp_path: Path) -> None:
    """A bad byte inside a string is reported at that string's JSON path, with its line and column."""
    doc = base_snapshot()
    doc["queues"][1]["path"] = "root.@"
    path = tmp_path / "snap.json"
    path.write_bytes(json.dumps(doc).encode().replace(b"@", b"\xff"))
    status, err = preempt(path)
    assert status == 2
    assert err.startswith(f"yarnball preempt: error: {path}: $.queues[1].path: not valid UTF-8 at byte ")


def test_snapshot_resource_beyond_2_62_is_an_error(tmp_path: Path) -> None:
    """Resources are bounded by 2**62 (no overflow in cluster-wide sums)."""
    doc = base_snapshot()
    doc["cluster"]["memory_mb"] = 2**62 + 1
    path = tmp_path / "snap.json"
    path.write_text(json.dumps(doc))
    status, err = preempt(path)
    assert (status, err.count("\n")) == (2, 1)
    assert f"{path}: $.cluster.memory_mb: expected int <= {2**62}" in err


def test_snapshot_policy_error_names_the_file(tmp_path: Path) -> None:
    """Errors the policy finds (here a negative fraction in config) name the file and the config key's path."""
    doc = base_snapshot()
    doc["config"][k.TOTAL_PREEMPTION_PER_ROUND] = -1
    path = tmp_path / "snap.json"
    path.write_text(json.dumps(doc))
    status, err = preempt(path)
    assert status == 2
    assert err.startswith(f'yarnball preempt: error: {path}: $.config["{k.TOTAL_PREEMPTION_PER_ROUND}"]: ')


# -- the CLI -------------------------------------------------------------------------------------------------------
def run_cli(argv: list[str]) -> tuple[int, str]:
    err = io.StringIO()
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
        status = cli.main(argv)
    return status, err.getvalue()


@pytest.mark.parametrize(
    ("name", "body", "key"),
    [
        ("yarn-site.xml", {k.RM_AM_MAX_ATTEMPTS: "0"}, k.RM_AM_MAX_ATTEMPTS),
        ("capacity-scheduler.xml", {k.CS_PREFIX + "root.queues": "a", k.CS_PREFIX + "root.a.capacity": "100",
                                    k.CS_PREFIX + "root.a.user-limit-factor": "Infinity"},
         k.CS_PREFIX + "root.a.user-limit-factor"),
        ("sls-runner.xml", {k.SLS_AM_HEARTBEAT_INTERVAL_MS: "0"}, k.SLS_AM_HEARTBEAT_INTERVAL_MS),
    ],
)  # fmt: skip
def test_simulate_bad_conf_dir_exits_2_with_one_line(tmp_path: Path, name: str, body: dict[str, str], key: str) -> None:
    """`yarnball simulate --conf-dir BAD` exits 2 with one line naming the file and the key."""
    conf_dir = tmp_path / "conf"
    conf_dir.mkdir()
    props = "".join(f"<property><name>{n}</name><value>{v}</value></property>" for n, v in body.items())
    (conf_dir / name).write_text(f"<configuration>{props}</configuration>")
    trace = tmp_path / "trace.json"
    trace.write_text(json.dumps({"am.type": "mapreduce", "job.start.ms": 0, "job.end.ms": 1000, "job.queue.name":
                                 "a", "job.id": "j", "job.user": "u", "job.tasks": [{"container.host": "/r/h1",
                                 "container.start.ms": 0, "container.end.ms": 500}]}))  # fmt: skip
    status, err = run_cli(["simulate", "--conf-dir", str(conf_dir), "--tracetype", "SLS", "--tracelocation",
                           str(trace), "--output-dir", str(tmp_path / "out")])  # fmt: skip
    assert status == 2
    lines = [line for line in err.splitlines() if not line.startswith("yarnball: note:")]  # e.g. a pure build
    assert len(lines) == 1 and lines[0].startswith("yarnball: error: "), err
    assert str(conf_dir / name) in lines[0] and key in lines[0], err


def test_preempt_bad_snapshot_exits_2_with_one_line(tmp_path: Path) -> None:
    """`yarnball preempt BAD` exits 2 with one line naming the file and the JSON path."""
    path = tmp_path / "bad.json"
    path.write_text('{"cluster": {"memory_mb": -1, "vcores": 1}, "queues": []}')
    status, err = run_cli(["preempt", str(path)])
    assert status == 2
    assert err == f"yarnball preempt: error: {path}: $.cluster.memory_mb: expected int >= 0\n"


def test_simulate_warns_about_undeclared_queue_and_runs(tmp_path: Path) -> None:
    """A key of an undeclared queue loads (as in Hadoop) and the user is told on stderr, naming file and key."""
    conf_dir = tmp_path / "conf"
    conf_dir.mkdir()
    body = {k.CS_PREFIX + "root.queues": "a", k.CS_PREFIX + "root.a.capacity": "100",
            k.CS_PREFIX + "root.c.capacity": "10"}  # fmt: skip
    props = "".join(f"<property><name>{n}</name><value>{v}</value></property>" for n, v in body.items())
    (conf_dir / "capacity-scheduler.xml").write_text(f"<configuration>{props}</configuration>")
    trace = tmp_path / "trace.json"
    job = {"am.type": "mapreduce", "job.start.ms": 0, "job.end.ms": 1000, "job.queue.name": "a", "job.id": "j",
           "job.user": "u", "job.tasks": [{"container.host": "/r/h1", "container.start.ms": 0,
                                           "container.end.ms": 500}]}  # fmt: skip
    trace.write_text(json.dumps(job))
    status, err = run_cli(["simulate", "--conf-dir", str(conf_dir), "--tracetype", "SLS", "--tracelocation",
                           str(trace), "--output-dir", str(tmp_path / "out"), "--no-plots"])  # fmt: skip
    assert status == 0
    assert f"{conf_dir / 'capacity-scheduler.xml'}:1: yarn.scheduler.capacity.root.c.capacity: configures queue" in err


def test_huge_user_limit_factor_saturates_like_javas_int_cast() -> None:
    """user-limit-factor = Float.MAX_VALUE loads (Hadoop takes it); the per-user application limit saturates
    as Java's (int) cast does instead of overflowing, so it equals the queue's limit."""
    conf = Configuration(
        {
            k.CS_PREFIX + "root.queues": "a",
            k.CS_PREFIX + "root.a.capacity": "100",
            k.CS_PREFIX + "root.a.user-limit-factor": "3.4028235e38",
        }
    )
    leaf = Cluster(conf).scheduler.root.children[0]
    leaf.update_maximum_applications()
    assert leaf.max_apps > 0 and leaf.max_apps_per_user == leaf.max_apps
