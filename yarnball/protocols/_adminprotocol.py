"""ResourceManagerAdministrationProtocol (admin -> RM): ``yarn rmadmin -refreshQueues``.

Mirrors ``org.apache.hadoop.yarn.server.api.ResourceManagerAdministrationProtocol`` (served by the RM's
``AdminService``). Only the queue refresh is modelled. Hadoop's request is empty and the RM re-reads
``capacity-scheduler.xml`` itself; here the request carries the new file's properties, so that the refresh is one
ordered message in the event log and the same on every backend.
"""

from __future__ import annotations

from yarnball.protocols._messages import Message

__all__ = ["RefreshQueuesRequest", "RefreshQueuesResponse"]


class RefreshQueuesRequest(Message, frozen=True, kw_only=True, tag="RefreshQueuesRequest"):
    """Admin -> RM (``RefreshQueuesRequest``): the new ``yarn.scheduler.capacity.*`` properties (raw values, in
    order) replacing the RM's, and where they come from (a conf dir or ``"mapping"``), for the log."""

    properties: tuple[tuple[str, str], ...] = ()
    source: str = ""


class RefreshQueuesResponse(Message, frozen=True, kw_only=True, tag="RefreshQueuesResponse"):
    """RM -> admin (``RefreshQueuesResponse``): whether the new queues are in place; when refused, Hadoop's message
    (``Failed to re-init queues : ...``) and the old queues stay."""

    accepted: bool = True
    diagnostics: str = ""
