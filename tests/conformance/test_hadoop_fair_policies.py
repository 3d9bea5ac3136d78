"""Hadoop's TestSchedulingPolicy (parse, the FairShareComparator's transitivity, the child-policy rules) and
policies/TestDominantResourceFairnessPolicy (both DRF comparators and their helpers).

Hadoop's DRF tests run each comparison twice: with a third resource type ``test`` registered (the N-resource
comparator) and, in the ``...2`` variants, after ``ResourceUtils.resetResourceTypes`` (memory and vcores only, the
2-resource comparator). Here the comparator is taken with ``resource_types=("test",)`` or without.
"""

from __future__ import annotations

import functools
import itertools

import pytest
from fair_helpers import assert_total_preorder

from yarnball.errors import ConfigurationError
from yarnball.policies.fair import (
    DominantResourceFairnessComparator2,
    DominantResourceFairnessComparatorN,
    DominantResourceFairnessPolicy,
    FairSharePolicy,
    FakeSchedulable,
    FifoPolicy,
    Schedulable,
    SchedulableComparator,
    get_instance,
    parse,
)
from yarnball.policies.preemption._java import f32
from yarnball.protocols import Resource
from yarnball.testing import captured_events

INT_MAX = 2**31 - 1
PACKAGE = "org.apache.hadoop.yarn.server.resourcemanager.scheduler.fair.policies."

# -- TestSchedulingPolicy ------------------------------------------------------------------------------------------


def test_testParseSchedulingPolicy() -> None:
    """The class name, the canonical name, getInstance and the short names drf, fair, fifo give the right policy."""
    assert parse(PACKAGE + "FairSharePolicy").name == FairSharePolicy.NAME
    assert parse(PACKAGE + "FairSharePolicy").name == FairSharePolicy.NAME  # getCanonicalName is the same
    assert get_instance(FairSharePolicy).name == FairSharePolicy.NAME
    assert parse("drf").name == DominantResourceFairnessPolicy.NAME
    assert parse("fair").name == FairSharePolicy.NAME
    assert parse("fifo").name == FifoPolicy.NAME


def _fair_share_comparator_grid() -> list[FakeSchedulable]:
    """FairShareComparatorTester's data: every combination of name, start time, usage, weight and demand, with a
    min share of <0, 1>."""
    return [
        FakeSchedulable(
            min_share=Resource(0, 1), usage=usage, weight=weight, start_time=start, name=name, demand=demand
        )
        for name, start, usage, weight, demand in itertools.product(
            ("A", "B", "C"),
            (1, 2, 3),
            (Resource(0, 1), Resource(2, 1), Resource(4, 1)),
            (0.0, 1.0, 2.0),
            (Resource(0, 0), Resource(4, 1)),
        )
    ]


def test_testFairShareComparatorTransitivity() -> None:
    """The FairShareComparator is transitive over FairShareComparatorTester's data: a total preorder, checked
    with 162^2 comparisons instead of Hadoop's depth-first search over all 162^3 triples."""
    assert_total_preorder(_fair_share_comparator_grid(), FairSharePolicy().get_comparator(Resource(0, 0)))


def test_parse_unknown_policy_names_the_value() -> None:
    """``SchedulingPolicy.parse`` of an unknown name: Hadoop's ``<p> SchedulingPolicy class not found!``; class
    names are case-sensitive (``Class.forName``), the short names are not."""
    assert parse("DrF") is get_instance(DominantResourceFairnessPolicy)
    assert parse("FIFO") is get_instance(FifoPolicy)
    with pytest.raises(ConfigurationError, match=r"^lottery SchedulingPolicy class not found!$"):
        parse("lottery")
    with pytest.raises(ConfigurationError, match="SchedulingPolicy class not found!"):
        parse(PACKAGE.upper() + "FAIRSHAREPOLICY")


def test_policies_are_singletons() -> None:
    """``getInstance``: one instance per policy class, whatever name it was parsed from."""
    assert parse("fair") is parse(PACKAGE + "FairSharePolicy") is get_instance(FairSharePolicy)
    assert parse("drf") is parse(PACKAGE + "DominantResourceFairnessPolicy")


def test_testSchedulingPolicyViolation() -> None:
    """(The policy part.) A fair parent refuses a drf child, with Hadoop's message, and accepts fair and fifo."""
    fair, drf, fifo = parse("fair"), parse("drf"), parse("fifo")
    with captured_events() as events:
        assert not fair.is_child_policy_allowed(drf)
    assert [e["event"] for e in events] == [
        "Queue policy can't be DRF if the parent policy is fair. Choose fair or FIFO for child queues instead. "
        "Please note that FIFO is only for leaf queues."
    ]
    assert events[0]["log_level"] == "error"
    assert fair.is_child_policy_allowed(fair)
    assert fair.is_child_policy_allowed(fifo)


