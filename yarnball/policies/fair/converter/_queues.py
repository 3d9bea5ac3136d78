"""The FairScheduler queue tree fs2cs converts: what ``QueueManager.updateAllocationConfiguration`` builds from an
:class:`AllocationConfiguration` (every configured leaf, then every configured parent, each with its missing
ancestors), each queue with the settings ``AllocationConfiguration.initFSQueue`` gives it.

Children are in creation order: the configured leaves in file order (ancestors first), then the configured parents.
Hadoop's order follows a hash set of the configured names; yarnball's is the file's, so the output is stable.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Final

from yarnball.policies.fair._allocationconfiguration import AllocationConfiguration, FSQueueSettings
from yarnball.policies.fair._allocationfile import FSQueueType
from yarnball.policies.fair._configurableresource import unbounded
from yarnball.protocols import Resource

__all__ = ["ConvertedQueue", "build_queue_tree", "is_unbounded"]

ROOT: Final = "root"


@dataclass(slots=True, eq=False)
class ConvertedQueue:
    """One FSQueue as the converters read it: ``FSLeafQueue`` (``leaf``) or ``FSParentQueue``."""

    name: str
    leaf: bool
    settings: FSQueueSettings
    parent: ConvertedQueue | None = None
    children: list[ConvertedQueue] = field(default_factory=list)
    resource_types: tuple[str, ...] = ()

    @property
    def weight(self) -> float:
        return self.settings.weight

    @property
    def policy_name(self) -> str:
        return self.settings.scheduling_policy.name

    def get_maximum_container_allocation(self) -> Resource:
        """``getMaximumContainerAllocation``: the queue's own limit, else its parent's (root's is its own)."""
        own = self.settings.max_container_allocation
        if self.name == ROOT or self.parent is None or not is_unbounded(own, self.resource_types):
            return own
        return self.parent.get_maximum_container_allocation()


def is_unbounded(resource: Resource | None, resource_types: tuple[str, ...] = ()) -> bool:
    """``Resources.unbounded().compareTo(resource) == 0``."""
    return resource == unbounded(resource_types)


def build_queue_tree(alloc: AllocationConfiguration) -> ConvertedQueue:
    """The root of the queue tree the QueueManager holds after loading ``alloc`` (trunk: no implicit root.default)."""
    types = alloc.resource_types
    root = ConvertedQueue(ROOT, leaf=False, settings=alloc.init_fs_queue(ROOT), resource_types=types)
    queues = {ROOT: root}

    def ensure(name: str, leaf: bool) -> None:
        parts = name.split(".")
        for depth in range(2, len(parts) + 1):
            path = ".".join(parts[:depth])
            if path in queues:
                continue
            parent = queues[".".join(parts[: depth - 1])]
            if parent.leaf:  # a queue below a configured leaf is not created (getQueue returns null)
                return
            queue = ConvertedQueue(
                path,
                leaf=leaf if depth == len(parts) else False,
                settings=alloc.init_fs_queue(path, parent.settings),
                parent=parent,
                resource_types=types,
            )
            parent.children.append(queue)
            queues[path] = queue

    for name in alloc.get_configured_queues(FSQueueType.LEAF):
        ensure(name, leaf=True)
    for name in alloc.get_configured_queues(FSQueueType.PARENT):
        ensure(name, leaf=False)
    return root


def walk(queue: ConvertedQueue) -> list[ConvertedQueue]:
    """The queues of the tree under (and with) ``queue``, in pre-order."""
    queues = [queue]
    for child in queue.children:
        queues += walk(child)
    return queues
