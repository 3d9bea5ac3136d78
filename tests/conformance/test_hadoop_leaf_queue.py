"""Hadoop's TestLeafQueue: queue refresh, cluster resource updates, ACLs and a request without ANY.

``setupQueueConfiguration`` (root.<newRoot> 100 % over a 8.5 / 80 / 1.5 (c with c1) / 9 / 1 % split, e's ACL
``user_e``) over Hadoop's mocked cluster of 100 x 16 GB nodes is the tree and cluster here; apps are real attempts
whose AM size is told with ``set_am_resource`` (Hadoop stubs the AM ResourceRequest) and which ask for nothing.
``root.reinitialize(newRoot)`` is ``CapacityScheduler.reinitialize``; ``e.updateClusterResource`` is more nodes.
"""

from __future__ import annotations

from test_capacity_scheduler_helpers import (
    GB,
    add_node,
    app_id,
    ask,
    attempt_id,
    heartbeat,
    make_conf,
    make_scheduler,
    node,
    submit,
)

from yarnball.policies.capacity import CapacityScheduler, LeafQueue, QueueACL
from yarnball.protocols import NodeResourceUpdateSchedulerEvent, Resource

NEW_ROOT = "root.newroot"
CS = "yarn.scheduler.capacity."


def queues() -> dict[str, dict[str, object]]:
    """TestLeafQueue.setupQueueConfiguration."""
    return {
        NEW_ROOT: {"capacity": 100, "maximum-capacity": 100, "acl_submit_applications": " "},
        f"{NEW_ROOT}.a": {"capacity": 8.5, "maximum-capacity": 20, "acl_submit_applications": "*"},
        f"{NEW_ROOT}.b": {"capacity": 80, "maximum-capacity": 99, "acl_submit_applications": "*"},
        f"{NEW_ROOT}.c": {"capacity": 1.5, "maximum-capacity": 10, "acl_submit_applications": " "},
        f"{NEW_ROOT}.c.c1": {"capacity": 100},
        f"{NEW_ROOT}.d": {"capacity": 9, "maximum-capacity": 11, "acl_submit_applications": "user_d"},
        f"{NEW_ROOT}.e": {"capacity": 1, "maximum-capacity": 1, "acl_submit_applications": "user_e"},
    }


ROOT_ACL = {CS + "root.acl_submit_applications": " "}


def started(nodes: int = 100, **extra: object) -> CapacityScheduler:
    cs = make_scheduler(queues(), **ROOT_ACL, **extra)
    for i in range(nodes):
        add_node(cs, i, 16 * GB, 32)
    return cs


def three_apps_in_e(cs: CapacityScheduler) -> LeafQueue:
    e = cs.get_queue(f"{NEW_ROOT}.e")
    assert isinstance(e, LeafQueue)
    for n in range(3):
        cs.set_am_resource(app_id(n), Resource(GB, 0))
        submit(cs, n, queue="e", user="user_e", am_mb=None)
    return e


def test_activate_application_after_queue_refresh_testActivateApplicationAfterQueueRefresh():
    """e's AM limit, 10 % of its 16 GB rounded up to 2 GB, starts two 1 GB AMs; a refresh doubling the AM percent
    activates the third."""
    cs = started()
    e = three_apps_in_e(cs)
    assert (len(e.active), len(e.pending)) == (2, 1)
    cs.reinitialize(make_conf(queues(), **ROOT_ACL, **{CS + "maximum-am-resource-percent": 0.2}))
    assert (len(e.active), len(e.pending)) == (3, 0)


def test_locality_delays_after_queue_refresh_testLocalityDelaysAfterQueueRefresh():
    """node-locality-delay 40 -> 60 and rack-locality-additional-delay -1 -> 600 by a refresh."""
    cs = started(nodes=1)
    assert (cs._ctx.node_locality_delay, cs._ctx.rack_additional_delay) == (40, -1)
    refreshed = {CS + "node-locality-delay": 60, CS + "rack-locality-additional-delay": 600}
    cs.reinitialize(make_conf(queues(), **ROOT_ACL, **refreshed))
    assert (cs._ctx.node_locality_delay, cs._ctx.rack_additional_delay) == (60, 600)


def test_activate_application_by_updating_cluster_resource_testActivateApplicationByUpdatingClusterResource():
    """Twice the cluster (200 x 16 GB): e's AM limit 4 GB, the pending third application starts."""
    cs = started()
    e = three_apps_in_e(cs)
    assert (len(e.active), len(e.pending)) == (2, 1)
    for i in range(100, 200):
        add_node(cs, i, 16 * GB, 32)
    assert (len(e.active), len(e.pending)) == (3, 0)


def test_inherited_queue_acls_testInheritedQueueAcls():
    cs = started(nodes=1)
    user = "someone"
    sa = QueueACL.SUBMIT_APPLICATIONS
    expected = {"root": False, f"{NEW_ROOT}.a": True, f"{NEW_ROOT}.b": True, f"{NEW_ROOT}.c": False,
                f"{NEW_ROOT}.c.c1": False}  # fmt: skip
    for path, allowed in expected.items():
        assert cs.get_queue(path).has_access(sa, user) is allowed, path
    for path in (f"{NEW_ROOT}.a", f"{NEW_ROOT}.b", f"{NEW_ROOT}.c", f"{NEW_ROOT}.c.c1"):
        infos = cs.get_queue(path).queue_user_acl_info(user)
        assert any(sa in acls for _, acls in infos) is expected[path], path


def test_max_am_resource_per_queue_percent_after_queue_refresh_testMaxAMResourcePerQueuePercentAfterQueueRefresh():
    """a at 80 % (100 % maximum) of 100 x 16 GB: AM limit 160 GB at 10 %, 320 GB at 20 % after a refresh, 400 GB on
    100 x 20 GB. Hadoop builds root and a alone (no sibling check); here b takes the other 20 %."""
    two = {"root.a": {"capacity": 80}, "root.b": {"capacity": 20}}
    cs = make_scheduler(two, **{CS + "maximum-am-resource-percent": 0.1})
    for i in range(100):
        add_node(cs, i, 16 * GB, 32)
    a = cs.get_queue("root.a")
    assert abs(a.max_am_percent - 0.1) < 1e-3
    assert a.am_limit_m == 160 * GB
    cs.reinitialize(make_conf(two, **{CS + "maximum-am-resource-percent": 0.2}))
    assert abs(a.max_am_percent - 0.2) < 1e-3
    assert a.am_limit_m == 320 * GB
    for i in range(100):
        cs.handle(NodeResourceUpdateSchedulerEvent(node_id=node(i), total_resource=Resource(20 * GB, 32)))
    assert a.am_limit_m == 400 * GB  # 100 x 20 x 0.2


def test_allocate_container_on_node_without_off_switch_specified_testAllocateContainerOnNodeWithoutOffSwitchSpecified():
    """Host and rack asks without an ANY ask: nothing fails (Hadoop: no NullPointerException) and nothing is
    allocated off them."""
    cs = started(nodes=0)
    nid = add_node(cs, 0, 8 * GB, 16)
    submit(cs, 0, queue="b", user="user_0", am_mb=None)
    host = cs.nodes[nid].node_id.host
    cs.allocate(attempt_id(0), [ask(GB, 3, name=host), ask(GB, 3, name="/default-rack")], [])
    assert heartbeat(cs, nid) == []
