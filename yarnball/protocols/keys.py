"""Hadoop configuration key names and their defaults, with YARN's own strings and Java constant names.

Each key is a pair: ``NAME = "yarn.some.key"`` and ``DEFAULT_NAME = <python value>``, named after the Java
constant in ``YarnConfiguration``, ``CapacitySchedulerConfiguration``, ``FairSchedulerConfiguration`` or
``SLSConfiguration`` where one exists, so a YARN engineer can grep for either.

:data:`DEFAULTS` maps every full key that has a default to that default as the string Hadoop would read from
``yarn-default.xml``; :class:`yarnball.protocols.Configuration` falls back on it. It is built by pairing each
``X = "yarn..."`` constant with ``DEFAULT_X``, so helpers may append new pairs at the end of this module:
:func:`defaults` rebuilds the table from the module's globals, and Configuration calls it on construction.

Per-queue capacity-scheduler keys are suffixes (``yarn.scheduler.capacity.<queue-path>.<suffix>``); their
defaults live here too but are not in DEFAULTS, because they are not full keys.
"""

from __future__ import annotations

from typing import Any

# ----------------------------------------------------------------------------------------------------
# YarnConfiguration: prefixes
# ----------------------------------------------------------------------------------------------------
YARN_PREFIX = "yarn."
RM_PREFIX = "yarn.resourcemanager."
NM_PREFIX = "yarn.nodemanager."

# ----------------------------------------------------------------------------------------------------
# yarn-site.xml: ResourceManager / NodeManager basics
# ----------------------------------------------------------------------------------------------------
#: How often each NodeManager heartbeats to the RM (ms).
RM_NM_HEARTBEAT_INTERVAL_MS = "yarn.resourcemanager.nodemanagers.heartbeat-interval-ms"
DEFAULT_RM_NM_HEARTBEAT_INTERVAL_MS = 1000

#: A NodeManager silent this long is expired as LOST (NMLivenessMonitor, ms).
RM_NM_EXPIRY_INTERVAL_MS = "yarn.nm.liveness-monitor.expiry-interval-ms"
DEFAULT_RM_NM_EXPIRY_INTERVAL_MS = 600000

#: A container allocated but not started on its NM within this time is reclaimed (ContainerAllocationExpirer, ms).
RM_CONTAINER_ALLOC_EXPIRY_INTERVAL_MS = "yarn.resourcemanager.rm.container-allocation.expiry-interval-ms"
DEFAULT_RM_CONTAINER_ALLOC_EXPIRY_INTERVAL_MS = 600000

#: An AM attempt that has not called allocate for this long is expired (AMLivenessMonitor, ms).
RM_AM_EXPIRY_INTERVAL_MS = "yarn.am.liveness-monitor.expiry-interval-ms"
DEFAULT_RM_AM_EXPIRY_INTERVAL_MS = 600000

#: Smallest container memory; requests are rounded up to a multiple of it (MB).
RM_SCHEDULER_MINIMUM_ALLOCATION_MB = "yarn.scheduler.minimum-allocation-mb"
DEFAULT_RM_SCHEDULER_MINIMUM_ALLOCATION_MB = 1024
#: Smallest container vcores.
RM_SCHEDULER_MINIMUM_ALLOCATION_VCORES = "yarn.scheduler.minimum-allocation-vcores"
DEFAULT_RM_SCHEDULER_MINIMUM_ALLOCATION_VCORES = 1
#: Largest container memory a request may ask for (MB).
RM_SCHEDULER_MAXIMUM_ALLOCATION_MB = "yarn.scheduler.maximum-allocation-mb"
DEFAULT_RM_SCHEDULER_MAXIMUM_ALLOCATION_MB = 8192
#: Largest container vcores a request may ask for.
RM_SCHEDULER_MAXIMUM_ALLOCATION_VCORES = "yarn.scheduler.maximum-allocation-vcores"
DEFAULT_RM_SCHEDULER_MAXIMUM_ALLOCATION_VCORES = 4

#: AM attempts per application before it fails (an application may ask for fewer).
RM_AM_MAX_ATTEMPTS = "yarn.resourcemanager.am.max-attempts"
DEFAULT_RM_AM_MAX_ATTEMPTS = 2
#: Finished applications the RM keeps (RMAppManager.checkAppNumCompletedLimit): the oldest beyond it are removed.
RM_MAX_COMPLETED_APPLICATIONS = "yarn.resourcemanager.max-completed-applications"
DEFAULT_RM_MAX_COMPLETED_APPLICATIONS = 1000
#: Finished applications the state store keeps; unset: max-completed-applications (and never more than it).
RM_STATE_STORE_MAX_COMPLETED_APPLICATIONS = "yarn.resourcemanager.state-store.max-completed-applications"

# Fault schedules: graceful decommission's default timeout and the RPC clients' retries.
#: Graceful decommission's timeout when a node_decommission fault gives none (RMAdminCLI -refreshNodes -g without a
#: value, s).
RM_NM_GRACEFUL_DECOMMISSION_TIMEOUT_SECS = "yarn.resourcemanager.nodemanager-graceful-decommission-timeout-secs"
DEFAULT_RM_NM_GRACEFUL_DECOMMISSION_TIMEOUT_SECS = 3600
#: An RPC to the RM left unanswered (dropped, or the RM down) is retried after this long (RMProxy, ms).
RM_CONNECT_RETRY_INTERVAL_MS = "yarn.resourcemanager.connect.retry-interval.ms"
DEFAULT_RM_CONNECT_RETRY_INTERVAL_MS = 30000
# The NM's own RMProxy interval (ServerRMProxy.createRMProxy: the RM client's when unset) and NMProxy's retry policy
# for the AM's container calls (actors/_nmrpc.py: runs with message faults on the NodeManager's links).
#: The NodeManager's own retry interval for its heartbeat calls (ServerRMProxy; the RM client's when unset, ms).
NM_RM_CONNECT_RETRY_INTERVAL_MS = "yarn.nodemanager.resourcemanager.connect.retry-interval.ms"
#: An AM's StartContainers or StopContainers call left unanswered is retried after this long (NMProxy, ms).
CLIENT_NM_CONNECT_RETRY_INTERVAL_MS = "yarn.client.nodemanager-connect.retry-interval-ms"
DEFAULT_CLIENT_NM_CONNECT_RETRY_INTERVAL_MS = 10000
#: An AM's container call fails after retrying this long (NMProxy, ms).
CLIENT_NM_CONNECT_MAX_WAIT_MS = "yarn.client.nodemanager-connect.max-wait-ms"
DEFAULT_CLIENT_NM_CONNECT_MAX_WAIT_MS = 180000

#: The scheduler class; yarnball simulates the CapacityScheduler and warns when another is named.
RM_SCHEDULER = "yarn.resourcemanager.scheduler.class"
DEFAULT_RM_SCHEDULER = "org.apache.hadoop.yarn.server.resourcemanager.scheduler.capacity.CapacityScheduler"

#: A NodeManager's memory (MB); node files and traces give each node's size instead.
NM_PMEM_MB = "yarn.nodemanager.resource.memory-mb"
DEFAULT_NM_PMEM_MB = 8192
#: A NodeManager's vcores; node files and traces give each node's size instead.
NM_VCORES = "yarn.nodemanager.resource.cpu-vcores"
DEFAULT_NM_VCORES = 8

#: Check client ACLs on kill, move and priority requests (ClientRMService, QueueACLsManager).
YARN_ACL_ENABLE = "yarn.acl.enable"
DEFAULT_YARN_ACL_ENABLE = False
#: Users and groups allowed to administer every application and queue.
YARN_ADMIN_ACL = "yarn.admin.acl"
DEFAULT_YARN_ADMIN_ACL = "*"
#: The highest application priority; a higher one asked for is capped to it.
YARN_CLUSTER_MAX_APPLICATION_PRIORITY = "yarn.cluster.max-application-priority"
DEFAULT_YARN_CLUSTER_MAX_APPLICATION_PRIORITY = 0
# "ACL used in case none is found. Allows nothing." (YarnConfiguration.DEFAULT_YARN_APP_ACL)
DEFAULT_YARN_APP_ACL = " "

# ----------------------------------------------------------------------------------------------------
# Scheduling monitors and the ProportionalCapacityPreemptionPolicy (preemption.md §1)
# ----------------------------------------------------------------------------------------------------
#: Run the scheduling monitors named by yarn.resourcemanager.scheduler.monitor.policies (preemption).
RM_SCHEDULER_ENABLE_MONITORS = "yarn.resourcemanager.scheduler.monitor.enable"
DEFAULT_RM_SCHEDULER_ENABLE_MONITORS = False
#: Comma-separated SchedulingEditPolicy classes the monitor runs.
RM_SCHEDULER_MONITOR_POLICIES = "yarn.resourcemanager.scheduler.monitor.policies"
# YarnConfiguration has no Java default constant; this is the value of yarn-default.xml.
DEFAULT_RM_SCHEDULER_MONITOR_POLICIES = (
    "org.apache.hadoop.yarn.server.resourcemanager.monitor.capacity.ProportionalCapacityPreemptionPolicy"
)

