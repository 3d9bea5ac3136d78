"""Fuzzing yarn-site.xml, capacity-scheduler.xml and sls-runner.xml: a clean error naming file and key, or a
configuration whose values are inside their domain and that a small cluster runs; and ``--conf KEY=VALUE`` settings
over them: a clean error naming the key, or a configuration that validates (tests/FUZZ_INPUTS.md)."""

from __future__ import annotations

import tempfile
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from yarnball.errors import ConfigurationError
from yarnball.launcher._cluster import normalized_conf
from yarnball.launcher._settings import TYPED_KEYS, check_explicit_keys
from yarnball.launcher._simulate import load_configuration as _load_configuration
from yarnball.launcher._simulate import trace_defaults
from yarnball.launcher.workloads import TraceDefaults
from yarnball.policies.capacity import CapacitySchedulerConfiguration, CSQueue
from yarnball.protocols import Configuration
from yarnball.protocols import keys as k
from yarnball.protocols._domains import domain_error

try:  # pytest puts tests/ on sys.path (no package) or the project root (tests as a package)
    from fuzz_inputs import (
        BAD_VALUES,
        FUZZ,
        assert_finite,
        assert_names_file_and_key,
        mutated_xml,
        record,
        run_small_cluster,
    )
except ImportError:  # pragma: no cover
    from tests.fuzz_inputs import (
        BAD_VALUES,
        FUZZ,
        assert_finite,
        assert_names_file_and_key,
        mutated_xml,
        record,
        run_small_cluster,
    )

P = k.CS_PREFIX
PP = k.PREEMPTION_CONFIG_PREFIX

YARN_SITE = {
    k.RM_NM_HEARTBEAT_INTERVAL_MS: "1000",
    k.RM_NM_EXPIRY_INTERVAL_MS: "600000",
    k.RM_CONTAINER_ALLOC_EXPIRY_INTERVAL_MS: "600000",
    k.RM_AM_EXPIRY_INTERVAL_MS: "600000",
    k.RM_AM_MAX_ATTEMPTS: "2",
    k.RM_SCHEDULER_MINIMUM_ALLOCATION_MB: "512",
    k.RM_SCHEDULER_MINIMUM_ALLOCATION_VCORES: "1",
    k.RM_SCHEDULER_MAXIMUM_ALLOCATION_MB: "8192",
    k.RM_SCHEDULER_MAXIMUM_ALLOCATION_VCORES: "8",
    k.RM_SCHEDULER_ENABLE_MONITORS: "true",
    k.PREEMPTION_MONITORING_INTERVAL: "3000",
    k.PREEMPTION_WAIT_TIME_BEFORE_KILL: "15000",
    k.TOTAL_PREEMPTION_PER_ROUND: "0.1",
    k.PREEMPTION_MAX_IGNORED_OVER_CAPACITY: "0.1",
    k.PREEMPTION_NATURAL_TERMINATION_FACTOR: "0.2",
    k.YARN_ACL_ENABLE: "false",
    k.OPPORTUNISTIC_CONTAINER_ALLOCATION_ENABLED: "false",
    k.OPP_CONTAINER_ALLOCATION_NODES_NUMBER_USED: "10",
    k.NM_CONTAINER_QUEUING_SORTING_NODES_INTERVAL_MS: "1000",
    k.NM_CONTAINER_QUEUING_LIMIT_STDEV: "1.0",
    k.NM_CONTAINER_QUEUING_MIN_QUEUE_LENGTH: "5",
    k.NM_CONTAINER_QUEUING_MAX_QUEUE_LENGTH: "15",
    k.OPP_CONTAINER_MAX_ALLOCATIONS_PER_AM_HEARTBEAT: "-1",
    k.NM_OPPORTUNISTIC_CONTAINERS_MAX_QUEUE_LENGTH: "0",
    k.NM_VMEM_PMEM_RATIO: "2.1",
}

CAPACITY_SCHEDULER = {
    P + "root.queues": "a,b",
    P + "root.a.capacity": "40",
    P + "root.b.capacity": "60",
    P + "root.a.queues": "a1,a2",
    P + "root.a.a1.capacity": "50",
    P + "root.a.a2.capacity": "50",
    P + "root.a.maximum-capacity": "100",
    P + "root.b.maximum-capacity": "80",
    P + "root.a.a1.user-limit-factor": "1",
    P + "root.a.a1.minimum-user-limit-percent": "100",
    P + "root.a.a2.maximum-am-resource-percent": "0.5",
    P + "root.a.a2.maximum-applications": "100",
    P + "root.b.state": "RUNNING",
    P + "root.a.ordering-policy": "utilization",
    P + "root.a.a1.ordering-policy": "fifo",
    P + "root.b.priority": "0",
    P + "root.a.a2.disable_preemption": "false",
    P + "root.b.maximum-allocation-mb": "4096",
    P + "root.b.user-settings.default.weight": "1.0",
    P + "maximum-applications": "10000",
    P + "maximum-am-resource-percent": "0.2",
    P + "node-locality-delay": "40",
    P + "per-node-heartbeat.maximum-offswitch-assignments": "1",
    k.RESOURCE_CALCULATOR_CLASS: k.DEFAULT_RESOURCE_CALCULATOR_CLASS,
}

