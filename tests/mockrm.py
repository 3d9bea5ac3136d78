"""A MockRM for ports of Hadoop's RM tests: a real ResourceManager and CapacityScheduler, NMs and AMs as probes.

Hadoop's ``MockRM`` / ``MockNM`` / ``MockAM`` drive a real RM by hand: the test registers nodes, sends each node
heartbeat and each AM allocate itself. These do the same over yarnball's RM actor: every call is a message told to
the RM, and the kernel runs until it is answered (a millisecond of simulated time per call, so the RM's periodic
monitors stay out of the way unless a test moves time on with :meth:`MockRM.advance`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from yarnball.actors._nodemanager import nm_actor_id
from yarnball.launcher._cluster import Cluster
from yarnball.protocols import (
    ANY,
    AllocateRequest,
    AllocateResponse,
    ApplicationAttemptId,
    ApplicationId,
    ContainerId,
    ContainerState,
    ContainerStatus,
    ExecutionType,
    GetNewApplicationRequest,
    GetNewApplicationResponse,
    NodeHeartbeatRequest,
    NodeHeartbeatResponse,
    NodeId,
    NodeStatus,
    OpportunisticContainersStatus,
    Priority,
    RegisterApplicationMasterRequest,
    RegisterNodeManagerRequest,
    Resource,
    ResourceRequest,
    StartContainersRequest,
    SubmitApplicationRequest,
    UpdateContainerRequest,
    keys,
)
from yarnball.protocols._clientprotocol import ApplicationSubmissionContext
from yarnball.testing import Probe

GB = 1024
G = ExecutionType.GUARANTEED
O = ExecutionType.OPPORTUNISTIC  # noqa: E741
#: Hadoop's TestOpportunisticContainerAllocatorAMService settings (opportunistic allocation on, the nodes sorted by
#: queue length every 100 ms): its port and tests/test_opportunistic_promoted.py run on them.
OPPORTUNISTIC_CONF = {
    keys.OPPORTUNISTIC_CONTAINER_ALLOCATION_ENABLED: "true",
    keys.NM_CONTAINER_QUEUING_SORTING_NODES_INTERVAL_MS: "100",
}


class MockRM:
    """A ResourceManager with Hadoop's single ``root.default`` queue (or ``conf``) and no nodes of its own."""

    def __init__(self, conf: Mapping[str, object] | None = None) -> None:
        self.cluster = Cluster(dict(conf or {}))
        self.kernel = self.cluster.kernel
        self.rm = self.cluster.rm
        self.scheduler = self.cluster.scheduler
        self.client = Probe()
        self.kernel.spawn(self.client, "client")

    def settle(self) -> None:
        self.kernel.run(until=self.kernel.now + 1)

    def advance(self, ms: float) -> None:
        self.kernel.run(until=self.kernel.now + ms)

    def register_node(self, address: str, memory_mb: int, vcores: int = 8) -> MockNM:
        host, _, port = address.partition(":")
        return MockNM(self, NodeId(host, int(port or 0)), Resource(memory_mb, vcores))

    def submit_app(self, am_mb: int, user: str = "user", queue: str = "default") -> ApplicationId:
        self.rm.ref.tell(GetNewApplicationRequest(), self.client.ref)
        self.settle()
        (response,) = [m for m in self.client.messages if isinstance(m, GetNewApplicationResponse)][-1:]
        context = ApplicationSubmissionContext(
            application_id=response.application_id, queue=queue, user=user, am_container_resource=Resource(am_mb, 1)
        )
        self.rm.ref.tell(SubmitApplicationRequest(application_submission_context=context), self.client.ref)
        self.settle()
        return response.application_id

    def launch_and_register_am(self, app_id: ApplicationId, nm: MockNM) -> MockAM:
        """``MockRM.launchAndRegisterAM``: a heartbeat of ``nm`` allocates and launches the AM container, the NM
        reports it RUNNING and the AM registers."""
        nm.heartbeat()
        start = [m for m in nm.probe.messages if isinstance(m, StartContainersRequest)][-1]
        container = start.start_container_requests[0].container
        assert container.id.application_attempt_id.application_id == app_id
        nm.launched(container.id)
        am = MockAM(self, container.id.application_attempt_id)
        request = RegisterApplicationMasterRequest(application_attempt_id=am.attempt_id, amrm_token=am.amrm_token)
        self.rm.ref.tell(request, am.probe.ref)
        self.settle()
        return am

    # -- reading the scheduler, as Hadoop's checkPendingResource / checkUsedResource do ------------------------
    def queue(self, name: str) -> Any:
        return self.scheduler.get_queue(name)

    def app(self, attempt_id: ApplicationAttemptId) -> Any:
        return self.scheduler.get_application(attempt_id)

    def user_used_mb(self, queue: str, user: str) -> int:
        return int(self.queue(queue).users[user].used_m)

    def node_available_mb(self, nm: MockNM) -> int:
        node = self.scheduler.nodes[nm.node_id]
        return int(node.unalloc_m)

    def node_reserved(self, nm: MockNM) -> Any:
        return self.scheduler.nodes[nm.node_id].reserved