PREEMPTION_CONFIG_PREFIX = "yarn.resourcemanager.monitor.capacity.preemption."
#: Compute each preemption round but mark and kill nothing.
PREEMPTION_OBSERVE_ONLY = PREEMPTION_CONFIG_PREFIX + "observe_only"
DEFAULT_PREEMPTION_OBSERVE_ONLY = False
#: Time between two rounds of the preemption policy (ms).
PREEMPTION_MONITORING_INTERVAL = PREEMPTION_CONFIG_PREFIX + "monitoring_interval"
DEFAULT_PREEMPTION_MONITORING_INTERVAL = 3000
#: A container marked for preemption and still held this long after is killed (ms).
PREEMPTION_WAIT_TIME_BEFORE_KILL = PREEMPTION_CONFIG_PREFIX + "max_wait_before_kill"
DEFAULT_PREEMPTION_WAIT_TIME_BEFORE_KILL = 15000
#: Largest share of the cluster preempted in one round.
TOTAL_PREEMPTION_PER_ROUND = PREEMPTION_CONFIG_PREFIX + "total_preemption_per_round"
DEFAULT_TOTAL_PREEMPTION_PER_ROUND = 0.1
#: Dead zone: a queue this far over its guarantee (a fraction of it) is not preempted from.
PREEMPTION_MAX_IGNORED_OVER_CAPACITY = PREEMPTION_CONFIG_PREFIX + "max_ignored_over_capacity"
DEFAULT_PREEMPTION_MAX_IGNORED_OVER_CAPACITY = 0.1
#: Share of the wanted preemption taken per round, expecting containers to end by themselves.
PREEMPTION_NATURAL_TERMINATION_FACTOR = PREEMPTION_CONFIG_PREFIX + "natural_termination_factor"
DEFAULT_PREEMPTION_NATURAL_TERMINATION_FACTOR = 0.2
#: Also select candidates so that reserved containers can be allocated (ReservedContainerCandidatesSelector).
PREEMPTION_SELECT_CANDIDATES_FOR_RESERVED_CONTAINERS = (
    PREEMPTION_CONFIG_PREFIX + "select_based_on_reserved_containers"
)
DEFAULT_PREEMPTION_SELECT_CANDIDATES_FOR_RESERVED_CONTAINERS = False
#: Balance queues counting reserved containers as demand.
ADDITIONAL_RESOURCE_BALANCE_BASED_ON_RESERVED_CONTAINERS = (
    PREEMPTION_CONFIG_PREFIX + "additional_res_balance_based_on_reserved_containers"
)
DEFAULT_ADDITIONAL_RESOURCE_BALANCE_BASED_ON_RESERVED_CONTAINERS = False
#: Preempt within a queue between applications and users (IntraQueueCandidatesSelector).
INTRAQUEUE_PREEMPTION_ENABLED = PREEMPTION_CONFIG_PREFIX + "intra-queue-preemption.enabled"
DEFAULT_INTRAQUEUE_PREEMPTION_ENABLED = False
#: Intra-queue preemption: queue usage below which it does not act.
INTRAQUEUE_PREEMPTION_MINIMUM_THRESHOLD = (
    PREEMPTION_CONFIG_PREFIX + "intra-queue-preemption.minimum-threshold"
)
DEFAULT_INTRAQUEUE_PREEMPTION_MINIMUM_THRESHOLD = 0.5
#: Intra-queue preemption: largest share of a queue taken per round.
INTRAQUEUE_PREEMPTION_MAX_ALLOWABLE_LIMIT = (
    PREEMPTION_CONFIG_PREFIX + "intra-queue-preemption.max-allowable-limit"
)
DEFAULT_INTRAQUEUE_PREEMPTION_MAX_ALLOWABLE_LIMIT = 0.2
#: Intra-queue preemption: userlimit_first or priority_first.
INTRAQUEUE_PREEMPTION_ORDER_POLICY = (
    PREEMPTION_CONFIG_PREFIX + "intra-queue-preemption.preemption-order-policy"
)
DEFAULT_INTRAQUEUE_PREEMPTION_ORDER_POLICY = "userlimit_first"
#: Cross-queue preemption with the dominant resource calculator: preempt only while every resource is over.
CROSS_QUEUE_PREEMPTION_CONSERVATIVE_DRF = PREEMPTION_CONFIG_PREFIX + "conservative-drf"
DEFAULT_CROSS_QUEUE_PREEMPTION_CONSERVATIVE_DRF = False
#: Intra-queue preemption with the dominant resource calculator: the conservative rule.
IN_QUEUE_PREEMPTION_CONSERVATIVE_DRF = PREEMPTION_CONFIG_PREFIX + "intra-queue-preemption.conservative-drf"
DEFAULT_IN_QUEUE_PREEMPTION_CONSERVATIVE_DRF = True
#: Also preempt between queues that are all above their guarantee, to balance them.
PREEMPTION_TO_BALANCE_QUEUES_BEYOND_GUARANTEED = (
    PREEMPTION_CONFIG_PREFIX + "preemption-to-balance-queue-after-satisfied.enabled"
)
DEFAULT_PREEMPTION_TO_BALANCE_QUEUES_BEYOND_GUARANTEED = False
#: Queue-balancing preemption's wait before a kill (ms).
MAX_WAIT_BEFORE_KILL_FOR_QUEUE_BALANCE_PREEMPTION = (
    PREEMPTION_CONFIG_PREFIX + "preemption-to-balance-queue-after-satisfied.max-wait-before-kill"
)
DEFAULT_MAX_WAIT_BEFORE_KILL_FOR_QUEUE_BALANCE_PREEMPTION = 300000

