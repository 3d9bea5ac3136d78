"""Hadoop's ``QueueManager``: the FairScheduler's queue tree by full name, built from the allocation configuration
and grown on demand by placement (fair.md §2), with the parts of ``FairScheduler`` that drive it: the reload
(``AllocationReloadListener.onReload``: ``updateAllocationConfiguration``, ``setQueuesToDynamic``,
``applyChildDefaults``), a cluster resize (``addNode``/``removeNode``: the steady shares) and the update thread's
pass (``FairScheduler.update``, fair.md §3.1).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Final

from yarnball._logs import get_logger
from yarnball.errors import InvalidQueueNameException, one_line
from yarnball.policies.fair._allocationconfiguration import AllocationConfiguration
from yarnball.policies.fair._allocationfile import FSQueueType, trim_queue_name
from yarnball.policies.fair._fifopolicy import FifoPolicy
from yarnball.policies.fair._fsapp import FSApp
from yarnball.policies.fair._fsleafqueue import FSLeafQueue
from yarnball.policies.fair._fsqueue import FSContext, FSParentQueue, FSQueue, _zero_clock
from yarnball.protocols import ApplicationId, Resource

__all__ = ["ROOT_QUEUE", "QueueManager"]

log = get_logger(__name__)

ROOT_QUEUE: Final = "root"
_NO_RESOURCE: Final = Resource(0, 0)
_DEFAULT_ANCESTRY: Final = "root.default."  # YarnConfiguration.DEFAULT_QUEUE_NAME's children are never touched


def ensure_root_prefix(name: str) -> str:
    """``ensureRootPrefix``: ``root.`` before any name that is not ``root`` or under it."""
    return name if name == ROOT_QUEUE or name.startswith(ROOT_QUEUE + ".") else f"{ROOT_QUEUE}.{name}"


def is_queue_name_valid(node: str) -> bool:
    """``isQueueNameValid``: a non-empty part equal to its ``trimQueueName``."""
    return bool(node) and node == trim_queue_name(node)


class QueueManager:
    """``QueueManager``: ``root`` and the queues below it by full name (in creation order), the leaf queues, and
    the incompatible configured queues waiting to be emptied (``IncompatibleQueueRemovalTask``)."""

    __slots__ = ("_pending_removals", "context", "leaf_queues", "queues", "root_queue")

    def __init__(
        self,
        alloc_conf: AllocationConfiguration,
        cluster_resource: Resource = _NO_RESOURCE,
        clock: Callable[[], int] = _zero_clock,
    ) -> None:
        """``new QueueManager(scheduler).initialize()``: a static ``root`` under the configuration in force (trunk
        creates no ``root.default``). Call :meth:`update_allocation_configuration` to create the configured
        queues."""
        self.context = FSContext(alloc_conf, cluster_resource, clock)
        self.queues: dict[str, FSQueue] = {}
        self.leaf_queues: list[FSLeafQueue] = []
        self._pending_removals: dict[tuple[str, FSQueueType], None] = {}
        self.root_queue = FSParentQueue(ROOT_QUEUE, self.context, None)
        self.root_queue.is_dynamic = False
        self.queues[ROOT_QUEUE] = self.root_queue
        self.root_queue.reinit(True)
        self.root_queue.steady_fair_share = cluster_resource

    @property
    def alloc_conf(self) -> AllocationConfiguration:
        return self.context.alloc_conf

    # -- lookup and creation ----------------------------------------------------------------------------------------
    def get_queue(self, name: str) -> FSQueue | None:
        """``getQueue``: the queue of that name (``root.`` optional), or None."""
        return self.queues.get(ensure_root_prefix(name))

    def exists(self, name: str) -> bool:
        return ensure_root_prefix(name) in self.queues

    def get_leaf_queue(
        self, name: str, create: bool, application_id: ApplicationId | None = None, recompute: bool = True
    ) -> FSLeafQueue | None:
        """``getLeafQueue``: the leaf of that name, created with its missing parents when ``create``. None when the
        name is (or would sit under) a parent/leaf of the other type, or a policy forbids creating it (the caller
        rejects with ``<queue> is not a leaf queue``). With ``application_id`` the leaf records it as assigned. A
        part of the name that is empty or not trimmed raises :class:`InvalidQueueNameException`."""
        queue = self._get_queue(name, create, FSQueueType.LEAF, recompute, application_id)
        return queue if isinstance(queue, FSLeafQueue) else None

    def get_parent_queue(self, name: str, create: bool, recompute: bool = True) -> FSParentQueue | None:
        """``getParentQueue``: as :meth:`get_leaf_queue` for a parent queue."""
        queue = self._get_queue(name, create, FSQueueType.PARENT, recompute, None)
        return queue if isinstance(queue, FSParentQueue) else None

    def _get_queue(
        self,
        name: str,
        create: bool,
        queue_type: FSQueueType,
        recompute: bool,
        application_id: ApplicationId | None,
    ) -> FSQueue | None:
        name = ensure_root_prefix(name)
        queue = self.queues.get(name)
        if queue is None and create:
            queue = self.create_queue(name, queue_type)
        else:
            recompute = False
        if application_id is not None and isinstance(queue, FSLeafQueue):
            queue.add_assigned_app(application_id)
        if recompute and queue is not None:
            self.root_queue.recompute_steady_shares()
        return queue

    def create_queue(self, name: str, queue_type: FSQueueType) -> FSQueue | None:
        """``createQueue``: the queue and its missing ancestors (parents), below the deepest existing one; None
        when that one is a leaf or a policy forbids a new queue."""
        new_names: list[str] = []
        parent = self._build_new_queue_list(name, new_names)
        return None if parent is None else self._create_new_queues(queue_type, parent, new_names)

    def _build_new_queue_list(self, name: str, new_names: list[str]) -> FSParentQueue | None:
        """``buildNewQueueList``: the missing queues, top-down, in ``new_names``; the deepest existing ancestor if
        it is a parent."""
        new_names.append(name)
        sep = len(name)
        while sep != -1:
            previous = sep
            sep = name.rfind(".", 0, sep)  # lastIndexOf('.', sep - 1)
            if not is_queue_name_valid(name[sep + 1 : previous]):
                raise InvalidQueueNameException(
                    f"Illegal node name at offset {sep + 1} for queue name {one_line(name)}"
                )
            current = name[:sep] if sep != -1 else ""
            queue = self.queues.get(current)
            if queue is None:
                new_names.insert(0, current)
            else:
                return queue if isinstance(queue, FSParentQueue) else None
        return None

    def _create_new_queues(
        self, queue_type: FSQueueType, top_parent: FSParentQueue, new_names: list[str]
    ) -> FSQueue | None:
        """``createNewQueues``: every name but the last as a parent, the last of ``queue_type``, each checked
        against its parent's policy."""
        alloc_conf = self.alloc_conf
        parent = top_parent
        queue: FSQueue | None = None
        for i, queue_name in enumerate(new_names):
            child_policy = alloc_conf.get_scheduling_policy(queue_name)
            if not parent.policy.is_child_policy_allowed(child_policy):
                log.error(
                    f"Can't create queue '{queue_name}',the child scheduling policy is not allowed by parent queue!"
                )
                return None
            last = i == len(new_names) - 1
            if last and queue_type != FSQueueType.PARENT:
                leaf = FSLeafQueue(queue_name, self.context, parent)
                self.leaf_queues.append(leaf)
                queue = leaf
            else:
                if isinstance(child_policy, FifoPolicy):
                    log.error(f"Can't create queue '{queue_name}', since {FifoPolicy.NAME} is only for leaf queues.")
                    return None
                queue = FSParentQueue(queue_name, self.context, parent)
            parent.add_child_queue(queue)
            self._set_child_resource_limits(parent, queue)
            self.queues[queue.name] = queue
            if isinstance(queue, FSParentQueue):
                parent = queue
        return queue

    def _is_configured(self, name: str) -> bool:
        conf = self.alloc_conf
        return name in conf.get_configured_queues(FSQueueType.LEAF) or name in conf.get_configured_queues(
            FSQueueType.PARENT
        )

    def _set_child_resource_limits(self, parent: FSParentQueue, child: FSQueue) -> None:
        """``setChildResourceLimits``: a queue the configuration does not name takes its parent's
        ``maxChildResources`` as its max share."""
        if not self._is_configured(child.name) and parent.max_child_queue_resource is not None:
            child.raw_max_share = parent.max_child_queue_resource

    # -- removal ----------------------------------------------------------------------------------------------------
    def _remove_empty_incompatible_queues(self, queue_to_create: str, queue_type: FSQueueType) -> bool | None:
        """``removeEmptyIncompatibleQueues``: True when a queue in the way was removed, False when one is in the way
        but not empty, None when nothing is in the way (root and ``root.default.*`` are never touched)."""
        queue_to_create = ensure_root_prefix(queue_to_create)
        if queue_to_create == ROOT_QUEUE or queue_to_create.startswith(_DEFAULT_ANCESTRY):
            return None
        queue = self.queues.get(queue_to_create)
        if queue is not None:
            if isinstance(queue, FSLeafQueue) == (queue_type == FSQueueType.LEAF):
                return None
            return self._remove_queue_if_empty(queue)
        sep = queue_to_create.rfind(".")
        while sep != -1:
            prefix = self.queues.get(queue_to_create[:sep])
            if isinstance(prefix, FSLeafQueue):
                return self._remove_queue_if_empty(prefix)
            sep = queue_to_create.rfind(".", 0, sep)
        return None

    def _remove_queue_if_empty(self, queue: FSQueue) -> bool:
        if queue.is_empty():
            self._remove_queue(queue)
            return True
        return False

    def _remove_queue(self, queue: FSQueue) -> None:
        """``removeQueue``: the queue and its descendants."""
        if isinstance(queue, FSLeafQueue):
            self.leaf_queues.remove(queue)
        else:
            for child in queue.child_queues:
                self._remove_queue(child)
        del self.queues[queue.name]
        assert queue.parent is not None
        queue.parent.remove_child_queue(queue)

    def remove_leaf_queue(self, name: str) -> bool:
        """``removeLeafQueue``: remove the leaf if it is empty (its way cleared as for a parent of that name)."""
        return self._remove_empty_incompatible_queues(ensure_root_prefix(name), FSQueueType.PARENT) is not False

    def remove_empty_dynamic_queues(self) -> None:
        """``removeEmptyDynamicQueues`` (the reload thread's ``onCheck``): every empty dynamic queue without
        children, then the dynamic parents that leaves empty, up the tree."""
        to_check: dict[str, FSParentQueue] = {}
        for queue in list(self.queues.values()):
            if queue.is_dynamic and not queue.child_queues and queue.name in self.queues:
                if self._remove_queue_if_empty(queue) and queue.parent is not None and queue.parent.is_dynamic:
                    to_check[queue.parent.name] = queue.parent
        while to_check:
            name = next(iter(to_check))
            parent = to_check.pop(name)
            if parent.is_empty() and name in self.queues:
                self._remove_queue(parent)
                if parent.parent is not None and parent.parent.is_dynamic:
                    to_check[parent.parent.name] = parent.parent

    def remove_pending_incompatible_queues(self) -> None:
        """``removePendingIncompatibleQueues`` (``onCheck``): retry the configured queues whose way was blocked by a
        non-empty queue; one that now exists is static if the configuration names it."""
        for key in list(self._pending_removals):
            name, queue_type = key
            removed = self._remove_empty_incompatible_queues(name, queue_type)
            if removed:
                queue = self._get_queue(name, True, queue_type, False, None)
                if queue is not None and self._is_configured(name):
                    queue.is_dynamic = False
            if removed is not False:
                del self._pending_removals[key]

    @property
    def pending_incompatible_queues(self) -> tuple[str, ...]:
        """The configured queues not created yet because a non-empty queue of the other type is in the way."""
        return tuple(name for name, _ in self._pending_removals)

    # -- reload -----------------------------------------------------------------------------------------------------
    def update_allocation_configuration(self, alloc_conf: AllocationConfiguration) -> None:
        """``updateAllocationConfiguration``: take ``alloc_conf``; set the configured policies if no child's is
        forbidden by its parent's (else log and keep them all); create the configured leaves, then the configured
        parents, as static queues, clearing empty queues of the other type from their way (a non-empty one is
        retried by :meth:`remove_pending_incompatible_queues`); then reinit every queue and the steady shares."""
        self.context.alloc_conf = alloc_conf
        if not self.root_queue.verify_and_set_policy_from_conf(alloc_conf):
            log.error("Setting scheduling policies for existing queues failed!")
        for queue_type in (FSQueueType.LEAF, FSQueueType.PARENT):
            for name in alloc_conf.get_configured_queues(queue_type):
                removed = self._remove_empty_incompatible_queues(name, queue_type)
                if removed is False:
                    self._pending_removals[(name, queue_type)] = None
                    continue
                queue = self._get_queue(name, True, queue_type, False, None)
                if queue is not None:
                    queue.is_dynamic = False
        self.root_queue.reinit(True)
        self.root_queue.recompute_steady_shares()

    def set_queues_to_dynamic(self, names: Iterable[str]) -> None:
        """``setQueuesToDynamic``."""
        for name in names:
            self.queues[name].is_dynamic = True

    def apply_child_defaults(self) -> None:
        """``FairScheduler.applyChildDefaults``: every queue the configuration does not name takes its parent's
        ``maxChildResources`` (reinit has just reset it)."""
        for queue in self.queues.values():
            parent = queue.parent
            if (
                parent is not None
                and not self._is_configured(queue.name)
                and parent.max_child_queue_resource is not None
            ):
                queue.raw_max_share = parent.max_child_queue_resource

    def reload(self, alloc_conf: AllocationConfiguration) -> None:
        """``AllocationReloadListener.onReload`` on the queue tree: the queues the previous configuration named and
        this one does not become dynamic (removed once empty). Call ``MaxRunningAppsEnforcer.
        update_runnability_on_reload`` next, as Hadoop does."""
        previous = self.alloc_conf
        removed = {
            name
            for queue_type in FSQueueType
            for name in previous.get_configured_queues(queue_type)
            if not self._configured_in(alloc_conf, name)
        }
        self.update_allocation_configuration(alloc_conf)
        self.set_queues_to_dynamic(sorted(name for name in removed if name in self.queues))
        self.apply_child_defaults()

    @staticmethod
    def _configured_in(alloc_conf: AllocationConfiguration, name: str) -> bool:
        return any(name in alloc_conf.get_configured_queues(t) for t in FSQueueType)

    # -- cluster and update -----------------------------------------------------------------------------------------
    def set_cluster_resource(self, cluster: Resource) -> None:
        """``FairScheduler.addNode``/``removeNode``/``updateNodeResource`` on the tree: root's steady share is the
        cluster, the steady shares are recomputed, the root metrics' available resource updated."""
        self.context.cluster_resource = cluster
        self.root_queue.steady_fair_share = cluster
        self.root_queue.recompute_steady_shares()
        self.context.root_available = cluster - self.root_queue.resource_usage

    def update(self, preemption: bool = False, add: Callable[[FSApp], None] | None = None) -> list[FSApp]:
        """``FairScheduler.update``: demands (recursively), then fair shares from root's (the cluster); the root
        metrics' available resource. With ``preemption`` (``shouldAttemptPreemption``) every leaf's starved
        applications, in Hadoop's order, are returned (``updateStarvedApps``), each also handed to ``add``
        (``FSStarvedApps.addStarvedApp``) as Hadoop adds it."""
        root = self.root_queue
        root.update_demand()
        root.update(self.context.cluster_resource)
        self.context.root_available = self.context.cluster_resource - root.resource_usage
        starved: list[FSApp] = []
        if preemption:
            now = self.context.clock()
            for leaf in self.leaf_queues:
                starved.extend(leaf.update_starved_apps(now, add))
        return starved
