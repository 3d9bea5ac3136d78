"""Weight-mode capacities and flexible auto queue creation (auto-queue-creation v2), ported from Hadoop's
TestCapacitySchedulerNewQueueAutoCreation (trunk, legacy queue mode).

Hadoop's ``setUp`` builds root (1w) with a (1w, auto-creation v2 on) holding a1 (1w) and b (1w); auto creation is also
on for root and for the undeclared root.e. The ``csConf`` Hadoop mutates between refreshes is :class:`CsConf` here:
the same setters over a flat key map, turned into a fresh configuration at each start or ``reinitialize``.
``autoQueueHandler.createQueue(path)`` is ``CapacityScheduler.create_queue``; ``submitApp(cs, user, queue, parent)``
(an ApplicationPlacementContext) is a submission to the full path ``parent.queue``; Hadoop's ``getQueueCapacities()
.getWeight()`` is ``weight``, ``getQueueResourceQuotas().getEffectiveMinResource()`` ``effective_min_resource``.
The monitor of ``AutoCreatedQueueDeletionPolicy`` runs its rounds by hand on virtual time (Hadoop waits on the wall
clock).
"""

from __future__ import annotations

import pytest
from test_capacity_scheduler_helpers import CS, GB, add_node

from yarnball.actors._queuedeletion import queue_deletion_enabled
from yarnball.errors import ConfigurationError
from yarnball.policies.capacity import (
    CapacityScheduler,
    CapacitySchedulerConfiguration,
    LeafQueue,
    ParentQueue,
    QueueState,
    SchedulerDynamicEditException,
)
from yarnball.policies.capacity._acl import QueueACL
from yarnball.policies.capacity._autodeletion import AutoCreatedQueueDeletionPolicy
from yarnball.policies.capacity._autoqueues import is_eligible_for_auto_deletion, remove_child_queue
from yarnball.protocols import (
    AppAddedSchedulerEvent,
    AppAttemptAddedSchedulerEvent,
    AppAttemptRemovedSchedulerEvent,
    ApplicationAttemptId,
    ApplicationId,
    AppRemovedSchedulerEvent,
    Configuration,
    Priority,
)
from yarnball.protocols import keys as k

MAX_MEMORY = 1200
USER0 = "user_0"
EPS = 1e-6
ROOT, A, B, A1, E = "root", "root.a", "root.b", "root.a.a1", "root.e"


class CsConf:
    """Hadoop's CapacitySchedulerConfiguration setters the test uses, over a flat key map."""

    def __init__(self) -> None:
        self.props: dict[str, str] = {}

    def set(self, key: str, value: object) -> None:
        self.props[key] = str(value).lower() if isinstance(value, bool) else str(value)

    def unset(self, key: str) -> None:
        self.props.pop(key, None)

    def set_queues(self, path: str, names: list[str]) -> None:
        self.set(f"{CS}{path}.queues", ",".join(names))

    def set_weight(self, path: str, weight: float) -> None:  # setNonLabeledQueueWeight
        self.set(f"{CS}{path}.capacity", f"{weight}w")

    def set_capacity(self, path: str, capacity: float) -> None:
        self.set(f"{CS}{path}.capacity", capacity)

    def set_v2(self, path: str, enabled: bool) -> None:  # setAutoQueueCreationV2Enabled
        self.set(f"{CS}{path}.{k.AUTO_QUEUE_CREATION_V2_ENABLED}", enabled)

    def set_state(self, path: str, state: QueueState) -> None:
        self.set(f"{CS}{path}.state", state.value)

    def template(self, path: str, prop: str, value: object) -> None:  # getAutoQueueTemplatePrefix(path) + prop
        self.set(f"{CS}{path}.{k.AUTO_QUEUE_TEMPLATE_PREFIX}{prop}", value)

    def leaf_template(self, path: str, prop: str, value: object) -> None:  # getLeafTemplatePrefix(path) + prop
        self.set(f"{CS}{path}.{k.AUTO_QUEUE_LEAF_TEMPLATE_PREFIX}{prop}", value)

    def build(self) -> CapacitySchedulerConfiguration:
        return CapacitySchedulerConfiguration(Configuration(dict(self.props)))


def set_up() -> CsConf:
    """setUp: root -> a (-> a1), b, all 1w; auto creation v2 on root, a, e (and PARENT_QUEUE, unused here)."""
    conf = CsConf()
    conf.set_queues(ROOT, ["a", "b"])
    for path in (ROOT, A, B):
        conf.set_weight(path, 1.0)
    conf.set_queues(A, ["a1"])
    conf.set_weight(A1, 1.0)
    for path in (ROOT, A, E):
        conf.set_v2(path, True)
    conf.set(k.AUTO_CREATE_CHILD_QUEUE_EXPIRED_TIME, 1)  # setAutoExpiredDeletionTime(1)
    return conf