# ----------------------------------------------------------------------------------------------------
# Opportunistic containers and distributed scheduling (opportunistic.md §2)
# ----------------------------------------------------------------------------------------------------
#: The RM allocates OPPORTUNISTIC containers (OpportunisticContainerAllocatorAMService); off, they are served as
#: GUARANTEED.
OPPORTUNISTIC_CONTAINER_ALLOCATION_ENABLED = "yarn.resourcemanager.opportunistic-container-allocation.enabled"
DEFAULT_OPPORTUNISTIC_CONTAINER_ALLOCATION_ENABLED = False
#: Most OPPORTUNISTIC containers allocated per AM heartbeat; 0 or less: no limit.
OPP_CONTAINER_MAX_ALLOCATIONS_PER_AM_HEARTBEAT = (
    "yarn.resourcemanager.opportunistic.max.container-allocation.per.am.heartbeat"
)
DEFAULT_OPP_CONTAINER_MAX_ALLOCATIONS_PER_AM_HEARTBEAT = -1  # any value <= 0 means "no limit"
#: How many least-loaded nodes OPPORTUNISTIC containers are spread over.
OPP_CONTAINER_ALLOCATION_NODES_NUMBER_USED = (
    "yarn.resourcemanager.opportunistic-container-allocation.nodes-used"
)
DEFAULT_OPP_CONTAINER_ALLOCATION_NODES_NUMBER_USED = 10
#: How often the NodeQueueLoadMonitor re-sorts the nodes by load (ms).
NM_CONTAINER_QUEUING_SORTING_NODES_INTERVAL_MS = (
    "yarn.resourcemanager.nm-container-queuing.sorting-nodes-interval-ms"
)
DEFAULT_NM_CONTAINER_QUEUING_SORTING_NODES_INTERVAL_MS = 1000
#: How nodes are compared: QUEUE_LENGTH, QUEUE_WAIT_TIME or QUEUE_LENGTH_THEN_RESOURCES.
NM_CONTAINER_QUEUING_LOAD_COMPARATOR = "yarn.resourcemanager.nm-container-queuing.load-comparator"
DEFAULT_NM_CONTAINER_QUEUING_LOAD_COMPARATOR = "QUEUE_LENGTH"
#: NM queue limit: mean + this many standard deviations of the queue lengths.
NM_CONTAINER_QUEUING_LIMIT_STDEV = "yarn.resourcemanager.nm-container-queuing.queue-limit-stdev"
DEFAULT_NM_CONTAINER_QUEUING_LIMIT_STDEV = 1.0
#: Lower clamp of the NM queue-length limit.
NM_CONTAINER_QUEUING_MIN_QUEUE_LENGTH = "yarn.resourcemanager.nm-container-queuing.min-queue-length"
DEFAULT_NM_CONTAINER_QUEUING_MIN_QUEUE_LENGTH = 5
#: Upper clamp of the NM queue-length limit.
NM_CONTAINER_QUEUING_MAX_QUEUE_LENGTH = "yarn.resourcemanager.nm-container-queuing.max-queue-length"
DEFAULT_NM_CONTAINER_QUEUING_MAX_QUEUE_LENGTH = 15
#: Lower clamp of the NM queue wait-time limit (ms).
NM_CONTAINER_QUEUING_MIN_QUEUE_WAIT_TIME_MS = (
    "yarn.resourcemanager.nm-container-queuing.min-queue-wait-time-ms"
)
DEFAULT_NM_CONTAINER_QUEUING_MIN_QUEUE_WAIT_TIME_MS = 10
#: Upper clamp of the NM queue wait-time limit (ms).
NM_CONTAINER_QUEUING_MAX_QUEUE_WAIT_TIME_MS = (
    "yarn.resourcemanager.nm-container-queuing.max-queue-wait-time-ms"
)
DEFAULT_NM_CONTAINER_QUEUING_MAX_QUEUE_WAIT_TIME_MS = 100
#: The RM tells the NodeManager of container updates (promotions, increases) itself, instead of the AM.
RM_AUTO_UPDATE_CONTAINERS = "yarn.resourcemanager.auto-update.containers"
DEFAULT_RM_AUTO_UPDATE_CONTAINERS = False
#: Threads of the RM's scheduler RPC server (not modelled: actors handle one message at a time).
RM_SCHEDULER_CLIENT_THREAD_COUNT = "yarn.resourcemanager.scheduler.client.thread-count"
DEFAULT_RM_SCHEDULER_CLIENT_THREAD_COUNT = 50
#: OPPORTUNISTIC containers a NodeManager may queue; 0 rejects every one.
NM_OPPORTUNISTIC_CONTAINERS_MAX_QUEUE_LENGTH = "yarn.nodemanager.opportunistic-containers-max-queue-length"
DEFAULT_NM_OPPORTUNISTIC_CONTAINERS_MAX_QUEUE_LENGTH = 0
# Trunk only (OpportunisticContainersQueuePolicy): BY_QUEUE_LEN or BY_RESOURCES.
#: How a NodeManager bounds its queue: BY_QUEUE_LEN or BY_RESOURCES (OpportunisticContainersQueuePolicy, trunk).
NM_OPPORTUNISTIC_CONTAINERS_QUEUE_POLICY = "yarn.nodemanager.opportunistic-containers-queue-policy"
DEFAULT_NM_OPPORTUNISTIC_CONTAINERS_QUEUE_POLICY = "BY_QUEUE_LEN"
#: Pause OPPORTUNISTIC containers in the way of a GUARANTEED one instead of killing them.
NM_OPPORTUNISTIC_CONTAINERS_USE_PAUSE_FOR_PREEMPTION = (
    "yarn.nodemanager.opportunistic-containers-use-pause-for-preemption"
)
DEFAULT_NM_OPPORTUNISTIC_CONTAINERS_USE_PAUSE_FOR_PREEMPTION = False
#: Allocate OPPORTUNISTIC containers on the NodeManagers (AMRMProxy's DistributedScheduler) instead of the RM.
DIST_SCHEDULING_ENABLED = "yarn.nodemanager.distributed-scheduling.enabled"
DEFAULT_DIST_SCHEDULING_ENABLED = False
#: Run the AMRMProxyService on every NodeManager (on with distributed scheduling).
AMRM_PROXY_ENABLED = "yarn.nodemanager.amrmproxy.enabled"
DEFAULT_AMRM_PROXY_ENABLED = False
#: The AMRMProxy's address (no network in a simulation).
AMRM_PROXY_ADDRESS = "yarn.nodemanager.amrmproxy.address"
DEFAULT_AMRM_PROXY_ADDRESS = "0.0.0.0:8049"
#: Threads of the AMRMProxy's RPC server (not modelled).
AMRM_PROXY_CLIENT_THREAD_COUNT = "yarn.nodemanager.amrmproxy.client.thread-count"
DEFAULT_AMRM_PROXY_CLIENT_THREAD_COUNT = 3
#: The AMRMProxy's interceptor chain.
AMRM_PROXY_INTERCEPTOR_CLASS_PIPELINE = "yarn.nodemanager.amrmproxy.interceptor-class.pipeline"
DEFAULT_AMRM_PROXY_INTERCEPTOR_CLASS_PIPELINE = (
    "org.apache.hadoop.yarn.server.nodemanager.amrmproxy.DefaultRequestInterceptor"
)
#: Live runs: virtual memory allowed per unit of allocated physical memory.
NM_VMEM_PMEM_RATIO = "yarn.nodemanager.vmem-pmem-ratio"
DEFAULT_NM_VMEM_PMEM_RATIO = 2.1
#: Live runs: kill a container over its virtual-memory limit (KILLED_EXCEEDED_VMEM, -103).
NM_VMEM_CHECK_ENABLED = "yarn.nodemanager.vmem-check-enabled"
DEFAULT_NM_VMEM_CHECK_ENABLED = True
# NM work-preserving restart (YARN-1336): a restarted NM recovers its containers when both are true.
#: A restarted NodeManager recovers its containers (with yarn.nodemanager.recovery.supervised).
NM_RECOVERY_ENABLED = "yarn.nodemanager.recovery.enabled"
DEFAULT_NM_RECOVERY_ENABLED = False
#: The NodeManager runs supervised, so its containers outlive a restart (with yarn.nodemanager.recovery.enabled).
NM_RECOVERY_SUPERVISED = "yarn.nodemanager.recovery.supervised"
DEFAULT_NM_RECOVERY_SUPERVISED = False
# RM restart (YARN-556, work-preserving YARN-1489): RMStateStore, RMAppManager.recover (actors/_rmrestart.py).
#: A restarted RM recovers its applications from its state store (RMStateStore).
RECOVERY_ENABLED = "yarn.resourcemanager.recovery.enabled"
DEFAULT_RECOVERY_ENABLED = False
#: RM recovery keeps the running containers (the NMs re-register with them).
RM_WORK_PRESERVING_RECOVERY_ENABLED = "yarn.resourcemanager.work-preserving-recovery.enabled"
DEFAULT_RM_WORK_PRESERVING_RECOVERY_ENABLED = True
#: After a work-preserving RM restart, no new container is allocated for this long (ms).
RM_WORK_PRESERVING_RECOVERY_SCHEDULING_WAIT_MS = "yarn.resourcemanager.work-preserving-recovery.scheduling-wait-ms"
DEFAULT_RM_WORK_PRESERVING_RECOVERY_SCHEDULING_WAIT_MS = 10000
#: yarnball keeps MemoryRMStateStore as the default (Hadoop's yarn-default.xml names FileSystemRMStateStore, whose
#: files a simulation should write only when asked): see actors/_rmstatestore.py.
RM_STORE = "yarn.resourcemanager.store.class"
DEFAULT_RM_STORE = "org.apache.hadoop.yarn.server.resourcemanager.recovery.MemoryRMStateStore"
#: FileSystemRMStateStore's directory.
FS_RM_STATE_STORE_URI = "yarn.resourcemanager.fs.state-store.uri"
#: Live runs: kill a container over its physical-memory allocation (KILLED_EXCEEDED_PMEM, -104).
NM_PMEM_CHECK_ENABLED = "yarn.nodemanager.pmem-check-enabled"
DEFAULT_NM_PMEM_CHECK_ENABLED = True

# ----------------------------------------------------------------------------------------------------
# NodeManager: real containers in live runs (ContainerLaunch, ContainersMonitorImpl; yarnball/actors/executors)
# ----------------------------------------------------------------------------------------------------
#: ContainerLaunch.cleanupContainer: SIGTERM, then SIGKILL this long after (DelayedProcessKiller).
NM_SLEEP_DELAY_BEFORE_SIGKILL_MS = "yarn.nodemanager.sleep-delay-before-sigkill.ms"
DEFAULT_NM_SLEEP_DELAY_BEFORE_SIGKILL_MS = 250
#: ContainersMonitorImpl's polling period of every container's process tree (memory checks).
NM_CONTAINER_MONITOR_INTERVAL_MS = "yarn.nodemanager.container-monitor.interval-ms"
DEFAULT_NM_CONTAINER_MONITOR_INTERVAL_MS = 3000
#: Where container logs and working directories go (first directory of each list); no default here: a live
#: cluster puts them under its work directory (``userlogs`` and ``nm-local-dir``) when these are not set.
NM_LOG_DIRS = "yarn.nodemanager.log-dirs"
#: Live runs: where container working directories go (first directory); default <work_dir>/nm-local-dir.
NM_LOCAL_DIRS = "yarn.nodemanager.local-dirs"

