"""Hadoop's FifoScheduler (``org.apache.hadoop.yarn.server.resourcemanager.scheduler.fifo``) on the scheduler-neutral
``AbstractYarnScheduler`` (policies/scheduler/_abstract.py): _scheduler.py (the scheduler, its events, allocate,
metrics and REST info), _appattempt.py (``assignContainers`` and ``FifoAppAttempt.allocate`` over the ask table)."""

from __future__ import annotations

from yarnball.policies.fifo._scheduler import DEFAULT_QUEUE_NAME, FifoScheduler, validate_conf

__all__ = ["DEFAULT_QUEUE_NAME", "FifoScheduler", "validate_conf"]
