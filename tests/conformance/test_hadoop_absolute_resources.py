"""Absolute-resource queue capacities (``capacity = [memory=...,vcores=...]``, Hadoop 3.1+), ported from Hadoop's
TestAbsoluteResourceConfiguration (trunk, legacy queue mode), plus the parsing step
(CapacitySchedulerConfiguration.internalGetLabeledResourceRequirementForQueue).

The Hadoop tests write their queues with ``setMinimumResourceRequirement`` / ``setMaximumResourceRequirement``,
i.e. ``<queue>.capacity`` and ``<queue>.maximum-capacity`` set to ``[memory=<MB>,vcores=<n>]``; here the same values
are data (``vec``). ``MockRM.registerNode`` is a NODE_ADDED event, ``unRegisterNode`` / the explicit
``NodeRemovedSchedulerEvent`` a NODE_REMOVED one. Hadoop reads ``queue.usageTracker.getQueueResourceQuotas()``;
yarnball's read-only views are ``configured_min_resource``, ``configured_max_resource``,
``effective_min_resource`` and ``effective_max_resource``.
"""

from __future__ import annotations

import pytest
from test_capacity_scheduler_helpers import GB, add_node, make_conf, make_scheduler, node

from yarnball.errors import ConfigurationError
from yarnball.policies.capacity import CapacityScheduler, LeafQueue, ParentQueue
from yarnball.policies.capacity._absolute import parse_resource_vector
from yarnball.policies.capacity._managedparent import auto_create_leaf_queue
from yarnball.protocols import NodeRemovedSchedulerEvent, Resource

KEY = "yarn.scheduler.capacity.root.qA.capacity"
DELTA = 0.001
REINIT_FAILED = "Failed to re-init queues : "


def vec(r: Resource) -> str:
    """What CapacitySchedulerConfiguration.updateMinMaxResourceToConf writes for ``r``."""
    return f"[memory={r.memory_mb},vcores={r.vcores}]"


QUEUE_A_MINRES = Resource(100 * GB, 10)
QUEUE_A_MAXRES = Resource(200 * GB, 30)
QUEUE_A1_MINRES = Resource(50 * GB, 5)
QUEUE_A2_MINRES = Resource(50 * GB, 5)
QUEUE_B_MINRES = Resource(50 * GB, 10)
QUEUE_B1_MINRES = Resource(40 * GB, 10)
QUEUE_B_MAXRES = Resource(150 * GB, 30)
QUEUE_C_MINRES = Resource(25 * GB, 5)
QUEUE_C_MAXRES = Resource(150 * GB, 20)
QUEUE_D_MINRES = Resource(25 * GB, 5)
QUEUE_D_MAXRES = Resource(150 * GB, 20)
QUEUEA_REDUCED = Resource(64000, 6)
QUEUEB_REDUCED = Resource(32000, 6)
QUEUEC_REDUCED = Resource(16000, 3)
QUEUEMAX_REDUCED = Resource(128000, 20)
QUEUE_D_TEMPL_MINRES = Resource(25 * GB, 5)
QUEUE_D_TEMPL_MAXRES = Resource(150 * GB, 20)

A, B, C, D = "root.queueA", "root.queueB", "root.queueC", "root.queueD"
A1, A2, B1 = "root.queueA.queueA1", "root.queueA.queueA2", "root.queueB.queueB1"


def simple_queues(capacity_needed: bool = False) -> dict[str, dict[str, object]]:
    """setupSimpleQueueConfiguration + setupMinMaxResourceConfiguration: queueD is a ManagedParentQueue
    (auto-create-child-queue.enabled) whose leaf-queue-template is QUEUE_D_TEMPL_MINRES / MAXRES."""
    queues: dict[str, dict[str, object]] = {p: {} for p in (A, B, C, D)}
    if capacity_needed:
        for path, cap in ((A, 50), (B, 25), (C, 25), (D, 25)):
            queues[path]["capacity"] = cap
    for path, lo, hi in ((A, QUEUE_A_MINRES, QUEUE_A_MAXRES), (B, QUEUE_B_MINRES, QUEUE_B_MAXRES),
                         (C, QUEUE_C_MINRES, QUEUE_C_MAXRES), (D, QUEUE_D_MINRES, QUEUE_D_MAXRES)):  # fmt: skip
        queues[path].update({"capacity": vec(lo), "maximum-capacity": vec(hi)})
    queues[D]["auto-create-child-queue.enabled"] = "true"
    queues[D]["leaf-queue-template.capacity"] = vec(QUEUE_D_TEMPL_MINRES)
    queues[D]["leaf-queue-template.maximum-capacity"] = vec(QUEUE_D_TEMPL_MAXRES)
    return queues