# ----------------------------------------------------------------------------------------------------
# FairScheduler continuous scheduling and Qubole's container packing (FairSchedulerConfiguration)
# ----------------------------------------------------------------------------------------------------
FS_CONF_PREFIX = "yarn.scheduler.fair."
#: Continuous scheduling's period (ms).
CONTINUOUS_SCHEDULING_SLEEP_MS = "yarn.scheduler.fair.continuous-scheduling-sleep-ms"
DEFAULT_CONTINUOUS_SCHEDULING_SLEEP_MS = 5
#: Pack containers on the fullest nodes that qualify (Qubole's container packing).
CONTINUOUS_SCHEDULING_PACKED = "yarn.scheduler.fair.continuous-scheduling-packed"
DEFAULT_CONTINUOUS_SCHEDULING_PACKED = False
#: Packing: memory use (% of a node) from which a node is in the HIGH set.
CONTINUOUS_SCHEDULING_PACKED_HIGH_MEMORY_THRESHOLD = (
    "yarn.scheduler.fair.continuous-scheduling-packed.high.memory.threshold"
)
DEFAULT_CONTINUOUS_SCHEDULING_PACKED_HIGH_MEMORY_THRESHOLD = 60
#: Packing is off while the cluster has fewer nodes.
CONTINUOUS_SCHEDULING_PACKED_MIN_NODES = "yarn.scheduler.fair.continuous-scheduling-packed.min.nodes"
DEFAULT_CONTINUOUS_SCHEDULING_PACKED_MIN_NODES = 5

# ----------------------------------------------------------------------------------------------------
# FairScheduler (FairSchedulerConfiguration; fair.md §1.1). Read by policies/fair: the allocation file's location,
# the placement defaults when the file has no queuePlacementPolicy, and the scheduler's own switches.
# ----------------------------------------------------------------------------------------------------
#: The FairScheduler's allocation file; a relative path is looked up in the configuration directory (Hadoop's
#: classpath), and with no such file every queue takes the defaults.
ALLOCATION_FILE = "yarn.scheduler.fair.allocation.file"
DEFAULT_ALLOCATION_FILE = "fair-scheduler.xml"
#: Placement without a queuePlacementPolicy: an application may create the queue it names (or its user's queue).
ALLOW_UNDECLARED_POOLS = "yarn.scheduler.fair.allow-undeclared-pools"
DEFAULT_ALLOW_UNDECLARED_POOLS = True
#: Placement without a queuePlacementPolicy: an application naming no queue goes to root.<user>, not root.default.
USER_AS_DEFAULT_QUEUE = "yarn.scheduler.fair.user-as-default-queue"
DEFAULT_USER_AS_DEFAULT_QUEUE = True
#: FairScheduler: preempt containers for starved applications (FSPreemptionThread).
PREEMPTION = "yarn.scheduler.fair.preemption"
DEFAULT_PREEMPTION = False
#: FairScheduler: preempt only while the cluster's utilization is above this fraction.
PREEMPTION_THRESHOLD = "yarn.scheduler.fair.preemption.cluster-utilization-threshold"
DEFAULT_PREEMPTION_THRESHOLD = 0.8
#: FairScheduler: how long a container marked for preemption may run before it is killed (ms).
WAIT_TIME_BEFORE_KILL = "yarn.scheduler.fair.waitTimeBeforeKill"
DEFAULT_WAIT_TIME_BEFORE_KILL = 15000
#: FairScheduler: the delay before a starved application is checked again after a preemption (ms).
WAIT_TIME_BEFORE_NEXT_STARVATION_CHECK_MS = "yarn.scheduler.fair.waitTimeBeforeNextStarvationCheck"
DEFAULT_WAIT_TIME_BEFORE_NEXT_STARVATION_CHECK_MS = 10000
#: FairScheduler: AM containers may be preempted (yarn.scheduler.fair.am.preemption.<queue> overrides it per leaf).
AM_PREEMPTION = "yarn.scheduler.fair.am.preemption"
DEFAULT_AM_PREEMPTION = True
AM_PREEMPTION_PREFIX = "yarn.scheduler.fair.am.preemption."
#: FairScheduler: weigh applications by the log of their demand.
SIZE_BASED_WEIGHT = "yarn.scheduler.fair.sizebasedweight"
DEFAULT_SIZE_BASED_WEIGHT = False
#: FairScheduler: assign more than one container per node heartbeat.
ASSIGN_MULTIPLE = "yarn.scheduler.fair.assignmultiple"
DEFAULT_ASSIGN_MULTIPLE = False
#: FairScheduler with assignmultiple: assign up to half the node's unallocated resource per heartbeat.
DYNAMIC_MAX_ASSIGN = "yarn.scheduler.fair.dynamic.max.assign"
DEFAULT_DYNAMIC_MAX_ASSIGN = True
#: FairScheduler with assignmultiple and no dynamic.max.assign: containers per heartbeat (-1: no limit).
MAX_ASSIGN = "yarn.scheduler.fair.max.assign"
DEFAULT_MAX_ASSIGN = -1
#: FairScheduler delay scheduling: missed opportunities, as a fraction of the nodes, before relaxing to the rack.
LOCALITY_THRESHOLD_NODE = "yarn.scheduler.fair.locality.threshold.node"
DEFAULT_LOCALITY_THRESHOLD_NODE = -1.0
#: FairScheduler delay scheduling: missed opportunities, as a fraction of the nodes, before relaxing to any node.
LOCALITY_THRESHOLD_RACK = "yarn.scheduler.fair.locality.threshold.rack"
DEFAULT_LOCALITY_THRESHOLD_RACK = -1.0
#: FairScheduler with continuous scheduling: the delay before relaxing node locality (ms; deprecated).
LOCALITY_DELAY_NODE_MS = "yarn.scheduler.fair.locality-delay-node-ms"
DEFAULT_LOCALITY_DELAY_NODE_MS = -1
#: FairScheduler with continuous scheduling: the delay before relaxing rack locality (ms; deprecated).
LOCALITY_DELAY_RACK_MS = "yarn.scheduler.fair.locality-delay-rack-ms"
DEFAULT_LOCALITY_DELAY_RACK_MS = -1
#: FairScheduler: the period of the fair-share update (ms; < 0 is 500, 0 stops the updates).
UPDATE_INTERVAL_MS = "yarn.scheduler.fair.update-interval-ms"
DEFAULT_UPDATE_INTERVAL_MS = 500
#: FairScheduler: the fraction of the nodes one application may hold reservations on.
RESERVABLE_NODES = "yarn.scheduler.fair.reservable-nodes"
DEFAULT_RESERVABLE_NODES = 0.05
#: FairScheduler: only containers above this multiple of the increment may reserve a node.
RM_SCHEDULER_RESERVATION_THRESHOLD_INCREMENT_MULTIPLE = "yarn.scheduler.reservation-threshold.increment-multiple"
DEFAULT_RM_SCHEDULER_RESERVATION_THRESHOLD_INCREMENT_MULTIPLE = 2.0
#: FairScheduler: requests are rounded up to a multiple of this memory (MB; deprecated for
#: yarn.resource-types.memory-mb.increment-allocation).
RM_SCHEDULER_INCREMENT_ALLOCATION_MB = "yarn.scheduler.increment-allocation-mb"
DEFAULT_RM_SCHEDULER_INCREMENT_ALLOCATION_MB = 1024
#: FairScheduler: requests are rounded up to a multiple of these vcores (deprecated for
#: yarn.resource-types.vcores.increment-allocation).
RM_SCHEDULER_INCREMENT_ALLOCATION_VCORES = "yarn.scheduler.increment-allocation-vcores"
DEFAULT_RM_SCHEDULER_INCREMENT_ALLOCATION_VCORES = 1
#: Set by fs2cs: the FairScheduler starts no background threads.
MIGRATION_MODE = "yarn.scheduler.fair.migration.mode"
DEFAULT_MIGRATION_MODE = False
#: In migration mode only: a placement rule after a terminal rule is a warning, not an error.
NO_TERMINAL_RULE_CHECK = "yarn.scheduler.fair.no-terminal-rule.check"
DEFAULT_NO_TERMINAL_RULE_CHECK = False
#: Name scheduler nodes host:port instead of host.
RM_SCHEDULER_INCLUDE_PORT_IN_NODE_NAME = "yarn.scheduler.include-port-in-node-name"
DEFAULT_RM_SCHEDULER_INCLUDE_PORT_IN_NODE_NAME = False
#: Resource types beyond memory-mb and vcores (comma-separated); resource values may name them.
RESOURCE_TYPES = "yarn.resource-types"
#: yarn.resource-types.<name><INCREMENT_ALLOCATION>: a resource's increment, "value [unit]" (FairScheduler).
INCREMENT_ALLOCATION = ".increment-allocation"

