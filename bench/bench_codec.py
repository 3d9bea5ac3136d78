"""Benchmark: yarnball's msgspec codec against plain ``msgpack`` with equivalent dicts, in the same run.

The payload is a NodeHeartbeatRequest with 10 container statuses, the message every NodeManager sends each second.
"msgpack" packs and unpacks the same content as plain dicts (what ``msgpack.unpackb`` reads from a yarnball frame):
no schema, no validation and no typed objects, so it is the cheapest thing a generic client could do.

Run: ``python bench/bench_codec.py [--number N] [--repeat R] [--batch B]``. Prints microseconds per message
(best of R runs of N operations) for encode, decode and the round trip, and the ratio msgpack / yarnball.
"""

from __future__ import annotations

import argparse
import platform
import timeit
from collections.abc import Callable

import msgpack
import msgspec

from yarnball.protocols import (
    ApplicationAttemptId,
    ApplicationId,
    ContainerId,
    ContainerState,
    ContainerStatus,
    NodeHeartbeatRequest,
    NodeId,
    NodeStatus,
    OpportunisticContainersStatus,
    Resource,
    decode,
    decode_batch,
    encode,
    encode_batch,
)


def heartbeat(statuses: int = 10) -> NodeHeartbeatRequest:
    attempt = ApplicationAttemptId(ApplicationId(1700000000000, 12), 1)
    return NodeHeartbeatRequest(
        node_status=NodeStatus(
            node_id=NodeId("a2118.smile.com", 8041),
            response_id=42,
            container_statuses=tuple(
                ContainerStatus(
                    container_id=ContainerId(attempt, i + 2),
                    state=ContainerState.RUNNING,
                    capability=Resource(1024, 1),
                )
                for i in range(statuses)
            ),
            opportunistic_containers_status=OpportunisticContainersStatus(wait_queue_length=3),
        )
    )


def best_us(fn: Callable[[], object], number: int, repeat: int, per_call: int = 1) -> float:
    return min(timeit.repeat(fn, number=number, repeat=repeat)) / (number * per_call) * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--number", type=int, default=20000, help="operations per timing run")
    parser.add_argument("--repeat", type=int, default=5, help="timing runs; the best is reported")
    parser.add_argument("--batch", type=int, default=1000, help="messages per batch frame")
    args = parser.parse_args()
    n, r = args.number, args.repeat

    message = heartbeat()
    frame = encode(message)
    as_dict = msgpack.unpackb(frame)  # the equivalent plain content, including "v" and the "type" tag
    packed = msgpack.packb(as_dict)
    assert decode(packed) == message and msgpack.unpackb(packed) == as_dict

    rows = [
        ("encode", best_us(lambda: encode(message), n, r), best_us(lambda: msgpack.packb(as_dict), n, r)),
        ("decode", best_us(lambda: decode(frame), n, r), best_us(lambda: msgpack.unpackb(packed), n, r)),
        (
            "round trip",
            best_us(lambda: decode(encode(message)), n, r),
            best_us(lambda: msgpack.unpackb(msgpack.packb(as_dict)), n, r),
        ),
    ]

    b = args.batch
    messages = [message] * b
    dicts = [as_dict["m"]] * b
    batch_frame = encode_batch(messages)
    batch_packed = msgpack.packb({"v": 1, "batch": dicts})
    nb = max(1, n // b)
    rows.append(
        (
            f"batch of {b}, round trip",
            best_us(lambda: decode_batch(encode_batch(messages)), nb, r, b),
            best_us(lambda: msgpack.unpackb(msgpack.packb({"v": 1, "batch": dicts})), nb, r, b),
        )
    )

    print(
        f"NodeHeartbeatRequest with 10 ContainerStatus; frame {len(frame)} B (msgpack dict {len(packed)} B); "
        f"batch of {b}: {len(batch_frame)} B vs {len(batch_packed)} B"
    )
    print(
        f"Python {platform.python_version()}, msgspec {msgspec.__version__}, msgpack "
        f"{'.'.join(map(str, msgpack.version))}; best of {r} x {n} operations"
    )
    print(f"{'operation':<28}{'yarnball µs/msg':>17}{'msgpack µs/msg':>16}{'msgpack/yarnball':>18}")
    for name, ours, theirs in rows:
        print(f"{name:<28}{ours:>17.2f}{theirs:>16.2f}{theirs / ours:>17.2f}x")


if __name__ == "__main__":
    main()
