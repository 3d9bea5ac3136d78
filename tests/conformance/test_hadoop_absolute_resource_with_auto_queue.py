"""Legacy auto-created leaf queues (ManagedParentQueue, Hadoop 3.1+) with absolute-resource templates, ported from
Hadoop's TestAbsoluteResourceWithAutoQueue (trunk, the version with testAutoCreatedLeafQueueRecoversCapacityAfterNode
Registers, YARN-11682).

Hadoop places the test user's applications with a group queue mapping (``g:testusergroup:queueD.%user``, the users
``testuser``, ``testuser1``, ``testuser2`` in ``testusergroup``: TestCapacitySchedulerAutoCreatedQueueBase
.setupGroupQueueMappings); yarnball models no placement rules, so each submission names the mapped queue
(``queueD.<user>``: the ApplicationPlacementContext's parent and leaf). ``submitApp``'s checks of
``getAppsInQueue(parent)`` / ``getAppsInQueue(leaf)`` are the queues' application counts; ``cs.killAllAppsInQueue``
is the attempt's and the application's removal; ``policy.computeQueueManagementChanges()`` +
``validateAndApplyQueueManagementChanges`` are the same calls on yarnball's objects (``cs.managed_parents``).
"""

from __future__ import annotations

import pytest
from test_capacity_scheduler_helpers import CS, GB, add_node, ask, heartbeat, make_conf, make_scheduler, node

from yarnball.errors import ConfigurationError
from yarnball.policies.capacity import CapacityScheduler, LeafQueue
from yarnball.policies.capacity._managedparent import ManagedParentQueue
from yarnball.policies.capacity._queues import f32
from yarnball.protocols import (
    AppAddedSchedulerEvent,
    AppAttemptAddedSchedulerEvent,
    AppAttemptRemovedSchedulerEvent,
    ApplicationAttemptId,
    ApplicationId,
    AppRemovedSchedulerEvent,
    Priority,
    Resource,
)

EPSILON = 1e-4  # CSQueueUtils.EPSILON
DRC = "org.apache.hadoop.yarn.util.resource.DominantResourceCalculator"
A, B, C, D = "root.queueA", "root.queueB", "root.queueC", "root.queueD"
TEST_GROUPUSER, TEST_GROUPUSER1, TEST_GROUPUSER2 = "testuser", "testuser1", "testuser2"

QUEUE_A_MINRES, QUEUE_A_MAXRES = Resource(100 * GB, 10), Resource(200 * GB, 30)
QUEUE_B_MINRES, QUEUE_B_MAXRES = Resource(50 * GB, 10), Resource(150 * GB, 30)
QUEUE_C_MINRES, QUEUE_C_MAXRES = Resource(25 * GB, 5), Resource(150 * GB, 20)
QUEUE_D_MINRES, QUEUE_D_MAXRES = Resource(25 * GB, 5), Resource(150 * GB, 20)


def vec(r: Resource) -> str:
    return f"[memory={r.memory_mb},vcores={r.vcores}]"


def simple_queues(capacity_needed: bool, min_max: bool) -> dict[str, dict[str, object]]:
    """setupSimpleQueueConfiguration(isCapacityNeeded) (+ setupMinMaxResourceConfiguration)."""
    queues: dict[str, dict[str, object]] = {p: {} for p in (A, B, C, D)}
    if capacity_needed:
        for path in (A, B, C, D):
            queues[path]["capacity"] = 25
    queues[C].update({
        "auto-create-child-queue.enabled": "true",
        "leaf-queue-template.capacity": vec(QUEUE_C_MINRES),
        "leaf-queue-template.maximum-capacity": vec(QUEUE_C_MAXRES),
    })  # fmt: skip
    queues[D].update({
        "auto-create-child-queue.enabled": "true",
        "leaf-queue-template.capacity": vec(Resource(10 * GB, 2)),
        "leaf-queue-template.maximum-capacity": vec(QUEUE_D_MAXRES),
    })  # fmt: skip
    if min_max:
        for path, lo, hi in ((A, QUEUE_A_MINRES, QUEUE_A_MAXRES), (B, QUEUE_B_MINRES, QUEUE_B_MAXRES),
                             (C, QUEUE_C_MINRES, QUEUE_C_MAXRES), (D, QUEUE_D_MINRES, QUEUE_D_MAXRES)):  # fmt: skip
            queues[path].update({"capacity": vec(lo), "maximum-capacity": vec(hi)})
    return queues


