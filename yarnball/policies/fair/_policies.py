"""``SchedulingPolicy.parse`` and ``getInstance``: a policy by its short name or Java class name, one instance per
policy class."""

from __future__ import annotations

from typing import Final, TypeVar

from yarnball.errors import ConfigurationError, one_line
from yarnball.policies.fair._dominantresourcefairnesspolicy import DominantResourceFairnessPolicy
from yarnball.policies.fair._fairsharepolicy import FairSharePolicy
from yarnball.policies.fair._fifopolicy import FifoPolicy
from yarnball.policies.fair._schedulingpolicy import SchedulingPolicy

__all__ = ["DEFAULT_POLICY", "POLICY_CLASS_NAMES", "get_instance", "parse"]

_PACKAGE: Final = "org.apache.hadoop.yarn.server.resourcemanager.scheduler.fair.policies."

_INSTANCES: Final[dict[type[SchedulingPolicy], SchedulingPolicy]] = {
    FairSharePolicy: FairSharePolicy(),
    DominantResourceFairnessPolicy: DominantResourceFairnessPolicy(),
    FifoPolicy: FifoPolicy(),
}

POLICY_CLASS_NAMES: Final[dict[str, type[SchedulingPolicy]]] = {
    _PACKAGE + "FairSharePolicy": FairSharePolicy,
    _PACKAGE + "DominantResourceFairnessPolicy": DominantResourceFairnessPolicy,
    _PACKAGE + "FifoPolicy": FifoPolicy,
}
"""The Java class names ``parse`` accepts (``Class.forName``: exact, case-sensitive)."""

P = TypeVar("P", bound=SchedulingPolicy)


def get_instance(cls: type[P]) -> P:
    """``SchedulingPolicy.getInstance(clazz)``: the one instance of a policy class."""
    policy = _INSTANCES.get(cls)
    if policy is None:
        policy = _INSTANCES.setdefault(cls, cls())
    assert isinstance(policy, cls)
    return policy


def parse(policy: str) -> SchedulingPolicy:
    """``SchedulingPolicy.parse``: ``fair``, ``drf`` or ``fifo`` in any case, or a policy's full class name.

    Anything else raises :class:`ConfigurationError` with Hadoop's ``AllocationConfigurationException`` message,
    ``<policy> SchedulingPolicy class not found!``.
    """
    text = policy.lower()  # StringUtils.toLowerCase, then equalsIgnoreCase with each NAME
    if text == FairSharePolicy.NAME.lower():
        return get_instance(FairSharePolicy)
    if text == FifoPolicy.NAME.lower():
        return get_instance(FifoPolicy)
    if text == DominantResourceFairnessPolicy.NAME.lower():
        return get_instance(DominantResourceFairnessPolicy)
    cls = POLICY_CLASS_NAMES.get(policy)
    if cls is None:
        raise ConfigurationError(one_line(policy) + " SchedulingPolicy class not found!")
    return get_instance(cls)


DEFAULT_POLICY: Final[SchedulingPolicy] = get_instance(FairSharePolicy)
"""``SchedulingPolicy.DEFAULT_POLICY``: ``fair``."""
