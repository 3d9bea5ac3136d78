"""Shard host recovery: a host that dies mid-run is rebuilt by replay, and the run goes on as if nothing happened.

Every shard host is deterministic: what it does is a function of its setup steps, the batches delivered to it in
each window and the window bounds. :class:`RecoveringHosts` wraps the run's :class:`HostGroup` and records exactly
that, per host, as the coordinator drives the windows:

- ``("setup", steps)``: the setup steps, in the order they were applied;
- ``("window", end, inclusive, inbound, digest)``: each window the host ran (an idle host runs none), with the
  batches delivered to it and a digest of the batches it sent;
- ``("call", method, args)``: the few calls between windows that change a host (``set_now``, REST writes).

When a call fails because a host's actor died (the group names it in ``dead``), the group replaces the actor
(``replace``: a new actor, reset with the same arguments, which rewrites its event-log part from the start) and the
new host replays the recording in one call (:func:`replay`): the same setup, the same windows, its outgoing
batches thrown away (the other hosts got them the first time) but compared, digest by digest, with the ones
recorded; any difference stops the run cleanly. The failed window is then finished: the rebuilt host and any host
that had not run it run it now; a host that had, returns its cached result (``HostView.window_count`` and
``last_window`` tell which). The run's outputs are byte-identical to a run without the failure
(tests/test_host_recovery.py).

Costs: the recording holds every batch delivered since the run began (about the bytes that crossed hosts, bounded
by ``yarnball.ray.host-recovery.max-bytes``: past it the recording is dropped and a dead host stops the run with
the usual error, as with 0); a recovery costs about the dead host's share of the run so far in replay time. There
are no host checkpoints: a host's kernel holds closures and generator-backed AM coroutines that do not pickle.
After a recovery the window loop stays on plain actor calls (the compiled graph is torn down and not rebuilt).
Live mode (wall clock) is not recovered: real time cannot be replayed.

Recoveries are counted (``host_restarts``, in summary.json's ``ray`` section) and logged (``shard_host_restarted``
on the driver's logger).
"""

from __future__ import annotations

import hashlib
from typing import Any

from yarnball._logs import get_logger
from yarnball.errors import SimulationError
from yarnball.launcher._hostgroup import HostGroup, WindowResult
from yarnball.protocols import Configuration, keys

__all__ = ["RecoveringHosts", "batches_digest", "recovering", "replay"]

log = get_logger(__name__)

#: Calls between windows that change a host's state, replayed with the windows (the rest only read it).
_MUTATING_WEB = ("ask", "reply")
#: Bookkeeping bytes counted per recorded operation besides its batches.
_OP_BYTES = 64
#: Recoveries tried for one failed call before the run stops (a host that keeps dying is not a transient fault).
_MAX_ATTEMPTS = 3


def batches_digest(out: dict[int, bytes]) -> bytes:
    """A digest of one window's outgoing batches (by destination host), to check a replay reproduced them.

    The driver digests every host's batches after every window, while the hosts wait for the next one: SHA-256
    (hardware-accelerated on x86-64 CPUs with the SHA extensions, as here) took 33 µs for the ~45 KB a host sends per
    window at 10,000 busy nodes, BLAKE2b 120 µs (bench/history/2026-11.md, 2026-11-25)."""
    h = hashlib.sha256()
    for dst in sorted(out):
        data = out[dst]
        h.update(dst.to_bytes(4, "little"))
        h.update(len(data).to_bytes(8, "little"))
        h.update(data)
    return h.digest()[:16]


def replay(view: Any, ops: list[tuple[Any, ...]]) -> int | None:
    """Host side: apply recorded ``ops`` to a fresh ``HostView``; return the index of the first window whose
    outgoing batches differ from the recorded digest (None: the replay matched, byte for byte)."""
    for index, op in enumerate(ops):
        kind = op[0]
        if kind == "setup":
            view.setup(op[1])
        elif kind == "window":
            _, end, inclusive, inbound, digest = op
            out = view.run_window(end, inclusive, inbound)[0]
            if batches_digest(out) != digest:
                return index
        elif kind == "call":
            getattr(view, op[1])(*op[2])
        else:
            raise SimulationError(f"unknown recorded host operation {kind!r}")
    return None


