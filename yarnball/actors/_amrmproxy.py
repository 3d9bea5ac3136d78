"""The NodeManager's AMRMProxy with its interceptor chain, and the ``DistributedScheduler`` interceptor.

With ``yarn.nodemanager.distributed-scheduling.enabled`` every NodeManager runs an ``AMRMProxyService``
(opportunistic.md §7.1): the AMs launched on that node talk ApplicationMasterProtocol to it instead of the RM
(the NM puts the proxy's address in the AM's environment, as Hadoop rewrites the AM's AMRMToken and scheduler
address). Each application gets a pipeline of interceptors; ``DistributedScheduler`` is put first and
``DefaultRequestInterceptor``, which forwards to the RM, last. The DistributedScheduler allocates OPPORTUNISTIC asks
locally over the least-loaded node list and forwards GUARANTEED asks; the list arrives, as in Hadoop, in the RM's
register and allocate responses of the DistributedSchedulingAMProtocol (not in node heartbeats).
"""

from __future__ import annotations

from typing import Any

import msgspec

from yarnball.actors._actor import Actor, handler
from yarnball.policies.opportunistic import (
    DistributedOpportunisticContainerAllocator,
    OpportunisticContainerContext,
    normalize,
    partition_asks,
)
from yarnball.protocols import (
    AllocateRequest,
    AllocateResponse,
    ApplicationAttemptId,
    Configuration,
    Container,
    ContainerId,
    DistributedSchedulingAllocateRequest,
    DistributedSchedulingAllocateResponse,
    ExecutionType,
    FinishApplicationMasterRequest,
    FinishApplicationMasterResponse,
    RegisterApplicationMasterRequest,
    RegisterApplicationMasterResponse,
    RegisterDistributedSchedulingAMRequest,
    RegisterDistributedSchedulingAMResponse,
    RemoteRefusal,
    Resource,
    keys,
)

__all__ = [
    "AMRMPROXY_ENV",
    "AMRMProxyService",
    "DefaultRequestInterceptor",
    "DistributedScheduler",
    "RequestInterceptor",
    "amrmproxy_actor_id",
]

#: Launch-context variable naming the AMRMProxy an AM must talk to (Hadoop: the rewritten scheduler address).
AMRMPROXY_ENV = "YARNBALL_AMRMPROXY"


RM_TIMEOUT_MS = 60_000


def amrmproxy_actor_id(host: str) -> str:
    return f"amrmproxy-{host}"


class RequestInterceptor:
    """``RequestInterceptor``: one link of an application's pipeline; ``next`` is the following link."""

    def __init__(self, proxy: AMRMProxyService, attempt_id: ApplicationAttemptId) -> None:
        self.proxy = proxy
        self.attempt_id = attempt_id
        self.next: RequestInterceptor | None = None

    async def register(self, msg: RegisterApplicationMasterRequest) -> Any:
        assert self.next is not None
        return await self.next.register(msg)

    async def register_for_distributed_scheduling(self, msg: RegisterApplicationMasterRequest) -> Any:
        assert self.next is not None
        return await self.next.register_for_distributed_scheduling(msg)

    async def allocate(self, msg: AllocateRequest) -> Any:
        assert self.next is not None
        return await self.next.allocate(msg)

    async def allocate_for_distributed_scheduling(self, msg: DistributedSchedulingAllocateRequest) -> Any:
        assert self.next is not None
        return await self.next.allocate_for_distributed_scheduling(msg)

    async def finish(self, msg: FinishApplicationMasterRequest) -> Any:
        assert self.next is not None
        return await self.next.finish(msg)


class DefaultRequestInterceptor(RequestInterceptor):
    """The last link: sends each request to the ResourceManager and returns its answer."""

    async def _ask(self, msg: Any) -> Any:
        # A timeout keeps the proxy's pipeline from waiting forever on an RM that drops the request.
        return await self.proxy.rm.ask(msg, sender=self.proxy.ref, timeout=RM_TIMEOUT_MS)

    async def register(self, msg: RegisterApplicationMasterRequest) -> Any:
        return await self._ask(msg)

    async def register_for_distributed_scheduling(self, msg: RegisterApplicationMasterRequest) -> Any:
        return await self._ask(RegisterDistributedSchedulingAMRequest(register_request=msg))

    async def allocate(self, msg: AllocateRequest) -> Any:
        return await self._ask(msg)

    async def allocate_for_distributed_scheduling(self, msg: DistributedSchedulingAllocateRequest) -> Any:
        return await self._ask(msg)

    async def finish(self, msg: FinishApplicationMasterRequest) -> Any:
        return await self._ask(msg)