def start(conf: CsConf) -> CapacityScheduler:
    """startScheduler: MockRM with csConf, one 1200 GB node (h1:1234)."""
    cs = CapacityScheduler(conf.build(), cluster_timestamp=1)
    add_node(cs, 1, MAX_MEMORY * GB, 1200)
    return cs


def reinit(cs: CapacityScheduler, conf: CsConf) -> None:
    cs.reinitialize(conf.build())


def submit_app(cs: CapacityScheduler, user: str, queue: str, parent: str, n: int = 1) -> ApplicationAttemptId:
    """TestCapacitySchedulerAutoCreatedQueueBase.submitApp: the app and its attempt, placed in ``parent.queue``."""
    app = ApplicationId(1, n)
    cs.handle(AppAddedSchedulerEvent(application_id=app, queue=f"{parent}.{queue}", user=user, priority=Priority(0)))
    attempt = ApplicationAttemptId(app, 1)
    cs.handle(AppAttemptAddedSchedulerEvent(application_attempt_id=attempt))
    return attempt


def check(cs: CapacityScheduler, path: str, abs_cap: float, weight: float, min_mb: float | None) -> int:
    """getAbsoluteCapacity, getQueueCapacities().getWeight() and the effective minimum memory; returns 3 (or 2)."""
    q = cs.get_queue(path)
    assert q is not None, path
    assert q.abs_cap == pytest.approx(abs_cap, abs=EPS), path
    assert q.weight == pytest.approx(weight, abs=EPS), path
    if min_mb is None:
        return 2
    assert q.effective_min_resource.memory_mb == min_mb, (path, q.effective_min_resource)
    return 3


def check_min(cs: CapacityScheduler, path: str, expected_gb: float) -> None:
    """assertQueueMinResource: Math.round(expected * GB)."""
    q = cs.get_queue(path)
    assert q is not None
    assert q.effective_min_resource.memory_mb == round(expected_gb * GB), (path, q.effective_min_resource)


def basic_structure(cs: CapacityScheduler) -> int:
    """createBasicQueueStructureAndValidate: root -> a (a1, a2-auto), b, c-auto, d-auto, e-auto (e1-auto)."""
    n = 0
    cs.create_queue("root.c-auto")
    n += check(cs, "root.c-auto", 1 / 3, 1, 400 * GB)
    c = cs.get_queue("root.c-auto")
    assert isinstance(c, LeafQueue)
    assert c.user_limit_factor == -1
    assert c.max_am_percent == pytest.approx(1, abs=EPS)
    n += 2
    cs.create_queue("root.d-auto")
    n += check(cs, "root.d-auto", 1 / 4, 1, 300 * GB)
    n += check(cs, "root.c-auto", 1 / 4, 1, 300 * GB)
    cs.create_queue("root.a.a2-auto")
    n += check(cs, "root.a.a2-auto", 1 / 8, 1, 150 * GB)
    cs.create_queue("root.e-auto.e1-auto")
    n += check(cs, "root.e-auto", 1 / 5, 1, 240 * GB)
    n += check(cs, "root.e-auto.e1-auto", 1 / 5, 1, 240 * GB)
    return n


def dynamic_edit_error(cs: CapacityScheduler, path: str) -> str:
    with pytest.raises(SchedulerDynamicEditException) as err:
        cs.create_queue(path)
    return str(err.value)


# -- creation ----------------------------------------------------------------------------------------------------
def test_siblings_under_root_testAutoCreateQueueWithSiblingsUnderRoot():
    """A new 1w sibling under root takes 1/3, then 1/4 when another joins (and so does the first)."""
    cs = start(set_up())
    cs.create_queue("root.c-auto")
    check(cs, "root.c-auto", 1 / 3, 1, 400 * GB)
    cs.create_queue("root.d-auto")
    check(cs, "root.d-auto", 1 / 4, 1, 300 * GB)
    check(cs, "root.c-auto", 1 / 4, 1, 300 * GB)


def test_static_parent_one_level_testAutoCreateQueueStaticParentOneLevel():
    """A dynamic leaf beside a1 under root.a shares a's half equally."""
    cs = start(set_up())
    cs.create_queue("root.a.a2-auto")
    check(cs, "root.a.a2-auto", 1 / 4, 1, None)
    check_min(cs, "root.a.a2-auto", MAX_MEMORY / 4)


def test_auto_parent_two_levels_with_siblings_testAutoCreateQueueAutoParentTwoLevelsWithSiblings():
    """A dynamic parent and leaf at once; a second leaf halves the first."""
    conf = set_up()
    cs = start(conf)
    conf.set_v2("root.a.a2-auto", True)  # set after the start: the scheduler's own configuration does not see it
    cs.create_queue("root.a.a2-auto.a3-auto")
    check(cs, "root.a.a2-auto.a3-auto", 1 / 4, 1, None)
    check_min(cs, "root.a.a2-auto.a3-auto", MAX_MEMORY / 4)
    cs.create_queue("root.a.a2-auto.a4-auto")
    check(cs, "root.a.a2-auto.a3-auto", 1 / 8, 1, None)
    check_min(cs, "root.a.a2-auto.a4-auto", MAX_MEMORY / 8)


