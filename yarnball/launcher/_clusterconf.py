"""What a cluster is built from, on every backend: its configuration normalized, its default queue, its timestamp."""

from __future__ import annotations

import os
from collections.abc import Mapping

from yarnball.launcher._settings import as_configuration, check_values
from yarnball.protocols import Configuration

__all__ = ["DEFAULT_CLUSTER_TIMESTAMP", "DEFAULT_QUEUES", "ConfSource", "normalized_conf"]

#: Hadoop's shipped capacity-scheduler.xml: a single queue, root.default, at 100%.
DEFAULT_QUEUES = {
    "yarn.scheduler.capacity.root.queues": "default",
    "yarn.scheduler.capacity.root.default.capacity": "100",
    "yarn.scheduler.capacity.root.default.maximum-capacity": "100",
}

#: What a Cluster is configured from: a Configuration, a mapping of keys to values, or a Hadoop conf directory.
ConfSource = Configuration | Mapping[str, object] | str | os.PathLike[str] | None

#: Deterministic RM start time used in application ids (``application_<clusterTimestamp>_<seq>``).
DEFAULT_CLUSTER_TIMESTAMP = 1_700_000_000_000


def normalized_conf(conf: ConfSource) -> Configuration:
    """``conf`` as a Configuration (a path is a Hadoop conf directory, read as ``--conf-dir`` reads it; the keys of a
    mapping are checked, launcher/_settings.py), with Hadoop's single root.default queue when it defines no queues,
    and every value given explicitly read once with its typed getter.

    The shipped file's keys only fill in what ``conf`` leaves unset: a ``root.default`` key given explicitly (a
    mapping, ``--conf``, a file) keeps its value, and is validated like any other."""
    conf = as_configuration(conf)
    if conf.get("yarn.scheduler.capacity.root.queues") is None:
        for key, value in DEFAULT_QUEUES.items():
            if conf.get_raw(key) is None:
                conf.set(key, value)
    check_values(conf)
    return conf
