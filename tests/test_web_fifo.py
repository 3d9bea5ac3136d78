"""The web layer on a FifoScheduler run of the bundled trace: ``/ws/v1/cluster/scheduler`` in ``FifoSchedulerInfo``'s
shape (shared/reference/fair.md §7, rest.md §3.3's ``fifoScheduler`` type), the other sections built from the
``default`` queue's metrics, and the scheduler page's ``DefaultSchedulerPage`` box."""

from __future__ import annotations

from typing import Any

import pytest
from web_helpers import build_cluster

from yarnball.launcher.web._html import queue_tree
from yarnball.launcher.web._snapshot import take_snapshot
from yarnball.protocols import Configuration, keys

FIFO = "org.apache.hadoop.yarn.server.resourcemanager.scheduler.fifo.FifoScheduler"
#: FifoSchedulerInfo's fields, in JAXB's order, and their JSON types (fair.md §7).
FIELDS: dict[str, type] = {
    "type": str,
    "capacity": float,
    "usedCapacity": float,
    "qstate": str,
    "minQueueMemoryCapacity": int,
    "maxQueueMemoryCapacity": int,
    "numNodes": int,
    "usedNodeCapacity": int,
    "availNodeCapacity": int,
    "totalNodeCapacity": int,
    "numContainers": int,
}


@pytest.fixture(scope="module")
def snap() -> Any:
    cluster, _ = build_cluster(Configuration({keys.RM_SCHEDULER: FIFO}))
    cluster.run()
    return take_snapshot(cluster, done=True)


def test_scheduler_info_is_fifo_scheduler_info(snap: Any) -> None:
    info = snap.scheduler["schedulerInfo"]
    assert list(info) == list(FIELDS)
    for name, kind in FIELDS.items():
        assert isinstance(info[name], kind) and not isinstance(info[name], bool), (name, info[name])
    assert (info["type"], info["capacity"], info["qstate"]) == ("fifoScheduler", 1.0, "RUNNING")
    assert (info["minQueueMemoryCapacity"], info["maxQueueMemoryCapacity"]) == (1024, 8192)
    assert info["totalNodeCapacity"] == info["usedNodeCapacity"] + info["availNodeCapacity"] > 0
    assert info["numNodes"] == len(snap.nodes)


def test_metrics_and_apps_come_from_the_default_queue(snap: Any) -> None:
    metrics = snap.metrics
    assert metrics["appsCompleted"] == 40 and metrics["totalMB"] > 0
    assert all(a["state"] == "FINISHED" for a in snap.apps.values())


def test_scheduler_page_is_default_scheduler_page(snap: Any) -> None:
    html = queue_tree(snap.scheduler["schedulerInfo"])
    assert "FifoScheduler Queue" in html and "Queue Status</h2>" in html and "default" in html
    for label in (
        "Queue State", "Minimum Queue Memory Capacity", "Maximum Queue Memory Capacity", "Number of Nodes",
        "Used Node Capacity", "Available Node Capacity", "Total Node Capacity", "Number of Node Containers",
    ):  # fmt: skip
        assert label in html
