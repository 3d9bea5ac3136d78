"""The configuration keys yarnball reads, and what the user hears about the others and about their values.

Hadoop ignores a key nobody reads, so a misspelt ``--conf`` key silently leaves its default in place. yarnball names
every key given explicitly (``--conf``, a ``Cluster`` mapping) that it does not read, with the closest key it knows
(as the trace readers do for trace keys), and ``strict`` refuses it. A real cluster's conf directory holds hundreds
of keys yarnball does not model: those are summed up in one line. The keys yarnball reads are the constants of
:mod:`yarnball.protocols.keys`, plus the per-queue ``yarn.scheduler.capacity.<queue-path>.<suffix>`` keys, matched by
suffix.

Values are checked as soon as the configuration is built: every key given explicitly that has a typed default is
read once with Hadoop's getter for it (``Configuration.getInt``, ``getLong``, ``getFloat``, ``getBoolean``), so a
value Hadoop refuses (``NumberFormatException``) or one outside the key's domain is a ConfigurationError naming the
file, line and key before the run, even when the run would not read the key.
"""

from __future__ import annotations

import difflib
import os
import re
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any, Final

from yarnball._logs import get_logger
from yarnball.errors import ConfigurationError, one_line
from yarnball.protocols import Configuration, keys
from yarnball.protocols._configuration import DEFAULT_SOURCE

__all__ = [
    "SLS_RUNNER_FILE",
    "as_configuration",
    "check_explicit_keys",
    "check_values",
    "closest_key",
    "is_read",
    "load_conf_dir",
]

log = get_logger(__name__)

SLS_RUNNER_FILE: Final = "sls-runner.xml"  # SLSRunner reads it from the configuration directory (the classpath in SLS)

#: (sls-runner.xml keys SLS's SchedulerMetrics class by the scheduler's class name: keys.SLS_*_SCHEDULER_METRICS)
_KEY_PREFIXES: Final = ("yarn.", "yarnball.", "mapreduce.", "org.apache.hadoop.yarn.server.resourcemanager.scheduler.")


def _key_constants() -> dict[str, str]:
    """Constant name -> key for every full key of protocols/keys.py (prefixes, ending in ".", are not keys)."""
    return {
        name: value
        for name, value in vars(keys).items()
        if name.isupper()
        and not name.startswith("DEFAULT_")
        and not name.endswith("_DEFAULT")
        and isinstance(value, str)
        and value.startswith(_KEY_PREFIXES)
        and not value.endswith(".")
    }


_CONSTANTS: Final = _key_constants()

#: Per-queue suffixes CapacitySchedulerConfiguration reads (``yarn.scheduler.capacity.<queue-path>.<suffix>``).
QUEUE_SUFFIXES: Final = (
    keys.QUEUES,
    keys.CAPACITY,
    keys.MAXIMUM_CAPACITY,
    keys.USER_LIMIT,
    keys.USER_LIMIT_FACTOR,
    keys.STATE,
    keys.ACL_SUBMIT_APPLICATIONS,
    keys.ACL_ADMINISTER_QUEUE,
    keys.PRIORITY,
    keys.DEFAULT_APPLICATION_PRIORITY,
    keys.ORDERING_POLICY,
    f"{keys.ORDERING_POLICY}.{keys.ENABLE_SIZE_BASED_WEIGHT}",
    keys.QUEUE_PREEMPTION_DISABLED,
    keys.MAXIMUM_ALLOCATION_MB,
    keys.MAXIMUM_ALLOCATION_VCORES,
    keys.MAXIMUM_AM_RESOURCE_SUFFIX,
    keys.MAXIMUM_APPLICATIONS_SUFFIX,
    keys.MAX_PARALLEL_APPLICATIONS,
    keys.ALLOW_ZERO_CAPACITY_SUM,
    keys.AUTO_QUEUE_CREATION_V2_ENABLED,
    keys.AUTO_QUEUE_CREATION_V2_MAX_QUEUES,
    keys.MAXIMUM_QUEUE_DEPTH,
    keys.AUTO_CREATE_CHILD_QUEUE_AUTO_REMOVAL_ENABLE,
    keys.AUTO_CREATE_CHILD_QUEUE_ENABLED,
    keys.AUTO_CREATE_QUEUE_MAX_QUEUES,
    keys.FAIL_AUTO_CREATION_ON_EXCEEDING_CAPACITY,
    keys.AUTO_CREATED_QUEUE_MANAGEMENT_POLICY,
)

