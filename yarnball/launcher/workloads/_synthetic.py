"""The busy synthetic MapReduce trace: :func:`synthetic_workload`, its nodes and its jobs, the same for the same
arguments (yarnball's own generator; SLS's SYNTH trace format is _synth.py)."""

from __future__ import annotations

import random
from collections.abc import Iterator, Sequence
from functools import partial
from typing import Any

import msgspec

from yarnball.errors import TraceFormatError
from yarnball.protocols import ExecutionType

from ._defaults import TraceDefaults
from ._draw import UniformDraw, draw_maps
from ._model import JobSpec, NodeSpec, Workload
from ._nodes import generate_nodes
from ._packed import Columns, PackedTasks, TaskValues, compact_column

__all__ = ["SyntheticJobs", "synthetic_jobs", "synthetic_nodes", "synthetic_workload"]

# The MapReduce AM's priorities (RMContainerAllocator.PRIORITY_MAP, PRIORITY_OPPORTUNISTIC_MAP, PRIORITY_REDUCE).
# OPPORTUNISTIC maps have a priority of their own: the scheduler keeps one ask per priority and resource name
# (AppSchedulingInfo), so GUARANTEED and OPPORTUNISTIC asks at one priority would replace each other there.
MAP_PRIORITY = 20
OPPORTUNISTIC_MAP_PRIORITY = 19
REDUCE_PRIORITY = 10


def _fail(message: str) -> TraceFormatError:
    return TraceFormatError(f"python workload: synthetic: {message}")


def synthetic_workload(
    num_jobs: int,
    num_nodes: int,
    seed: int = 0,
    *,
    defaults: TraceDefaults | None = None,
    nodes_per_rack: int = 40,
    **options: Any,
) -> Workload:
    """A busy MapReduce-style workload, the same for the same arguments: :func:`synthetic_nodes` and the jobs of
    :func:`synthetic_jobs` (``options`` are its keyword arguments)."""
    if num_jobs < 0 or num_nodes < 1:
        raise _fail(f"need num_jobs >= 0 and num_nodes >= 1, got {num_jobs} and {num_nodes}")
    nodes = synthetic_nodes(num_nodes, defaults=defaults, nodes_per_rack=nodes_per_rack)
    jobs = tuple(synthetic_jobs(num_jobs, nodes, seed, defaults=defaults, **options))
    return Workload(jobs, nodes, (), f"synthetic:jobs={num_jobs},nodes={num_nodes},seed={seed}")


