"""Hadoop's TestDistributedScheduler, ported: the NM's ``DistributedScheduler`` interceptor (actors/_amrmproxy.py).

As in Hadoop, the DistributedScheduler is real and the interceptor after it stands in for the RM: it answers the
register with the allocation parameters and node list of ``registerAM``, and each allocate with the next node list
(the two orders of ``createAllocateResponse`` in turn). As Hadoop's ``setup``, the NM's secret managers hold the
RM's master keys (rmIdentifier 12345), so each container the DistributedScheduler places carries a container token,
whose NM address ``mapAllocs`` checks.
"""

from __future__ import annotations

import asyncio
from types import SimpleNamespace
from typing import Any

from yarnball.actors._amrmproxy import DistributedScheduler, RequestInterceptor
from yarnball.actors._secretmanagers import NMSecretManagers, master_key
from yarnball.protocols import (
    AllocateRequest,
    AllocateResponse,
    ApplicationAttemptId,
    ApplicationId,
    DistributedSchedulingAllocateRequest,
    DistributedSchedulingAllocateResponse,
    ExecutionType,
    ExecutionTypeRequest,
    NodeId,
    Priority,
    RegisterApplicationMasterRequest,
    RegisterApplicationMasterResponse,
    RegisterDistributedSchedulingAMResponse,
    RemoteNode,
    Resource,
    ResourceRequest,
)

ATTEMPT = ApplicationAttemptId(ApplicationId(1, 1), 1)


def remote(host: str, port: int) -> RemoteNode:
    return RemoteNode(node_id=NodeId(host, port), http_address=f"http://{host}:{port}")


class FinalInterceptor(RequestInterceptor):
    """The test's ``finalReqIntcptr``: the register answer of ``registerAM``; allocate answers alternate between
    (f, e, d, c) and (c, d, e, f), starting with the first (the ``flipFlag`` answer)."""

    def __init__(self, nodes: list[RemoteNode]) -> None:
        super().__init__(SimpleNamespace(), ATTEMPT)  # type: ignore[arg-type]
        self.nodes = nodes
        self.flip = True
        self.forwarded: list[DistributedSchedulingAllocateRequest] = []

    async def register_for_distributed_scheduling(self, msg: RegisterApplicationMasterRequest) -> Any:
        return RegisterDistributedSchedulingAMResponse(
            register_response=RegisterApplicationMasterResponse(),
            container_token_expiry_interval=12345,
            container_id_start=0,
            max_container_resource=Resource(1024, 4),
            min_container_resource=Resource(512, 2),
            nodes_for_scheduling=tuple(self.nodes),
        )

    async def allocate_for_distributed_scheduling(self, msg: DistributedSchedulingAllocateRequest) -> Any:
        self.forwarded.append(msg)
        self.flip = not self.flip
        names = ("c", 3), ("d", 4), ("e", 5), ("f", 6)
        order = names if self.flip else tuple(reversed(names))
        return DistributedSchedulingAllocateResponse(
            allocate_response=AllocateResponse(), nodes_for_scheduling=tuple(remote(h, p) for h, p in order)
        )


def resource_request(execution_type: ExecutionType, num_containers: int) -> ResourceRequest:
    """``createResourceRequest(execType, numContainers, "*")``: 1024 MB / 4 vcores at priority 100, enforced."""
    return ResourceRequest(
        priority=Priority(100),
        capability=Resource(1024, 4),
        resource_name="*",
        num_containers=num_containers,
        relax_locality=True,
        execution_type_request=ExecutionTypeRequest(execution_type=execution_type, enforce_execution_type=True),
    )


def map_allocs(response: AllocateResponse, expected_size: int) -> dict[NodeId, list[Any]]:
    assert len(response.allocated_containers) == expected_size
    allocs: dict[NodeId, list[Any]] = {}
    for c in response.allocated_containers:
        # ContainerTokenIdentifier.getNmHostAddress() is the container's node
        assert c.container_token is not None and c.container_token.node_id == c.node_id
        allocs.setdefault(c.node_id, []).append(c.id)
    return allocs


def test_testDistributedScheduler() -> None:
    async def scenario() -> None:
        # setup(): NMContainerTokenSecretManager and NMTokenSecretManagerInNM with a master key, rmIdentifier 12345
        secrets = NMSecretManagers(NodeId("nm", 1234))
        secrets.set_keys(master_key("nm", 0, 1), master_key("container", 0, 1), 12345)
        proxy = SimpleNamespace(max_per_heartbeat=-1, allocated=0, secrets=secrets)
        scheduler = DistributedScheduler(proxy, ATTEMPT)  # type: ignore[arg-type]
        final = FinalInterceptor([remote("a", 1), remote("b", 2), remote("c", 3), remote("d", 4)])
        scheduler.next = final
        await scheduler.register(RegisterApplicationMasterRequest(application_attempt_id=ATTEMPT))

        guaranteed = resource_request(ExecutionType.GUARANTEED, 5)

        async def allocate(n: int) -> AllocateResponse:
            request = AllocateRequest(
                application_attempt_id=ATTEMPT, ask=(guaranteed, resource_request(ExecutionType.OPPORTUNISTIC, n))
            )
            response = await scheduler.allocate(request)
            assert isinstance(response, AllocateResponse)
            return response

        # Verify 4 containers were allocated
        response = await allocate(4)
        assert len(response.allocated_containers) == 4
        # Verify equal distribution on hosts a, b, c and d, and none on e / f (no more than 1 container on a node
        # of the top k list per allocate call)
        allocs = map_allocs(response, 4)
        assert len(allocs[NodeId("a", 1)]) == 1
        assert len(allocs[NodeId("b", 2)]) == 1
        assert len(allocs[NodeId("c", 3)]) == 1
        assert len(allocs[NodeId("d", 4)]) == 1
        assert NodeId("e", 5) not in allocs
        assert NodeId("f", 6) not in allocs
        # (beyond Hadoop's test: only the GUARANTEED ask went on to the RM)
        assert final.forwarded[-1].allocate_request.ask == (guaranteed,)

        # New Allocate request: the node list of the last response (f, e, d, c)
        response = await allocate(4)
        assert len(response.allocated_containers) == 4
        allocs = map_allocs(response, 4)
        assert len(allocs[NodeId("c", 3)]) == 1
        assert len(allocs[NodeId("d", 4)]) == 1
        assert len(allocs[NodeId("e", 5)]) == 1
        assert len(allocs[NodeId("f", 6)]) == 1
        assert NodeId("a", 1) not in allocs
        assert NodeId("b", 2) not in allocs

        # The DistributedScheduler respects the list order, flipped on every allocate response: c, then f, then c
        allocs = map_allocs(await allocate(1), 1)
        assert len(allocs[NodeId("c", 3)]) == 1
        allocs = map_allocs(await allocate(1), 1)
        assert len(allocs[NodeId("f", 6)]) == 1
        allocs = map_allocs(await allocate(1), 1)
        assert len(allocs[NodeId("c", 3)]) == 1

    asyncio.run(scenario())