class DistributedScheduler(RequestInterceptor):
    """``DistributedScheduler``: OPPORTUNISTIC asks are placed here, GUARANTEED ones go on to the RM."""

    def __init__(self, proxy: AMRMProxyService, attempt_id: ApplicationAttemptId) -> None:
        super().__init__(proxy, attempt_id)
        self.context = OpportunisticContainerContext()
        self.allocator = DistributedOpportunisticContainerAllocator(proxy.max_per_heartbeat)
        self.minimum = Resource(1024, 1)
        self.maximum = Resource(8192, 4)
        self.increment = Resource(1024, 1)
        self.next_container_id = 0
        self.nm_token_nodes: set[Any] = set()  # nodes this attempt was given an NMToken for here

    async def register(self, msg: RegisterApplicationMasterRequest) -> Any:
        response = await self.register_for_distributed_scheduling(msg)
        if not isinstance(response, RegisterDistributedSchedulingAMResponse):
            return response
        # DistributedScheduler.updateParameters
        self.minimum = response.min_container_resource
        self.maximum = response.max_container_resource
        self.increment = response.incr_container_resource or response.min_container_resource
        self.next_container_id = response.container_id_start
        self._set_nodes(response.nodes_for_scheduling)
        return response.register_response

    def _set_nodes(self, nodes: Any) -> None:
        # DistributedScheduler.updateParameters -> OpportunisticContainerContext.updateNodeList: the RemoteNodes keep
        # their racks and partitions, which the distributed allocator matches against node label expressions.
        self.context.update_node_list(nodes)

    async def allocate(self, msg: AllocateRequest) -> Any:
        guaranteed, opportunistic = partition_asks(msg.ask)
        bl = msg.resource_blacklist_request
        lo, hi, inc = self.minimum, self.maximum, self.increment
        placements = self.allocator.allocate(
            self.context, opportunistic, lambda r: normalize(r, lo, hi, inc), bl.blacklist_additions,
            bl.blacklist_removals,
        )
        containers: list[Container] = []
        for p in placements:
            # Hadoop's id generator counts down from the RM-given start.
            self.next_container_id -= 1
            containers.append(
                Container(
                    id=ContainerId(self.attempt_id, self.next_container_id),
                    node_id=p.node_id,
                    resource=p.resource,
                    priority=p.priority,
                    execution_type=ExecutionType.OPPORTUNISTIC,
                    allocation_request_id=p.allocation_request_id,
                )
            )
        self.proxy.allocated += len(containers)
        # OpportunisticContainerAllocator.allocateContainers with the NM's secret managers: a container token for each
        # container placed here, an NMToken for each node the attempt has none for from here (the app's user is not
        # known on the NM: the identifiers leave it empty)
        secrets = self.proxy.secrets
        nm_tokens: list[Any] = []
        if secrets is not None and containers:
            containers = [secrets.sign(c, "") for c in containers]
            for c in containers:
                if c.node_id not in self.nm_token_nodes:
                    token = secrets.create_nm_token(self.attempt_id, c.node_id, "")
                    if token is not None:
                        self.nm_token_nodes.add(c.node_id)
                        nm_tokens.append(token)
        request = DistributedSchedulingAllocateRequest(
            allocate_request=msgspec.structs.replace(msg, ask=tuple(guaranteed)), allocated_containers=tuple(containers)
        )
        response = await self.allocate_for_distributed_scheduling(request)
        if not isinstance(response, DistributedSchedulingAllocateResponse):
            return response
        self._set_nodes(response.nodes_for_scheduling)
        inner: AllocateResponse = response.allocate_response
        return msgspec.structs.replace(
            inner,
            allocated_containers=(*inner.allocated_containers, *containers),
            nm_tokens=(*inner.nm_tokens, *nm_tokens) if nm_tokens else inner.nm_tokens,
        )


class AMRMProxyService(Actor):
    """One per NodeManager: a pipeline of interceptors per application attempt."""

    def __init__(self, conf: Configuration, rm_id: str = "rm") -> None:
        self.rm_id = rm_id
        self.distributed = conf.get_bool(keys.DIST_SCHEDULING_ENABLED)
        # The NM reads the RM's per-heartbeat cap for its own allocator (NodeManager.serviceInit).
        self.max_per_heartbeat = conf.get_int(keys.OPP_CONTAINER_MAX_ALLOCATIONS_PER_AM_HEARTBEAT)
        self.pipelines: dict[ApplicationAttemptId, RequestInterceptor] = {}
        self.allocated = 0
        self.secrets: Any = None  # the NM's NMSecretManagers (set by the NodeManager)

    @property
    def rm(self) -> Any:
        return self.kernel.lookup(self.rm_id)

    def _chain(self, msg: Any) -> RequestInterceptor:
        """``AMRMProxyService.authorizeAndGetInterceptorChain``: the pipeline of the attempt the request's AMRMToken
        names. A request whose token does not name its attempt skips the pipeline (nothing is placed here for it)
        and goes to the RM as it is, to be refused there (actors/_amrmauth.py)."""
        token = msg.amrm_token
        attempt_id = msg.application_attempt_id
        if token is None or token.application_attempt_id != attempt_id:
            return DefaultRequestInterceptor(self, attempt_id)
        return self._pipeline(attempt_id)

    def _pipeline(self, attempt_id: ApplicationAttemptId) -> RequestInterceptor:
        head = self.pipelines.get(attempt_id)
        if head is None:
            last = DefaultRequestInterceptor(self, attempt_id)
            head = last
            if self.distributed:
                # AMRMProxyService.getInterceptorClassNames: DistributedScheduler goes first.
                head = DistributedScheduler(self, attempt_id)
                head.next = last
            self.pipelines[attempt_id] = head
        return head

    @handler
    async def on_register(self, msg: RegisterApplicationMasterRequest) -> None:
        sender = self.sender
        response = await self._chain(msg).register(msg)
        if sender is not None and isinstance(response, (RegisterApplicationMasterResponse, RemoteRefusal)):
            sender.tell(response, self.ref)

    @handler
    async def on_allocate(self, msg: AllocateRequest) -> None:
        sender = self.sender
        if msg.application_attempt_id not in self.pipelines:
            self.log.warning("allocate_before_register", attempt=str(msg.application_attempt_id))
        response = await self._chain(msg).allocate(msg)
        if sender is not None and isinstance(response, (AllocateResponse, RemoteRefusal)):
            sender.tell(response, self.ref)

    @handler
    async def on_finish(self, msg: FinishApplicationMasterRequest) -> None:
        sender = self.sender
        chain = self._chain(msg)
        response = await chain.finish(msg)
        if chain is self.pipelines.get(msg.application_attempt_id):
            self.pipelines.pop(msg.application_attempt_id, None)
        if sender is not None and isinstance(response, (FinishApplicationMasterResponse, RemoteRefusal)):
            sender.tell(response, self.ref)
