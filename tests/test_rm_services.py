"""The RM's services' chains: chosen when the RM is built, chosen again when an optional service joins or leaves;
without optional services the heartbeat and allocate paths are the plain ones."""

from __future__ import annotations

from typing import Any

from tests.test_container_resize import INCREASE, resized
from tests.test_opportunistic_rm import ENABLED, cluster
from yarnball.actors._rmappmanager import NO_STATE_STORE
from yarnball.actors._shortcuts import is_bound
from yarnball.protocols import Resource, keys


def _plain(tracker: Any) -> bool:
    """Whether the tracker's heartbeat chain is its own status update alone."""
    return is_bound(tracker, tracker.process, type(tracker).node_heartbeat)


def _members(rm: Any) -> dict[str, Any]:
    """The chains' members: methods by name (a bound Python method and a compiled one both have it)."""
    tracker, ams, dispatcher = rm.resource_tracker, rm.application_master_service, rm.dispatcher
    return {
        "process": _plain(tracker),
        "respond": tracker.respond.__name__,
        "running": len(tracker.running_listeners),
        "updaters": len(tracker.response_updaters),
        "allocate": ams.process.__name__,
        "after": len(ams.after),
        "claimers": len(dispatcher.claimers),
        "done": len(dispatcher.done_listeners),
        "store": rm.app_manager.store is NO_STATE_STORE,
    }


def test_without_optional_services_the_chains_are_the_plain_paths() -> None:
    rm = cluster().rm
    members = _members(rm)
    assert members["process"]  # the status update alone
    assert members == {**members, "respond": "_respond", "running": 0, "updaters": 0, "allocate": "_process"}
    assert members["after"] == members["claimers"] == members["done"] == 0 and members["store"]


def test_the_opportunistic_service_is_chosen_at_build() -> None:
    rm = cluster(dict(ENABLED)).rm
    members = _members(rm)
    assert members["running"] == members["updaters"] == 1 and members["respond"] == "_respond_updated"
    assert members["allocate"] == "_process_chain" and members["after"] == 1 and members["claimers"] == 1
    assert not rm.resource_tracker.settles  # it handles every heartbeat itself


def test_the_first_resize_request_puts_the_resize_service_in_every_chain() -> None:
    plain = {keys.RM_NM_HEARTBEAT_INTERVAL_MS: "1000"}  # (the helper's empty configuration enables opportunistic)
    c, am = resized(lambda am, ct: am.update_container_resource(ct, Resource(2048, 1)), plain)
    assert _members(c.rm)["running"] == 0
    c.run(until_ms=8_000)
    assert [u.update_type for _, u in am.updates] == [INCREASE]
    members = _members(c.rm)
    assert members["running"] == members["updaters"] == members["after"] == 1
    assert members["claimers"] == members["done"] == 1 and members["allocate"] == "_process_chain"
    assert c.rm.resource_tracker.needs_heartbeat.__name__ == "_needs_heartbeat_or_update"


def test_a_decommission_intercepts_heartbeats_and_an_rm_restart_drops_it() -> None:
    conf = {keys.RECOVERY_ENABLED: "true"}
    c = cluster(conf)
    c.run(until_ms=3_000)
    rm = c.rm
    assert rm.app_manager.store is rm.restarts  # recovery on: the state store is written from the start
    assert rm.decommission_node(min(rm.nodes, key=str), 60_000)
    tracker = rm.resource_tracker
    assert not _plain(tracker)  # the interceptor
    assert _members(rm)["after"] == 1  # node updates for the AMs
    rm.restarts.stop()  # the RM process stops: the decommissioning it knew goes with it
    assert rm.decommissioning is None and _members(rm)["after"] == 0
    assert _plain(tracker)
