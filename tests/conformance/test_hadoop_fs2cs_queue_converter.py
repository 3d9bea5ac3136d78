"""Hadoop's TestFSQueueConverter, on its fair-scheduler-conversion.xml (tests/fixtures/fs2cs/).

Hadoop's child order follows a hash set of the configured names (``admins, users, misc, default`` under root);
yarnball creates the queues in file order, so the children are compared as sets. The rule handler is a recording
dry run (Hadoop verifies a mock's call counts)."""

from __future__ import annotations

from typing import Any

import pytest
from fs2cs_helpers import FIXTURES, Recorder

from yarnball.policies.capacity._validation import f32
from yarnball.policies.fair import reload_allocations
from yarnball.policies.fair.converter import ConvertedConfiguration, FSQueueConverter, build_queue_tree
from yarnball.protocols import Configuration

ALL_QUEUES = {
    "root", "root.default", "root.users", "root.users.john", "root.users.joe", "root.admins", "root.admins.alice",
    "root.admins.bob", "root.misc", "root.misc.a", "root.misc.b",
}  # fmt: skip


def _convert(
    allocation: str = "fair-scheduler-conversion.xml", **options: Any
) -> tuple[ConvertedConfiguration, Recorder]:
    conf = Configuration({"yarn.scheduler.fair.allocation.file": str(FIXTURES / allocation),
                          "yarn.scheduler.fair.migration.mode": True})  # fmt: skip
    recorder = Recorder()
    cs = ConvertedConfiguration()
    settings: dict[str, Any] = {"queue_max_am_share_default": f32(0.16), "queue_max_apps_default": 15, **options}
    converter = FSQueueConverter(recorder.handler(), cs, recorder.options, **settings)
    converter.convert_queue_hierarchy(build_queue_tree(reload_allocations(conf)))
    return cs, recorder


def _key(queue: str, suffix: str) -> str:
    return f"yarn.scheduler.capacity.{queue}.{suffix}"


def test_testConvertQueueHierarchy() -> None:
    cs, _ = _convert()
    assert set(cs.get_queues("root")) == {"admins", "users", "misc", "default"}
    assert cs.get_queues("root.admins") == ["bob", "alice"]  # alice is reservable: a parent, created after the leaves
    assert cs.get_queues("root.users") == ["john", "joe"]
    for queue in ALL_QUEUES - {"root", "root.admins", "root.users", "root.misc"}:
        assert cs.get_queues(queue) == []


def test_testQueueMaxAMShare() -> None:
    cs, _ = _convert()
    assert cs.get(_key("root.admins.bob", "maximum-am-resource-percent")) == "1.0"
    assert cs.get(_key("root.admins.alice", "maximum-am-resource-percent")) == "0.15"
    for queue in ALL_QUEUES - {"root.admins.bob", "root.admins.alice"}:
        assert _key(queue, "maximum-am-resource-percent") not in cs


def test_testQueueMaxParallelApps() -> None:
    cs, _ = _convert()
    assert cs.get(_key("root.admins.alice", "max-parallel-apps")) == "2"
    assert [q for q in ALL_QUEUES if _key(q, "max-parallel-apps") in cs] == ["root.admins.alice"]


def test_testQueueMaxAllocations() -> None:
    """Only where the limit differs from the parent's: root.admins (4096, 3) and root.users.john (8192, 2)."""
    cs, _ = _convert()
    for queue, expected in (("root.admins", ("4096", "3")), ("root.users.john", ("8192", "2"))):
        got = (cs.get(_key(queue, "maximum-allocation-mb")), cs.get(_key(queue, "maximum-allocation-vcores")))
        assert got == expected
    for queue in ALL_QUEUES - {"root.admins", "root.users.john"}:
        assert _key(queue, "maximum-allocation-mb") not in cs
        assert _key(queue, "maximum-allocation-vcores") not in cs


def test_testQueuePreemptionDisabled() -> None:
    cs, _ = _convert(preemption_enabled=True)
    assert {q for q in ALL_QUEUES if cs.get(_key(q, "disable_preemption")) == "true"} == {
        "root.admins.alice",
        "root.users.joe",
    }


def test_testQueuePreemptionDisabledWhenGlobalPreemptionDisabled() -> None:
    cs, _ = _convert()
    assert not [q for q in ALL_QUEUES if _key(q, "disable_preemption") in cs]