class _NMProbe(Probe):
    """A probe in an NM's place: what the RM's heartbeat-response delivery reads of an NM (never a shortcut)."""

    _decommissioned = False
    heartbeat_interval_ms = -1  # never the RM's: every response is delivered as a message


class MockNM:
    """A registered node whose heartbeats the test sends."""

    def __init__(self, rm: MockRM, node_id: NodeId, resource: Resource) -> None:
        self.mock = rm
        self.node_id = node_id
        self.probe = _NMProbe()
        rm.kernel.spawn(self.probe, nm_actor_id(node_id.host))
        self.response_id = 0
        #: The OpportunisticContainersStatus every heartbeat carries (None: none, as MockNM.nodeHeartbeat sends).
        self.opportunistic_status: OpportunisticContainersStatus | None = None
        rm.rm.ref.tell(RegisterNodeManagerRequest(node_id=node_id, resource=resource), self.probe.ref)
        rm.settle()

    def heartbeat(self, *statuses: ContainerStatus) -> NodeHeartbeatResponse:
        status = NodeStatus(
            node_id=self.node_id, response_id=self.response_id, container_statuses=statuses,
            opportunistic_containers_status=self.opportunistic_status,
        )  # fmt: skip
        self.mock.rm.ref.tell(NodeHeartbeatRequest(node_status=status), self.probe.ref)
        self.mock.settle()
        responses = [m for m in self.probe.messages if isinstance(m, NodeHeartbeatResponse)]
        response = responses[-1] if responses else NodeHeartbeatResponse()
        self.response_id = response.response_id
        return response

    def launched(self, container_id: ContainerId, resource: Resource | None = None) -> NodeHeartbeatResponse:
        """``sentRMContainerLaunched``: the NM reports the container RUNNING."""
        status = ContainerStatus(container_id=container_id, state=ContainerState.RUNNING, capability=resource)
        return self.heartbeat(status)


class MockAM:
    """A registered ApplicationMaster whose allocate calls the test sends."""

    def __init__(self, rm: MockRM, attempt_id: ApplicationAttemptId) -> None:
        self.mock = rm
        self.attempt_id = attempt_id
        self.probe = Probe()
        rm.kernel.spawn(self.probe, f"am-{attempt_id}")
        self.response_id = 0
        self.amrm_token = rm.rm.attempts[attempt_id].amrm_token  # the AMRMToken the RM issued this attempt

    def allocate(
        self,
        asks: tuple[ResourceRequest, ...] = (),
        release: tuple[ContainerId, ...] = (),
        updates: tuple[UpdateContainerRequest, ...] = (),
    ) -> AllocateResponse:
        request = AllocateRequest(
            application_attempt_id=self.attempt_id,
            amrm_token=self.amrm_token,
            response_id=self.response_id,
            ask=asks,
            release=release,
            update_requests=updates,
        )
        self.mock.rm.ref.tell(request, self.probe.ref)
        self.mock.settle()
        response = [m for m in self.probe.messages if isinstance(m, AllocateResponse)][-1]
        self.response_id = response.response_id
        return response

    def ask(self, memory_mb: int, count: int = 1, priority: int = 1, host: str | None = None) -> AllocateResponse:
        """``ResourceRequest.newInstance(Priority.newInstance(priority), "*", createResource(memory_mb), count)``;
        with ``host``, ``MockAM.allocate(host, memory, count, releases)``'s host, rack and ANY asks."""
        names = (ANY,) if host is None else (host, "/default-rack", ANY)
        return self.allocate(
            asks=tuple(
                ResourceRequest(
                    priority=Priority(priority), capability=Resource(memory_mb, 1), resource_name=name,
                    num_containers=count,
                )
                for name in names
            )
        )  # fmt: skip

    def container_id(self, n: int) -> ContainerId:
        return ContainerId(self.attempt_id, n)