def complex_queues() -> dict[str, dict[str, object]]:
    """setupComplexQueueConfiguration(false) + setupComplexMinMaxResourceConfig."""
    return {
        A: {"capacity": vec(QUEUE_A_MINRES), "maximum-capacity": vec(QUEUE_A_MAXRES)},
        B: {"capacity": vec(QUEUE_B_MINRES), "maximum-capacity": vec(QUEUE_B_MAXRES)},
        C: {"capacity": vec(QUEUE_C_MINRES), "maximum-capacity": vec(QUEUE_C_MAXRES)},
        A1: {"capacity": vec(QUEUE_A1_MINRES)},
        A2: {"capacity": vec(QUEUE_A2_MINRES)},
        B1: {"capacity": vec(QUEUE_B1_MINRES)},
    }


def started(queues: dict[str, dict[str, object]], *nodes: tuple[int, int]) -> CapacityScheduler:
    """MockRM(csConf).start() and registerNode for each (memory, vcores)."""
    cs = make_scheduler(queues)
    for i, (mem, vcores) in enumerate(nodes):
        add_node(cs, i, mem, vcores)
    return cs


def check_quotas(q, configured_min=None, configured_max=None, effective_min=None, effective_max=None) -> int:
    """The getQueueResourceQuotas() assertions of one queue; returns how many were made."""
    n = 0
    pairs = (
        (q.configured_min_resource, configured_min),
        (q.configured_max_resource, configured_max),
        (q.effective_min_resource, effective_min),
        (q.effective_max_resource, effective_max),
    )
    for got, want in pairs:
        if want is not None:
            assert got == want, (q.path, got, want)
            n += 1
    return n


def reinit_error(cs: CapacityScheduler, queues: dict[str, dict[str, object]]) -> str:
    with pytest.raises(ConfigurationError) as err:
        cs.reinitialize(make_conf(queues))
    return str(err.value)


def assert_hadoop_message(message: str, hadoop: str) -> None:
    """Hadoop's IOException message; yarnball puts the file:line and key at fault between the refresh prefix and
    Hadoop's own text."""
    assert message.startswith(REINIT_FAILED)
    assert message.endswith(hadoop[len(REINIT_FAILED) :]), message


# -- TestAbsoluteResourceConfiguration -----------------------------------------------------------------------------
def test_simple_min_max_resource_configuration_per_queue_testSimpleMinMaxResourceConfigurartionPerQueue():
    """The configured vectors read back as written (csConf.getMinimum/MaximumResourceRequirement); then the
    AutoCreatedLeafQueues d1 and d2 under the ManagedParentQueue queueD: d1 takes the template (all of queueD's
    minimum), d2 gets none (``new AutoCreatedLeafQueue(cs, name, parent)`` + ``cs.addQueue`` is
    ``auto_create_leaf_queue``)."""
    conf = make_conf(simple_queues())
    for path, lo, hi in ((A, QUEUE_A_MINRES, QUEUE_A_MAXRES), (B, QUEUE_B_MINRES, QUEUE_B_MAXRES),
                         (C, QUEUE_C_MINRES, QUEUE_C_MAXRES)):  # fmt: skip
        assert Resource(*conf.get_minimum_resource_requirement(path)) == lo
        assert Resource(*conf.get_maximum_resource_requirement(path)) == hi
    cs = started(simple_queues(), (250 * GB, 40))
    d1 = auto_create_leaf_queue(cs, D, "d1")
    cs.update_cluster_resource()  # cs.getRootQueue().updateClusterResource(...)
    assert check_quotas(d1, QUEUE_D_TEMPL_MINRES, QUEUE_D_TEMPL_MAXRES, QUEUE_D_TEMPL_MINRES, QUEUE_D_TEMPL_MAXRES) == 4
    d2 = auto_create_leaf_queue(cs, D, "d2")
    cs.update_cluster_resource()
    assert check_quotas(d2, Resource(0, 0), QUEUE_D_TEMPL_MAXRES, Resource(0, 0), QUEUE_D_TEMPL_MAXRES) == 4
    assert check_quotas(d1, QUEUE_D_TEMPL_MINRES, QUEUE_D_TEMPL_MAXRES, QUEUE_D_TEMPL_MINRES, QUEUE_D_TEMPL_MAXRES) == 4