SLS_RUNNER = {
    k.SLS_NM_MEMORY_MB: "8192",
    k.SLS_NM_VCORES: "8",
    k.SLS_NM_HEARTBEAT_INTERVAL_MS: "1000",
    k.SLS_AM_HEARTBEAT_INTERVAL_MS: "1000",
    k.SLS_AM_CONTAINER_MEMORY: "1024",
    k.SLS_AM_CONTAINER_VCORES: "1",
    k.SLS_CONTAINER_MEMORY_MB: "1024",
    k.SLS_CONTAINER_VCORES: "1",
    k.SLS_RUNNER_POOL_SIZE: "10",
    k.SLS_METRICS_RECORD_INTERVAL_MS: "1000",
    k.SLS_NM_RESOURCE_UTILIZATION_RATIO: "-1.0",
    "yarn.sls.am.type.mapreduce": "org.apache.hadoop.yarn.sls.appmaster.MRAMSimulator",
}


def _xml(mapping: dict[str, str]) -> bytes:
    body = "".join(f"<property><name>{n}</name><value>{v}</value></property>\n" for n, v in mapping.items())
    return f'<?xml version="1.0" encoding="UTF-8"?>\n<configuration>\n{body}</configuration>\n'.encode()


def _load(directory: Path, files: dict[str, bytes]) -> Configuration:
    for name, data in files.items():
        (directory / name).write_bytes(data)
    return _load_configuration(str(directory))


def _check_queues(queue: CSQueue) -> None:
    """Every queue's capacities are finite fractions with capacity <= maximum, down the tree."""
    assert_finite(capacity=queue.capacity, abs_cap=queue.abs_cap, abs_max=queue.abs_max)
    assert 0 <= queue.capacity <= 1 and queue.abs_cap <= queue.abs_max + 1e-6
    if queue.is_leaf:
        assert_finite(user_limit_factor=queue.user_limit_factor, max_am=queue.max_am_percent)  # type: ignore[attr-defined]
    for child in getattr(queue, "children", ()):
        _check_queues(child)


def _fuzz_one(kind: str, name: str, mutated: tuple[bytes, list[str]]) -> None:
    data, applied = mutated
    base = {"yarn-site.xml": _xml(YARN_SITE), "capacity-scheduler.xml": _xml(CAPACITY_SCHEDULER),
            "sls-runner.xml": _xml(SLS_RUNNER)}  # fmt: skip
    base[name] = data
    with tempfile.TemporaryDirectory() as tmp:
        directory = Path(tmp)
        files = [directory / n for n in base]
        try:
            conf = _load(directory, base)
            defaults = trace_defaults(conf)
            cluster = run_small_cluster(conf, check=lambda c: _check_queues(c.scheduler.root), defaults=defaults)
        except ConfigurationError as err:
            assert_names_file_and_key(err, files)
            record(kind, "rejected", applied, str(err))
            return
    rm = cluster.rm
    # What the cluster runs with is inside each key's domain.
    assert rm.heartbeat_interval_ms > 0 and rm.nm_expiry_ms >= rm.heartbeat_interval_ms
    assert rm.alloc_expiry_ms > 0 and rm.am_expiry_ms > 0 and rm.max_attempts > 0
    minimum, maximum = cluster.scheduler.conf.get_minimum_allocation(), cluster.scheduler.conf.get_maximum_allocation()
    assert 0 < minimum.memory_mb <= maximum.memory_mb and 0 < minimum.vcores <= maximum.vcores
    assert defaults.nm_heartbeat_interval_ms > 0 and defaults.am_heartbeat_interval_ms > 0
    assert min(defaults.am_container_memory_mb, defaults.container_memory_mb, defaults.nm_memory_mb) >= 0
    record(kind, "accepted", applied)


@FUZZ
@given(mutated_xml(YARN_SITE, "yarn-site"))
def test_fuzz_yarn_site(mutated: tuple[bytes, list[str]]) -> None:
    """A mutated yarn-site.xml is rejected naming file and key, or runs with every value in its domain."""
    _fuzz_one("yarn-site.xml", "yarn-site.xml", mutated)


@FUZZ
@given(mutated_xml(CAPACITY_SCHEDULER, "capacity-scheduler"))
def test_fuzz_capacity_scheduler(mutated: tuple[bytes, list[str]]) -> None:
    """A mutated capacity-scheduler.xml is rejected naming file and key, or builds a sane queue tree and runs."""
    _fuzz_one("capacity-scheduler.xml", "capacity-scheduler.xml", mutated)