def submit_app(cs: CapacityScheduler, n: int, leaf: str, user: str, in_parent: int, in_leaf: int) -> ApplicationId:
    """TestCapacitySchedulerAutoCreatedQueueBase.submitApp: submitted to the mapped queue, then the two counts."""
    app = ApplicationId(1, n)
    cs.handle(AppAddedSchedulerEvent(application_id=app, queue=f"queueD.{leaf}", user=user, priority=Priority(0)))
    cs.handle(AppAttemptAddedSchedulerEvent(application_attempt_id=ApplicationAttemptId(app, 1)))
    parent, queue = cs.get_queue(D), cs.get_queue(leaf)
    assert parent is not None and parent.num_applications == in_parent
    assert isinstance(queue, LeafQueue) and len(queue.active) + len(queue.pending) == in_leaf
    return app


def kill_all_apps_in_queue(cs: CapacityScheduler, app: ApplicationId) -> None:
    """cs.killAllAppsInQueue + waitForState(KILLED): the attempt and the application leave the scheduler."""
    cs.handle(AppAttemptRemovedSchedulerEvent(application_attempt_id=ApplicationAttemptId(app, 1)))
    cs.handle(AppRemovedSchedulerEvent(application_id=app, final_state="KILLED"))


def validate_capacities(q: LeafQueue, capacity: float, abs_cap: float, max_cap: float, abs_max: float) -> int:
    assert q.capacity == pytest.approx(capacity, abs=EPSILON)
    assert q.abs_cap == pytest.approx(abs_cap, abs=EPSILON)
    assert q.max_capacity == pytest.approx(max_cap, abs=EPSILON)
    assert q.abs_max == pytest.approx(abs_max, abs=EPSILON)
    return 4


def validate_capacities_by_label(mp: ManagedParentQueue, leaf: LeafQueue) -> int:
    template = mp.get_leaf_queue_template().capacities
    assert leaf.capacity == pytest.approx(template.capacity, abs=EPSILON)
    assert leaf.max_capacity == pytest.approx(template.max_capacity, abs=EPSILON)
    return 2


def _multiply(r: Resource, by: float) -> Resource:
    """Resources.multiply (truncating)."""
    return Resource(int(r.memory_mb * by), int(r.vcores * by))


def validate_effective_min_resource(cs: CapacityScheduler, mp: ManagedParentQueue, leaf: LeafQueue,
                                    capacity: float) -> int:  # fmt: skip
    """validateEffectiveMinResource: the entitlement's capacity times the parent's absolute capacity, of the
    cluster, is the leaf's absolute capacity of it and its effective minimum (Hadoop's second equality: see the
    test using this for where yarnball's differs)."""
    cluster = cs.cluster_resource
    eff_min = _multiply(cluster, f32(capacity * mp.queue.abs_cap))
    assert eff_min == _multiply(cluster, leaf.abs_cap)
    n = 1
    if leaf.abs_cap > 0:
        assert eff_min.memory_mb > 0  # Resources.greaterThan(rc, cluster, effMin, none): memory decides
    else:
        assert eff_min == Resource(0, 0)
        assert leaf.effective_min_resource == eff_min
        n += 1
    return n + 1


def started(queues: dict[str, dict[str, object]], node: bool = True, **extra: object) -> CapacityScheduler:
    cs = make_scheduler(queues, **extra)
    if node:
        add_node(cs, 0, 250 * GB, 40)  # mockRM.registerNode("127.0.0.1:1234", 250 * GB, 40)
    return cs