# ----------------------------------------------------------------------------------------------------
# SLS (sls-runner.xml, SLSConfiguration; anchors.md §a.3). SLSConfiguration names its defaults X_DEFAULT and
# clashes with YarnConfiguration's NM_*/AM_* names, so here every name carries an SLS_ prefix.
# ----------------------------------------------------------------------------------------------------
SLS_PREFIX = "yarn.sls."
#: SLS's thread pool size (not used: yarnball has no threads).
SLS_RUNNER_POOL_SIZE = "yarn.sls.runner.pool.size"
DEFAULT_SLS_RUNNER_POOL_SIZE = 10
#: Memory of each node SLS derives from a trace without a node file (MB).
SLS_NM_MEMORY_MB = "yarn.sls.nm.memory.mb"
DEFAULT_SLS_NM_MEMORY_MB = 10240
#: Vcores of each node SLS derives from a trace without a node file.
SLS_NM_VCORES = "yarn.sls.nm.vcores"
DEFAULT_SLS_NM_VCORES = 10
#: Simulated NodeManagers' heartbeat interval (ms).
SLS_NM_HEARTBEAT_INTERVAL_MS = "yarn.sls.nm.heartbeat.interval.ms"
DEFAULT_SLS_NM_HEARTBEAT_INTERVAL_MS = 1000
#: Simulated AMs' allocate interval (ms).
SLS_AM_HEARTBEAT_INTERVAL_MS = "yarn.sls.am.heartbeat.interval.ms"
DEFAULT_SLS_AM_HEARTBEAT_INTERVAL_MS = 1000
#: Memory of a trace job's AM container (MB).
SLS_AM_CONTAINER_MEMORY = "yarn.sls.am.container.memory"
DEFAULT_SLS_AM_CONTAINER_MEMORY = 1024
#: Vcores of a trace job's AM container.
SLS_AM_CONTAINER_VCORES = "yarn.sls.am.container.vcores"
DEFAULT_SLS_AM_CONTAINER_VCORES = 1
#: Memory of a trace task that gives none (MB).
SLS_CONTAINER_MEMORY_MB = "yarn.sls.container.memory.mb"
DEFAULT_SLS_CONTAINER_MEMORY_MB = 1024
#: Vcores of a trace task that gives none.
SLS_CONTAINER_VCORES = "yarn.sls.container.vcores"
DEFAULT_SLS_CONTAINER_VCORES = 1
#: Simulated NMs report this share of their allocation as used; negative: off.
SLS_NM_RESOURCE_UTILIZATION_RATIO = "yarn.sls.nm.resource.utilization.ratio"
DEFAULT_SLS_NM_RESOURCE_UTILIZATION_RATIO = -1.0  # off
# yarn.sls.am.type.<type> = AM simulator class (mapreduce, stream, dag).
SLS_AM_TYPE_PREFIX = "yarn.sls.am.type."
# The code constant; the SLS docs say yarn.sls.runner.metrics.switch (docs/code mismatch, anchors.md §a.3).
#: SLS's metrics switch (yarnball always writes its metrics).
SLS_METRICS_SWITCH = "yarn.sls.metrics.switch"
#: SLS's web port (yarnball serves with simulate --webapp instead).
SLS_METRICS_WEB_ADDRESS_PORT = "yarn.sls.metrics.web.address.port"
DEFAULT_SLS_METRICS_WEB_ADDRESS_PORT = 10001
#: SLS's timer window (not used).
SLS_METRICS_TIMER_WINDOW_SIZE = "yarn.sls.metrics.timer.window.size"
DEFAULT_SLS_METRICS_TIMER_WINDOW_SIZE = 100
#: Simulated time between two samples of the metrics files and realtimetrack.json (ms).
SLS_METRICS_RECORD_INTERVAL_MS = "yarn.sls.metrics.record.interval.ms"
DEFAULT_SLS_METRICS_RECORD_INTERVAL_MS = 1000
#: SLS's metrics directory (yarnball writes under --output-dir).
SLS_METRICS_OUTPUT_DIR = "yarn.sls.metrics.output"
#: SLS's scheduler wrapper class (not used).
SLS_SCHEDULER_CLASS = "yarn.sls.scheduler.class"
# SLS's SchedulerMetrics class per scheduler (SchedulerMetrics.getSchedulerMetricsClass: the key is the scheduler's
# class name, as sls-runner.xml sets them); yarnball writes the metrics of the scheduler it runs, and refuses another
# class for it.
#: SLS's SchedulerMetrics class for the CapacityScheduler.
SLS_CAPACITY_SCHEDULER_METRICS = "org.apache.hadoop.yarn.server.resourcemanager.scheduler.capacity.CapacityScheduler"
DEFAULT_SLS_CAPACITY_SCHEDULER_METRICS = "org.apache.hadoop.yarn.sls.scheduler.CapacitySchedulerMetrics"
#: SLS's SchedulerMetrics class for the FairScheduler.
SLS_FAIR_SCHEDULER_METRICS = "org.apache.hadoop.yarn.server.resourcemanager.scheduler.fair.FairScheduler"
DEFAULT_SLS_FAIR_SCHEDULER_METRICS = "org.apache.hadoop.yarn.sls.scheduler.FairSchedulerMetrics"
#: SLS's SchedulerMetrics class for the FifoScheduler.
SLS_FIFO_SCHEDULER_METRICS = "org.apache.hadoop.yarn.server.resourcemanager.scheduler.fifo.FifoScheduler"
DEFAULT_SLS_FIFO_SCHEDULER_METRICS = "org.apache.hadoop.yarn.sls.scheduler.FifoSchedulerMetrics"
# yarnball: fill realtimetrack.json's scheduler.*.timecost fields from measured wall time (then the file differs from
# run to run; off, they are 0 and the file is deterministic). The measured samplers are always in metrics/.
#: Fill realtimetrack.json's scheduler.*.timecost fields from measured wall time (the file then differs from run to
#: run).
YARNBALL_SLS_REALTIMETRACK_TIMECOST = "yarnball.sls.realtimetrack.timecost"
DEFAULT_YARNBALL_SLS_REALTIMETRACK_TIMECOST = False

# ----------------------------------------------------------------------------------------------------
# capacity-scheduler.xml (CapacitySchedulerConfiguration; capacity.md §8). Global keys are full keys;
# per-queue keys are suffixes of yarn.scheduler.capacity.<queue-path>.
# ----------------------------------------------------------------------------------------------------
CS_PREFIX = "yarn.scheduler.capacity."
CS_CONFIGURATION_FILE = "capacity-scheduler.xml"
YARN_SITE_CONFIGURATION_FILE = "yarn-site.xml"
ROOT = "root"

