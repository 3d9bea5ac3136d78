"""Node placement policies: spread and Qubole's container packing (categories, order, threshold, min nodes)."""

from __future__ import annotations

import pytest

from yarnball.errors import ConfigurationError
from yarnball.policies.placement import (
    NodeCategory,
    PackingPlacement,
    SpreadPlacement,
    continuous_scheduling_settings,
    order_names,
    placement_from_conf,
)
from yarnball.protocols import Configuration, NodeId
from yarnball.protocols import keys as k


class FakeNode:
    """A node view: ``used`` of ``total`` MB allocated in ``containers`` containers."""

    def __init__(self, host: str, used: int, total: int = 10_000, containers: int | None = None) -> None:
        self.node_id = NodeId(host, 0)
        self.total_m = total
        self.unalloc_m = total - used
        self.unalloc_v = 10
        n = (1 if used else 0) if containers is None else containers
        self.containers = {i: object() for i in range(n)}
        self.reserved: object | None = None


def _nodes(**usage: int) -> list[FakeNode]:
    return [FakeNode(host, used) for host, used in usage.items()]


def test_empty_node_is_low() -> None:
    """A node with no container is in the LOW set."""
    assert PackingPlacement(60).category(FakeNode("a", 0)) is NodeCategory.LOW


def test_node_below_threshold_is_medium() -> None:
    """A node with containers below the threshold is MEDIUM, even at 1%."""
    packing = PackingPlacement(60)
    assert packing.category(FakeNode("a", 100)) is NodeCategory.MEDIUM
    assert packing.category(FakeNode("b", 5_900)) is NodeCategory.MEDIUM


def test_node_at_or_above_threshold_is_high() -> None:
    """A node whose memory usage reaches the threshold is HIGH."""
    packing = PackingPlacement(60)
    assert packing.category(FakeNode("a", 6_000)) is NodeCategory.HIGH
    assert packing.category(FakeNode("b", 10_000)) is NodeCategory.HIGH


def test_reserved_empty_node_is_not_low() -> None:
    """A node holding a reservation is not offered as an empty node."""
    node = FakeNode("a", 0)
    node.reserved = object()
    assert PackingPlacement(60).category(node) is NodeCategory.MEDIUM


def test_threshold_moves_the_boundary() -> None:
    """The same node is MEDIUM under an 80% threshold and HIGH under 60%."""
    node = FakeNode("a", 7_000)
    assert PackingPlacement(80).category(node) is NodeCategory.MEDIUM
    assert PackingPlacement(60).category(node) is NodeCategory.HIGH


def test_order_is_medium_then_low_then_high() -> None:
    """Packing offers every MEDIUM node, then every LOW node, then every HIGH node."""
    nodes = _nodes(h1=9_000, l1=0, m1=3_000, h2=7_000, l2=0, m2=5_000)
    packing = PackingPlacement(60)
    cats = [packing.category(n) for n in packing.order(nodes)]
    assert cats == [NodeCategory.MEDIUM] * 2 + [NodeCategory.LOW] * 2 + [NodeCategory.HIGH] * 2


def test_medium_nodes_most_used_first() -> None:
    """Within MEDIUM the most used node comes first."""
    order = order_names(PackingPlacement(60, 0), _nodes(m1=1_000, m2=5_000, m3=3_000))
    assert order == ["m2", "m3", "m1"]


def test_high_nodes_least_used_first() -> None:
    """Within HIGH the least used node comes first."""
    order = order_names(PackingPlacement(60, 0), _nodes(h1=9_500, h2=6_500, h3=8_000))
    assert order == ["h2", "h3", "h1"]


def test_low_nodes_in_seeded_random_order() -> None:
    """LOW nodes come in a random order that the seed fixes."""
    hosts = [f"n{i:02d}" for i in range(12)]
    nodes = [FakeNode(h, 0) for h in hosts]
    first = order_names(PackingPlacement(60, 0, seed=7), nodes)
    assert first == order_names(PackingPlacement(60, 0, seed=7), list(reversed(nodes)))
    assert sorted(first) == hosts
    assert first != hosts
    assert first != order_names(PackingPlacement(60, 0, seed=8), nodes)