def test_effective_min_max_resource_per_queue_testEffectiveMinMaxResourceConfigurartionPerQueue():
    """With room for every minimum, effective = configured."""
    cs = started(simple_queues(), (250 * GB, 40))
    for path, lo, hi in ((A, QUEUE_A_MINRES, QUEUE_A_MAXRES), (B, QUEUE_B_MINRES, QUEUE_B_MAXRES),
                         (C, QUEUE_C_MINRES, QUEUE_C_MAXRES)):  # fmt: skip
        q = cs.get_queue(path)
        assert isinstance(q, LeafQueue)
        assert check_quotas(q, lo, hi, lo, hi) == 4


def test_simple_validate_absolute_resource_config_testSimpleValidateAbsoluteResourceConfig():
    # 1. a refresh to the same vectors over percentages (overwritten by the vectors) is accepted
    cs = started(simple_queues(), (250 * GB, 40))
    cs.reinitialize(make_conf(simple_queues(capacity_needed=True)))
    # 2. the complex tree: children inherit their parent's configured maximum
    cs = started(complex_queues(), (250 * GB, 40))
    assert check_quotas(cs.get_queue(A1), effective_min=QUEUE_A1_MINRES, effective_max=QUEUE_A_MAXRES) == 2
    assert check_quotas(cs.get_queue(A2), effective_min=QUEUE_A2_MINRES, effective_max=QUEUE_A_MAXRES) == 2
    b1, c = cs.get_queue(B1), cs.get_queue(C)
    assert b1 is not None and c is not None
    assert check_quotas(b1, QUEUE_B1_MINRES, QUEUE_B_MAXRES, QUEUE_B1_MINRES, QUEUE_B_MAXRES) == 4
    assert check_quotas(c, QUEUE_C_MINRES, QUEUE_C_MAXRES, QUEUE_C_MINRES, QUEUE_C_MAXRES) == 4
    # 3. a minimum above the queue's own maximum
    bad = complex_queues()
    bad[B1] = {"capacity": vec(QUEUE_B_MAXRES), "maximum-capacity": vec(QUEUE_B1_MINRES)}
    assert_hadoop_message(
        reinit_error(cs, bad),
        "Failed to re-init queues : Min resource configuration <memory:153600, vCores:30> is greater than its "
        "max value:<memory:40960, vCores:10> in queue:root.queueB.queueB1",
    )
    # 4. a maximum above the parent's
    bad = complex_queues()
    bad[B1]["maximum-capacity"] = vec(QUEUE_A_MAXRES)
    assert_hadoop_message(
        reinit_error(cs, bad),
        "Failed to re-init queues : Max resource configuration <memory:204800, vCores:30> is greater than parents "
        "max value:<memory:153600, vCores:30> in queue:root.queueB.queueB1",
    )


def test_complex_validate_absolute_resource_config_testComplexValidateAbsoluteResourceConfig():
    cs = started(complex_queues(), (250 * GB, 40))
    # 1. percentage parents over absolute children (legacy queue mode refuses the mix)
    mixed = complex_queues()
    for path, cap in ((A, 50), (B, 25), (C, 25)):
        mixed[path]["capacity"] = cap
    assert "Failed to re-init queues" in reinit_error(cs, mixed)
    # 2. a parent whose minimum is below its children's sum
    small = complex_queues()
    small[A]["capacity"] = vec(QUEUE_A1_MINRES)
    assert_hadoop_message(
        reinit_error(cs, small),
        "Failed to re-init queues : Parent Queues capacity: <memory:51200, vCores:5> is less than to its children:"
        "<memory:102400, vCores:10> for queue:queueA",
    )


def test_validate_absolute_resource_config_testValidateAbsoluteResourceConfig():
    """``[memory=0]`` (no minimum) next to absolute siblings is not a mix of modes."""
    queues: dict[str, dict[str, object]] = {
        A: {"capacity": vec(QUEUE_A_MINRES), "maximum-capacity": vec(QUEUE_A_MAXRES)},
        B: {"capacity": "[memory=0]"},
        A1: {"capacity": "[memory=100]"},
        A2: {"capacity": "[memory=25]"},
    }
    cs = started(queues, (125 * GB, 20))
    queues[A1]["capacity"] = "[memory=125]"
    queues[A2]["capacity"] = "[memory=0]"
    cs.reinitialize(make_conf(queues))  # Hadoop: Assert.fail if it throws
    assert cs.get_queue(A2).effective_min_resource == Resource(0, 0)