def test_testFIFOPolicyOnlyForLeafQueues() -> None:
    """(The policy part.) A fifo queue allows no child policy at all: FIFO is for leaf queues only."""
    fifo = parse("fifo")
    for child in (parse("fair"), parse("drf"), fifo):
        with captured_events() as events:
            assert not fifo.is_child_policy_allowed(child)
        assert [e["event"] for e in events] == [
            "FIFO policy is only for leaf queues. Please choose DRF or fair for parent queues."
        ]


def test_testPolicyReinitialization() -> None:
    """(The policy part.) A drf parent allows drf and fifo children (and fair)."""
    drf = parse("drf")
    assert drf.is_child_policy_allowed(drf)
    assert drf.is_child_policy_allowed(parse("fifo"))
    assert drf.is_child_policy_allowed(parse("fair"))


# -- TestDominantResourceFairnessPolicy ----------------------------------------------------------------------------


def create_comparator(cluster_mem: int, cluster_cpu: int, n: bool) -> SchedulableComparator:
    """The policy's comparator for a cluster of ``<mem, cpu>``; ``n``: with the third resource type ``test``."""
    return DominantResourceFairnessPolicy().get_comparator(Resource(cluster_mem, cluster_cpu), ("test",) if n else ())


def create_schedulable(mem: int, cpu: int, weight: float = 1.0, min_mem: int = 0, min_cpu: int = 0) -> Schedulable:
    return FakeSchedulable(
        Resource(min_mem, min_cpu), Resource(INT_MAX, INT_MAX), weight, Resource(0, 0), Resource(mem, cpu), 0
    )


N_AND_2 = pytest.mark.parametrize("n", [pytest.param(True, id="N"), pytest.param(False, id="2")])


@N_AND_2
def test_testSameDominantResource(n: bool) -> None:
    """Same dominant resource (memory): the smaller usage first."""
    c = create_comparator(8000, 4, n)
    assert c(create_schedulable(1000, 1), create_schedulable(2000, 1)) < 0


@N_AND_2
def test_testDifferentDominantResource(n: bool) -> None:
    """Dominant shares 4000/8000 (memory) and 5/8 (vcores): the smaller dominant share first."""
    c = create_comparator(8000, 8, n)
    assert c(create_schedulable(4000, 3), create_schedulable(2000, 5)) < 0


@N_AND_2
def test_testOneIsNeedy(n: bool) -> None:
    """A schedulable below its min share of its dominant resource goes first."""
    c = create_comparator(8000, 8, n)
    assert c(create_schedulable(2000, 5, 1.0, 0, 6), create_schedulable(4000, 3, 1.0, 0, 0)) < 0


@N_AND_2
def test_testBothAreNeedy(n: bool) -> None:
    """Both needy: the smaller ratio of usage to min share on the dominant resource first."""
    c = create_comparator(8000, 100, n)
    assert c(create_schedulable(2000, 5), create_schedulable(4000, 3)) < 0
    assert c(create_schedulable(2000, 5, 1.0, 3000, 6), create_schedulable(4000, 3, 1.0, 5000, 4)) < 0


@N_AND_2
def test_testEvenWeightsSameDominantResource(n: bool) -> None:
    """Twice the weight, less than twice the usage of the same dominant resource: first."""
    assert create_comparator(8000, 8, n)(create_schedulable(3000, 1, 2.0), create_schedulable(2000, 1)) < 0
    assert create_comparator(8000, 8, n)(create_schedulable(1000, 3, 2.0), create_schedulable(1000, 2)) < 0


@N_AND_2
def test_testEvenWeightsDifferentDominantResource(n: bool) -> None:
    """Twice the weight with a different dominant resource: first."""
    assert create_comparator(8000, 8, n)(create_schedulable(1000, 3, 2.0), create_schedulable(2000, 1)) < 0
    assert create_comparator(8000, 8, n)(create_schedulable(3000, 1, 2.0), create_schedulable(1000, 2)) < 0


def _f32_rows(rows: list[list[float]]) -> list[list[float]]:
    return [[f32(x) for x in row] for row in rows]


def test_testSortShares() -> None:
    """sortRatios sorts both arrays by their usage ratio (column 0), descending."""
    ratios1 = _f32_rows([[0.3, 2.0], [0.2, 1.0], [0.4, 0.1]])
    ratios2 = _f32_rows([[0.2, 9.0], [0.3, 2.0], [0.25, 0.1]])
    DominantResourceFairnessComparatorN.sort_ratios(ratios1, ratios2)
    assert ratios1 == _f32_rows([[0.4, 0.1], [0.3, 2.0], [0.2, 1.0]])
    assert ratios2 == _f32_rows([[0.3, 2.0], [0.25, 0.1], [0.2, 9.0]])


