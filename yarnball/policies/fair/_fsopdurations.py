"""Hadoop's ``FSOpDurations`` (``scheduler/fair/FSOpDurations.java``): the durations of the FairScheduler's
operations as a metrics2 source, one record ``FSOpDurations`` (context ``fairscheduler-op-durations``) of three
extended ``MutableRate``s, each added to where Hadoop adds it:

* ``UpdateThreadRun``: ``FairScheduler.update`` (the update thread's run, and every direct call);
* ``NodeUpdateCall``: ``FairScheduler.nodeUpdate`` (a NODE_UPDATE: its containers, then ``attemptScheduling``);
* ``ContinuousSchedulingRun``: ``continuousSchedulingAttempt`` (deprecated in Hadoop, as continuous scheduling is).

A duration is ``getClock().getTime()`` after minus before, in the RM's virtual ms: an operation takes no simulated
time, so every duration is 0 and the counts (``...NumOps``) carry the information; the same run gives the same
record. The values are named as Hadoop's ``MutableStat`` names them (``<Name>NumOps``, ``AvgTime``, and with
``setExtended(true)``, which ``FairScheduler.initScheduler`` asks for, ``StdevTime``, ``IMinTime``, ``IMaxTime``,
``MinTime``, ``MaxTime``, ``INumOps``), the names the RM's JMX shows under ``name=FSOpDurations``.
"""

from __future__ import annotations

import math
from typing import Any

__all__ = ["RECORD_CONTEXT", "RECORD_NAME", "FSOpDurations", "MutableRate"]

RECORD_NAME = "FSOpDurations"
RECORD_DESCRIPTION = "Durations of FairScheduler calls or thread-runs"
#: the class's ``@Metrics(context="fairscheduler-op-durations")``
RECORD_CONTEXT = "fairscheduler-op-durations"

# SampleStat.MinMax's defaults: Float.MAX_VALUE and Float.MIN_VALUE, as doubles
_MIN_DEFAULT = 3.4028234663852886e38
_MAX_DEFAULT = 1.401298464324817e-45


class _SampleStat:
    """``SampleStat``: count, Welford mean and sum of squares, min and max of one interval."""

    __slots__ = ("max", "mean", "min", "num_samples", "s")

    def __init__(self) -> None:
        self.reset()

    def reset(self) -> None:
        self.num_samples = 0
        self.mean = 0.0
        self.s = 0.0
        self.min = _MIN_DEFAULT
        self.max = _MAX_DEFAULT

    def add(self, x: float) -> None:
        self.min = min(self.min, x)
        self.max = max(self.max, x)
        self.num_samples += 1
        old = self.mean
        self.mean += (x - old) / self.num_samples
        self.s += (x - old) * (x - self.mean)

    def stddev(self) -> float:
        return math.sqrt(self.s / (self.num_samples - 1)) if self.num_samples > 1 else 0.0


class MutableRate:
    """``MutableRate`` (a ``MutableStat`` of "Ops" timed in "Time"), extended: :meth:`snapshot` gives the
    interval's values and starts a new interval when samples were added since the last one."""

    __slots__ = ("_changed", "_interval", "_max", "_min", "_num_samples", "name")

    def __init__(self, name: str) -> None:
        self.name = name
        self._interval = _SampleStat()
        self._min = _MIN_DEFAULT  # MutableStat.minMax: over the whole run
        self._max = _MAX_DEFAULT
        self._num_samples = 0
        self._changed = False

    def add(self, value: int) -> None:
        """``add(long)``: one sample."""
        self._interval.add(float(value))
        self._min = min(self._min, float(value))
        self._max = max(self._max, float(value))
        self._changed = True

    def changed(self) -> bool:
        return self._changed

    def snapshot(self, record: dict[str, Any], all_metrics: bool) -> None:
        """``MutableStat.snapshot(builder, all)``."""
        if not (all_metrics or self._changed):
            return
        interval, n = self._interval, self.name
        self._num_samples += interval.num_samples
        record[f"{n}NumOps"] = self._num_samples
        record[f"{n}AvgTime"] = interval.mean if interval.num_samples > 0 else 0.0
        record[f"{n}StdevTime"] = interval.stddev()
        record[f"{n}IMinTime"] = interval.min
        record[f"{n}IMaxTime"] = interval.max
        record[f"{n}MinTime"] = self._min
        record[f"{n}MaxTime"] = self._max
        record[f"{n}INumOps"] = interval.num_samples
        if self._changed:
            if self._num_samples > 0:
                interval.reset()
            self._changed = False


class FSOpDurations:
    """The scheduler's ``fsOpDurations`` (Hadoop's is a JVM singleton; here one per scheduler, the RM's)."""

    __slots__ = ("continuous_scheduling_run", "node_update_call", "update_thread_run")

    def __init__(self) -> None:
        # the @Metric fields in their declaration order, which is the record's
        self.continuous_scheduling_run = MutableRate("ContinuousSchedulingRun")
        self.node_update_call = MutableRate("NodeUpdateCall")
        self.update_thread_run = MutableRate("UpdateThreadRun")

    def add_continuous_scheduling_run_duration(self, value: int) -> None:
        self.continuous_scheduling_run.add(value)

    def add_node_update_duration(self, value: int) -> None:
        self.node_update_call.add(value)

    def add_update_thread_run_duration(self, value: int) -> None:
        self.update_thread_run.add(value)

    def has_update_thread_run_changed(self) -> bool:
        return self.update_thread_run.changed()

    def get_metrics(self, collector: list[dict[str, Any]], all_metrics: bool) -> None:
        """``getMetrics(collector, all)``: one record appended to ``collector`` (its ``name``, ``context``,
        ``tags`` and ``metrics``, the metrics by their JMX names)."""
        metrics: dict[str, Any] = {}
        for rate in (self.continuous_scheduling_run, self.node_update_call, self.update_thread_run):
            rate.snapshot(metrics, all_metrics)
        collector.append(
            {
                "name": RECORD_NAME,
                "description": RECORD_DESCRIPTION,
                "context": RECORD_CONTEXT,
                "tags": {RECORD_NAME: RECORD_NAME, "Context": RECORD_CONTEXT},
                "metrics": metrics,
            }
        )