@FUZZ
@given(mutated_xml(SLS_RUNNER, "sls-runner"))
def test_fuzz_sls_runner(mutated: tuple[bytes, list[str]]) -> None:
    """A mutated sls-runner.xml is rejected naming file and key, or gives trace defaults inside their domain."""
    _fuzz_one("sls-runner.xml", "sls-runner.xml", mutated)


def test_valid_base_files_run(tmp_path: Path) -> None:
    """The unmutated base files load and run (so the fuzzers' accepted branch is reachable)."""
    conf = _load(tmp_path, {"yarn-site.xml": _xml(YARN_SITE), "capacity-scheduler.xml": _xml(CAPACITY_SCHEDULER),
                            "sls-runner.xml": _xml(SLS_RUNNER)})  # fmt: skip
    cluster = run_small_cluster(conf, defaults=TraceDefaults.from_configuration(conf))
    assert cluster.rm.counters["containers_allocated"] > 0


# -- --conf KEY=VALUE --------------------------------------------------------------------------------------------
#: Keys a --conf may set: the base files' and every key with a typed default; values: the XML fuzzers' hostile ones
#: plus Java's own edges (full-width and Arabic digits, which Integer.parseInt takes and Float.parseFloat does not;
#: hex after a sign; Java's float suffixes and hex floats; blanks String.trim() keeps).
CONF_KEYS = sorted(set(YARN_SITE) | set(CAPACITY_SCHEDULER) | set(SLS_RUNNER) | set(TYPED_KEYS))
CONF_VALUES = (
    *BAD_VALUES, "\uff11\uff12", "\uff11.\uff15", "+0x10", "0x+10", "-0x-1", "1e3f", "2.5d", "0x1.8p1", "NaNf",
    "+Infinity", "\u300012", "\u00a012", " 7 ", "+5", "1.", ".5", ".", "3.4028236e38", "-2147483648", "0.1",
)  # fmt: skip
_BASE = Configuration({**YARN_SITE, **CAPACITY_SCHEDULER, **SLS_RUNNER})


@st.composite
def conf_settings(draw: st.DrawFn) -> tuple[list[tuple[str, str]], list[str]]:
    """1 to 3 ``--conf`` settings: a known key with a hostile value or random text, or a misspelt key."""
    settings, applied = [], []
    for _ in range(draw(st.integers(1, 3))):
        key = draw(st.sampled_from(CONF_KEYS))
        op = draw(st.sampled_from(("value", "value", "text", "misspell")))
        if op == "misspell":
            i = draw(st.integers(0, len(key) - 2))
            key = draw(st.sampled_from((key[:i] + key[i + 1 :], key[:i] + key[i + 1] + key[i] + key[i + 2 :])))
        value = draw(st.text(max_size=12)) if op == "text" else draw(st.sampled_from(CONF_VALUES))
        settings.append((key.strip() or "x", value))
        applied.append(op)
    return settings, applied


def _check_conf_settings(settings: list[tuple[str, str]]) -> Configuration:
    """What ``yarnball simulate --strict --conf ...`` does with the settings before the run (no run)."""
    check_explicit_keys([key for key, _ in settings], source="--conf", strict=True)
    conf = _BASE.copy()
    for key, value in settings:
        conf.set(key, value, source="--conf")
    conf = normalized_conf(conf)  # every explicit typed value read once (launcher/_settings.py)
    CapacitySchedulerConfiguration(conf).validate()
    trace_defaults(conf)
    return conf


def _names(message: str, key: str) -> bool:
    """``message`` names ``key``, or (a queue rule Hadoop reports on the parent, such as the children's sum) a
    capacity-scheduler key of the queue or of one of its parents."""
    if key in message:
        return True
    if not key.startswith(P):
        return False
    parts = key[len(P) :].split(".")[:-1]
    return any(f"{P}{'.'.join(parts[:n])}." in message for n in range(1, len(parts) + 1))


@FUZZ
@given(conf_settings())
def test_fuzz_conf_values(drawn: tuple[list[tuple[str, str]], list[str]]) -> None:
    """--conf settings are refused with one line naming a key they set, or validate with every typed value set
    inside its key's domain."""
    settings, applied = drawn
    try:
        conf = _check_conf_settings(settings)
    except ConfigurationError as err:
        message = str(err)
        assert "\n" not in message.strip(), message
        assert any(_names(message, key) for key, _ in settings), f"no --conf key named in: {message}"
        record("--conf values", "rejected", applied, message)
        return
    for key, _ in settings:
        getter = TYPED_KEYS.get(key)
        if getter is not None:
            number = getattr(conf, getter)(key)
            assert getter == "get_bool" or domain_error(key, "", number) is None, (key, number)
            if getter == "get_float":
                assert number == number, (key, number)  # not NaN
    record("--conf values", "accepted", applied)
