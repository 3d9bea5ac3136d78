"""Queue refreshes from the launcher: ``Cluster.refresh_queues`` and ``yarnball simulate --refresh-queues``.

A refresh is a :class:`~yarnball.protocols.RefreshQueuesRequest` told to the RM (its AdminService,
actors/_adminservice.py) at a simulated time, so it is one ordered message in the event log on every backend. This
module turns what the user gives (a conf dir, a Configuration or a mapping: the new ``capacity-scheduler.xml``) into
that message, checking it first as a start-up configuration would be checked (file, line and key in the error).
What only the live cluster can decide (a queue removed while RUNNING, a leaf with applications made a parent, a
smaller maximum allocation) is decided by the RM when the message arrives, with Hadoop's messages.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

from yarnball.errors import ConfigurationError
from yarnball.launcher._clusterconf import normalized_conf
from yarnball.policies.capacity import CapacitySchedulerConfiguration
from yarnball.protocols import Configuration, RefreshQueuesRequest, keys
from yarnball.protocols._configuration import DEFAULT_SOURCE

__all__ = ["RefreshSource", "parse_refresh_spec", "refresh_request"]

RefreshSource = Configuration | Mapping[str, object] | str | os.PathLike[str]

#: yarn-site keys a refresh may carry too (CapacityScheduler.reinitialize re-reads the maximum allocation).
_ALSO_REFRESHED = (keys.RM_SCHEDULER_MAXIMUM_ALLOCATION_MB, keys.RM_SCHEDULER_MAXIMUM_ALLOCATION_VCORES)


def _load(conf: RefreshSource) -> tuple[Configuration, str]:
    if isinstance(conf, Configuration):
        return conf.copy(), ",".join(conf.resources) or "mapping"
    if isinstance(conf, (str, os.PathLike)):
        return Configuration.from_conf_dir(conf), str(conf)
    if isinstance(conf, Mapping):
        return Configuration(conf), "mapping"
    raise ConfigurationError(
        f"refresh_queues: expected a Configuration, a mapping or a conf directory, got {type(conf).__name__}"
    )


def refresh_request(base: Configuration, conf: RefreshSource) -> RefreshQueuesRequest:
    """The request replacing ``base``'s capacity-scheduler properties by ``conf``'s, checked statically."""
    new, source = _load(conf)
    new = normalized_conf(new)  # Hadoop's shipped capacity-scheduler.xml, under the keys the new file gives
    properties: list[tuple[str, str]] = []
    for key in new.keys():
        explicit = new.source_of(key) != DEFAULT_SOURCE
        if key.startswith(keys.CS_PREFIX) or (explicit and key in _ALSO_REFRESHED):
            raw = new.get_raw(key)
            if raw is not None:
                properties.append((key, raw))
    # The start-up checks, over what the RM will hold: the new file's keys (with their file and line) and the RM's
    # own values for everything else (yarn-site).
    shipped = {key for key, _ in properties}
    merged = new
    for key in base.keys():
        if key.startswith(keys.CS_PREFIX) or key in shipped or base.source_of(key) == DEFAULT_SOURCE:
            continue
        raw = base.get_raw(key)
        if raw is not None:
            merged.set(key, raw)
    CapacitySchedulerConfiguration(merged).validate()
    return RefreshQueuesRequest(properties=tuple(properties), source=source)


def parse_refresh_spec(spec: str) -> tuple[float, str]:
    """``AT_MS:CONF_DIR`` (the CLI's ``--refresh-queues``) as ``(at_ms, conf_dir)``."""
    at, sep, path = spec.partition(":")
    try:
        at_ms = float(at)
    except ValueError:
        at_ms = -1.0
    if not sep or not path or at_ms < 0:
        raise ConfigurationError(
            f"--refresh-queues {spec!r}: expected AT_MS:CONF_DIR (a simulated time in ms >= 0, a colon, and a "
            "directory holding the new capacity-scheduler.xml)"
        )
    return at_ms, path
