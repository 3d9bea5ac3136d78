"""Every setting counts: explicit keys win over the built-in queue, values are parsed as Hadoop parses them, keys
yarnball does not read are named, and a Hadoop conf directory builds a Cluster."""

from __future__ import annotations

import inspect
import re
from pathlib import Path
from typing import Any

import pytest

from yarnball import Cluster
from yarnball.errors import ConfigurationError
from yarnball.launcher import cli
from yarnball.launcher.workloads import TraceDefaults, WorkloadBuilder, task_spec
from yarnball.protocols import Configuration
from yarnball.protocols._javanumbers import hadoop_integer, java_float

ROOT = Path(__file__).resolve().parent.parent
TRACE = ROOT / "examples" / "traces" / "sample-sls.json"
NODES = ROOT / "examples" / "traces" / "sample-nodes.json"
DEFAULT_MAX = "yarn.scheduler.capacity.root.default.maximum-capacity"
DEFAULT_CAPACITY = "yarn.scheduler.capacity.root.default.capacity"


def _args(out: Path, *extra: str) -> list[str]:
    return [
        "simulate", "--tracelocation", str(TRACE), "--nodes", str(NODES), "--output-dir", str(out),
        "--no-plots", "--no-progress", *extra,
    ]  # fmt: skip


def _error_line(err: str) -> str:
    lines = [line for line in err.splitlines() if line.startswith("yarnball: error:")]
    assert len(lines) == 1, err
    assert "Traceback" not in err
    return lines[0]


def _nodes() -> Any:
    return WorkloadBuilder().nodes(2, memory_mb=8192, vcores=8).job("j1", tasks=[task_spec(2, 5_000)]).build()


# -- explicit keys win over Hadoop's shipped root.default ----------------------------------------------------------
def test_conf_maximum_capacity_of_the_default_queue_is_not_overwritten(tmp_path: Path, capsys: Any) -> None:
    """--conf root.default.maximum-capacity=10 reaches the queue tree: 10 < the queue's 100 % capacity is Hadoop's
    "Illegal queue capacity setting" (exit 2), not a run identical to one without the key."""
    assert cli.main(_args(tmp_path / "out", "--conf", f"{DEFAULT_MAX}=10")) == 2
    line = _error_line(capsys.readouterr().err)
    assert DEFAULT_MAX in line and "Illegal queue capacity setting" in line


def test_conf_capacity_of_the_default_queue_is_validated(tmp_path: Path, capsys: Any) -> None:
    """--conf root.default.capacity=abc is refused naming the key, as any other capacity would be."""
    assert cli.main(_args(tmp_path / "out", "--conf", f"{DEFAULT_CAPACITY}=abc")) == 2
    assert DEFAULT_CAPACITY in _error_line(capsys.readouterr().err)


def test_cluster_mapping_keys_of_the_default_queue_win() -> None:
    """Cluster(mapping) keeps a root.default key the mapping gives (here a weight) and fills in only the others."""
    cluster = Cluster({DEFAULT_CAPACITY: "1w"}, _nodes().nodes)
    assert cluster.conf.get(DEFAULT_CAPACITY) == "1w"
    assert cluster.conf.get("yarn.scheduler.capacity.root.queues") == "default"
    with pytest.raises(ConfigurationError, match="maximum-capacity"):
        Cluster({DEFAULT_MAX: "10"}, _nodes().nodes)


# -- values parsed as Hadoop parses them ---------------------------------------------------------------------------
def test_java_number_parsing_matches_the_jdk() -> None:
    """Integer.parseInt takes any Unicode decimal digit (Character.digit), Float.parseFloat ASCII digits only;
    getHexDigits takes 0x after a '-' but not after a '+'; neither takes Python's 1_000, inf or nan."""
    assert hadoop_integer("\uff11\uff12") == 12  # full-width digits: Java (and so Hadoop's getInt) accepts them
    assert java_float("\uff11.\uff15") is None
    assert hadoop_integer("1_000") is None and java_float("1_000") is None
    assert hadoop_integer("-0x10") == -16 and hadoop_integer("0x+10") == 16 and hadoop_integer("+0x10") is None
    assert hadoop_integer("2147483648") is None and hadoop_integer("2147483648", 64) == 2**31
    assert hadoop_integer("\u300012") is None  # String.trim() leaves U+3000; Python's strip() would not
    assert java_float("inf") is None and java_float("nan") is None and java_float("NaNf") is None
    assert java_float("0x1.8p1") == 3.0 and java_float("1e3f") == 1000.0 and java_float("-Infinity") == -float("inf")


