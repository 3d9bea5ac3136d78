"""The RM's ``AdminService`` (ResourceManagerAdministrationProtocol): ``refreshQueues``.

``AdminService.refreshQueues`` reloads ``capacity-scheduler.xml`` and calls ``ResourceScheduler.reinitialize`` (the
CapacityScheduler's: policies/capacity/_refresh.py). Here the new properties arrive in the
:class:`RefreshQueuesRequest` itself: they replace every ``yarn.scheduler.capacity.*`` key of the RM's configuration
(the file is replaced as a whole; the rest, yarn-site, stays). A refused refresh is logged with Hadoop's message and
changes nothing.
"""

from __future__ import annotations

from typing import Any

from yarnball.errors import ConfigurationError
from yarnball.protocols import RefreshQueuesRequest, RefreshQueuesResponse, keys

__all__ = ["refresh_queues"]


def refresh_queues(rm: Any, msg: RefreshQueuesRequest) -> RefreshQueuesResponse:
    """Apply ``msg`` to ``rm``'s scheduler; the response says whether the new queues are in place."""
    conf = rm.conf.copy()
    for key in conf.keys():
        if key.startswith(keys.CS_PREFIX):
            conf.unset(key)
    for key, value in msg.properties:
        conf.set(key, value)
    try:
        rm.scheduler.reinitialize(conf)
    except ConfigurationError as exc:
        rm.counters["queue_refreshes_refused"] += 1
        rm.log.warning("queues_refresh_refused", source=msg.source, diagnostics=str(exc))
        return RefreshQueuesResponse(accepted=False, diagnostics=str(exc))
    rm.conf = conf
    rm.maximum_allocation = rm.scheduler.get_maximum_allocation()
    rm.counters["queue_refreshes"] += 1
    rm.log.info("queues_refreshed", source=msg.source, queues=sorted(rm.scheduler.queues))
    # Pending applications may have been activated and limits raised: wake whatever the shortcuts put to sleep
    # because nothing could change (actors/_shortcuts/_amdormancy.py, the heartbeat clock's skipping). A precaution: the
    # shortcuts' own checks already kept them awake in every case tried (tests/test_queue_refresh.py).
    if rm.dormant:
        rm.dormant.wake_all()
    clock = rm.heartbeats
    if clock is not None and clock.skip:
        clock.wake_needed()
    return RefreshQueuesResponse(accepted=True)
