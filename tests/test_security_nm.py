"""NMTokens and container tokens (issue 21): a NodeManager acts on a container only for the application its caller's
NMToken names, and starts only containers the RM signed."""

from __future__ import annotations

import msgspec
from security_helpers import rejected_events, victim_and_attacker

from yarnball.launcher._outputs import security_summary
from yarnball.protocols import (
    ContainerExitStatus,
    ContainerProcessExited,
    ContainerState,
    ContainerUpdateRequest,
    ContainerUpdateType,
    ExecutionType,
    FinalApplicationStatus,
    GetContainerStatusesRequest,
    GetContainerStatusesResponse,
    StartContainersRequest,
    StartContainersResponse,
    StopContainersRequest,
    StopContainersResponse,
    UpdateContainerRequest,
    YarnApplicationState,
)
from yarnball.protocols._containermanagement import ContainerLaunchContext, StartContainerRequest
from yarnball.testing import assert_containers_conserved, captured_events


def _victim_unharmed(cluster, victim) -> None:  # type: ignore[no-untyped-def]
    """Every victim container runs its full time and ends SUCCESS; the application finishes SUCCEEDED."""
    nm = cluster.node_managers["node0"]
    for cid in victim.running:
        assert nm.containers[cid].state is ContainerState.RUNNING
    cluster.run(until_ms=600_000)
    assert sorted(s.exit_status for s in victim.statuses) == [ContainerExitStatus.SUCCESS] * 2
    app = cluster.rm.apps[victim.application_id]
    assert app.state is YarnApplicationState.FINISHED and app.final_status is FinalApplicationStatus.SUCCEEDED
    assert_containers_conserved(cluster)


def _replies(attacker, kind):  # type: ignore[no-untyped-def]
    return [m for m in attacker.inbox if type(m) is kind]


def test_allocated_containers_come_with_container_tokens_and_nm_tokens() -> None:
    """The honest path: each allocated container carries the RM's signature, the AM holds an NMToken for the node,
    and the NM started every container with them."""
    cluster, victim, attacker = victim_and_attacker()
    nm = cluster.node_managers["node0"]
    assert nm.secrets.enabled
    for am in (victim, attacker):
        token = am.nm_tokens[nm.node_id]
        assert token.application_attempt_id == am.attempt_id
        for cid, container in am.running.items():
            assert container.container_token is not None and container.container_token.container_id == cid
            assert nm.containers[cid].state is ContainerState.RUNNING
    assert security_summary(cluster)["rejected"] == 0


def test_stopping_another_applications_container_is_refused() -> None:
    """StopContainers for the victim's container with the attacker's own NMToken: Hadoop's words, and the container
    runs on to SUCCESS."""
    with captured_events() as events:
        cluster, victim, attacker = victim_and_attacker()
        target = next(iter(victim.running))
        token = attacker.nm_tokens[victim.running[target].node_id]
        attacker.send_to_nm("node0", StopContainersRequest(container_ids=(target,), nm_token=token))
        cluster.run(until_ms=10_001)
        [reply] = _replies(attacker, StopContainersResponse)
        assert reply.successfully_stopped_containers == ()
        [failed] = reply.failed_requests
        assert failed.container_id == target
        assert failed.diagnostics == f"{attacker.attempt_id} attempted to stop non-application container : {target}"
        _victim_unharmed(cluster, victim)
    [event] = rejected_events(events)
    assert event["reason"] == "stop_other_application" and event["actor"] == "nm-node0"
    assert event["container"] == str(target) and event["sender"] == attacker.id
    assert security_summary(cluster) == {"rejected": 1, "rejected_by_reason": {"stop_other_application": 1}}


def test_a_stop_without_a_valid_nm_token_is_refused() -> None:
    """No NMToken, or one whose password was altered: "Invalid NMToken", nothing stopped."""
    with captured_events() as events:
        cluster, victim, attacker = victim_and_attacker()
        target = next(iter(victim.running))
        own = attacker.nm_tokens[victim.running[target].node_id]
        forged = msgspec.structs.replace(own, application_attempt_id=victim.attempt_id)  # signed for the attacker
        attacker.send_to_nm("node0", StopContainersRequest(container_ids=(target,)))
        attacker.send_to_nm("node0", StopContainersRequest(container_ids=(target,), nm_token=forged))
        cluster.run(until_ms=10_001)
        replies = _replies(attacker, StopContainersResponse)
        assert [f.diagnostics for r in replies for f in r.failed_requests] == ["Invalid NMToken"] * 2
        _victim_unharmed(cluster, victim)
    assert [e["reason"] for e in rejected_events(events)] == ["nm_token_invalid"] * 2


def test_the_owner_still_stops_its_own_container() -> None:
    """The same NM path with the owner's token: the container is killed by the ApplicationMaster."""
    cluster, _victim, attacker = victim_and_attacker()
    own = next(iter(attacker.running.values()))
    attacker.stop_container(own)
    cluster.run(until_ms=12_000)
    assert own.id not in cluster.node_managers["node0"].containers
    assert [s.exit_status for s in attacker.statuses] == [ContainerExitStatus.KILLED_BY_APPMASTER]
    assert security_summary(cluster)["rejected"] == 0


