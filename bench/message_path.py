"""The files one message's handling passes through: file crossings per event, measured, not read.

    python bench/message_path.py                          # a NodeHeartbeat on the default path
    python bench/message_path.py --through actors/_applicationmasterservice.py:serve_allocate   # an AllocateRequest
    python bench/message_path.py --show 1                 # also print the longest path, call by call

Runs a busy synthetic cluster (bench_simulation.py's workload, small) with the shipped defaults in pure Python
(``YARNBALL_PURE_PYTHON=1``, so that every Python-level call is seen) under ``sys.setprofile``. Each kernel event
is one path: from the kernel's call of the event's callback until it returns. A *file crossing* is a distinct
edge "file A calls into file B" on that path, the kernel's call of the callback included; the scheduler
(everything under ``policies/``) counts as one file, as it sits behind the scheduler interface, and a loop
that takes the same edge many times (one per allocated container, say) counts it once. Calls into the standard
library and third-party code are not counted, nor the calls they make back. A *call back* is an edge B -> A
taken after A -> B on the same path: a callee reaching back into its caller instead of returning to it. The
events measured are those whose path calls ``--through`` (default: the ResourceTrackerService's
``node_heartbeat``, which every route of a NodeHeartbeat ends in). Prints the distribution over every such event
of the run, and the edges of the longest path.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
from collections import Counter
from pathlib import Path
from types import FrameType
from typing import Any

os.environ["YARNBALL_PURE_PYTHON"] = "1"
ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "bench")]

import bench_simulation as b  # noqa: E402

from yarnball.actors import configure_logging  # noqa: E402
from yarnball.launcher import Cluster  # noqa: E402
from yarnball.protocols import Configuration  # noqa: E402

PACKAGE = str(ROOT / "yarnball") + os.sep
KERNEL = PACKAGE + os.path.join("actors", "_kernel.py")


def _rel(path: str) -> str:
    """The file's path in the package; everything behind the scheduler interface (``policies/``) is one name."""
    rel = path[len(PACKAGE) :].replace(os.sep, "/") if path.startswith(PACKAGE) else path
    return "policies/" if rel.startswith("policies/") else rel


class PathRecorder:
    """Records, per kernel event, the cross-file calls made while its callback runs; keeps the events that call
    ``through`` (``file:function``)."""

    def __init__(self, through: str) -> None:
        self.file, _, self.function = through.partition(":")
        self.depth = 0  # frames of the event's call tree currently open
        self.current: list[tuple[str, str, str]] = []
        self.hit = False
        self.paths: list[list[tuple[str, str, str]]] = []

    def profile(self, frame: FrameType, event: str, arg: Any) -> None:
        if event == "call":
            code = frame.f_code
            back = frame.f_back
            if self.depth == 0:
                if back is None or back.f_code.co_filename != KERNEL or back.f_code.co_name != "run":
                    return
                self.depth = 1
                self.current = []
                self.hit = False
            else:
                self.depth += 1
            callee = code.co_filename
            if not callee.startswith(PACKAGE) or back is None:
                return
            rel = _rel(callee)
            if code.co_name == self.function and rel == self.file:
                self.hit = True
            caller = back.f_code.co_filename
            if caller.startswith(PACKAGE) and _rel(caller) != rel:
                self.current.append((_rel(caller), rel, code.co_qualname))
        elif event == "return" and self.depth:
            self.depth -= 1
            if self.depth == 0 and self.hit:
                self.paths.append(self.current)


def _edges(path: list[tuple[str, str, str]]) -> list[tuple[str, str, str]]:
    """The path's distinct file-to-file edges in the order first taken."""
    seen: set[tuple[str, str]] = set()
    edges = []
    for caller, callee, name in path:
        if (caller, callee) not in seen:
            seen.add((caller, callee))
            edges.append((caller, callee, name))
    return edges


def _call_backs(edges: list[tuple[str, str, str]]) -> list[tuple[str, str, str]]:
    """Edges B -> A taken after A -> B."""
    seen: set[tuple[str, str]] = set()
    backs = []
    for caller, callee, name in edges:
        if (callee, caller) in seen:
            backs.append((caller, callee, name))
        seen.add((caller, callee))
    return backs


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument(
        "--through",
        default="actors/_resourcetracker.py:node_heartbeat",
        help="measure the events whose handling calls this FILE:FUNCTION (default: %(default)s)",
    )
    parser.add_argument("--nodes", type=int, default=200)
    parser.add_argument("--seconds", type=int, default=120, help="simulated seconds to run")
    parser.add_argument("--show", type=int, default=0, help="print the N longest paths call by call")
    args = parser.parse_args(argv)
    configure_logging(level="warning")
    workload = b.busy_workload(args.nodes, args.seconds, 1, (5000, 60000), (10000, 120000), 1.5)
    cluster = Cluster(Configuration({}), workload.nodes, seed=1)
    cluster.submit_workload(workload)
    recorder = PathRecorder(args.through)
    sys.setprofile(recorder.profile)
    try:
        cluster.run(until_ms=args.seconds * 1000)
    finally:
        sys.setprofile(None)
    paths = recorder.paths
    if not paths:
        print(f"no event of the run calls {args.through}", file=sys.stderr)
        return 1
    edges = [_edges(p) for p in paths]
    crossings = [len(e) for e in edges]
    backs = [len(_call_backs(e)) for e in edges]
    files = [len({callee for _, callee, _ in e}) for e in edges]
    print(f"events calling {args.through}: {len(paths)} ({args.nodes} nodes, {args.seconds} simulated s)")
    print("                       min  median  max")
    for name, values in (("file crossings", crossings), ("files touched", files), ("call backs", backs)):
        print(f"  {name:<20} {min(values):>4} {statistics.median(values):>7} {max(values):>4}")
    shapes = Counter(tuple(e) for e in edges)
    print(f"  distinct paths: {len(shapes)}")
    for e in sorted(edges, key=len, reverse=True)[: args.show]:
        print(f"\n{len(e)} crossings ({len(_call_backs(e))} call backs):")
        for caller, callee, name in e:
            back = "  (call back)" if (caller, callee, name) in _call_backs(e) else ""
            print(f"  {caller} -> {callee}  {name}{back}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