def test_fail_when_non_parent_queue_testAutoCreateQueueShouldFailWhenNonParentQueue():
    cs = start(set_up())
    assert dynamic_edit_error(cs, "root.a.a1.a2-auto") == (
        "Could not auto create hierarchy of root.a.a1.a2-auto. Queue root.a.a1 is not a ParentQueue."
    )


def test_siblings_not_in_weight_mode_testAutoCreateQueueWhenSiblingsNotInWeightMode():
    conf = set_up()
    cs = start(conf)
    conf.set_capacity(A, 50)
    conf.set_capacity(B, 50)
    conf.set_capacity(A1, 100)
    reinit(cs, conf)
    assert dynamic_edit_error(cs, "root.a.a2-auto") == (
        "Trying to create new queue=root.a.a2-auto but not all the queues under parent=root.a are using "
        "weight-based capacity. Failed to created queue"
    )


def test_maximum_queue_depth_testAutoCreateMaximumQueueDepth():
    """Depth 2 by default; 3 for root.a, then 3 globally; a depth set on a dynamic queue does not count."""
    conf = set_up()
    cs = start(conf)
    assert dynamic_edit_error(cs, "root.a.a3-auto.a4-auto.a5-auto") == (
        "Could not auto create queue root.a.a3-auto.a4-auto.a5-auto. The distance of the LeafQueue from the first "
        "static ParentQueue is 3, which is above the limit."
    )
    conf.set(f"{CS}{A}.{k.MAXIMUM_QUEUE_DEPTH}", 3)
    reinit(cs, conf)
    cs.create_queue("root.a.a3-auto.a4-auto.a5-auto")
    conf.set(f"{CS}{k.MAXIMUM_QUEUE_DEPTH}", 3)
    conf.unset(f"{CS}{A}.{k.MAXIMUM_QUEUE_DEPTH}")
    reinit(cs, conf)
    cs.create_queue("root.a.a6-auto.a7-auto.a8-auto")
    conf.set(f"{CS}root.a.a6-auto.a7-auto.a8-auto.{k.MAXIMUM_QUEUE_DEPTH}", 10)
    with pytest.raises(SchedulerDynamicEditException):
        cs.create_queue("root.a.a6-auto.a7-auto.a8-auto.a9-auto.a10-auto.a11-auto")


def test_maximum_queue_depth_keys_getMaximumAutoCreatedQueueDepth():
    """Hadoop's key strings (CapacitySchedulerConfiguration.MAXIMUM_QUEUE_DEPTH, read per queue and then under
    PREFIX, DEFAULT_MAXIMUM_QUEUE_DEPTH 2), written out here rather than through yarnball's constants."""
    conf = set_up()
    assert start(conf).conf.get_maximum_auto_created_queue_depth(A) == 2
    conf.set("yarn.scheduler.capacity.auto-queue-creation-v2.maximum-queue-depth", 4)
    assert start(conf).conf.get_maximum_auto_created_queue_depth(A) == 4
    conf.set("yarn.scheduler.capacity.root.a.auto-queue-creation-v2.maximum-queue-depth", 5)
    assert start(conf).conf.get_maximum_auto_created_queue_depth(A) == 5


def test_fail_if_not_enabled_for_parent_testAutoCreateQueueShouldFailIfNotEnabledForParent():
    conf = set_up()
    cs = start(conf)
    conf.set_v2(ROOT, False)
    reinit(cs, conf)
    assert (
        dynamic_edit_error(cs, "root.c-auto") == "Auto creation of queue root.c-auto is not enabled under parent root"
    )


def test_on_app_submission_testAutoQueueCreationOnAppSubmission():
    """A submission to root.e-auto.user_0 creates both queues, dynamic."""
    cs = start(set_up())
    submit_app(cs, USER0, USER0, "root.e-auto")
    e = cs.get_queue("root.e-auto")
    assert e is not None and e.dynamic
    user0 = cs.get_queue("root.e-auto." + USER0)
    assert user0 is not None and user0.dynamic
    assert cs.applications[ApplicationId(1, 1)].queue is user0


def test_childless_parent_when_auto_creation_enabled_testChildlessParentQueueWhenAutoQueueCreationEnabled():
    """A childless queue is a leaf, and a parent eligible for auto creation once v2 is on for it."""
    conf = set_up()
    cs = start(conf)
    conf.set_queues(ROOT, ["a", "b", "empty-auto-parent"])
    reinit(cs, conf)
    empty = cs.get_queue("root.empty-auto-parent")
    assert isinstance(empty, LeafQueue)
    empty.state = QueueState.STOPPED  # empty.stopQueue(): no application, so STOPPED at once
    conf.set_v2("root.empty-auto-parent", True)
    reinit(cs, conf)
    empty = cs.get_queue("root.empty-auto-parent")
    assert isinstance(empty, ParentQueue)
    assert empty.children == []
    assert empty.dynamic or cs.conf.is_auto_queue_creation_v2_enabled(empty.path)  # isEligibleForAutoQueueCreation