def synthetic_nodes(
    num_nodes: int, *, defaults: TraceDefaults | None = None, nodes_per_rack: int = 40
) -> tuple[NodeSpec, ...]:
    """The nodes of :func:`synthetic_workload`: ``/rack<i % racks>/node<i>`` with the NM default size."""
    if num_nodes < 1:
        raise _fail(f"need num_nodes >= 1, got {num_nodes}")
    d = defaults or TraceDefaults()
    return generate_nodes(num_nodes, num_nodes // max(nodes_per_rack, 1), d.nm_resource)


def synthetic_jobs(
    num_jobs: int,
    nodes: Sequence[NodeSpec],
    seed: int = 0,
    *,
    defaults: TraceDefaults | None = None,
    queues: Sequence[str] = ("default",),
    queue_weights: Sequence[float] | None = None,
    users: int = 4,
    maps: tuple[int, int] = (1, 40),
    reduces: tuple[int, int] = (0, 10),
    map_ms: tuple[int, int] = (5_000, 60_000),
    reduce_ms: tuple[int, int] = (10_000, 120_000),
    load: float = 1.5,
    locality: bool = True,
    opportunistic_fraction: float = 0.0,
) -> SyntheticJobs:
    """The jobs of :func:`synthetic_workload` on ``nodes``, made one at a time as they are asked for, in submit time
    order (for ``Cluster.submit_jobs``: a long trace is never all in memory; the job feed takes each job's tasks
    packed as they are drawn, :meth:`SyntheticJobs.next_packed`). The arguments are checked at once.

    Jobs arrive as a Poisson process whose rate offers ``load`` times the cluster's container capacity (so
    ``load > 1`` keeps queues backed up). Map and reduce counts and durations are uniform in the given ranges; each
    map prefers a random node (``locality``); a fraction of maps may be OPPORTUNISTIC, asked for at priority 19 as
    MapReduce's AM does (maps 20, reduces 10). Containers have the default container size.
    """
    if num_jobs < 0 or not nodes:
        raise _fail(f"need num_jobs >= 0 and num_nodes >= 1, got {num_jobs} and {len(nodes)}")
    if not queues or load <= 0 or maps[0] < 0 or reduces[0] < 0 or maps[1] < maps[0] or reduces[1] < reduces[0]:
        raise _fail("need queues, load > 0 and ranges (lo, hi) with 0 <= lo <= hi")
    if min(map_ms[0], reduce_ms[0]) <= 0 or map_ms[1] < map_ms[0] or reduce_ms[1] < reduce_ms[0]:
        raise _fail("durations must be ranges (lo, hi) with 0 < lo <= hi")
    d = defaults or TraceDefaults()
    container = d.container_resource
    per_node = min(d.nm_memory_mb // max(container.memory_mb, 1), d.nm_vcores // max(container.vcores, 1))
    slots = max(1, per_node * len(nodes))
    mean_work = (sum(maps) / 2) * (sum(map_ms) / 2) + (sum(reduces) / 2) * (sum(reduce_ms) / 2)
    mean_gap_ms = max(mean_work, 1.0) / (slots * load)
    weights = list(queue_weights) if queue_weights is not None else [1.0] * len(queues)
    settings = (num_jobs, tuple(nodes), seed, d, list(queues), weights, users, maps, reduces, map_ms, reduce_ms)
    return SyntheticJobs(*settings, mean_gap_ms, locality, opportunistic_fraction)


class SyntheticJobs(Iterator[JobSpec]):
    """The jobs of :func:`synthetic_jobs`, drawn one at a time: iterating gives each job with its task specs;
    :meth:`next_packed` gives it without them and its tasks packed as they were drawn (the job feed's way,
    launcher/_jobfeed.py: no task spec is made for a job that waits in its queue). Both draw the same numbers."""

    __slots__ = (
        "_cache",
        "_cache_values",
        "_container",
        "_d",
        "_draw",
        "_fraction",
        "_i",
        "_locality",
        "_map_ms",
        "_maps",
        "_mean_gap_ms",
        "_nodes",
        "_now",
        "_num_jobs",
        "_opportunistic_shapes",
        "_own",
        "_places",
        "_queues",
        "_reduce_ms",
        "_reduces",
        "_rng",
        "_users",
        "_weights",
    )

    def __init__(
        self,
        num_jobs: int,
        nodes: tuple[NodeSpec, ...],
        seed: int,
        d: TraceDefaults,
        queues: list[str],
        weights: list[float],
        users: int,
        maps: tuple[int, int],
        reduces: tuple[int, int],
        map_ms: tuple[int, int],
        reduce_ms: tuple[int, int],
        mean_gap_ms: float,
        locality: bool,
        opportunistic_fraction: float,
    ) -> None:
        self._num_jobs, self._nodes, self._d, self._container = num_jobs, nodes, d, d.container_resource
        self._queues, self._weights, self._users = queues, weights, users
        self._maps, self._reduces, self._map_ms, self._reduce_ms = maps, reduces, map_ms, reduce_ms
        self._mean_gap_ms, self._locality, self._fraction = mean_gap_ms, locality, opportunistic_fraction
        self._rng = random.Random(seed)
        self._draw = UniformDraw(self._rng)
        self._i = 0
        self._now = 0.0
        self._own = TaskValues()  # (the shapes of the specs iterating makes)
        # Each node's (preferred hosts, rack), made once, and the place of a map requested anywhere last.
        self._places: list[tuple[tuple[str, ...], str | None]] = []
        # The shape numbers in _cache_values of a map on each place (-1: not numbered yet), guaranteed then
        # opportunistic, and of the reduces.
        self._cache_values: TaskValues | None = None
        self._cache: tuple[list[int], list[int], list[int]] = ([], [], [])
        self._opportunistic_shapes: set[int] = set()  # the numbers of the OPPORTUNISTIC maps' shapes

    def __iter__(self) -> SyntheticJobs:
        return self

    def __next__(self) -> JobSpec:
        drawn = self._next_drawn(self._own)
        if drawn is None:
            raise StopIteration
        job, columns, _ = drawn
        return msgspec.structs.replace(job, tasks=self._own.specs(columns))

    def next_packed(self, values: TaskValues) -> tuple[JobSpec, PackedTasks] | None:
        """The next job without its tasks and its tasks packed (shapes numbered in ``values``); None at the end."""
        drawn = self._next_drawn(values)
        if drawn is None:
            return None
        job, columns, total = drawn
        return job, PackedTasks.of_columns(columns, total, values)

    def _next_drawn(self, values: TaskValues) -> tuple[JobSpec, Columns, int] | None:
        """The next job (without tasks), its tasks' columns (shapes numbered in ``values``) and their container
        count: the numbers drawn in the order the trace's definition draws them with ``random.Random``'s methods
        (tests/test_job_feed.py)."""
        i = self._i
        if i >= self._num_jobs:
            return None
        self._i = i + 1
        rng, draw = self._rng, self._draw
        if i:
            self._now += rng.expovariate(1.0 / self._mean_gap_ms)
        if values is not self._cache_values:
            self._number_in(values)
        guaranteed, opportunistic, reduce_shape = self._cache
        durations: list[int] = []
        shapes: list[int] = []
        maps = draw.integer(*self._maps)
        tables = (guaranteed, opportunistic)
        new_shape = partial(self._map_shape, values)
        draw_maps(
            draw,
            rng,
            maps,
            len(self._nodes),
            self._locality,
            self._fraction,
            self._map_ms,
            tables,
            new_shape,
            durations,
            shapes,
        )
        reduces = draw.integer(*self._reduces)
        counts: int | list[int] = 1
        priorities: int | list[int] = MAP_PRIORITY
        opportunistic_shapes = self._opportunistic_shapes
        if opportunistic_shapes and not opportunistic_shapes.isdisjoint(shapes):
            priorities = [OPPORTUNISTIC_MAP_PRIORITY if s in opportunistic_shapes else MAP_PRIORITY for s in shapes]
        if reduces:
            # Reduces of one job share a length: one group, requested anywhere (MRAMSimulator's reduce phase).
            durations.append(draw.integer(*self._reduce_ms))
            if reduce_shape[0] < 0:
                reduce_shape[0] = values.number(("reduce", self._container, (), None, ExecutionType.GUARANTEED))
            shapes.append(reduce_shape[0])
            counts = compact_column([1] * maps + [reduces])
            if not maps:
                priorities = REDUCE_PRIORITY
            elif isinstance(priorities, list):
                priorities.append(REDUCE_PRIORITY)
            else:
                priorities = [MAP_PRIORITY] * maps + [REDUCE_PRIORITY]
        queue = rng.choices(self._queues, self._weights)[0]
        job = JobSpec(
            f"synth_{i:06d}", "mapreduce", f"user{rng.randrange(max(self._users, 1))}", queue, int(self._now), None,
            self._d.am_resource, (), name=f"synthetic_{i:06d}",
        )  # fmt: skip
        return job, (counts, compact_column(durations), priorities, shapes, -1, 0), maps + reduces

    def _number_in(self, values: TaskValues) -> None:
        """Start numbering shapes in ``values`` (the places made on first use)."""
        if not self._places:
            self._places = [((node.hostname,), node.rack) for node in self._nodes]
            self._places.append(((), None))
        self._cache_values = values
        self._cache = ([-1] * len(self._places), [-1] * len(self._places), [-1])
        self._opportunistic_shapes = set()

    def _map_shape(self, values: TaskValues, where: int, opportunistic: bool) -> int:
        hosts, rack = self._places[where]
        if not opportunistic:
            return values.number(("map", self._container, hosts, rack, ExecutionType.GUARANTEED))
        number = values.number(("map", self._container, hosts, rack, ExecutionType.OPPORTUNISTIC))
        self._opportunistic_shapes.add(number)
        return number
