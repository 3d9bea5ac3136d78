"""Client requests carry a caller (issue 21): with ``yarn.acl.enable``, kill, move and priority changes need the
application's owner, ``yarn.admin.acl`` or the queue's ``acl_administer_queue`` (ClientRMService.checkAccess)."""

from __future__ import annotations

from typing import Any

from security_helpers import VictimAM, one_node_cluster, rejected_events

from yarnball.launcher._outputs import security_summary
from yarnball.protocols import (
    FinalApplicationStatus,
    KillApplicationRequest,
    MoveApplicationAcrossQueuesRequest,
    Priority,
    RemoteRefusal,
    UpdateApplicationPriorityRequest,
    UpdateApplicationPriorityResponse,
    YarnApplicationState,
)
from yarnball.testing import Probe, captured_events

Q = "yarn.scheduler.capacity.root."
ACLS = {
    "yarn.acl.enable": "true",
    "yarn.admin.acl": "root-admin",
    "yarn.cluster.max-application-priority": "10",
    Q + "queues": "a,b",
    Q + "a.capacity": "50",
    Q + "b.capacity": "50",
    Q + "acl_submit_applications": " ",
    Q + "acl_administer_queue": " ",
    Q + "a.acl_submit_applications": "bob,mallory",  # mallory may submit to a, not administer it
    Q + "a.acl_administer_queue": "carol",
    Q + "b.acl_submit_applications": "mallory",
}


def _running_victim() -> tuple[Any, VictimAM, Probe]:
    cluster = one_node_cluster(ACLS)
    victim = cluster.submit(VictimAM(queue="a", user="bob", submit_at_ms=1_000))
    client = Probe()
    cluster.kernel.spawn(client, "client")
    cluster.run(until_ms=10_000)
    assert cluster.rm.apps[victim.application_id].state is YarnApplicationState.RUNNING
    return cluster, victim, client


def _ask(cluster: Any, client: Probe, message: Any) -> Any:
    cluster.rm.ref.tell(message, client.ref)
    cluster.run(until_ms=cluster.now + 1)
    return client.messages[-1]


def _finishes_untouched(cluster: Any, victim: VictimAM) -> None:
    cluster.run(until_ms=600_000)
    app = cluster.rm.apps[victim.application_id]
    assert app.state is YarnApplicationState.FINISHED and app.final_status is FinalApplicationStatus.SUCCEEDED
    assert app.queue == "a" and app.context.priority == Priority(0)


def test_a_submitter_who_does_not_administer_the_queue_cannot_kill_another_users_application() -> None:
    """mallory may submit to queue a but not administer it: her kill of bob's application is refused with Hadoop's
    AccessControlException, logged, counted, and bob's application finishes."""
    with captured_events() as events:
        cluster, victim, client = _running_victim()
        app_id = victim.application_id
        reply = _ask(cluster, client, KillApplicationRequest(application_id=app_id, user="mallory"))
        assert reply == RemoteRefusal(
            exception="AccessControlException", message=f"User mallory cannot perform operation MODIFY_APP on {app_id}"
        )
        _finishes_untouched(cluster, victim)
    [event] = rejected_events(events)
    assert event["reason"] == "client_access_denied" and event["user"] == "mallory"
    assert event["request"] == "KillApplicationRequest" and event["application"] == str(app_id)
    assert not any(e["event"] == "application_kill" for e in events)
    assert security_summary(cluster) == {"rejected": 1, "rejected_by_reason": {"client_access_denied": 1}}


def test_a_kill_without_a_caller_is_refused_when_acls_are_on() -> None:
    """No user at all is an unauthenticated RPC client: refused, counted, and the application runs on."""
    cluster, victim, client = _running_victim()
    reply = _ask(cluster, client, KillApplicationRequest(application_id=victim.application_id))
    assert reply == RemoteRefusal(
        exception="AccessControlException", message="Client cannot authenticate via:[TOKEN, KERBEROS]"
    )
    _finishes_untouched(cluster, victim)
    assert security_summary(cluster)["rejected_by_reason"] == {"client_unauthenticated": 1}


def test_move_and_priority_need_the_administer_acl() -> None:
    """mallory may submit to both queues, yet cannot move bob's application nor change its priority; nothing of
    the application changes."""
    cluster, victim, client = _running_victim()
    app_id = victim.application_id
    moved = _ask(
        cluster, client, MoveApplicationAcrossQueuesRequest(application_id=app_id, target_queue="b", user="mallory")
    )
    raised = _ask(
        cluster,
        client,
        UpdateApplicationPriorityRequest(application_id=app_id, application_priority=Priority(9), user="mallory"),
    )
    for reply in (moved, raised):
        assert type(reply) is RemoteRefusal and reply.exception == "AccessControlException"
    _finishes_untouched(cluster, victim)
    assert security_summary(cluster)["rejected_by_reason"] == {"client_access_denied": 2}


def test_the_owner_the_queue_admin_and_the_cluster_admin_may_act() -> None:
    """carol (acl_administer_queue of a) changes the priority, root-admin (yarn.admin.acl) too, and bob kills his
    own application: no refusal."""
    cluster, victim, client = _running_victim()
    app_id = victim.application_id
    for user, wanted in (("carol", 5), ("root-admin", 7)):
        reply = _ask(
            cluster,
            client,
            UpdateApplicationPriorityRequest(application_id=app_id, application_priority=Priority(wanted), user=user),
        )
        assert reply == UpdateApplicationPriorityResponse(application_priority=Priority(wanted))
    cluster.rm.ref.tell(KillApplicationRequest(application_id=app_id, user="bob"), client.ref)
    cluster.run(until_ms=cluster.now + 1)  # (the run ends with its last application: the reply is not delivered)
    app = cluster.rm.apps[app_id]
    assert app.state is YarnApplicationState.KILLED
    assert app.diagnostics == f"Application {app_id} was killed by user bob"
    assert security_summary(cluster)["rejected"] == 0


def test_without_acls_an_in_process_kill_needs_no_caller() -> None:
    """yarn.acl.enable false (the default): every caller may kill, an in-process one without a name as before."""
    cluster = one_node_cluster()
    victim = cluster.submit(VictimAM(submit_at_ms=1_000))
    client = Probe()
    cluster.kernel.spawn(client, "client")
    cluster.run(until_ms=10_000)
    cluster.rm.ref.tell(KillApplicationRequest(application_id=victim.application_id), client.ref)
    cluster.run(until_ms=cluster.now + 1)
    assert cluster.rm.apps[victim.application_id].state is YarnApplicationState.KILLED
    assert security_summary(cluster)["rejected"] == 0