def test_with_disabled_mapping_rules_testAutoQueueCreationWithDisabledMappingRules():
    """AppAddedSchedulerEvent without a placement context to a missing two-level path creates it."""
    cs = start(set_up())
    app = ApplicationId(1, 1)
    cs.handle(
        AppAddedSchedulerEvent(application_id=app, queue="root.a.a1-auto.a2-auto", user=USER0, priority=Priority(0))
    )
    cs.handle(AppAttemptAddedSchedulerEvent(application_attempt_id=ApplicationAttemptId(app, 1)))
    assert cs.get_queue("root.a.a1-auto.a2-auto") is not None


def test_user_limit_disabled_testAutoCreateQueueUserLimitDisabled():
    """A dynamic leaf has user-limit-factor -1: no per-user app limit, the whole queue for AMs and users."""
    cs = start(set_up())
    basic_structure(cs)
    submit_app(cs, USER0, USER0, "root.e-auto")
    e = cs.get_queue("root.e-auto")
    assert e is not None and e.dynamic
    user0 = cs.get_queue("root.e-auto." + USER0)
    assert user0 is not None and user0.dynamic
    assert isinstance(user0, LeafQueue)
    assert user0.user_limit_factor == -1
    assert user0.max_apps_per_user == user0.max_apps
    assert user0.am_limit_m == pytest.approx(user0.max_am_percent * MAX_MEMORY * GB, abs=EPS)
    # getEffectiveMaxCapacityDown("", minimumAllocation): no user limit below the queue's maximum
    assert user0.eff_max_norm_m == MAX_MEMORY * GB


def test_max_app_update_testAutoQueueCreationMaxAppUpdate():
    """maximum-applications x absolute capacity for static and dynamic leaves, before and after creations and
    refreshes; global-queue-max-application and a per-queue value of a dynamic queue apply on refresh."""
    conf = set_up()
    cs = start(conf)
    system = cs.conf.get_maximum_system_applications()

    def check_apps(path: str) -> LeafQueue:
        q = cs.get_queue(path)
        assert isinstance(q, LeafQueue)
        assert q.max_apps == pytest.approx(system * q.abs_cap, abs=1)
        return q

    a1, b = check_apps(A1), check_apps(B)
    cs.create_queue(E)
    e = check_apps(E)
    a1, b = check_apps(A1), check_apps(B)
    conf.set(k.QUEUE_GLOBAL_MAX_APPLICATION, 1000)
    reinit(cs, conf)
    assert (b.max_apps, a1.max_apps, e.max_apps) == (1000, 1000, 1000)
    conf.set(f"{CS}root.e1.{k.MAXIMUM_APPLICATIONS_SUFFIX}", 50)
    e1 = cs.create_queue("root.e1")
    reinit(cs, conf)
    assert e1.max_apps == 50


def test_ambiguous_non_full_path_parent_testAutoCreateQueueWithAmbiguousNonFullPathParentName():
    cs = start(set_up())
    cs.create_queue("root.a.a")
    assert dynamic_edit_error(cs, "a.a") == "Could not auto-create queue a.a due to ParentQueue a being ambiguous."


def test_first_existing_parent_not_static_testAutoCreateQueueIfFirstExistingParentQueueIsNotStatic():
    cs = start(set_up())
    cs.create_queue("root.a.a-parent-auto.a1-leaf-auto")
    assert cs.get_queue("root.a.a-parent-auto") is not None
    cs.create_queue("root.a.a-parent-auto.a2-leaf-auto")
    a2 = cs.get_queue("a2-leaf-auto")
    assert a2 is not None and a2.parent is not None
    assert a2.parent.path == "root.a.a-parent-auto"


def test_ambiguous_queue_names_testAutoCreateQueueIfAmbiguousQueueNames():
    cs = start(set_up())
    b = cs.get_queue("root.b")
    assert b is not None and not b.dynamic
    cs.create_queue("root.a.b.b")
    parent = cs.get_queue("root.a.b")
    assert parent is not None and parent.dynamic and parent.children
    leaf = cs.get_queue("root.a.b.b")
    assert leaf is not None and leaf.dynamic and not leaf.children


def test_max_queues_limit_testAutoCreateQueueMaxQueuesLimit():
    conf = set_up()
    cs = start(conf)
    conf.set(f"{CS}{E}.{k.AUTO_QUEUE_CREATION_V2_MAX_QUEUES}", 5)
    reinit(cs, conf)
    for i in range(5):
        cs.create_queue(f"root.e.q_{i}")
    assert dynamic_edit_error(cs, "root.e.q_6") == (
        "Cannot auto create queue root.e.q_6. Max Child Queue limit exceeded which is configured as: 5 and number "
        "of child queues is: 5"
    )