def test_testChildCapacityInCapacityMode() -> None:
    cs, _ = _convert(use_percentages=True)
    expected = {
        "root.default": "33.333", "root.users": "33.333", "root.admins": "33.334", "root.users.john": "25.000",
        "root.users.joe": "75.000", "root.admins.alice": "75.000", "root.admins.bob": "25.000", "root.misc": "0.000",
        "root.misc.a": "0.000", "root.misc.b": "0.000",
    }  # fmt: skip
    # Hadoop's remainder goes to the first of the equal largest in its hash order (root.admins there, root.default here)
    got = {q: cs.get(_key(q, "capacity")) for q in expected}
    assert sorted(got[q] for q in ("root.default", "root.users", "root.admins")) == ["33.333", "33.333", "33.334"]
    assert {q: v for q, v in got.items() if q not in ("root.default", "root.users", "root.admins")} == {
        q: v for q, v in expected.items() if q not in ("root.default", "root.users", "root.admins")
    }


def test_testChildCapacityInWeightMode() -> None:
    cs, _ = _convert()
    expected = {
        "root.default": "1.0w", "root.admins": "1.0w", "root.users": "1.0w", "root.users.john": "1.0w",
        "root.users.joe": "3.0w", "root.admins.alice": "3.0w", "root.admins.bob": "1.0w", "root.misc": "0.0w",
        "root.misc.a": "0.0w", "root.misc.b": "0.0w",
    }  # fmt: skip
    assert {q: cs.get(_key(q, "capacity")) for q in expected} == expected


def test_testAutoCreateV2FlagsInWeightMode() -> None:
    cs, _ = _convert()
    flagged = {q for q in ALL_QUEUES if cs.get(_key(q, "auto-queue-creation-v2.enabled")) == "true"}
    assert flagged == {"root", "root.admins", "root.users", "root.misc", "root.admins.alice"}


def test_testZeroSumCapacityValidation() -> None:
    cs, _ = _convert(use_percentages=True)
    assert {q for q in ALL_QUEUES if cs.get(_key(q, "allow-zero-capacity-sum")) == "true"} == {"root.misc"}


def test_testQueueMaximumCapacity() -> None:
    """maximum-capacity 100 everywhere; maxResources of joe (%), alice and bob reported (3 calls in Hadoop)."""
    cs, recorder = _convert()
    assert {cs.get(_key(q, "maximum-capacity")) for q in ALL_QUEUES} == {"100.0"}
    assert "Setting <maxResources> is not supported, ignoring conversion" in recorder.warnings


def test_testQueueMinimumCapacity() -> None:
    _, recorder = _convert()
    assert "Setting <minResources> is not supported, ignoring conversion" in recorder.warnings


def test_testQueueWithNoAutoCreateChildQueue() -> None:
    cs, _ = _convert()
    assert not [q for q in ALL_QUEUES if _key(q, "auto-create-child-queue.enabled") in cs]


@pytest.mark.parametrize(
    "enabled", [True, False], ids=["testQueueSizeBasedWeightEnabled", "testQueueSizeBasedWeightDisabled"]
)
def test_size_based_weight(enabled: bool) -> None:
    cs, _ = _convert(size_based_weight=enabled)
    values = {cs.get(_key(q, "ordering-policy.fair.enable-size-based-weight")) for q in ALL_QUEUES}
    assert values == ({"true"} if enabled else {None})


def test_testQueueOrderingPolicy() -> None:
    """Leaves only (a parent keeps the CapacityScheduler's default, fifo): fifo stays fifo, fair becomes fair."""
    cs, _ = _convert("fair-scheduler-orderingpolicy.xml")
    policies = {key.removeprefix("yarn.scheduler.capacity.").removesuffix(".ordering-policy"): value
                for key, value in cs.items() if key.endswith(".ordering-policy")}  # fmt: skip
    assert policies == {"root.default": "fair", "root.users.joe": "fair", "root.users.john": "fifo",
                        "root.admins.alice": "fifo", "root.admins.bob": "fair"}  # fmt: skip


def test_testQueueUnsupportedMixedOrderingPolicy() -> None:
    """DRF used somewhere: each fair leaf is reported as converted to DRF."""
    _, recorder = _convert("fair-scheduler-orderingpolicy-mixed.xml", drf_used=True)
    assert len([w for w in recorder.warnings if w.endswith("will use DRF policy instead of Fair")]) == 5


def test_testQueueMaxChildCapacityNotSupported() -> None:
    _, recorder = _convert()
    assert "Setting <maxChildResources> is not supported, ignoring conversion" in recorder.warnings
