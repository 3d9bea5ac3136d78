"""``sls-runner.xml`` values a trace reader needs, with SLSConfiguration's code defaults."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Protocol, TypeVar

import msgspec

from yarnball.errors import ConfigurationError
from yarnball.protocols import Resource
from yarnball.protocols._domains import domain_error
from yarnball.protocols._javanumbers import hadoop_integer, java_float

__all__ = ["KNOWN_AM_TYPES", "SLSKeys", "TraceDefaults"]

# The AM simulators SLS ships (yarn.sls.am.type.<name> in test/resources/sls-runner.xml).
KNOWN_AM_TYPES = ("mapreduce", "stream", "dag")

_N = TypeVar("_N", int, float)


class SLSKeys:
    """SLSConfiguration's key strings."""

    RUNNER_POOL_SIZE = "yarn.sls.runner.pool.size"
    NM_MEMORY_MB = "yarn.sls.nm.memory.mb"
    NM_VCORES = "yarn.sls.nm.vcores"
    NM_PREFIX = "yarn.sls.nm."
    NM_HEARTBEAT_INTERVAL_MS = "yarn.sls.nm.heartbeat.interval.ms"
    NM_RESOURCE_UTILIZATION_RATIO = "yarn.sls.nm.resource.utilization.ratio"
    AM_HEARTBEAT_INTERVAL_MS = "yarn.sls.am.heartbeat.interval.ms"
    AM_TYPE = "yarn.sls.am.type"
    AM_TYPE_PREFIX = "yarn.sls.am.type."
    AM_CONTAINER_MEMORY = "yarn.sls.am.container.memory"
    AM_CONTAINER_VCORES = "yarn.sls.am.container.vcores"
    CONTAINER_MEMORY_MB = "yarn.sls.container.memory.mb"
    CONTAINER_VCORES = "yarn.sls.container.vcores"


class _Conf(Protocol):
    def get(self, key: str, default: Any = None) -> Any: ...


class TraceDefaults(msgspec.Struct, frozen=True, kw_only=True):
    """Cluster and container defaults applied while reading traces.

    The defaults are SLSConfiguration's *code* defaults (not those of the shipped sample files). ``am_types`` are
    the AM types a job may ask for: the three simulators SLS ships (built in, so always registered) and any other
    ``yarn.sls.am.type.<name>``; a job asking for another type is skipped, as SLS's AMRunner fails to create it.
    ``resource_types`` are extra resource types (e.g. ``yarn.io/gpu``) read from ``container.<type>`` /
    ``am.<type>`` / node ``<type>`` keys, as SLS does for every type in ResourceUtils.
    """

    nm_memory_mb: int = 10240
    nm_vcores: int = 10
    nm_heartbeat_interval_ms: int = 1000
    am_heartbeat_interval_ms: int = 1000
    am_container_memory_mb: int = 1024
    am_container_vcores: int = 1
    container_memory_mb: int = 1024
    container_vcores: int = 1
    runner_pool_size: int = 10
    nm_resource_utilization_ratio: float = -1.0
    am_types: tuple[str, ...] = KNOWN_AM_TYPES
    resource_types: tuple[str, ...] = ()

    @property
    def nm_resource(self) -> Resource:
        """Capability of a node that does not override it."""
        return Resource(self.nm_memory_mb, self.nm_vcores)

    @property
    def am_resource(self) -> Resource:
        """SLSConfiguration.getAMContainerResource."""
        return Resource(self.am_container_memory_mb, self.am_container_vcores)

    @property
    def container_resource(self) -> Resource:
        """SLSRunner.getDefaultContainerResource: every task container unless the trace overrides it."""
        return Resource(self.container_memory_mb, self.container_vcores)

    @classmethod
    def from_configuration(cls, conf: _Conf) -> TraceDefaults:
        """Read the ``yarn.sls.*`` keys from anything with ``.get(key, default)`` (a Configuration or a dict).

        AM types are the three SLS ships and the ``yarn.sls.am.type.<name>`` keys present (found when the object can
        list its keys). SLS's AMRunner.init registers only the keys present, and SLS's sample-conf/sls-runner.xml
        names only mapreduce, so SLS's own sls_dag.json and syn_stream.json fail with it (AMRunner.createAmSimulator
        gets no class); yarnball's simulators are built in, so the samples run with the sample configuration.
        """
        d = cls()

        # Configuration.getInt / getFloat (Java's parsing: no "1_000", "nan" or "inf"), then the key's domain.
        def get_int(key: str, default: int) -> int:
            raw = conf.get(key, None)
            if raw is None or (isinstance(raw, str) and not raw.strip()):
                return default
            number = None if isinstance(raw, bool) else hadoop_integer(str(raw))
            if number is None:
                raise ConfigurationError(f"{key}: expected an integer, got {raw!r}")
            return _in_domain(key, raw, number)

        def get_float(key: str, default: float) -> float:
            raw = conf.get(key, None)
            if raw is None or (isinstance(raw, str) and not raw.strip()):
                return default
            number = None if isinstance(raw, bool) else java_float(str(raw))
            if number is None:
                raise ConfigurationError(f"{key}: expected a number, got {raw!r}")
            return _in_domain(key, raw, number)

        names = [name for name in _keys(conf) if name.startswith(SLSKeys.AM_TYPE_PREFIX)]
        configured = [n[len(SLSKeys.AM_TYPE_PREFIX) :] for n in names]
        am_types = tuple(
            n
            for n in dict.fromkeys([*KNOWN_AM_TYPES, *configured])
            if n in KNOWN_AM_TYPES or conf.get(SLSKeys.AM_TYPE_PREFIX + n, None)
        )
        return cls(
            nm_memory_mb=get_int(SLSKeys.NM_MEMORY_MB, d.nm_memory_mb),
            nm_vcores=get_int(SLSKeys.NM_VCORES, d.nm_vcores),
            nm_heartbeat_interval_ms=get_int(SLSKeys.NM_HEARTBEAT_INTERVAL_MS, d.nm_heartbeat_interval_ms),
            am_heartbeat_interval_ms=get_int(SLSKeys.AM_HEARTBEAT_INTERVAL_MS, d.am_heartbeat_interval_ms),
            am_container_memory_mb=get_int(SLSKeys.AM_CONTAINER_MEMORY, d.am_container_memory_mb),
            am_container_vcores=get_int(SLSKeys.AM_CONTAINER_VCORES, d.am_container_vcores),
            container_memory_mb=get_int(SLSKeys.CONTAINER_MEMORY_MB, d.container_memory_mb),
            container_vcores=get_int(SLSKeys.CONTAINER_VCORES, d.container_vcores),
            runner_pool_size=get_int(SLSKeys.RUNNER_POOL_SIZE, d.runner_pool_size),
            nm_resource_utilization_ratio=get_float(
                SLSKeys.NM_RESOURCE_UTILIZATION_RATIO, d.nm_resource_utilization_ratio
            ),
            am_types=am_types,
            resource_types=d.resource_types,
        )


def _in_domain(key: str, raw: object, number: _N) -> _N:
    problem = domain_error(key, str(raw).strip(), number)
    if problem is not None:
        raise ConfigurationError(f"{key}: {raw!r}: {problem}")
    return number


def _keys(conf: Any) -> Iterable[str]:
    """Key names of ``conf`` if it can list them (a dict, or anything with ``keys()``), else nothing."""
    keys = getattr(conf, "keys", None)
    if not callable(keys):
        return []
    try:
        return [k for k in keys() if isinstance(k, str)]
    except Exception:  # a configuration that cannot list itself: the known names are probed instead
        return []