def test_template_config_testAutoCreatedQueueTemplateConfig():
    """Templates of root.a.* set the weight, and override the dynamic leaf's user-limit-factor and AM share; an
    explicit weight beats the template; a template switches auto deletion off."""
    conf = set_up()
    cs = start(conf)
    conf.template("root.a.*", "capacity", "6w")
    reinit(cs, conf)
    a2 = cs.create_queue("root.a.a-auto.a2")
    assert a2.weight == pytest.approx(6, abs=EPS)
    assert a2.user_limit_factor == pytest.approx(-1, abs=EPS)
    assert a2.max_am_percent == pytest.approx(1, abs=EPS)
    conf.template("root.a.*", "user-limit-factor", "10")
    conf.template("root.a.*", "maximum-am-resource-percent", "0.8")
    reinit(cs, conf)
    a2 = cs.get_queue("root.a.a-auto.a2")
    assert isinstance(a2, LeafQueue)
    assert a2.weight == pytest.approx(6, abs=EPS)
    assert a2.user_limit_factor == pytest.approx(10, abs=EPS)
    assert a2.max_am_percent == pytest.approx(0.8, abs=EPS)
    conf.set_weight("root.a.a-auto.a2", 4.0)
    reinit(cs, conf)
    assert a2.weight == pytest.approx(4, abs=EPS)
    conf.template(A, k.AUTO_CREATE_CHILD_QUEUE_AUTO_REMOVAL_ENABLE, False)
    reinit(cs, conf)
    a3 = cs.create_queue("root.a.a3")
    assert not is_eligible_for_auto_deletion(cs.conf, a3)
    # Skipped: the weight of node label TEST set by a template (node-label partitions are not modelled).


def test_config_change_testAutoCreatedQueueConfigChange():
    """A refresh applies an explicit weight and a state to a dynamic queue absent from the file's tree."""
    conf = set_up()
    cs = start(conf)
    a2 = cs.create_queue("root.a.a-auto.a2")
    conf.set_weight(a2.path, 4.0)
    reinit(cs, conf)
    assert a2.weight == pytest.approx(4, abs=EPS)
    conf.set_state("root.a.a-auto.a2", QueueState.STOPPED)
    reinit(cs, conf)
    assert a2.state == QueueState.STOPPED
    conf.set_state("root.a.a-auto.a2", QueueState.RUNNING)
    reinit(cs, conf)
    assert a2.state == QueueState.RUNNING


def test_queue_state_testAutoCreateQueueState():
    """States of static and dynamic queues follow the file; a child without its own state takes its parent's."""
    conf = set_up()
    cs = start(conf)
    cs.create_queue("root.e.e1")
    conf.set_state(E, QueueState.STOPPED)
    conf.set_state("root.e.e1", QueueState.STOPPED)
    conf.set_state(A, QueueState.STOPPED)
    reinit(cs, conf)

    def state(path: str) -> QueueState:
        q = cs.get_queue(path)
        assert q is not None
        return q.state

    assert state("root.a") == QueueState.STOPPED
    assert state("root.a.a1") == QueueState.STOPPED
    assert state("root.e") == QueueState.STOPPED
    assert state("root.e.e1") == QueueState.STOPPED
    conf.set_state(E, QueueState.RUNNING)
    reinit(cs, conf)
    assert state("root.e.e1") == QueueState.STOPPED
    conf.set_state("root.e.e1", QueueState.RUNNING)
    reinit(cs, conf)
    assert state("root.e.e1") == QueueState.RUNNING


def test_depth_limit_from_static_parent_testAutoQueueCreationDepthLimitFromStaticParent():
    cs = start(set_up())
    cs.create_queue("root.a.a-auto.a1-auto")
    assert cs.get_queue("root.a.a-auto.a1-auto") is not None
    with pytest.raises(SchedulerDynamicEditException):
        cs.create_queue("root.a.a-auto.a2-auto.a3-auto")


def test_ambiguous_queue_names_queue_info_testQueueInfoIfAmbiguousQueueNames():
    """getQueueInfo().getQueuePath() / getQueueName(): full paths differ, short names are all ``b``."""
    cs = start(set_up())
    b = cs.get_queue("root.b")
    assert b is not None and not b.dynamic and b.path == "root.b"
    cs.create_queue("root.a.b.b")
    parent = cs.queues["root.a.b"]
    assert parent.dynamic and parent.children and parent.path == "root.a.b"
    leaf = cs.queues["root.a.b.b"]
    assert leaf.dynamic and not leaf.children and leaf.path == "root.a.b.b"
    assert (b.name, parent.name, leaf.name) == ("b", "b", "b")


def test_invalid_parent_testAutoCreateInvalidParent():
    cs = start(set_up())
    assert dynamic_edit_error(cs, "invalid.queue") == (
        "Could not auto-create queue invalid.queue parent queue does not exist."
    )
    with pytest.raises(SchedulerDynamicEditException):
        cs.create_queue("invalid.queue.longer")
    assert dynamic_edit_error(cs, "invalidQueue") == (
        "Could not auto-create leaf queue for invalidQueue. Queue mapping does not specify which parent queue it "
        "needs to be created under."
    )


