"""A distributed-shell-style ApplicationMaster (``org.apache.hadoop.yarn.applications.distributedshell``).

It asks for ``num_containers`` containers of one size and one execution type (``--container_type``,
``--enforce_execution_type``), runs a simulated command of ``duration_ms`` in each, and can promote its
OPPORTUNISTIC containers to GUARANTEED ``promote_after_ms`` after they start (``--promote_opportunistic_after_start``
in Hadoop's DS is a boolean; the delay is a yarnball addition). A container that ends with anything but SUCCESS and
was not stopped by the AM is asked for again, so the AM finishes when ``num_containers`` commands succeeded.
"""

from __future__ import annotations

from yarnball.actors._appmaster import ApplicationMaster
from yarnball.protocols import (
    Container,
    ContainerExitStatus,
    ContainerId,
    ContainerStatus,
    ExecutionType,
    FinalApplicationStatus,
    RegisterApplicationMasterResponse,
    Resource,
    UpdatedContainer,
)

__all__ = ["DistributedShellAppMaster"]

DEFAULT_CONTAINER_RESOURCE = Resource(1024, 1)


class DistributedShellAppMaster(ApplicationMaster):
    """Run ``num_containers`` simulated shell commands in containers of ``container_type``."""

    def __init__(
        self,
        *,
        num_containers: int,
        container_resource: Resource = DEFAULT_CONTAINER_RESOURCE,
        container_type: ExecutionType = ExecutionType.GUARANTEED,
        duration_ms: int = 10_000,
        promote_after_ms: float | None = None,
        container_priority: int = 0,
        **kwargs: object,
    ) -> None:
        if num_containers < 1:
            raise ValueError(f"num_containers must be >= 1, got {num_containers}")
        if duration_ms <= 0:
            raise ValueError(f"duration_ms must be > 0, got {duration_ms}")
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self.num_containers = num_containers
        self.container_resource = container_resource
        self.container_type = container_type
        self.duration_ms = duration_ms
        self.promote_after_ms = promote_after_ms
        self.container_priority = container_priority
        self.succeeded = 0
        self.failed_attempts = 0
        self.promoted: list[ContainerId] = []
        self.allocated_types: list[ExecutionType] = []

    def on_registered(self, response: RegisterApplicationMasterResponse) -> None:
        self.add_container_request(
            self.container_resource,
            self.container_priority,
            execution_type=self.container_type,
            count=self.num_containers,
        )

    def on_containers_allocated(self, containers: tuple[Container, ...]) -> None:
        for c in containers:
            if self.succeeded + len(self.running) >= self.num_containers:
                self.release(c.id)  # allocated after the ask went down: give it back
                continue
            self.allocated_types.append(c.execution_type)
            self.start_container(c, duration_ms=self.duration_ms)
            if self.promote_after_ms is not None and c.execution_type is ExecutionType.OPPORTUNISTIC:
                self.after(self.promote_after_ms, lambda c=c: self._promote(c))

    def _promote(self, container: Container) -> None:
        if container.id in self.running and not self.finished:
            self.update_execution_type(container, ExecutionType.GUARANTEED)

    def on_containers_updated(self, updated: tuple[UpdatedContainer, ...]) -> None:
        for u in updated:
            if u.container.execution_type is ExecutionType.GUARANTEED:
                self.promoted.append(u.container.id)
        super().on_containers_updated(updated)

    def on_containers_completed(self, statuses: tuple[ContainerStatus, ...]) -> None:
        for s in statuses:
            if s.exit_status == ContainerExitStatus.SUCCESS:
                self.succeeded += 1
            else:
                self.failed_attempts += 1
                self.add_container_request(
                    self.container_resource, self.container_priority, execution_type=self.container_type
                )
        if self.succeeded >= self.num_containers:
            self.finish(FinalApplicationStatus.SUCCEEDED)
