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
import re
from collections.abc import Mapping

from yarnball.errors import ConfigurationError, one_line
from yarnball.launcher._clusterconf import normalized_conf
from yarnball.policies.scheduler import validate_scheduler_configuration
from yarnball.protocols import Configuration, RefreshQueuesRequest, keys
from yarnball.protocols._configuration import DEFAULT_SOURCE

__all__ = ["RefreshSource", "parse_refresh_spec", "refresh_request"]

_DIGITS = re.compile(r"[0-9]{1,19}")  # ASCII digits only: int() would also take "1_000", " 7" and Arabic digits
_LONG_MAX = 2**63 - 1

RefreshSource = Configuration | Mapping[str, object] | str | os.PathLike[str]

#: yarn-site keys a refresh may carry too (ResourceScheduler.reinitialize re-reads the maximum allocation).
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
    validate_scheduler_configuration(merged)
    return RefreshQueuesRequest(properties=tuple(properties), source=source)


def parse_refresh_spec(spec: str) -> tuple[float, str]:
    """``AT_MS:CONF_DIR`` (the CLI's ``--refresh-queues``) as ``(at_ms, conf_dir)``: AT_MS a whole number of
    milliseconds in [0, 2^63-1] (a Java long, as every simulated time), CONF_DIR a directory holding
    capacity-scheduler.xml."""
    at, sep, path = spec.partition(":")
    where = f"--refresh-queues {one_line(repr(spec))}"
    if not sep or not path:
        raise ConfigurationError(
            f"{where}: expected AT_MS:CONF_DIR (a simulated time in ms >= 0, a colon, and a directory holding the "
            f"new {keys.CS_CONFIGURATION_FILE})"
        )
    if not _DIGITS.fullmatch(at) or int(at) > _LONG_MAX:
        raise ConfigurationError(
            f"{where}: AT_MS {one_line(repr(at))} is not a whole number of milliseconds in [0, {_LONG_MAX}] "
            "(expected AT_MS:CONF_DIR, e.g. 60000:conf/refresh)"
        )
    if not os.path.exists(os.path.join(path, keys.CS_CONFIGURATION_FILE)):  # not regular: refused as it is read
        what = "is not a directory" if not os.path.isdir(path) else f"holds no {keys.CS_CONFIGURATION_FILE}"
        raise ConfigurationError(
            f"{where}: CONF_DIR {one_line(repr(path))} {what} (expected a directory holding the new "
            f"{keys.CS_CONFIGURATION_FILE})"
        )
    return float(int(at)), path