# -- TestAbsoluteResourceWithAutoQueue -----------------------------------------------------------------------------
def test_auto_create_leaf_queue_creation_testAutoCreateLeafQueueCreation():
    """Two leaves get the template (0.4 of queueD, 0.04 absolute), the third zero; once testuser1's application is
    gone, the monitor's round moves its entitlement to testuser2."""
    cs = started(simple_queues(False, True))
    mp = cs.managed_parents[D]
    policy = mp.policy

    submit_app(cs, 1, TEST_GROUPUSER, TEST_GROUPUSER, 1, 1)
    leaf = cs.get_queue(TEST_GROUPUSER)
    assert isinstance(leaf, LeafQueue) and leaf.parent is mp.queue
    validate_capacities(leaf, 0.4, 0.04, 1, 0.6)
    validate_capacities_by_label(mp, leaf)
    # validateInitialQueueEntitlement
    validate_capacities_by_label(mp, leaf)
    assert policy.is_active(leaf)
    assert policy.get_absolute_activated_child_queue_capacity() == pytest.approx(0.04, abs=EPSILON)
    validate_effective_min_resource(cs, mp, leaf, mp.template.capacities.capacity)
    # validateUserAndAppLimits(400, 400) and the FIFO ordering policy
    assert (leaf.max_apps, leaf.max_apps_per_user) == (400, 400)
    assert not leaf.fair

    user1_app = submit_app(cs, 2, TEST_GROUPUSER1, TEST_GROUPUSER1, 2, 1)
    leaf1 = cs.get_queue(TEST_GROUPUSER1)
    assert isinstance(leaf1, LeafQueue)
    validate_capacities(leaf1, 0.4, 0.04, 1, 0.6)
    validate_capacities_by_label(mp, leaf1)
    assert leaf1.parent is mp.queue
    validate_capacities_by_label(mp, leaf1)
    assert policy.is_active(leaf1)
    assert policy.get_absolute_activated_child_queue_capacity() == pytest.approx(0.08, abs=EPSILON)
    validate_effective_min_resource(cs, mp, leaf1, mp.template.capacities.capacity)

    submit_app(cs, 3, TEST_GROUPUSER2, TEST_GROUPUSER2, 3, 1)
    leaf2 = cs.get_queue(TEST_GROUPUSER2)
    assert isinstance(leaf2, LeafQueue)
    validate_capacities(leaf2, 0.0, 0.0, 1, 0.6)
    validate_capacities(leaf1, 0.4, 0.04, 1, 0.6)
    validate_capacities(leaf, 0.4, 0.04, 1, 0.6)
    assert policy.get_absolute_activated_child_queue_capacity() == pytest.approx(0.08, abs=EPSILON)

    kill_all_apps_in_queue(cs, user1_app)
    changes = policy.compute_queue_management_changes(cs)
    mp.validate_and_apply_queue_management_changes(cs, changes)

    # validateDeactivatedQueueEntitlement(testuser1, 0.08)
    assert policy.get_absolute_activated_child_queue_capacity() == pytest.approx(0.08, abs=EPSILON)
    assert not policy.is_active(leaf1)
    (change1,) = [c for c in changes if c.queue is leaf1]
    assert (change1.template.capacities.capacity, change1.template.capacities.max_capacity) == (0.0, 1.0)
    validate_effective_min_resource(cs, mp, leaf1, 0.0)
    # validateActivatedQueueEntitlement(testuser2, 0.08)
    assert policy.is_active(leaf2)
    assert policy.get_absolute_activated_child_queue_capacity() == pytest.approx(0.08, abs=EPSILON)
    (change2,) = [c for c in changes if c.queue is leaf2]
    template = mp.template.capacities
    assert (change2.template.capacities.capacity, change2.template.capacities.max_capacity) == (
        template.capacity,
        template.max_capacity,
    )
    validate_effective_min_resource(cs, mp, leaf2, template.capacity)