def test_percent_suffix_in_leaf_template_capacity_testAutoCreateQueueFailsWithPercentSuffixInLeafTemplateCapacity():
    """A leaf template capacity of ``50%`` fails the creation (Hadoop: NumberFormatException ``For input string:
    "50%"``; here a SchedulerDynamicEditException naming the key and the value)."""
    conf = set_up()
    conf.leaf_template(A, "capacity", "50%")
    cs = start(conf)
    message = dynamic_edit_error(cs, "root.a.a2-auto")
    assert "yarn.scheduler.capacity.root.a.a2-auto.capacity" in message and "50%" in message
    assert cs.get_queue("root.a.a2-auto") is None


def test_static_child_ignores_parent_template_testStaticChildQueueIgnoresParentTemplate():
    """root.a's templates (ACL, user-limit-factor, maximum-applications) shape its dynamic children only."""
    conf = set_up()
    for prop, value in (("acl_submit_applications", "templateUser"), ("user-limit-factor", 7),
                        ("maximum-applications", 1)):  # fmt: skip
        conf.template(A, prop, value)
    cs = start(conf)
    dynamic = cs.create_queue("root.a.a2-auto")
    assert dynamic.acls[QueueACL.SUBMIT_APPLICATIONS].is_user_allowed("templateUser")
    assert dynamic.user_limit_factor == pytest.approx(7, abs=EPS)
    assert dynamic.max_apps == 1
    static = cs.get_queue(A1)
    assert isinstance(static, LeafQueue)
    assert not static.acls[QueueACL.SUBMIT_APPLICATIONS].is_user_allowed("templateUser")
    assert static.user_limit_factor == pytest.approx(1, abs=EPS)
    assert static.max_apps != 1


# -- refresh -------------------------------------------------------------------------------------------------------
def test_refresh_keeps_dynamic_queues_testAutoCreateQueueRefresh():
    """Dynamic queues survive a refresh with the same file."""
    conf = set_up()
    cs = start(conf)
    assert basic_structure(cs) == 20
    reinit(cs, conf)
    assert len(cs.queues["root"].children) == 5
    assert cs.get_queue("root.c-auto") is not None


def test_convert_dynamic_to_static_testConvertDynamicToStaticQueue():
    """Weights changed by refreshes, dynamic queues named in the file become static, at one and two levels."""
    conf = set_up()
    cs = start(conf)
    basic_structure(cs)
    conf.set_weight(A, 6.0)
    reinit(cs, conf)
    assert len(cs.queues["root"].children) == 5
    check(cs, "root.a", 6 / 10, 6, 720 * GB)
    conf.set_queues(ROOT, ["a", "b", "c-auto"])
    conf.set_weight("root.c-auto", 6.0)
    reinit(cs, conf)
    check(cs, "root.c-auto", 6 / 15, 6, 480 * GB)
    assert not cs.queues["root.c-auto"].dynamic
    cs.create_queue("root.e-auto.e2-auto")
    conf.set_queues(ROOT, ["a", "b", "c-auto", "e-auto"])
    conf.set_weight("root.e-auto", 6.0)
    conf.set_queues("root.e-auto", ["e1-auto"])
    conf.set_weight("root.e-auto.e1-auto", 6.0)
    reinit(cs, conf)
    e1_share = (6 / 20) * (6 / 7)
    check(cs, "root.e-auto.e1-auto", e1_share, 6, None)
    check_min(cs, "root.e-auto.e1-auto", MAX_MEMORY * e1_share)
    assert cs.queues["root.e-auto.e2-auto"].dynamic


def test_convert_dynamic_parent_to_static_testConvertDynamicParentToStaticParent():
    """A dynamic parent named in the file without children stays a parent; its dynamic leaf stays."""
    conf = set_up()
    cs = start(conf)
    cs.create_queue("root.d-auto.d1-auto")
    conf.set_queues(ROOT, ["a", "b", "d-auto"])
    conf.set_weight(A, 6.0)
    conf.set_weight("root.d-auto", 1.0)
    reinit(cs, conf)
    check(cs, "root.d-auto", 1 / 8, 1, None)
    check_min(cs, "root.d-auto", MAX_MEMORY / 8)
    check(cs, "root.d-auto.d1-auto", 1 / 8, 1, None)
    check_min(cs, "root.d-auto.d1-auto", MAX_MEMORY / 8)
    assert isinstance(cs.queues["root.d-auto"], ParentQueue) and not cs.queues["root.d-auto"].dynamic