#: Full keys: the constants, and the global defaults of per-queue settings (``yarn.scheduler.capacity.<suffix>``).
KNOWN_KEYS: Final = frozenset(_CONSTANTS.values()) | frozenset(
    keys.CS_PREFIX + suffix
    for suffix in (keys.USER_LIMIT, keys.USER_LIMIT_FACTOR, keys.MAX_PARALLEL_APPLICATIONS, keys.MAXIMUM_QUEUE_DEPTH)
)

_SUFFIX: Final = "|".join(re.escape(s) for s in sorted(QUEUE_SUFFIXES, key=len, reverse=True))
_TEMPLATES: Final = "|".join(
    re.escape(t.rstrip("."))
    for t in (
        keys.AUTO_QUEUE_TEMPLATE_PREFIX,
        keys.AUTO_QUEUE_LEAF_TEMPLATE_PREFIX,
        keys.AUTO_QUEUE_PARENT_TEMPLATE_PREFIX,
        keys.AUTO_CREATED_LEAF_QUEUE_TEMPLATE_PREFIX,
    )
)
# <queue-path>.<suffix>, a template's <parent-path>.<template>.<suffix>, a user's <queue-path>.user-settings.<u>.weight
_QUEUE_KEY: Final = re.compile(
    rf"{re.escape(keys.CS_PREFIX)}.+?(?:\.(?:{_TEMPLATES}))?\.(?:{_SUFFIX}"
    rf"|{re.escape(keys.USER_SETTINGS)}\.[^.]+\.{re.escape(keys.USER_WEIGHT)})"
)
#: Keys named after a value (``yarn.sls.am.type.<type>``).
_OPEN_PREFIXES: Final = (keys.SLS_AM_TYPE_PREFIX,)


def is_read(key: str) -> bool:
    """Whether yarnball reads ``key`` (a protocols/keys.py constant or a per-queue capacity-scheduler key)."""
    return key in KNOWN_KEYS or key.startswith(_OPEN_PREFIXES) or _QUEUE_KEY.fullmatch(key) is not None


def closest_key(key: str) -> str | None:
    """The known key closest to ``key`` (difflib, as the trace readers' "did you mean"), or None. A capacity-scheduler
    key is also compared with every per-queue suffix under its own queue path."""
    candidates = list(KNOWN_KEYS)
    if key.startswith(keys.CS_PREFIX) and "." in key[len(keys.CS_PREFIX) :]:
        path = key[len(keys.CS_PREFIX) :].rsplit(".", 1)[0]
        candidates += [f"{keys.CS_PREFIX}{path}.{suffix}" for suffix in QUEUE_SUFFIXES]
    guess = difflib.get_close_matches(key, candidates, n=1)
    return guess[0] if guess else None


def check_explicit_keys(names: Iterable[str], *, source: str, strict: bool = False) -> None:
    """Warn about (``strict``: refuse) every key in ``names`` yarnball does not read, naming the closest known key;
    ``source`` says where the keys came from (``--conf``, ``mapping``)."""
    for key in dict.fromkeys(names):
        if is_read(key):
            continue
        guess = closest_key(key)
        hint = f", did you mean {guess}?" if guess else " (see yarnball.protocols.keys for the keys it reads)"
        message = f"{source}: {one_line(key)}: yarnball does not read this key{hint}"
        if strict:
            raise ConfigurationError(message)
        log.warning(message)


# -- values --------------------------------------------------------------------------------------------------------
#: Keys Hadoop (and yarnball) read with getLong, and numeric keys whose integer default is read as a float.
_LONG_KEYS: Final = frozenset(
    {
        keys.PREEMPTION_MONITORING_INTERVAL,
        keys.PREEMPTION_WAIT_TIME_BEFORE_KILL,
        keys.QUEUE_MANAGEMENT_MONITORING_INTERVAL,
        keys.NM_RM_CONNECT_RETRY_INTERVAL_MS,
        keys.CLIENT_NM_CONNECT_RETRY_INTERVAL_MS,
        keys.CLIENT_NM_CONNECT_MAX_WAIT_MS,
        keys.AUTO_CREATE_CHILD_QUEUE_EXPIRED_TIME,
    }
)
_FLOAT_KEYS: Final = frozenset({keys.CONTINUOUS_SCHEDULING_PACKED_HIGH_MEMORY_THRESHOLD})


