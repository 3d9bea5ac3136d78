"""What an idle registered NodeManager keeps: a cluster has one per node, so nothing it no longer needs."""

from __future__ import annotations

from yarnball.launcher import Cluster
from yarnball.launcher.workloads import synthetic_nodes


def test_a_registered_node_keeps_neither_its_registration_timer_nor_an_empty_refusal_count() -> None:
    cluster = Cluster({}, synthetic_nodes(4), seed=3)
    cluster.run(until_ms=2000)
    for nm in cluster.nodes:
        assert nm.registered
        assert not nm._timers  # the one-shot registration timer is gone once it fired
        assert nm.rejections._by_reason is None and not nm.rejections and nm.rejections.by_reason == {}