MAXIMUM_APPLICATIONS_SUFFIX = "maximum-applications"
#: Most applications pending or running in the cluster; each queue gets its share.
MAXIMUM_SYSTEM_APPLICATIONS = CS_PREFIX + MAXIMUM_APPLICATIONS_SUFFIX
DEFAULT_MAXIMUM_SYSTEM_APPLICATIONS = 10000
DEFAULT_MAXIMUM_SYSTEM_APPLICATIIONS = DEFAULT_MAXIMUM_SYSTEM_APPLICATIONS  # Hadoop's spelling (sic)
MAXIMUM_AM_RESOURCE_SUFFIX = "maximum-am-resource-percent"
#: Share of a queue's resources AM containers may use (a fraction).
MAXIMUM_APPLICATION_MASTERS_RESOURCE_PERCENT = CS_PREFIX + MAXIMUM_AM_RESOURCE_SUFFIX
DEFAULT_MAXIMUM_APPLICATION_MASTERS_RESOURCE_PERCENT = 0.1  # a fraction, not a percent
DEFAULT_MAXIMUM_APPLICATIONMASTERS_RESOURCE_PERCENT = DEFAULT_MAXIMUM_APPLICATION_MASTERS_RESOURCE_PERCENT
#: Every queue's maximum-applications, when set (-1: derived from capacities).
QUEUE_GLOBAL_MAX_APPLICATION = CS_PREFIX + "global-queue-max-application"
DEFAULT_QUEUE_GLOBAL_MAX_APPLICATION = -1  # UNDEFINED
#: DefaultResourceCalculator (memory only) or DominantResourceCalculator (memory and vcores).
RESOURCE_CALCULATOR_CLASS = CS_PREFIX + "resource-calculator"
DEFAULT_RESOURCE_CALCULATOR_CLASS = "org.apache.hadoop.yarn.util.resource.DefaultResourceCalculator"
DOMINANT_RESOURCE_CALCULATOR_CLASS = "org.apache.hadoop.yarn.util.resource.DominantResourceCalculator"
#: Scheduling opportunities missed before a node-local request takes a rack-local container.
NODE_LOCALITY_DELAY = CS_PREFIX + "node-locality-delay"
DEFAULT_NODE_LOCALITY_DELAY = 40
#: Extra missed opportunities before an off-switch container; -1: Hadoop's formula.
RACK_LOCALITY_ADDITIONAL_DELAY = CS_PREFIX + "rack-locality-additional-delay"
DEFAULT_RACK_LOCALITY_ADDITIONAL_DELAY = -1
#: Reset the missed-opportunity count after a rack-local allocation.
RACK_LOCALITY_FULL_RESET = CS_PREFIX + "rack-locality-full-reset"
DEFAULT_RACK_LOCALITY_FULL_RESET = True
#: With a reservation, keep looking at other nodes for room.
RESERVE_CONT_LOOK_ALL_NODES = CS_PREFIX + "reservations-continue-look-all-nodes"
DEFAULT_RESERVE_CONT_LOOK_ALL_NODES = True
#: Allocate more than one container per node heartbeat.
ASSIGN_MULTIPLE_ENABLED = CS_PREFIX + "per-node-heartbeat.multiple-assignments-enabled"
DEFAULT_ASSIGN_MULTIPLE_ENABLED = True
#: Most containers per node heartbeat; -1: no limit.
MAX_ASSIGN_PER_HEARTBEAT = CS_PREFIX + "per-node-heartbeat.maximum-container-assignments"
# -1 (unlimited) as in Hadoop 3.1-3.3 and capacity.md §8; recent trunk changed it to 100.
DEFAULT_MAX_ASSIGN_PER_HEARTBEAT = -1
#: Most off-switch containers per node heartbeat.
OFFSWITCH_PER_HEARTBEAT_LIMIT = CS_PREFIX + "per-node-heartbeat.maximum-offswitch-assignments"
DEFAULT_OFFSWITCH_PER_HEARTBEAT_LIMIT = 1
#: Prefix of the asynchronous-scheduling keys.
SCHEDULE_ASYNCHRONOUSLY_PREFIX = CS_PREFIX + "schedule-asynchronously"
#: Hadoop's asynchronous scheduling threads (not modelled: yarnball schedules on heartbeats or on a timer).
SCHEDULE_ASYNCHRONOUSLY_ENABLE = SCHEDULE_ASYNCHRONOUSLY_PREFIX + ".enable"
DEFAULT_SCHEDULE_ASYNCHRONOUSLY_ENABLE = False  # 3.1/3.2 value (capacity.md §8)
#: Asynchronous scheduling's threads (not modelled).
SCHEDULE_ASYNCHRONOUSLY_MAXIMUM_THREAD = SCHEDULE_ASYNCHRONOUSLY_PREFIX + ".maximum-threads"
DEFAULT_SCHEDULE_ASYNCHRONOUSLY_MAXIMUM_THREAD = 1
#: Asynchronous scheduling's interval (not modelled).
ASYNC_SCHEDULER_INTERVAL = SCHEDULE_ASYNCHRONOUSLY_PREFIX + ".scheduling-interval-ms"
DEFAULT_ASYNC_SCHEDULER_INTERVAL = 5
#: Asynchronous scheduling's backlog (not modelled).
SCHEDULE_ASYNCHRONOUSLY_MAXIMUM_PENDING_BACKLOGS = (
    SCHEDULE_ASYNCHRONOUSLY_PREFIX + ".maximum-pending-backlogs"
)
DEFAULT_SCHEDULE_ASYNCHRONOUSLY_MAXIMUM_PENDING_BACKLOGS = 100
#: Per-user queue metrics (not modelled).
ENABLE_USER_METRICS = CS_PREFIX + "user-metrics.enable"
DEFAULT_ENABLE_USER_METRICS = False
#: Killable containers are killed only when the scheduler needs their room.
LAZY_PREEMPTION_ENABLED = CS_PREFIX + "lazy-preemption-enabled"
DEFAULT_LAZY_PREEMPTION_ENABLED = False
#: Queue placement rules (not modelled: a job names its queue).
QUEUE_MAPPING = CS_PREFIX + "queue-mappings"
DEFAULT_QUEUE_MAPPING = ""
#: Whether queue mappings override the queue a job names (not modelled).
ENABLE_QUEUE_MAPPING_OVERRIDE = QUEUE_MAPPING + "-override.enable"
DEFAULT_ENABLE_QUEUE_MAPPING_OVERRIDE = False
#: Hadoop trunk's legacy queue mode; yarnball always runs the legacy mode.
LEGACY_QUEUE_MODE_ENABLED = CS_PREFIX + "legacy-queue-mode.enabled"  # trunk only
DEFAULT_LEGACY_QUEUE_MODE_ENABLED = True
# Global default of <queue-path>.max-parallel-apps (Integer.MAX_VALUE); also yarn.scheduler.capacity.user.*.
MAX_PARALLEL_APPLICATIONS = "max-parallel-apps"
DEFAULT_MAX_PARALLEL_APPLICATIONS = 2**31 - 1
#: With priority-utilization queue ordering, preempt for an under-utilized higher-priority queue.
QUEUE_PRIORITY_UTILIZATION_UNDERUTILIZED_PREEMPTION_ENABLED = (
    CS_PREFIX + "ordering-policy.priority-utilization.underutilized-preemption.enabled"
)
DEFAULT_QUEUE_PRIORITY_UTILIZATION_UNDERUTILIZED_PREEMPTION_ENABLED = False
#: That preemption's wait for a reserved container (ms).
QUEUE_PRIORITY_UTILIZATION_UNDERUTILIZED_PREEMPTION_DELAY = (
    CS_PREFIX + "ordering-policy.priority-utilization.underutilized-preemption.reserved-container-delay-ms"
)
DEFAULT_QUEUE_PRIORITY_UTILIZATION_UNDERUTILIZED_PREEMPTION_DELAY = 60000
#: That preemption may move reservations.
QUEUE_PRIORITY_UTILIZATION_UNDERUTILIZED_PREEMPTION_MOVE_RESERVATION = (
    CS_PREFIX + "ordering-policy.priority-utilization.underutilized-preemption.allow-move-reservation"
)
DEFAULT_QUEUE_PRIORITY_UTILIZATION_UNDERUTILIZED_PREEMPTION_MOVE_RESERVATION = False