def test_remove_dangling_on_reinit_testRemoveDanglingAutoCreatedQueuesOnReinit():
    """A refresh drops the dynamic queues whose static parent, static grandparent or dynamic parent is gone."""
    conf = set_up()
    cs = start(conf)
    cs.create_queue("root.a.a-auto")
    assert cs.queues["root.a.a-auto"].dynamic
    conf.set_state(A, QueueState.STOPPED)
    reinit(cs, conf)
    assert cs.queues["root.a.a-auto"].state == QueueState.STOPPED
    conf.set_queues(ROOT, ["b"])
    reinit(cs, conf)
    assert cs.get_queue("root.a.a-auto") is None
    submit_app(cs, USER0, "a-auto", "root.a")
    assert cs.get_queue("root.a.a-auto") is not None
    # static grandparent
    conf.set_queues(ROOT, ["a", "b"])
    conf.set_queues(A, ["a1"])
    conf.set_v2(A1, True)
    reinit(cs, conf)
    cs.create_queue("root.a.a1.a1-auto")
    assert cs.get_queue("root.a.a1.a1-auto") is not None
    conf.set_queues(ROOT, ["b"])
    reinit(cs, conf)
    assert cs.get_queue("root.a.a1.a1-auto") is None
    # dynamic parent
    conf.set_state(B, QueueState.STOPPED)
    reinit(cs, conf)
    conf.set_v2(B, True)
    reinit(cs, conf)
    cs.create_queue("root.b.b-auto-parent.b-auto-leaf")
    b_auto_parent = cs.get_queue("root.b.b-auto-parent")
    assert b_auto_parent is not None
    b = cs.queues["root.b"]
    assert isinstance(b, ParentQueue)
    remove_child_queue(cs, b, b_auto_parent)
    reinit(cs, conf)
    assert cs.get_queue("root.b.b-auto-parent") is None
    assert cs.get_queue("root.b.b-auto-parent.b-auto-leaf") is None


def test_auto_queue_creation_refresh_refused_keeps_dynamic_queues_reinitialize():
    """A refused refresh (mixed modes among root.a's children) changes nothing, dynamic queues included
    (CapacityScheduler.reinitialize restores the old configuration)."""
    conf = set_up()
    cs = start(conf)
    a2 = cs.create_queue("root.a.a2-auto")
    conf.set_capacity(A1, 100)
    with pytest.raises(ConfigurationError, match="mixed of  weight mode, percentage and absolute mode"):
        reinit(cs, conf)
    assert cs.queues["root.a.a2-auto"] is a2 and a2.abs_cap == pytest.approx(1 / 4, abs=EPS)


# -- removal -------------------------------------------------------------------------------------------------------
def test_after_removal_testAutoCreateQueueAfterRemoval():
    """Removing dynamic queues one by one gives their weight back to the siblings; a static queue stays."""
    cs = start(set_up())
    basic_structure(cs)
    check(cs, "root.e-auto.e1-auto", 1 / 5, 1, 240 * GB)
    assert cs.remove_queue(cs.queues["root.e-auto.e1-auto"])
    check(cs, "root.e-auto", 1 / 5, 1, 240 * GB)
    assert cs.remove_queue(cs.queues["root.e-auto"])
    check(cs, "root.d-auto", 1 / 4, 1, 300 * GB)
    assert cs.remove_queue(cs.queues["root.d-auto"])
    check(cs, "root.c-auto", 1 / 3, 1, 400 * GB)
    assert cs.remove_queue(cs.queues["root.c-auto"])
    check(cs, "root.b", 1 / 2, 1, 600 * GB)
    with pytest.raises(SchedulerDynamicEditException):
        cs.remove_queue(cs.queues["root.b"])
    check(cs, "root.a", 1 / 2, 1, 600 * GB)


def test_parent_dynamic_child_removal_testParentQueueDynamicChildRemoval():
    """removeChildQueue refuses a static child and another parent's child, removes its own dynamic ones."""
    cs = start(set_up())
    cs.create_queue("root.a.a-auto")
    cs.create_queue("root.a.a-auto")
    a_auto = cs.queues["root.a.a-auto"]
    assert a_auto.dynamic
    a = cs.queues["root.a"]
    cs.create_queue("root.e.e1-auto")
    e_auto = cs.queues["root.e.e1-auto"]
    assert e_auto.dynamic
    e = cs.queues["root.e"]
    assert isinstance(a, ParentQueue) and isinstance(e, ParentQueue)
    with pytest.raises(SchedulerDynamicEditException):
        remove_child_queue(cs, a, cs.queues["root.a.a1"])
    with pytest.raises(SchedulerDynamicEditException):
        remove_child_queue(cs, a, e_auto)
    remove_child_queue(cs, a, a_auto)
    remove_child_queue(cs, e, e_auto)
    assert cs.get_queue("root.a.a-auto") is None
    assert cs.get_queue("root.e.e1-auto") is None


def _deletion_scheduler(conf: CsConf) -> tuple[CapacityScheduler, list[int]]:
    conf.set(k.RM_SCHEDULER_ENABLE_MONITORS, True)
    conf.set(k.RM_SCHEDULER_MONITOR_POLICIES, k.AUTO_CREATED_QUEUE_DELETION_POLICY)
    conf.set(k.AUTO_CREATE_CHILD_QUEUE_EXPIRED_TIME, 1)
    cs = start(conf)
    now = [0]
    cs.clock = lambda: now[0]
    return cs, now