def _typed_keys() -> dict[str, str]:
    """key -> the Configuration getter that reads it, from the type of its default in protocols/keys.py."""
    table: dict[str, str] = {}
    namespace = vars(keys)
    for name, key in _CONSTANTS.items():
        default = namespace.get("DEFAULT_" + name, namespace.get(name + "_DEFAULT"))
        if key in _FLOAT_KEYS or isinstance(default, float):
            table[key] = "get_float"
        elif isinstance(default, bool):
            table[key] = "get_bool"
        elif isinstance(default, int) or key in _LONG_KEYS:
            table[key] = "get_long" if key in _LONG_KEYS else "get_int"
    return table


TYPED_KEYS: Final = _typed_keys()


def check_values(conf: Configuration) -> None:
    """Read every explicitly set key that has a type with its getter: a value Hadoop would refuse, or one outside
    the key's domain (protocols/_domains.py), raises ConfigurationError naming the file, line and key. Per-queue
    keys are checked by CapacitySchedulerConfiguration.validate, which knows the queue tree."""
    for key in conf.keys():
        getter = TYPED_KEYS.get(key)
        if getter is not None and conf.source_of(key) != DEFAULT_SOURCE:
            getattr(conf, getter)(key)


# -- a Hadoop conf directory -----------------------------------------------------------------------------------
def load_conf_dir(path: str | os.PathLike[str]) -> Configuration:
    """A Hadoop conf directory as ``yarnball simulate --conf-dir`` reads it: ``yarn-site.xml``, then
    ``capacity-scheduler.xml``, then ``sls-runner.xml``, each if present. Keys yarnball does not read are summed up
    in one warning; an unknown ``yarn.resourcemanager.scheduler.class`` is refused (policies/scheduler/_factory.py)."""
    conf = Configuration.from_conf_dir(path)
    sls_runner = Path(path) / SLS_RUNNER_FILE
    if os.path.lexists(sls_runner):  # a directory, FIFO or broken link of that name is refused, not skipped
        conf.add_resource(sls_runner)
    _summarise_unread(conf, Path(path))
    from yarnball.policies.scheduler import scheduler_class

    scheduler_class(conf)  # an unknown class is refused here, before anything runs
    return conf


def _summarise_unread(conf: Configuration, directory: Path, shown: int = 8) -> None:
    """One line for the keys of the directory's files that yarnball does not read (a real cluster's yarn-site.xml
    holds hundreds): how many per file, and the first ``shown`` of them."""
    by_file: dict[str, list[str]] = {}
    for key in conf.keys():
        source = conf.source_of(key)
        if source != DEFAULT_SOURCE and not is_read(key):
            by_file.setdefault(Path(source).name, []).append(key)
    if not by_file:
        return
    unread = [key for names in by_file.values() for key in names]
    counts = ", ".join(f"{len(names)} in {name}" for name, names in by_file.items())
    more = f", ... ({len(unread) - shown} more)" if len(unread) > shown else ""
    log.warning(
        f"{directory}: {len(unread)} key{'s' if len(unread) != 1 else ''} ({counts}) "
        f"{'are' if len(unread) != 1 else 'is'} not modelled, so yarnball ignores "
        f"{'them' if len(unread) != 1 else 'it'}: {', '.join(one_line(k) for k in unread[:shown])}{more}"
    )


def as_configuration(conf: Any) -> Configuration:
    """``conf`` (a Configuration, a mapping, or a path to a Hadoop conf directory) as a Configuration; the keys of a
    mapping are checked (:func:`check_explicit_keys`)."""
    if isinstance(conf, Configuration):
        return conf
    if isinstance(conf, (str, os.PathLike)):
        return load_conf_dir(conf)
    if conf is not None and not isinstance(conf, Mapping):
        raise ConfigurationError(
            f"conf: expected a Configuration, a mapping of keys to values or a Hadoop conf directory, got "
            f"{type(conf).__name__}"
        )
    if conf is not None:
        check_explicit_keys(conf.keys(), source="mapping")
    return Configuration(conf)