# Per-queue suffixes (yarn.scheduler.capacity.<queue-path>.<suffix>) and their defaults.
DOT = "."
QUEUES = "queues"
CAPACITY = "capacity"
MAXIMUM_CAPACITY = "maximum-capacity"
USER_LIMIT = "minimum-user-limit-percent"
USER_LIMIT_FACTOR = "user-limit-factor"
USER_SETTINGS = "user-settings"
USER_WEIGHT = "weight"
STATE = "state"
ACCESSIBLE_NODE_LABELS = "accessible-node-labels"
DEFAULT_NODE_LABEL_EXPRESSION = "default-node-label-expression"  # a suffix despite its name (Hadoop's)
MAXIMUM_ALLOCATION_MB = "maximum-allocation-mb"
MAXIMUM_ALLOCATION_VCORES = "maximum-allocation-vcores"
ORDERING_POLICY = "ordering-policy"
FIFO_APP_ORDERING_POLICY = "fifo"
FAIR_APP_ORDERING_POLICY = "fair"
DEFAULT_APP_ORDERING_POLICY = FIFO_APP_ORDERING_POLICY
QUEUE_UTILIZATION_ORDERING_POLICY = "utilization"
QUEUE_PRIORITY_UTILIZATION_ORDERING_POLICY = "priority-utilization"
DEFAULT_QUEUE_ORDERING_POLICY = QUEUE_UTILIZATION_ORDERING_POLICY
# FairOrderingPolicy.ENABLE_SIZE_BASED_WEIGHT, read under <queue-path>.ordering-policy.
ENABLE_SIZE_BASED_WEIGHT = "fair.enable-size-based-weight"
ACL_SUBMIT_APPLICATIONS = "acl_submit_applications"
ACL_ADMINISTER_QUEUE = "acl_administer_queue"
PRIORITY = "priority"
DEFAULT_APPLICATION_PRIORITY = "default-application-priority"  # a suffix despite its name (Hadoop's)
DEFAULT_CONFIGURATION_APPLICATION_PRIORITY = 0
QUEUE_PREEMPTION_DISABLED = "disable_preemption"
INTRA_QUEUE_PREEMPTION_DISABLED = "intra-queue-preemption.disable_preemption"
IS_RESERVABLE = "reservable"
RESERVATION_SHOW_RESERVATION_AS_QUEUE = "show-reservations-as-queues"
ALLOW_ZERO_CAPACITY_SUM = "allow-zero-capacity-sum"
DEFAULT_ALLOW_ZERO_CAPACITY_SUM = False
MINIMUM_RESOURCE = "min-resource"
MAXIMUM_RESOURCE = "max-resource"
# (The defaults below are named X_DEFAULT, not DEFAULT_X: defaults() must not load the two global ones into every
# Configuration, which would change what existing runs read.)
# Weight-mode capacities (Hadoop 3.3+): ``capacity = 2w`` (CapacitySchedulerConfiguration.WEIGHT_SUFFIX).
WEIGHT_SUFFIX = "w"
# Flexible auto queue creation (Hadoop 3.3+, "auto-queue-creation v2"): per-queue suffixes and their defaults.
AUTO_QUEUE_CREATION_V2_PREFIX = "auto-queue-creation-v2."
AUTO_QUEUE_CREATION_V2_ENABLED = AUTO_QUEUE_CREATION_V2_PREFIX + "enabled"
AUTO_QUEUE_CREATION_V2_ENABLED_DEFAULT = False
AUTO_QUEUE_CREATION_V2_MAX_QUEUES = AUTO_QUEUE_CREATION_V2_PREFIX + "max-queues"
AUTO_QUEUE_CREATION_V2_MAX_QUEUES_DEFAULT = 1000
# Per queue, and globally as yarn.scheduler.capacity.auto-queue-creation-v2.maximum-queue-depth.
MAXIMUM_QUEUE_DEPTH = AUTO_QUEUE_CREATION_V2_PREFIX + "maximum-queue-depth"
MAXIMUM_QUEUE_DEPTH_DEFAULT = 2
# AutoCreatedQueueTemplate: template.*, leaf-template.*, parent-template.* under a parent (or a root.* wildcard path).
AUTO_QUEUE_TEMPLATE_PREFIX = AUTO_QUEUE_CREATION_V2_PREFIX + "template."
AUTO_QUEUE_LEAF_TEMPLATE_PREFIX = AUTO_QUEUE_CREATION_V2_PREFIX + "leaf-template."
AUTO_QUEUE_PARENT_TEMPLATE_PREFIX = AUTO_QUEUE_CREATION_V2_PREFIX + "parent-template."
# AutoCreatedQueueDeletionPolicy: per queue (default true), and the idle time in seconds (global).
AUTO_CREATE_CHILD_QUEUE_AUTO_REMOVAL_ENABLE = AUTO_QUEUE_CREATION_V2_PREFIX + "queue-auto-removal.enable"
AUTO_CREATE_CHILD_QUEUE_AUTO_REMOVAL_ENABLE_DEFAULT = True
#: A dynamic (auto-created v2) queue idle this long is removed by AutoCreatedQueueDeletionPolicy (s).
AUTO_CREATE_CHILD_QUEUE_EXPIRED_TIME = CS_PREFIX + AUTO_QUEUE_CREATION_V2_PREFIX + "queue-expiration-time"
AUTO_CREATE_CHILD_QUEUE_EXPIRED_TIME_DEFAULT = 300
# The AutoCreatedQueueDeletionPolicy's class (a yarn.resourcemanager.scheduler.monitor.policies entry); it runs every
# AUTO_CREATE_CHILD_QUEUE_EXPIRED_TIME x 1000 ms (AutoCreatedQueueDeletionPolicy.init).
AUTO_CREATED_QUEUE_DELETION_POLICY = (
    "org.apache.hadoop.yarn.server.resourcemanager.scheduler.capacity.AutoCreatedQueueDeletionPolicy"
)
# QueueManagementDynamicEditPolicy's interval (legacy auto-created leaf queues under a ManagedParentQueue, not
# modelled); the AutoCreatedQueueDeletionPolicy does not read it.
#: QueueManagementDynamicEditPolicy's period for legacy auto-created leaf queues (ms).
QUEUE_MANAGEMENT_MONITORING_INTERVAL = "yarn.resourcemanager.monitor.capacity.queue-management.monitoring-interval"
QUEUE_MANAGEMENT_MONITORING_INTERVAL_DEFAULT = 1500
# Legacy auto-created leaf queues (Hadoop 3.1+, ManagedParentQueue / AutoCreatedLeafQueue): per-queue suffixes of
# CapacitySchedulerConfiguration (AUTO_CREATE_CHILD_QUEUE_ENABLED, AUTO_CREATED_LEAF_QUEUE_TEMPLATE_PREFIX, ...).
AUTO_CREATE_CHILD_QUEUE_ENABLED = "auto-create-child-queue.enabled"
AUTO_CREATE_CHILD_QUEUE_ENABLED_DEFAULT = False
AUTO_CREATED_LEAF_QUEUE_TEMPLATE_PREFIX = "leaf-queue-template"
AUTO_CREATE_QUEUE_MAX_QUEUES = "auto-create-child-queue.max-queues"
AUTO_CREATE_QUEUE_MAX_QUEUES_DEFAULT = 1000
FAIL_AUTO_CREATION_ON_EXCEEDING_CAPACITY = "auto-create-child-queue.fail-on-exceeding-parent-capacity"
FAIL_AUTO_CREATION_ON_EXCEEDING_CAPACITY_DEFAULT = False
AUTO_CREATED_QUEUE_MANAGEMENT_POLICY = "auto-create-child-queue.management-policy"
AUTO_CREATED_QUEUE_MANAGEMENT_POLICY_DEFAULT = (
    "org.apache.hadoop.yarn.server.resourcemanager.scheduler.capacity.queuemanagement."
    "GuaranteedOrZeroCapacityOverTimePolicy"
)
# The SchedulingEditPolicy that runs the management policies (a yarn.resourcemanager.scheduler.monitor.policies entry),
# every QUEUE_MANAGEMENT_MONITORING_INTERVAL ms.
QUEUE_MANAGEMENT_DYNAMIC_EDIT_POLICY = (
    "org.apache.hadoop.yarn.server.resourcemanager.scheduler.capacity.QueueManagementDynamicEditPolicy"
)

UNDEFINED = -1
MINIMUM_CAPACITY_VALUE = 0.0
MAXIMUM_CAPACITY_VALUE = 100.0
DEFAULT_MAXIMUM_CAPACITY_VALUE = -1.0
DEFAULT_USER_LIMIT = 100
DEFAULT_USER_LIMIT_FACTOR = 1.0
DEFAULT_USER_WEIGHT = 1.0
DEFAULT_QUEUE_PRIORITY = 0
ALL_ACL = "*"
NONE_ACL = " "
QUEUE_STATE_RUNNING = "RUNNING"
DEFAULT_QUEUE_STATE = QUEUE_STATE_RUNNING