def test_normalization_after_node_removal_testNormalizationAfterNodeRemoval():
    """After a node leaves, the children of a scaled-down parent are scaled by the parent's *new* minimum."""
    queues: dict[str, dict[str, object]] = {
        A: {"capacity": vec(Resource(50 * GB, 20))},
        A1: {"capacity": vec(Resource(30 * GB, 15))},
        A2: {"capacity": vec(Resource(20 * GB, 5))},
        B: {"capacity": vec(Resource(10 * GB, 8))},
    }
    cs = started(queues, (8 * GB, 4), (8 * GB, 4), (8 * GB, 4), (8 * GB, 4), (28 * GB, 12))
    cs.handle(NodeRemovedSchedulerEvent(node_id=node(3)))  # h4
    a1, a2, a = (cs.get_queue(p).effective_min_resource for p in (A1, A2, A))
    children = (a1.memory_mb + a2.memory_mb, a1.vcores + a2.vcores)
    cluster = cs.cluster_resource
    # Resources.lessThan(rc, cluster, children, parent) with the default (memory) calculator
    assert cs.calculator.compare(cluster.memory_mb, cluster.vcores, *children, a.memory_mb, a.vcores) < 0


def test_effective_resource_after_reducing_cluster_resource_testEffectiveResourceAfterReducingClusterResource():
    cs = started(simple_queues(), (125 * GB, 20), (125 * GB, 20))
    qa, qb, qc = (cs.get_queue(p) for p in (A, B, C))
    for q, lo, hi in ((qa, QUEUE_A_MINRES, QUEUE_A_MAXRES), (qb, QUEUE_B_MINRES, QUEUE_B_MAXRES),
                      (qc, QUEUE_C_MINRES, QUEUE_C_MAXRES)):  # fmt: skip
        assert q is not None
        assert check_quotas(q, lo, hi, lo, hi) == 4
    cs.handle(NodeRemovedSchedulerEvent(node_id=node(0)))  # rm.unRegisterNode(nm1)
    assert check_quotas(qa, effective_min=QUEUEA_REDUCED, effective_max=QUEUEMAX_REDUCED) == 2
    assert check_quotas(qb, effective_min=QUEUEB_REDUCED, effective_max=QUEUEMAX_REDUCED) == 2
    assert check_quotas(qc, effective_min=QUEUEC_REDUCED, effective_max=QUEUEMAX_REDUCED) == 2


def test_effective_resource_after_increasing_cluster_resource_testEffectiveResourceAfterIncreasingClusterResource():
    cs = started(complex_queues(), (125 * GB, 20), (125 * GB, 20))
    qa, qb, qc, qa1, qa2, qb1 = (cs.get_queue(p) for p in (A, B, C, A1, A2, B1))
    assert isinstance(qa, ParentQueue) and isinstance(qb, ParentQueue) and isinstance(qc, LeafQueue)
    before = [
        (qa, QUEUE_A_MINRES, QUEUE_A_MAXRES, QUEUE_A_MINRES, QUEUE_A_MAXRES, 0.4, 0.8),
        (qb, QUEUE_B_MINRES, QUEUE_B_MAXRES, QUEUE_B_MINRES, QUEUE_B_MAXRES, 0.2, 0.6),
        (qc, QUEUE_C_MINRES, QUEUE_C_MAXRES, QUEUE_C_MINRES, QUEUE_C_MAXRES, 0.1, 0.6),
        (qa1, None, None, QUEUE_A1_MINRES, QUEUE_A_MAXRES, 0.2, 0.8),
        (qa2, None, None, QUEUE_A2_MINRES, QUEUE_A_MAXRES, 0.2, 0.8),
        (qb1, QUEUE_B1_MINRES, QUEUE_B_MAXRES, QUEUE_B1_MINRES, QUEUE_B_MAXRES, 0.16, 0.6),
    ]
    for q, cmin, cmax, emin, emax, abs_cap, abs_max in before:
        check_quotas(q, cmin, cmax, emin, emax)
        assert q.abs_cap == pytest.approx(abs_cap, abs=DELTA), q.path
        assert q.abs_max == pytest.approx(abs_max, abs=DELTA), q.path
    add_node(cs, 3, 125 * GB, 20)
    # No change in effective resources when nodes are added, only in the derived capacities.
    after = [
        (qa, QUEUE_A_MINRES, QUEUE_A_MAXRES, 0.266, 0.533),
        (qb, QUEUE_B_MINRES, QUEUE_B_MAXRES, 0.133, 0.4),
        (qc, QUEUE_C_MINRES, QUEUE_C_MAXRES, 0.066, 0.4),
        (qb1, QUEUE_B1_MINRES, QUEUE_B_MAXRES, 0.106, 0.4),
        (qa1, QUEUE_A1_MINRES, QUEUE_A_MAXRES, 0.133, 0.533),
        (qa2, QUEUE_A2_MINRES, QUEUE_A_MAXRES, 0.133, 0.533),
    ]
    for q, emin, emax, abs_cap, abs_max in after:
        check_quotas(q, effective_min=emin, effective_max=emax)
        assert q.abs_cap == pytest.approx(abs_cap, abs=DELTA), q.path
        assert q.abs_max == pytest.approx(abs_max, abs=DELTA), q.path


