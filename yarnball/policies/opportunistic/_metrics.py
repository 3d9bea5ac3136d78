"""Hadoop's ``OpportunisticSchedulerMetrics`` (hadoop-yarn-server-common, ``org.apache.hadoop.yarn.server.metrics``).

The RM's metrics of OPPORTUNISTIC containers, with Hadoop's names and update points:

* ``AllocatedOContainers`` (gauge) and ``AggregateOContainersAllocated`` (counter): ``incrAllocatedOppContainers``,
  called by ``OpportunisticContainerAllocatorAMService``'s allocate with the containers the RM's allocator made.
  Containers an NM allocated (distributed scheduling) are not counted, as in Hadoop (they are another process's).
* ``AggregateOContainersReleased``: ``incrReleasedOppContainers(1)`` in ``AbstractYarnScheduler.completedContainer``
  for every OPPORTUNISTIC container that ends (released, finished, killed), which also decrements the gauge. A
  promoted container ends GUARANTEED and is not counted.
* ``Aggregate{NodeLocal,RackLocal,OffSwitch}OContainersAllocated``: the allocator's loop that placed the container
  (``updateMetrics(loopIndex)`` / ``incrOffSwitchOppContainers``).
* ``AllocateLatencyOQuantiles``: ``addAllocateOLatencyEntry(now - request timestamp)`` in
  ``OpportunisticContainerContext.matchAllocationToOutstandingRequest``, for each allocated container, the
  timestamp being when its ``EnrichedResourceRequest`` was created (the first ask of that key and capability), in
  simulated ms. Exported as ``MutableQuantiles`` names its values: ``...NumOps`` and the 50/75/90/95/99th
  percentiles ``...<p>thPercentileTime``; computed exactly (nearest rank) rather than with Hadoop's estimator.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

__all__ = ["LATENCY", "PERCENTILES", "OpportunisticSchedulerMetrics", "latency_quantiles"]

#: MutableQuantiles' percentiles (``MutableQuantiles.quantiles``: 50, 75, 90, 95, 99).
PERCENTILES = (50, 75, 90, 95, 99)
LATENCY = "AllocateLatencyOQuantiles"


def latency_quantiles(samples: Sequence[int]) -> dict[str, int]:
    """``<LATENCY>NumOps`` and the nearest-rank percentiles of ``samples`` (0 when there is none)."""
    ordered = sorted(samples)
    out = {f"{LATENCY}NumOps": len(ordered)}
    for p in PERCENTILES:
        out[f"{LATENCY}{p}thPercentileTime"] = ordered[max(0, math.ceil(p / 100 * len(ordered)) - 1)] if ordered else 0
    return out


class OpportunisticSchedulerMetrics:
    """The RM's counters; :meth:`snapshot` gives them under Hadoop's JMX names."""

    __slots__ = (
        "aggregate_allocated",
        "aggregate_node_local",
        "aggregate_off_switch",
        "aggregate_rack_local",
        "aggregate_released",
        "allocated",
        "latencies",
    )

    def __init__(self) -> None:
        self.allocated = 0  # allocatedOContainers (MutableGaugeInt)
        self.aggregate_allocated = 0  # aggregateOContainersAllocated
        self.aggregate_released = 0  # aggregateOContainersReleased
        self.aggregate_node_local = 0  # aggregateNodeLocalOContainersAllocated
        self.aggregate_rack_local = 0  # aggregateRackLocalOContainersAllocated
        self.aggregate_off_switch = 0  # aggregateOffSwitchOContainersAllocated
        self.latencies: list[int] = []  # allocateLatencyOQuantiles' samples, in order

    def incr_allocated_opp_containers(self, num_containers: int) -> None:
        self.allocated += num_containers
        self.aggregate_allocated += num_containers

    def incr_released_opp_containers(self, num_containers: int) -> None:
        self.aggregate_released += num_containers
        self.allocated -= num_containers

    def incr_node_local_opp_containers(self) -> None:
        self.aggregate_node_local += 1

    def incr_rack_local_opp_containers(self) -> None:
        self.aggregate_rack_local += 1

    def incr_off_switch_opp_containers(self) -> None:
        self.aggregate_off_switch += 1

    def add_allocate_o_latency_entry(self, latency: int) -> None:
        self.latencies.append(latency)

    def snapshot(self, since: int = 0) -> dict[str, int]:
        """Every metric by its Hadoop name; the latency quantiles over the samples from index ``since`` on (a
        recorder passes the count it saw last time, like MutableQuantiles' rolling interval)."""
        return {
            "AllocatedOContainers": self.allocated,
            "AggregateOContainersAllocated": self.aggregate_allocated,
            "AggregateOContainersReleased": self.aggregate_released,
            "AggregateNodeLocalOContainersAllocated": self.aggregate_node_local,
            "AggregateRackLocalOContainersAllocated": self.aggregate_rack_local,
            "AggregateOffSwitchOContainersAllocated": self.aggregate_off_switch,
            **latency_quantiles(self.latencies[since:]),
        }