@pytest.mark.parametrize(
    "setting",
    [
        "yarn.sls.nm.memory.mb=1_000",  # read only by the trace reader (Python's int() took it)
        "yarn.sls.nm.memory.mb=NaN",
        "yarn.resourcemanager.am.max-attempts=NaN",
        "yarn.nodemanager.vmem-pmem-ratio=\uff11.\uff15",  # full-width digits: Float.parseFloat refuses them
        "yarn.resourcemanager.monitor.capacity.preemption.total_preemption_per_round=NaN",  # read only with monitors on
        "yarn.resourcemanager.monitor.capacity.preemption.monitoring_interval=1_000",
        "yarn.acl.enable=yes",
    ],
)
def test_conf_values_hadoop_refuses_exit_2_naming_the_key(tmp_path: Path, capsys: Any, setting: str) -> None:
    """A --conf value Hadoop's getter refuses (NumberFormatException) or one outside the key's domain is a user
    error before the run, even for a key this run would not read."""
    assert cli.main(_args(tmp_path / "out", "--conf", setting)) == 2
    line = _error_line(capsys.readouterr().err)
    assert f"--conf: property {setting.partition('=')[0]!r}" in line
    assert not (tmp_path / "out" / "events.jsonl").exists()


def test_full_width_integers_are_read_as_java_reads_them() -> None:
    """Hadoop's getInt reads full-width digits (Java's Character.digit), so yarnball does too."""
    conf = Configuration({"yarn.sls.nm.memory.mb": "\uff11\uff12\uff12\uff18\uff18"})
    assert conf.get_int("yarn.sls.nm.memory.mb") == 12288
    assert TraceDefaults.from_configuration(conf).nm_memory_mb == 12288


def test_trace_defaults_from_a_mapping_use_java_parsing() -> None:
    """TraceDefaults read from a plain mapping refuse what Java refuses (Python's int() and float() would not)."""
    with pytest.raises(ConfigurationError, match=r"yarn\.sls\.nm\.memory\.mb"):
        TraceDefaults.from_configuration({"yarn.sls.nm.memory.mb": "1_000"})
    with pytest.raises(ConfigurationError, match=r"yarn\.sls\.nm\.resource\.utilization\.ratio"):
        TraceDefaults.from_configuration({"yarn.sls.nm.resource.utilization.ratio": "nan"})


# -- keys yarnball does not read ---------------------------------------------------------------------------------
def test_unread_conf_key_is_a_warning_naming_the_closest_key(tmp_path: Path, capsys: Any) -> None:
    """A misspelt --conf key (global or per queue) draws one warning each with the closest key yarnball reads."""
    out = tmp_path / "out"
    argv = _args(
        out,
        "--conf", "yarn.resourcemanager.am.max-attempt=3",
        "--conf", "yarn.scheduler.capacity.root.default.maximum-capacty=50",
        "--conf", "yarn.scheduler.capacity.root.default.user-limit-factor=2",
    )  # fmt: skip
    assert cli.main(argv) == 0
    warnings = [line for line in capsys.readouterr().err.splitlines() if "does not read" in line]
    assert len(warnings) == 2, warnings
    assert "did you mean yarn.resourcemanager.am.max-attempts?" in warnings[0]
    assert "did you mean yarn.scheduler.capacity.root.default.maximum-capacity?" in warnings[1]


def test_strict_refuses_an_unread_conf_key(tmp_path: Path, capsys: Any) -> None:
    """--strict turns the warning into a user error (exit 2) naming the key and the closest one."""
    assert cli.main(_args(tmp_path / "out", "--strict", "--conf", "yarn.resourcemanager.am.max-attempt=3")) == 2
    line = _error_line(capsys.readouterr().err)
    assert "yarn.resourcemanager.am.max-attempt:" in line and "yarn.resourcemanager.am.max-attempts?" in line


def test_cluster_mapping_with_an_unread_key_warns() -> None:
    """Cluster(mapping) names a key it does not read, with the closest known key."""
    from yarnball.testing import captured_events

    with captured_events() as logs:
        Cluster({"yarn.resourcemanager.am.max-attempt": "3"}, _nodes().nodes)
    events = [e["event"] for e in logs if e.get("log_level") == "warning"]
    assert any("yarn.resourcemanager.am.max-attempt:" in e and "max-attempts?" in e for e in events), events


def _hadoop_conf_dir(tmp_path: Path, shared_data: Path, yarn_site: str, capacity_scheduler: str) -> Path:
    """Two of Hadoop's files in shared/data/hadoop-conf, as a conf directory."""
    conf = tmp_path / "conf"
    conf.mkdir()
    source = shared_data / "hadoop-conf"
    (conf / "yarn-site.xml").write_bytes((source / yarn_site).read_bytes())
    (conf / "capacity-scheduler.xml").write_bytes((source / capacity_scheduler).read_bytes())
    return conf