def _rounds(cs: CapacityScheduler, policy: AutoCreatedQueueDeletionPolicy, now: list[int], until_ms: int) -> None:
    """The monitor's rounds up to ``until_ms``, one expiration time apart (``AutoCreatedQueueDeletionPolicy.init``:
    the test's ``setAutoExpiredDeletionTime(1)`` makes them 1000 ms apart)."""
    interval = policy.monitoring_interval_ms(cs.conf.conf)
    assert interval == 1000
    while now[0] + interval <= until_ms:
        now[0] += interval
        policy.edit_queues(cs, now[0])


def _finish(cs: CapacityScheduler, attempt: ApplicationAttemptId) -> None:
    cs.handle(AppAttemptRemovedSchedulerEvent(application_attempt_id=attempt))
    cs.handle(AppRemovedSchedulerEvent(application_id=attempt.application_id))


def test_auto_queue_deletion_testCapacitySchedulerAutoQueueDeletion():
    """An expired dynamic leaf with an application stays; once the application is gone it is removed, and its
    dynamic parent in a later round."""
    conf = set_up()
    cs, now = _deletion_scheduler(conf)
    assert queue_deletion_enabled(cs.conf.conf)
    policy = AutoCreatedQueueDeletionPolicy()
    attempt = submit_app(cs, USER0, "a2-auto", "root.a.a1-auto")
    a1, a2 = cs.get_queue("root.a.a1-auto"), cs.get_queue("root.a.a1-auto.a2-auto")
    assert a1 is not None and a2 is not None and a2.dynamic
    assert a2.num_applications == 1
    _rounds(cs, policy, now, 3000)  # expired (> 1 s), but with an application
    assert cs.get_queue("root.a.a1-auto.a2-auto") is not None
    _finish(cs, attempt)
    assert a2.num_applications == 0
    _rounds(cs, policy, now, 6000)
    assert cs.get_queue("root.a.a1-auto.a2-auto") is None
    assert cs.get_queue("root.a.a1-auto") is not None
    _rounds(cs, policy, now, 9000)
    assert cs.get_queue("root.a.a1-auto") is None


def test_auto_queue_deletion_disabled_testCapacitySchedulerAutoQueueDeletionDisabled():
    """queue-auto-removal.enable=false keeps an idle dynamic leaf; enabled again by a refresh, it goes (then its
    parent)."""
    conf = set_up()
    key = f"{CS}root.a.a1-auto.a2-auto.{k.AUTO_CREATE_CHILD_QUEUE_AUTO_REMOVAL_ENABLE}"
    conf.set(key, False)
    cs, now = _deletion_scheduler(conf)
    assert queue_deletion_enabled(cs.conf.conf)
    policy = AutoCreatedQueueDeletionPolicy()
    attempt = submit_app(cs, USER0, "a2-auto", "root.a.a1-auto")
    assert cs.get_queue("root.a.a1-auto") is not None
    a2 = cs.get_queue("root.a.a1-auto.a2-auto")
    assert a2 is not None and a2.dynamic
    _finish(cs, attempt)
    assert a2.num_applications == 0
    _rounds(cs, policy, now, 3000)
    assert cs.get_queue("root.a.a1-auto") is not None
    a2 = cs.get_queue("root.a.a1-auto.a2-auto")
    assert a2 is not None and a2.dynamic
    conf.set(key, True)
    reinit(cs, conf)
    _rounds(cs, policy, now, 6000)
    assert cs.get_queue("root.a.a1-auto.a2-auto") is None
    assert cs.get_queue("root.a.a1-auto") is not None
    _rounds(cs, policy, now, 9000)
    assert cs.get_queue("root.a.a1-auto") is None


# -- weight mode beyond auto creation (ParentQueue.setChildQueues) ---------------------------------------------------
def test_mixed_weight_and_percentage_siblings_refused_setChildQueues():
    """Weights beside a percentage sibling are refused with Hadoop's message, naming the parent's queues key."""
    conf = set_up()
    conf.set_capacity(B, 50)
    with pytest.raises(ConfigurationError) as err:
        conf.build().validate()
    message = str(err.value)
    assert f"{CS}root.queues" in message
    assert message.endswith(
        "Parent queue 'root' have children queue used mixed of  weight mode, percentage and absolute mode, it is "
        "not allowed, please double check, details:{Queue=root.a, label= uses weight mode}. "
        "{Queue=root.b, label= uses percentage mode}. "
    )


def test_percentage_children_of_a_weight_parent_sum_to_100_or_0_setChildQueues():
    """Under a weight-mode parent, percentage children sum to 100 % or 0 (Hadoop 3.3+ setChildQueues)."""
    conf = set_up()
    conf.set_capacity(A1, 100)
    conf.build().validate()
    conf.set_capacity(A1, 0)
    conf.build().validate()
    conf.set_capacity(A1, 60)
    with pytest.raises(ConfigurationError, match=r"Illegal capacity sum of 0\.6 for children of queue a"):
        conf.build().validate()