def test_starting_a_container_of_another_application_is_refused() -> None:
    """A container record of the victim's (its genuine token included) started with the attacker's NMToken:
    "Unauthorized request to start container."; a record with no token or a forged resource is refused too."""
    with captured_events() as events:
        cluster, victim, attacker = victim_and_attacker()
        stolen = next(iter(victim.running.values()))
        node = stolen.node_id
        token = attacker.nm_tokens[node]
        own = next(iter(attacker.running.values()))
        bigger = msgspec.structs.replace(own, resource=msgspec.structs.replace(own.resource, memory_mb=8192))
        unsigned = msgspec.structs.replace(own, container_token=None)
        for container in (stolen, bigger, unsigned):
            request = StartContainerRequest(container=container, launch_context=ContainerLaunchContext())
            attacker.send_to_nm(node.host, StartContainersRequest(start_container_requests=(request,), nm_token=token))
        cluster.run(until_ms=10_001)
        diagnostics = [f.diagnostics for r in _replies(attacker, StartContainersResponse) for f in r.failed_requests]
        assert diagnostics == [
            "Unauthorized request to start container.\nNMToken for application attempt : "
            f"{attacker.attempt_id} was used for starting container with container token issued for application "
            f"attempt : {victim.attempt_id}",
            f"Given Container {own.id} seems to have an illegally generated token.",
            "Invalid ContainerToken",
        ]
        nm = cluster.node_managers["node0"]
        assert nm.containers[own.id].container.resource == own.resource
        _victim_unharmed(cluster, victim)
    assert [e["reason"] for e in rejected_events(events)] == [
        "start_other_application",
        "container_token_invalid",
        "container_token_invalid",
    ]


def test_status_and_updates_of_another_applications_container_are_refused() -> None:
    """GetContainerStatuses answers for the caller's own containers only; an update of the victim's container is
    refused with Hadoop's words and leaves its execution type and version as they were."""
    with captured_events() as events:
        cluster, victim, attacker = victim_and_attacker()
        target = next(iter(victim.running))
        own = next(iter(attacker.running))
        token = attacker.nm_tokens[victim.running[target].node_id]
        attacker.send_to_nm("node0", GetContainerStatusesRequest(container_ids=(target, own), nm_token=token))
        demote = UpdateContainerRequest(
            container_version=1,
            container_id=target,
            container_update_type=ContainerUpdateType.DEMOTE_EXECUTION_TYPE,
            execution_type=ExecutionType.OPPORTUNISTIC,
        )
        attacker.send_to_nm("node0", ContainerUpdateRequest(containers_to_update=(demote,), nm_token=token))
        cluster.run(until_ms=10_001)
        [statuses] = _replies(attacker, GetContainerStatusesResponse)
        assert [s.container_id for s in statuses.container_statuses] == [own]
        assert [f.diagnostics for f in statuses.failed_requests] == [
            f"{attacker.attempt_id} attempted to get status for non-application container : {target}"
        ]
        [update] = [m for m in attacker.inbox if type(m).__name__ == "ContainerUpdateResponse"]
        assert update.successfully_updated_containers == ()
        assert update.failed_requests[0].diagnostics.startswith("Unauthorized request to increase container resource.")
        entry = cluster.node_managers["node0"].containers[target]
        assert entry.container.execution_type is ExecutionType.GUARANTEED and entry.container.version == 0
        _victim_unharmed(cluster, victim)
    assert [e["reason"] for e in rejected_events(events)] == ["status_other_application", "update_other_application"]


def test_a_process_exit_reported_by_another_actor_is_ignored() -> None:
    """Only a container's own process may report its exit: the attacker's ContainerProcessExited for the victim's AM
    container changes nothing (no failed attempt), and is counted."""
    with captured_events() as events:
        cluster, victim, attacker = victim_and_attacker()
        assert victim.am_container is not None
        am_container = victim.am_container.id
        attacker.send_to_nm("node0", ContainerProcessExited(container_id=am_container, exit_status=1))
        cluster.run(until_ms=10_001)
        assert cluster.node_managers["node0"].containers[am_container].state is ContainerState.RUNNING
        _victim_unharmed(cluster, victim)
    assert [e["reason"] for e in rejected_events(events)] == ["process_exit_not_owner"]
    assert cluster.rm.apps[victim.application_id].counted_failures == 0


def test_the_victims_tasks_still_end_on_time() -> None:
    """Under a refused stop and a refused process exit the victim's tasks run their TASK_MS undisturbed: it finishes
    at the very time of an unattacked run."""
    quiet, quiet_victim, _ = victim_and_attacker()
    quiet.run(until_ms=600_000)
    attacked, victim, attacker = victim_and_attacker()
    target = next(iter(victim.running))
    token = attacker.nm_tokens[victim.running[target].node_id]
    attacker.send_to_nm("node0", StopContainersRequest(container_ids=(target,), nm_token=token))
    attacker.send_to_nm("node0", ContainerProcessExited(container_id=target, exit_status=1))
    attacked.run(until_ms=600_000)
    assert [s.exit_status for s in victim.statuses] == [s.exit_status for s in quiet_victim.statuses]
    assert [s.exit_status for s in victim.statuses] == [ContainerExitStatus.SUCCESS] * 2
    assert attacked.rm.apps[victim.application_id].finish_time == quiet.rm.apps[quiet_victim.application_id].finish_time


def test_the_nm_forgets_an_applications_nm_token_when_it_finishes() -> None:
    """NMTokenSecretManagerInNM keeps a verified NMToken per application until the application finishes
    (``appFinished``, from the RM's applications to clean up)."""
    cluster, victim, attacker = victim_and_attacker()
    nm = cluster.node_managers["node0"]
    for am in (victim, attacker):
        assert nm.secrets.verified[am.application_id] is am.nm_tokens[nm.node_id]
    _victim_unharmed(cluster, victim)  # runs both to the end (the cluster's run stops when the last one finishes)
    assert cluster.rm.apps[attacker.application_id].state is YarnApplicationState.FINISHED
    cluster.kernel.run(until=cluster.now + 5_000)  # the last heartbeat response, with its applications to clean up
    assert nm.secrets.verified == {}