@pytest.mark.parametrize("which", ["sls-sample-conf", "sls-test-resources"])
def test_a_conf_dir_s_unmodelled_keys_are_summed_up_in_one_line(
    tmp_path: Path, capsys: Any, shared_data: Path, which: str
) -> None:
    """Hadoop's SLS sample confs: the keys yarnball does not model are one warning line, and nothing else is said
    about keys (the FairScheduler the samples select is a warning of its own)."""
    sls = shared_data / "sls"
    conf_dir = (
        sls / "sample-conf"
        if which == "sls-sample-conf"
        else _hadoop_conf_dir(
            tmp_path, shared_data, "sls-test-resources-yarn-site.xml", "sls-test-resources-capacity-scheduler.xml"
        )
    )
    argv = [
        "simulate", "--tracelocation", str(sls / "inputsls.json"), "--nodes", str(sls / "nodes.json"),
        "--conf-dir", str(conf_dir), "--output-dir", str(tmp_path / "out"), "--no-plots", "--no-progress",
    ]  # fmt: skip
    assert cli.main(argv) == 0
    warnings = [line for line in capsys.readouterr().err.splitlines() if "warning" in line and "node file" not in line]
    summary = [line for line in warnings if "not modelled" in line]
    assert len(summary) == 1 and "in yarn-site.xml" in summary[0] and "yarn.resourcemanager.address" in summary[0]
    others = [line for line in warnings if line not in summary and "yarn.resourcemanager.scheduler.class" not in line]
    assert others == []


def test_hadoop_s_shipped_capacity_scheduler_xml_is_one_summary_line(tmp_path: Path, shared_data: Path) -> None:
    """Hadoop's shipped capacity-scheduler.xml (ACLs, lifetimes and other keys yarnball does not model) with the SLS
    yarn-site.xml: one line names them all, counted per file."""
    from yarnball.launcher._settings import load_conf_dir
    from yarnball.testing import captured_events

    conf_dir = _hadoop_conf_dir(
        tmp_path, shared_data, "sls-sample-conf-yarn-site.xml", "rm-conf-capacity-scheduler.xml"
    )
    with captured_events() as logs:
        Cluster(conf_dir, _nodes().nodes)
    warnings = [e["event"] for e in logs if e.get("log_level") == "warning" and "scheduler.class" not in e["event"]]
    assert len(warnings) == 1, warnings
    assert "in yarn-site.xml" in warnings[0] and "in capacity-scheduler.xml" in warnings[0]
    assert load_conf_dir(conf_dir).get("yarn.scheduler.capacity.root.queues") == "default"


# -- a Hadoop conf directory builds a Cluster --------------------------------------------------------------------
def test_cluster_accepts_a_conf_dir_path(shared_data: Path) -> None:
    """Cluster("conf-dir", nodes) reads the directory as --conf-dir does (str or os.PathLike)."""
    conf_dir = shared_data / "sls" / "sample-conf"
    for conf in (str(conf_dir), conf_dir):
        cluster = Cluster(conf, _nodes().nodes)
        assert [q.queue_name for q in cluster.queues if q.queue_name.startswith("sls_queue")] == [
            "sls_queue_1", "sls_queue_2", "sls_queue_3",
        ]  # fmt: skip
        assert cluster.conf.get_int("yarn.sls.runner.pool.size") == 100  # sls-runner.xml read too


def test_cluster_signature_shows_its_parameters() -> None:
    """inspect.signature(Cluster) names the constructor's parameters (not *args, **kwargs), the same as __init__'s."""
    shown = inspect.signature(Cluster).parameters
    assert list(shown)[:3] == ["conf", "nodes", "seed"] and "backend" in shown and "work_dir" in shown
    init = list(inspect.signature(Cluster.__init__).parameters.values())[1:]
    assert [(p.name, p.kind, p.default) for p in init] == [
        (p.name, p.kind, p.default) for p in shown.values() if p.kind is not inspect.Parameter.VAR_KEYWORD
    ]


def test_every_float_key_refuses_nan() -> None:
    """``Float.parseFloat`` reads "NaN", so each float key needs a domain (protocols/_domains.py) to refuse it: a NaN
    fraction, threshold or share would pass every comparison the policies make with it."""
    from yarnball.launcher._clusterconf import normalized_conf
    from yarnball.launcher._settings import TYPED_KEYS
    from yarnball.policies.capacity import CapacitySchedulerConfiguration

    floats = sorted(key for key, getter in TYPED_KEYS.items() if getter in ("get_float", "get_double"))
    assert floats
    for key in floats:
        conf = Configuration()
        conf.set(key, "NaN", source="--conf")
        with pytest.raises(ConfigurationError, match=re.escape(key)):
            CapacitySchedulerConfiguration(normalized_conf(conf)).validate()
