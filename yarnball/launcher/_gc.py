"""The garbage collector's settings for a simulation run, restored afterwards.

A cluster's setup builds millions of objects that live for the whole run (nodes, queues, applications, their
requests); CPython's cyclic collector would walk all of them in every full collection. A busy run then allocates
and frees small objects by the million (messages, statuses, heap entries) that are almost never part of a cycle.
So, for the duration of a run:

- ``gc.freeze()`` moves everything alive at the start into the permanent generation, which no collection walks
  (https://docs.python.org/3/library/gc.html#gc.freeze);
- the generation-0 threshold is raised so that short-lived objects die before a collection looks at them, instead
  of being promoted and walked again in the older generations.

Both are undone when the run returns (:func:`tuned_gc` is a context manager), so a program that embeds a cluster
keeps its own collector settings; objects still alive then are unfrozen into the oldest generation, as they would
be without this. A process that froze objects itself keeps them frozen: the permanent generation is left alone.
Results never depend on it: the collector only frees unreachable objects.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["RUN_THRESHOLDS", "tuned_gc"]

#: Thresholds during a run: (allocations before a generation-0 collection, generation-0 collections per
#: generation-1 collection, generation-1 collections per full collection). CPython's defaults are (700, 10, 10).
#:
#: A run's per-container objects are freed by reference counting (no cyclic garbage was found in the measured
#: period of the busy benchmark at 2,000 and 10,000 nodes, collected with ``gc.DEBUG_SAVEALL``); what a collection
#: finds alive is the run's long-lived state (applications, tasks, their asks). The generation-0 count is of net
#: allocations, so a high first threshold holds no extra memory unless there are cycles; each survivor is walked
#: once there, and the second threshold keeps it from being walked again in generation 1 during the run.
#: ``python bench/bench_simulation.py --nodes 10000`` (2026-11-27, bench/RESULTS.md): (50_000, 20, 10) spent 2.6 s
#: of the 120 measured seconds in 63 + 2 collections, these thresholds 1.6 s in 16.
RUN_THRESHOLDS = (200_000, 100, 10)


@contextmanager
def tuned_gc(freeze: bool = True) -> Iterator[None]:
    """Run the body with the setup frozen (when ``freeze`` and nothing is frozen yet) and :data:`RUN_THRESHOLDS`;
    restore the thresholds and unfreeze on the way out (into the oldest generation, with what the run kept)."""
    thresholds = gc.get_threshold()
    froze = freeze and gc.isenabled() and gc.get_freeze_count() == 0
    if froze:
        gc.freeze()
    gc.set_threshold(*RUN_THRESHOLDS)
    try:
        yield
    finally:
        if froze:
            # What the run made and kept joins the setup in the oldest generation, unwalked (freeze and unfreeze
            # move lists, O(1)): with the caller's thresholds back, the next allocation would otherwise start a
            # generation-0 collection walking all of it (up to 200,000 objects, ~10 ms: 3% of the long-task
            # benchmark's measured run).
            gc.freeze()
            gc.unfreeze()
        gc.set_threshold(*thresholds)