def test_absolute_leaves_effective_min_is_the_template_minimum_testAutoCreateLeafQueueCreation():
    """validateEffectiveMinResource's ``assertEquals(effMinCapacity, leafQueue.getEffectiveCapacity(label))`` for an
    active leaf: Hadoop's test expects cluster x 0.04 = <memory:10240, vCores:1> (Resources.multiply truncates 1.6
    vcores), while AutoCreatedLeafQueue.mergeCapacities and the legacy updateEffectiveResources both give an
    absolute-mode leaf its configured minimum, the template's <memory:10240, vCores:2>; yarnball follows the code
    (the two agree on memory, all the DefaultResourceCalculator compares)."""
    cs = started(simple_queues(False, True))
    submit_app(cs, 1, TEST_GROUPUSER, TEST_GROUPUSER, 1, 1)
    leaf = cs.get_queue(TEST_GROUPUSER)
    assert isinstance(leaf, LeafQueue)
    assert leaf.effective_min_resource == Resource(10 * GB, 2)
    assert _multiply(cs.cluster_resource, leaf.abs_cap) == Resource(10 * GB, 1)


def test_validate_leaf_queue_template_configurations_testValidateLeafQueueTemplateConfigurations():
    """A percentage parent with an absolute template is refused, with Hadoop's message (here naming no key: it
    is about two keys)."""
    with pytest.raises(ConfigurationError) as err:
        make_scheduler(simple_queues(True, False))
    assert str(err.value).endswith(
        "Managed Parent Queue root.queueC config type is different from leaf queue template config type"
    )


def test_application_running_with_drf_testApplicationRunningWithDRF():
    """Under the DominantResourceCalculator the placed application creates its leaf and its AM runs."""
    cs = started(simple_queues(False, True), **{f"{CS}resource-calculator": DRC})
    app = ApplicationId(1, 1)
    cs.handle(AppAddedSchedulerEvent(application_id=app, queue=f"queueD.{TEST_GROUPUSER}", user=TEST_GROUPUSER))
    cs.handle(AppAttemptAddedSchedulerEvent(application_attempt_id=ApplicationAttemptId(app, 1)))
    cs.allocate(ApplicationAttemptId(app, 1), [ask(1024, priority=0)], [])
    got = heartbeat(cs, node(0))  # MockRM.launchAndRegisterAM: the AM container is allocated
    assert [a.attempt_id for a in got] == [ApplicationAttemptId(app, 1)]
    leaf = cs.get_queue(TEST_GROUPUSER)
    assert leaf is not None, "Auto Creation of Queue failed"
    assert leaf.parent is cs.get_queue(D)


def test_recovers_capacity_after_node_registers_testAutoCreatedLeafQueueRecoversCapacityAfterNodeRegisters():
    """Created while the cluster has no resource: zero and inactive; after a node registers, the monitor's round
    gives it the template's capacity."""
    cs = started(simple_queues(False, True), node=False)
    submit_app(cs, 1, TEST_GROUPUSER, TEST_GROUPUSER, 1, 1)
    leaf = cs.get_queue(TEST_GROUPUSER)
    mp = cs.managed_parents[D]
    assert isinstance(leaf, LeafQueue) and leaf.parent is mp.queue
    policy = mp.policy
    assert leaf.capacity == pytest.approx(0.0, abs=EPSILON)
    assert leaf.abs_cap == pytest.approx(0.0, abs=EPSILON)
    assert not policy.is_active(leaf), "Queue must not be activated while the cluster resource is zero"

    add_node(cs, 0, 250 * GB, 40)
    changes = policy.compute_queue_management_changes(cs)
    mp.validate_and_apply_queue_management_changes(cs, changes)

    validate_capacities(leaf, 0.4, 0.04, 1, 0.6)
    assert policy.is_active(leaf), "Queue must be activated once the cluster resource is available"
    assert policy.get_absolute_activated_child_queue_capacity() == pytest.approx(0.04, abs=EPSILON)


def test_make_conf_reads_template_keys():
    """The template keys reach the configuration as Hadoop's setters write them."""
    conf = make_conf(simple_queues(False, True))
    assert conf.get_minimum_resource_requirement("root.queueD.leaf-queue-template") == (10 * GB, 2)
