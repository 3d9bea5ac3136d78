"""The AM's AMRMClient table: an allocated container is matched to a request of its own execution type."""

from __future__ import annotations

from yarnball import ApplicationMaster, Cluster
from yarnball.launcher.workloads import synthetic_workload
from yarnball.protocols import (
    ApplicationAttemptId,
    ApplicationId,
    Container,
    ContainerId,
    ExecutionType,
    NodeId,
    Priority,
    Resource,
    keys,
)

G = ExecutionType.GUARANTEED
O = ExecutionType.OPPORTUNISTIC  # noqa: E741
ATTEMPT = ApplicationAttemptId(ApplicationId(1, 1), 1)


def container(seq: int, host: str, etype: ExecutionType) -> Container:
    return Container(
        id=ContainerId(ATTEMPT, seq), node_id=NodeId(host, 0), resource=Resource(1024, 1), priority=Priority(20),
        execution_type=etype,
    )


def asks(am: ApplicationMaster) -> dict[tuple[str, str], int]:
    return {(k[1], k[2]): am._ask_request(k).num_containers for k in am._asks}  # k[2]: the type's value


def test_opportunistic_container_does_not_consume_a_node_local_guaranteed_request() -> None:
    """An OPPORTUNISTIC container on node0 decrements the OPPORTUNISTIC ask, not a GUARANTEED node0 ask."""
    am = ApplicationMaster(name="m")
    am.add_container_request(Resource(1024, 1), 20, execution_type=O)
    am.add_container_request(Resource(1024, 1), 20, nodes=("node0",), racks=("/rack0",))
    am._match(container(2, "node0", O))
    table = asks(am)
    assert table[("*", "OPPORTUNISTIC")] == 0
    assert table[("node0", "GUARANTEED")] == 1 and table[("*", "GUARANTEED")] == 1
    assert [r.execution_type for r in am._outstanding[20]] == [G]


def test_guaranteed_container_does_not_consume_an_opportunistic_request() -> None:
    """A GUARANTEED container decrements the GUARANTEED ask even when an older OPPORTUNISTIC one is queued."""
    am = ApplicationMaster(name="m")
    am.add_container_request(Resource(1024, 1), 20, execution_type=O)
    am.add_container_request(Resource(1024, 1), 20)
    am._match(container(2, "node1", G))
    table = asks(am)
    assert table[("*", "OPPORTUNISTIC")] == 1 and table[("*", "GUARANTEED")] == 0


def test_container_of_an_unrequested_type_still_decrements_one_request() -> None:
    """With no request of its type, the oldest request at the priority is withdrawn (as before)."""
    am = ApplicationMaster(name="m")
    am.add_container_request(Resource(1024, 1), 20)
    am._match(container(2, "node1", O))
    assert asks(am)[("*", "GUARANTEED")] == 0 and not am._outstanding[20]


def test_opportunistic_maps_with_killed_reruns_all_finish() -> None:
    """Killed opportunistic maps re-asked as GUARANTEED (examples/opportunistic.py --nodes 3 --jobs 6) all finish."""
    wl = synthetic_workload(
        6, 3, 1, maps=(5, 40), reduces=(0, 0), map_ms=(1_000, 5_000), reduce_ms=(1_000, 2_000), load=1.5
    )
    conf = {
        keys.OPPORTUNISTIC_CONTAINER_ALLOCATION_ENABLED: "true",
        keys.NM_OPPORTUNISTIC_CONTAINERS_MAX_QUEUE_LENGTH: "10",
        keys.MR_NUM_OPPORTUNISTIC_MAPS_PERCENT: "100",
    }
    cluster = Cluster(conf, wl.nodes, seed=1)
    cluster.submit_workload(wl)
    cluster.run(until_ms=600_000)  # bounded: the bug left one map waiting for ever
    assert sum(am.failed_task_attempts for am in cluster.masters) > 0  # the scenario: kills, then re-asks
    assert all(a.finish_time for a in cluster.applications)
    assert sum(am.completed_tasks for am in cluster.masters) == sum(am.total_tasks for am in cluster.masters)