def test_testCalculateClusterAndFairRatios() -> None:
    """Usage ratios 10/100, 5/10 and 2/5 (test); the dominant is vcores."""
    shares = [[0.0, 0.0, 0.0] for _ in range(3)]
    dominant = DominantResourceFairnessComparatorN.calculate_cluster_and_fair_ratios(
        [10, 5, 2], [100, 10, 5], shares, 1.0
    )
    assert shares[0][0] == pytest.approx(0.1, abs=1e-5)
    assert shares[1][0] == pytest.approx(0.5, abs=1e-5)
    assert shares[2][0] == pytest.approx(0.4, abs=1e-5)
    assert dominant == 1


def test_testCalculateClusterAndFairRatios2() -> None:
    """Usage ratios 10/100 and 5/10 in doubles; the dominant is vcores."""
    dominant, shares = DominantResourceFairnessComparator2.calculate_cluster_and_fair_ratios(
        (10, 5), 1.0, Resource(100, 10)
    )
    assert shares[0] == pytest.approx(0.1, abs=1e-5)
    assert shares[1] == pytest.approx(0.5, abs=1e-5)
    assert dominant == 1


def test_testCalculateMinShareRatios() -> None:
    """Min share ratios 10/5, 5/10 and 2/0 (infinity)."""
    ratios = [[0.0, 0.0, 0.0] for _ in range(3)]
    DominantResourceFairnessComparatorN.calculate_min_share_ratios([10, 5, 2], [5, 10, 0], ratios)
    assert ratios[0][2] == pytest.approx(2.0, abs=1e-5)
    assert ratios[1][2] == pytest.approx(0.5, abs=1e-5)
    assert ratios[2][2] == float("inf")


def test_testCalculateMinShareRatios2() -> None:
    """Min share ratios 10/5 and 5/10 in doubles."""
    ratios = DominantResourceFairnessComparator2.calculate_min_share_ratios((10, 5), (5, 10))
    assert ratios[0] == pytest.approx(2.0, abs=1e-5)
    assert ratios[1] == pytest.approx(0.5, abs=1e-5)


def test_testCompareShares() -> None:
    """compareRatios compares the rows in turn on the given column: usage (0), fair share (1), min share (2)."""
    ratios1 = _f32_rows([[0.4, 0.1, 2.0], [0.3, 2.0, 0.1], [0.2, 1.0, 9.0]])
    ratios2 = _f32_rows([[0.3, 2.0, 1.0], [0.2, 0.1, 0.5], [0.2, 1.0, 2.0]])
    ratios3 = _f32_rows([[0.3, 2.0, 1.0], [0.2, 0.1, 2.0], [0.1, 2.0, 1.0]])
    compare = DominantResourceFairnessComparatorN.compare_ratios
    expected = {
        0: [(ratios1, ratios2, 1), (ratios2, ratios1, -1), (ratios2, ratios3, 1)],
        1: [(ratios1, ratios2, -1), (ratios2, ratios1, 1), (ratios2, ratios3, -1)],
        2: [(ratios1, ratios2, 1), (ratios2, ratios1, -1), (ratios2, ratios3, -1)],
    }
    for index, cases in expected.items():
        for r in (ratios1, ratios2, ratios3):
            assert compare(r, r, index) == 0
        for a, b, result in cases:
            assert compare(a, b, index) == result, (index, result)


@N_AND_2
def test_testCompareSchedulablesWithClusterResourceChanges(n: bool) -> None:
    """The order follows the cluster resource: [1/2, 1/5] > [1/4, 2/5] on <4000, 5>, [1/4, 1/6] < [1/8, 1/3] on
    <8000, 6>."""
    s1, s2 = create_schedulable(2000, 1), create_schedulable(1000, 2)
    assert create_comparator(4000, 5, n)(s1, s2) > 0
    assert create_comparator(8000, 6, n)(s1, s2) < 0


def test_testModWhileSorting() -> None:
    """10,000 schedulables sorted with the DRF comparator while 1,000 of them change usage. Hadoop changes them
    from a second thread during a ``TreeSet.addAll`` and checks only that the sort ends; here the change is made
    from inside the sort, after its 500th comparison (one thread, deterministic), and the sort must end with every
    schedulable in place and the changed ones compared by their new usage from then on."""
    schedulables = [create_schedulable((i % 10) * 100, (i % 3) * 2) for i in range(10000)]
    comparator = create_comparator(100000, 50000, True)
    calls = 0

    def compare(a: Schedulable, b: Schedulable) -> int:
        nonlocal calls
        calls += 1
        if calls == 500:  # modificationThread
            for j in range(1000):
                changed = schedulables[j * 10]
                assert isinstance(changed, FakeSchedulable)
                changed.resource_usage = Resource(20000, j % 10)
        return comparator(a, b)

    ordered = sorted(schedulables, key=functools.cmp_to_key(compare))
    assert (
        calls > 500 and len(ordered) == len(schedulables) and {id(s) for s in ordered} == {id(s) for s in schedulables}
    )
    assert ordered[-1].resource_usage.memory_mb == 20000  # the largest dominant share sorts last