def test_packing_off_below_min_nodes() -> None:
    """Below min.nodes packing is off and the spread order is used."""
    nodes = _nodes(a=0, b=5_000, c=2_000)
    packing = PackingPlacement(60, min_nodes=4)
    assert not packing.packs(3)
    assert order_names(packing, nodes) == order_names(SpreadPlacement(), nodes) == ["a", "c", "b"]
    assert order_names(PackingPlacement(60, min_nodes=3), nodes) == ["b", "c", "a"]


def test_spread_most_available_first() -> None:
    """Spread offers the emptiest node first (FairScheduler's NodeAvailableResourceComparator)."""
    assert order_names(SpreadPlacement(), _nodes(a=5_000, b=0, c=9_000, d=0)) == ["b", "d", "a", "c"]


def test_conf_defaults_to_spread() -> None:
    """Without continuous-scheduling-packed the policy is spread."""
    assert isinstance(placement_from_conf(Configuration()), SpreadPlacement)


def test_conf_packing_defaults() -> None:
    """Packing from the configuration takes Qubole's defaults: 60% and 5 nodes."""
    policy = placement_from_conf(Configuration({k.CONTINUOUS_SCHEDULING_PACKED: "true"}))
    assert isinstance(policy, PackingPlacement)
    assert (policy.high_memory_threshold, policy.min_nodes) == (60.0, 5)


def test_conf_packing_values() -> None:
    """The threshold and min.nodes keys are read."""
    policy = placement_from_conf(
        Configuration(
            {
                k.CONTINUOUS_SCHEDULING_PACKED: "true",
                k.CONTINUOUS_SCHEDULING_PACKED_HIGH_MEMORY_THRESHOLD: "80",
                k.CONTINUOUS_SCHEDULING_PACKED_MIN_NODES: "2",
            }
        )
    )
    assert isinstance(policy, PackingPlacement)
    assert (policy.high_memory_threshold, policy.min_nodes) == (80.0, 2)


@pytest.mark.parametrize(
    ("key", "value"),
    [
        (k.CONTINUOUS_SCHEDULING_PACKED, "yes"),
        (k.CONTINUOUS_SCHEDULING_PACKED_HIGH_MEMORY_THRESHOLD, "0"),
        (k.CONTINUOUS_SCHEDULING_PACKED_HIGH_MEMORY_THRESHOLD, "101"),
        (k.CONTINUOUS_SCHEDULING_PACKED_HIGH_MEMORY_THRESHOLD, "high"),
        (k.CONTINUOUS_SCHEDULING_PACKED_MIN_NODES, "-1"),
        (k.CONTINUOUS_SCHEDULING_PACKED_MIN_NODES, "five"),
    ],
)
def test_bad_packing_values_name_the_key(key: str, value: str) -> None:
    """A bad packing value raises ConfigurationError naming the key."""
    conf = Configuration({k.CONTINUOUS_SCHEDULING_PACKED: "true", key: value})
    with pytest.raises(ConfigurationError, match=key.replace(".", r"\.")):
        placement_from_conf(conf)


@pytest.mark.parametrize("value", ["0", "-5", "soon"])
def test_bad_sleep_ms_names_the_key(value: str) -> None:
    """A non-positive or non-numeric continuous-scheduling-sleep-ms is refused, naming the key."""
    conf = Configuration({k.CONTINUOUS_SCHEDULING_SLEEP_MS: value})
    with pytest.raises(ConfigurationError, match="continuous-scheduling-sleep-ms"):
        continuous_scheduling_settings(conf)


def test_continuous_scheduling_defaults() -> None:
    """Continuous scheduling is off by default, with FairScheduler's 5 ms sleep."""
    assert continuous_scheduling_settings(Configuration()) == (False, 5)


def test_direct_construction_validates() -> None:
    """PackingPlacement refuses a threshold outside (0, 100] and a negative min.nodes."""
    with pytest.raises(ConfigurationError, match=r"high\.memory\.threshold"):
        PackingPlacement(0)
    with pytest.raises(ConfigurationError, match=r"min\.nodes"):
        PackingPlacement(60, -1)