class RecoveringHosts(HostGroup):
    """A :class:`HostGroup` that records what each host was given and rebuilds a host that died.

    ``inner`` must offer ``dead`` (the indexes of hosts found dead) and ``replace(index)`` (a fresh host actor in
    their place, reset as at start); ``max_bytes`` bounds the recording (0: no recording, no recovery).
    """

    def __init__(self, inner: HostGroup, max_bytes: int) -> None:
        self.inner = inner
        self.size = inner.size
        self.max_bytes = max_bytes
        self.recorded_bytes = 0
        self.ops: list[list[tuple[Any, ...]]] | None = [[] for _ in range(inner.size)] if max_bytes > 0 else None
        self.lost_reason = "" if max_bytes > 0 else f"{keys.RAY_HOST_RECOVERY_MAX_BYTES} is 0 (recovery is off)"
        self.host_restarts = 0
        #: Test and drill hook: called with the number of windows run so far after each window's results are in.
        self.after_window: Any = None
        self.windows = 0
        #: How the failed windows' results were had: a survivor's cached result, or the window (re)run.
        self.finished_by = {"cached": 0, "rerun": 0}
        self.windows_run = [0] * inner.size  # per host: windows it ran (what HostView.window_count reports)

    # -- what the coordinator sees ----------------------------------------------------------------------------
    def __getattr__(self, name: str) -> Any:
        """Anything else the coordinator reads from its group (``compiled``, ``local``, ...) is the inner group's."""
        if name == "inner":  # not set yet (e.g. while unpickling): no recursion
            raise AttributeError(name)
        return getattr(self.inner, name)

    def kill(self, index: int) -> None:
        kill = getattr(self.inner, "kill", None)
        if kill is None:
            raise SimulationError("this backend cannot kill a host")
        kill(index)

    def setup(self, steps: list[tuple[Any, ...]]) -> None:
        self._record_all(("setup", steps), 0)
        try:
            self.inner.setup(steps)
        except SimulationError as exc:
            dead = self._dead()
            if not dead:
                raise
            self._rebuild(dead, exc, "setup")  # the survivors applied the steps; the rebuilt hosts replayed them

    def run_window(
        self, end: float | None, inclusive: bool, inbound: list[list[bytes]], active: list[bool]
    ) -> list[WindowResult | None]:
        counts = [n + 1 for n in self.windows_run]
        try:
            results = self.inner.run_window(end, inclusive, inbound, active)
        except SimulationError as exc:
            results = self._finish_window(exc, end, inclusive, inbound, active, counts)
        for i, result in enumerate(results):
            if result is not None:
                self.windows_run[i] += 1
            if result is not None and self.ops is not None:
                size = sum(len(b) for b in inbound[i]) + _OP_BYTES
                self._record(i, ("window", end, inclusive, inbound[i], batches_digest(result[0])), size)
        self.windows += 1
        if self.after_window is not None:
            self.after_window(self.windows)
        return results

    def call(self, index: int, method: str, *args: Any) -> Any:
        mutating = method == "set_now" or (method == "web" and bool(args) and args[0] in _MUTATING_WEB)
        got = self._with_recovery(lambda: self.inner.call(index, method, *args), method)
        if mutating:  # recorded once it happened: a rebuild before it must not replay it too
            self._record(index, ("call", method, args), _OP_BYTES)
        return got

    def close(self) -> None:
        self.ops = None
        self.inner.close()

    # -- recording --------------------------------------------------------------------------------------------
    def _record(self, index: int, op: tuple[Any, ...], size: int) -> None:
        if self.ops is None:
            return
        self.recorded_bytes += size
        if self.recorded_bytes > self.max_bytes:
            self.ops = None
            self.lost_reason = (
                f"the recording passed {keys.RAY_HOST_RECOVERY_MAX_BYTES}={self.max_bytes} bytes at window "
                f"{self.windows}"
            )
            log.warning("shard_host_recovery_off", reason=self.lost_reason)
            return
        self.ops[index].append(op)

    def _record_all(self, op: tuple[Any, ...], size: int) -> None:
        for i in range(self.size):
            self._record(i, op, size + _OP_BYTES)

    # -- recovering -------------------------------------------------------------------------------------------
    def _dead(self) -> set[int]:
        return set(getattr(self.inner, "dead", ()))

    def _with_recovery(self, action: Any, what: str) -> Any:
        for _ in range(_MAX_ATTEMPTS):
            try:
                return action()
            except SimulationError as exc:
                dead = self._dead()
                if not dead:
                    raise
                self._rebuild(dead, exc, what)
        return action()

    def _rebuild(self, dead: set[int], exc: SimulationError, what: str) -> None:
        """Replace and replay every dead host, or raise the SimulationError that stops the run."""
        replace = getattr(self.inner, "replace", None)
        if self.ops is None or replace is None:
            reason = self.lost_reason or "this backend cannot replace a host"
            raise SimulationError(f"{exc}; the host cannot be rebuilt: {reason}") from exc
        for index in sorted(dead):
            log.warning("shard_host_restarting", host=index, during=what, operations=len(self.ops[index]))
            try:
                replace(index)
                mismatch = self.inner.call(index, "replay", self.ops[index])
            except SimulationError as again:
                raise SimulationError(f"{exc}; rebuilding shard host {index} failed: {again}") from again
            if mismatch is not None:
                raise SimulationError(
                    f"{exc}; the rebuilt shard host {index} sent different batches than the first time in its "
                    f"recorded operation {mismatch}, so it cannot stand in for the dead one"
                ) from exc
            self.host_restarts += 1
            log.warning("shard_host_restarted", host=index, during=what, restarts=self.host_restarts)

    def _finish_window(
        self,
        exc: SimulationError,
        end: float | None,
        inclusive: bool,
        inbound: list[list[bytes]],
        active: list[bool],
        counts: list[int],
    ) -> list[WindowResult | None]:
        """A window failed on a dead host: rebuild it, then get every active host's result for this window."""
        dead = self._dead()
        if not dead:
            raise exc
        self._rebuild(dead, exc, f"the window ending at {end} ms")
        results: list[WindowResult | None] = [None] * self.size
        for i in range(self.size):
            if not active[i]:
                continue
            ran = self._with_recovery(lambda i=i: self.inner.call(i, "window_count"), "window_count")
            if ran == counts[i]:  # a survivor that finished the window: its cached result
                results[i] = self._with_recovery(lambda i=i: self.inner.call(i, "last_window"), "last_window")
                self.finished_by["cached"] += 1
            elif ran == counts[i] - 1:
                self.finished_by["rerun"] += 1
                results[i] = self._with_recovery(
                    lambda i=i: self.inner.call(i, "run_window", end, inclusive, inbound[i]), "run_window"
                )
            else:
                raise SimulationError(
                    f"{exc}; shard host {i} ran {ran} windows where {counts[i] - 1} or {counts[i]} were expected"
                ) from exc
        return results


def recovering(group: HostGroup, conf: Configuration) -> RecoveringHosts:
    """``group`` with host recovery bounded by ``yarnball.ray.host-recovery.max-bytes``."""
    max_bytes = conf.get_int(keys.RAY_HOST_RECOVERY_MAX_BYTES, keys.DEFAULT_RAY_HOST_RECOVERY_MAX_BYTES)
    if max_bytes < 0:
        raise SimulationError(f"{keys.RAY_HOST_RECOVERY_MAX_BYTES} must be >= 0 bytes, got {max_bytes}")
    return RecoveringHosts(group, max_bytes)