# ----------------------------------------------------------------------------------------------------
# The defaults table
# ----------------------------------------------------------------------------------------------------
def _as_hadoop_string(value: Any) -> str:
    """Render a Python default the way it would be written in yarn-default.xml."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def defaults() -> dict[str, str]:
    """Return key -> default string for every ``X = "yarn..."`` constant that has a ``DEFAULT_X``.

    Rebuilt from the module's globals on each call, so pairs appended later in this module are included.
    Suffix constants (per-queue keys) do not start with "yarn." and are skipped.
    """
    table: dict[str, str] = {}
    namespace = globals()
    for name, key in sorted(namespace.items()):
        if name.startswith(("_", "DEFAULT_")) or not isinstance(key, str) or not key.startswith("yarn."):
            continue
        default = namespace.get("DEFAULT_" + name)
        if default is None or key.endswith("."):
            continue
        table[key] = _as_hadoop_string(default)
    return table


DEFAULTS: dict[str, str] = defaults()

# Helpers: append new ``X = "yarn..."`` / ``DEFAULT_X = value`` pairs below this line. ``defaults()`` picks
# them up; to have them in the DEFAULTS dict too, also append ``DEFAULTS[X] = _as_hadoop_string(DEFAULT_X)``.

# ----------------------------------------------------------------------------------------------------
# Container packing and elastic clusters. FairScheduler's continuous-scheduling switch, then
# yarnball's own autoscaler keys (no Hadoop counterpart: Qubole's autoscaler is not part of Apache Hadoop).
# ----------------------------------------------------------------------------------------------------
#: Schedule on a timer (every continuous-scheduling-sleep-ms) instead of on node heartbeats.
CONTINUOUS_SCHEDULING_ENABLED = "yarn.scheduler.fair.continuous-scheduling-enabled"
DEFAULT_CONTINUOUS_SCHEDULING_ENABLED = False
DEFAULTS[CONTINUOUS_SCHEDULING_ENABLED] = _as_hadoop_string(DEFAULT_CONTINUOUS_SCHEDULING_ENABLED)
# yarnball's elastic cluster (launcher/_elastic.py; Python API: yarnball.launcher.ElasticConfig). Not Hadoop keys,
# hence the "yarnball." prefix: defaults() skips them and the autoscaler applies the defaults below itself.
#: Attach an autoscaler to the cluster (yarnball's elastic cluster).
ELASTIC_ENABLED = "yarnball.elastic.enabled"  # attach an autoscaler to the Cluster
DEFAULT_ELASTIC_ENABLED = False
#: The autoscaler never goes below this many nodes.
ELASTIC_MIN_NODES = "yarnball.elastic.min-nodes"  # never downscale below this many nodes
DEFAULT_ELASTIC_MIN_NODES = 1
#: The autoscaler never goes above this many nodes; -1: the initial node count.
ELASTIC_MAX_NODES = "yarnball.elastic.max-nodes"  # never upscale beyond; -1 = the cluster's initial node count
DEFAULT_ELASTIC_MAX_NODES = -1
#: Requests waiting this long make the autoscaler add nodes (ms).
ELASTIC_UPSCALE_WAIT_MS = "yarnball.elastic.upscale.pending-wait-ms"  # requests waiting this long trigger an upscale
DEFAULT_ELASTIC_UPSCALE_WAIT_MS = 180_000  # Qubole: three minutes
#: A node idle and stateless this long is removed (ms).
ELASTIC_DOWNSCALE_COOLDOWN_MS = "yarnball.elastic.downscale.cooldown-ms"  # idle (and stateless) this long -> removed
DEFAULT_ELASTIC_DOWNSCALE_COOLDOWN_MS = 300_000
#: How often the autoscaler decides (ms).
ELASTIC_CHECK_INTERVAL_MS = "yarnball.elastic.check-interval-ms"  # how often the autoscaler decides
DEFAULT_ELASTIC_CHECK_INTERVAL_MS = 10_000
#: An added node registers this long after it is asked for (ms).
ELASTIC_NODE_STARTUP_MS = "yarnball.elastic.node-startup-ms"  # an added node registers after this boot time
DEFAULT_ELASTIC_NODE_STARTUP_MS = 60_000
# -- Opportunistic containers: MapReduce's share and yarnball's own NM policies (beyond Hadoop) ------------------
# MRJobConfig.MR_NUM_OPPORTUNISTIC_MAPS_PERCENT: the share of a job's maps asked as OPPORTUNISTIC (0..100).
#: Share of a MapReduce job's maps asked as OPPORTUNISTIC (0..100; MRJobConfig).
MR_NUM_OPPORTUNISTIC_MAPS_PERCENT = "mapreduce.job.num-opportunistic-maps-percent"
DEFAULT_MR_NUM_OPPORTUNISTIC_MAPS_PERCENT = 0
# Not Hadoop keys (so not in DEFAULTS, which holds yarn.* only): yarnball's pluggable NodeManager policies;
# FIFO / LIFO are Hadoop's ContainerScheduler.
#: Order of a NodeManager's queued OPPORTUNISTIC containers: FIFO (Hadoop), SHORTEST_TASK_FIRST or
#: CLOSEST_TO_COMPLETION.
NM_OPPORTUNISTIC_QUEUE_ORDER = "yarnball.nodemanager.opportunistic-containers-queue-order"
DEFAULT_NM_OPPORTUNISTIC_QUEUE_ORDER = "FIFO"
#: Which OPPORTUNISTIC containers a NodeManager kills for a GUARANTEED one: LIFO (Hadoop) or FEWEST_KILLS.
NM_OPPORTUNISTIC_KILL_POLICY = "yarnball.nodemanager.opportunistic-containers-kill-policy"
DEFAULT_NM_OPPORTUNISTIC_KILL_POLICY = "LIFO"

# -- yarnball's own simulation keys (not Hadoop's; "yarnball." prefix, so not in DEFAULTS) -----------------------
#: The exact shortcuts, all at once (actors/_shortcuts/__init__.py): false leaves no event out (no skipped, dormant,
#: deferred or in-place heartbeat, no early AM sleep, every reply queued), whatever its four sub-switches
#: (``yarnball.simulation.skip-idle-heartbeats``, ``skip-idle-am-heartbeats``, ``dormant-idle-ams``,
#: ``lazy-running-reports``) say; results equal a run with it on (tests/test_exact_shortcuts.py). For debugging.
SIMULATION_EXACT_SHORTCUTS = "yarnball.simulation.exact-shortcuts"
DEFAULT_SIMULATION_EXACT_SHORTCUTS = True
#: Sub-switch of ``yarnball.simulation.exact-shortcuts``: skip NodeManager heartbeats that provably change nothing
#: (actors/_shortcuts/_routes.py); results equal a run that processes every heartbeat
#: (tests/test_heartbeat_skipping.py). Only the scheduler's NODE_UPDATE count differs.
SIMULATION_SKIP_IDLE_HEARTBEATS = "yarnball.simulation.skip-idle-heartbeats"
DEFAULT_SIMULATION_SKIP_IDLE_HEARTBEATS = True

# -- yarnball: container tokens and NMTokens -----------------------------------------------------------------------
#: False: the RM signs no container and hands out no NMToken, and sends the NMs no master keys, so they check none
#: (actors/_secretmanagers.py), as in Hadoop's SLS, whose simulated NMs have no ContainerManager. The per-container
#: MACs are ~10% of a busy run (bench/RESULTS.md). AMRMTokens and client ACLs stay. A run whose AMs only use the
#: containers and tokens they were given has the same outputs either way (tests/test_security_tokens_off.py).
SIMULATION_CONTAINER_TOKENS = "yarnball.simulation.container-tokens"
DEFAULT_SIMULATION_CONTAINER_TOKENS = True

# -- yarnball: huge pages for the process's small objects -------------------------------------------------------
#: Give CPython's small-object allocator arenas backed by transparent huge pages (launcher/_memory.py,
#: yarnball/_hugearena.c), installed when the process builds its first cluster, for the life of the process. Fewer
#: TLB misses in large runs; outputs are the same either way (tests/test_memory.py).
SIMULATION_HUGE_PAGE_ARENAS = "yarnball.simulation.huge-page-arenas"
DEFAULT_SIMULATION_HUGE_PAGE_ARENAS = True

# -- yarnball: skipping idle ApplicationMaster heartbeats --------------------------------------------------------
#: Sub-switch of ``yarnball.simulation.exact-shortcuts``: skip AM allocate calls that send nothing and would get
#: nothing back (_shortcuts/_amheartbeats.py); results equal a run that processes every allocate
#: (tests/test_am_heartbeat_skipping.py). Only the scheduler's allocate count differs. Switched off under the same
#: conditions as NM skipping (modelled latency, opportunistic containers, packing, autoscaling).
SIMULATION_SKIP_IDLE_AM_HEARTBEATS = "yarnball.simulation.skip-idle-am-heartbeats"
DEFAULT_SIMULATION_SKIP_IDLE_AM_HEARTBEATS = True

# -- yarnball: dormant idle ApplicationMasters -------------------------------------------------------------------
#: Sub-switch of ``yarnball.simulation.exact-shortcuts``: let a quiet AM whose allocates are skipped sleep through
#: its heartbeats, with no kernel event at all, until work appears for it (actors/_shortcuts/_amdormancy.py);
#: results equal a run that processes every heartbeat (tests/test_am_dormancy.py). Only effective where AM skipping
#: is on (it builds on it).
SIMULATION_DORMANT_IDLE_AMS = "yarnball.simulation.dormant-idle-ams"
DEFAULT_SIMULATION_DORMANT_IDLE_AMS = True

# -- yarnball: lazily settled RUNNING reports --------------------------------------------------------------------
#: Sub-switch of ``yarnball.simulation.exact-shortcuts``: leave out the heartbeat of a dormant NodeManager that
#: would only report containers newly RUNNING to a full node, and settle its effect when anything can observe it
#: (_shortcuts/_lazyrunning.py); results equal a run with it off (tests/test_lazy_running.py). Only effective where
#: NM skipping is on (it builds on it).
SIMULATION_LAZY_RUNNING_REPORTS = "yarnball.simulation.lazy-running-reports"
DEFAULT_SIMULATION_LAZY_RUNNING_REPORTS = True

# -- yarnball: the Ray backend's window loop ---------------------------------------------------------------------
#: Windows the coordinator runs with one plain Ray actor call per shard host before it compiles the window loop
#: into a Ray Compiled Graph (launcher/_ray.py): compiling takes ~2 s, then a window costs a fraction of a plain
#: call's round trip. 0 compiles before the first window; -1 never compiles. Results are the same either way.
RAY_COMPILED_GRAPH_AFTER_WINDOWS = "yarnball.ray.compiled-graph-after-windows"
DEFAULT_RAY_COMPILED_GRAPH_AFTER_WINDOWS = 1000
#: Run shard host 0 (the ResourceManager's) in the driver's own process instead of a Ray actor (launcher/_ray.py):
#: its window runs while the other hosts run theirs, so the coordinator works instead of spinning on a channel and
#: each window needs one Ray process fewer. Results are the same either way.
RAY_RM_HOST_IN_DRIVER = "yarnball.ray.rm-host-in-driver"
DEFAULT_RAY_RM_HOST_IN_DRIVER = True
#: With 2 shard hosts, the share of the NodeManagers and ApplicationMasters placed on host 0 beside the
#: ResourceManager (launcher/_shard.py BalancedPlacement; with 3 or more hosts the RM has host 0 to itself). Only
#: where the actors run changes, never the results.
RAY_RM_HOST_SHARE = "yarnball.ray.rm-host-share"
DEFAULT_RAY_RM_HOST_SHARE = 0.25

# -- yarnball: where a live callable container runs (actors/executors/_live.py) -----------------------------------
#: ``process``: a forkserver process of the NodeManager's machine per container; ``ray``: a Ray task pinned to the
#: NodeManager's Ray node (Ray must be initialized); ``auto``: ``ray`` when ``ray.is_initialized()``, else
#: ``process``. Commands always run as processes.
EXECUTOR_CALLABLE_RUNNER = "yarnball.executor.callable-runner"
DEFAULT_EXECUTOR_CALLABLE_RUNNER = "auto"
#: Bytes of cross-host batches the coordinator may keep to rebuild a dead shard host (launcher/_hostrecovery.py):
#: every batch delivered to every host since the run began, replayed into a new host actor when one dies. Past the
#: bound the recording is dropped and a dead host stops the run, as with 0 (recovery off).
RAY_HOST_RECOVERY_MAX_BYTES = "yarnball.ray.host-recovery.max-bytes"
DEFAULT_RAY_HOST_RECOVERY_MAX_BYTES = 256 * 1024 * 1024