# -- parsing (CapacitySchedulerConfiguration.internalGetLabeledResourceRequirementForQueue) -------------------------
@pytest.mark.parametrize(
    ("value", "expected"),
    [
        # TestAbsoluteResourceConfiguration: QUEUE_A_MINRES = Resource.newInstance(100 * GB, 10), written by
        # setMinimumResourceRequirement as "[memory=102400,vcores=10]".
        ("[memory=102400,vcores=10]", (102400, 10)),
        ("[memory=204800,vcores=30]", (204800, 30)),
        ("[memory=4Gi,vcores=2]", (4096, 2)),
        ("[memory=2048Ki,vcores=1]", (2, 1)),
        # UnitsConversionUtil.convert(units, "Mi", value): decimal units are powers of 1000 (4G = 4e9 / 2^20 Mi,
        # truncated), the unit names are case-sensitive ("m" is milli).
        ("[memory=4G,vcores=2]", (3814, 2)),
        ("[memory=4096M,vcores=2]", (3906, 2)),
        ("[memory=1048576k]", (1000, 0)),
        ("[memory=1T]", (953674, 0)),
        ("[memory=1P]", (953674316, 0)),
        ("[memory=1Ti]", (1048576, 0)),
        ("[memory=1048576000000m]", (1000, 0)),
        ("[memory=4096,vcores=2000m]", (4096, 0)),  # vcores are converted to "Mi" as well, as Hadoop does
        ("[vcores=2,memory=1024]", (1024, 2)),
        # Memory has to be configured always: otherwise Resources.none().
        ("[vcores=10]", None),
        ("[memory=0,vcores=10]", None),
        ("[]", None),
        # Keys are compared untrimmed, so " vcores" is skipped; unknown types are skipped.
        ("[memory=1024, vcores=2]", (1024, 0)),
        ("[memory=1024,gpu=2]", (1024, 0)),
        # Not a bracketed vector (a percentage).
        ("50", None),
    ],
)
def test_parse_resource_vector(value: str, expected: tuple[int, int] | None) -> None:
    assert parse_resource_vector(KEY, value) == expected


@pytest.mark.parametrize("value", ["[memory=4GB,vcores=2]", "[memory=abc]"])
def test_bad_values_name_the_key(value: str) -> None:
    with pytest.raises(ConfigurationError, match=r"root\.qA\.capacity"):
        parse_resource_vector(KEY, value)


@pytest.mark.parametrize(
    ("value", "message"),
    [
        # getConverter's IllegalArgumentException, KNOWN_UNITS printed in Java's HashSet order
        ("[memory=4GB,vcores=2]", "Unknown unit 'GB'. Known units are [, Gi, G, k, m, M, n, p, P, T, u, Ti, Pi, Mi, Ki]"),  # noqa: E501
        ("[memory=4g]", "Unknown unit 'g'. Known units are"),
        # Long.valueOf of what precedes the units: NumberFormatException
        ("[memory=abc]", 'For input string: ""'),
        ("[memory=4G5]", 'For input string: "4G5"'),
        ("[memory=9223372036854775807P]", "Converting 9223372036854775807 from 'P' to 'Mi' will result in an overflow"),
    ],
)
def test_bad_units_hadoop_errors(value: str, message: str) -> None:
    """Hadoop's errors for a bad unit or number (UnitsConversionUtil.getConverter / convert, Long.valueOf)."""
    with pytest.raises(ConfigurationError) as info:
        parse_resource_vector(KEY, value)
    assert str(info.value).startswith(KEY + ": ")
    assert message in str(info.value)


def test_decimal_units_load_from_a_configuration():
    """A queue configured with decimal units (Hadoop converts them) loads; its configured minimum is in Mi."""
    cs = make_scheduler(
        {"root.a": {"capacity": "[memory=4G,vcores=2]"}, "root.b": {"capacity": "[memory=4096M,vcores=2]"}}
    )
    assert cs.get_queue("root.a").configured_min_resource == Resource(3814, 2)
    assert cs.get_queue("root.b").configured_min_resource == Resource(3906, 2)
