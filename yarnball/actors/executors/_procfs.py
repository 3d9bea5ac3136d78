"""A container's process tree read from ``/proc``, as Hadoop's ``ProcfsBasedProcessTree`` reads it.

A container runs in a session (and process group) of its own, so its tree is every process whose process group id
is the container's root pid. Memory is summed over the tree: RSS (``VmRSS``, pages * page size in Hadoop) and
virtual size (``VmSize``). Hadoop builds the tree from parent pids; the group is the same set for a container
launched with ``setsid`` (as DefaultContainerExecutor does) unless a child leaves the group on purpose.

No dependency: psutil would do the same reads; this is the few lines the ContainersMonitor needs.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

__all__ = ["ProcessInfo", "long2string", "process_tree", "scan_groups", "tree_dump"]

_PAGE = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096


@dataclass(frozen=True, slots=True)
class ProcessInfo:
    """One process of a container's tree (the columns of ``ProcfsBasedProcessTree.getProcessTreeDump``)."""

    pid: int
    ppid: int
    pgrp: int
    session: int
    name: str
    utime_ms: int
    stime_ms: int
    vmem_bytes: int
    rss_pages: int
    cmdline: str

    @property
    def rss_bytes(self) -> int:
        return self.rss_pages * _PAGE


_TICK_MS = 1000.0 / (os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100)


def _read(pid: str) -> ProcessInfo | None:
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            raw = f.read().decode(errors="replace")
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            cmd = f.read().replace(b"\0", b" ").decode(errors="replace").strip()
    except OSError:
        return None  # gone meanwhile
    # "pid (comm) state ppid pgrp session ..." where comm may hold spaces and parentheses: split at the last ')'.
    head, _, rest = raw.rpartition(")")
    name = head.split("(", 1)[1] if "(" in head else head
    fields = rest.split()
    if len(fields) < 22 or fields[0] == "Z":
        return None  # a zombie holds no memory (it only waits to be reaped)
    # fields[0] is the state; man proc(5) numbers from 1 with pid and comm as 1 and 2.
    return ProcessInfo(
        pid=int(pid),
        ppid=int(fields[1]),
        pgrp=int(fields[2]),
        session=int(fields[3]),
        name=name,
        utime_ms=int(int(fields[11]) * _TICK_MS),
        stime_ms=int(int(fields[12]) * _TICK_MS),
        vmem_bytes=int(fields[20]),
        rss_pages=int(fields[21]),
        cmdline=cmd,
    )


def scan_groups(roots: set[int]) -> dict[int, list[ProcessInfo]]:
    """One pass over ``/proc``: root pid -> the live processes of its process group (the root first). A root whose
    group is gone maps to an empty list."""
    out: dict[int, list[ProcessInfo]] = {root: [] for root in roots}
    try:
        pids = [p for p in os.listdir("/proc") if p.isdigit()]
    except OSError:
        return out
    for pid in pids:
        info = _read(pid)
        if info is None:
            continue
        group = out.get(info.pgrp)
        if group is None:
            group = out.get(info.pid)  # a root not (yet) leading its own group
        if group is not None:
            group.append(info)
    for root, group in out.items():
        group.sort(key=lambda p, root=root: (p.pid != root, p.pid))  # type: ignore[misc]
    return out


def process_tree(root_pid: int) -> list[ProcessInfo]:
    """Every live process in ``root_pid``'s process group (the root first); empty when the group is gone."""
    return scan_groups({root_pid})[root_pid]


def tree_dump(tree: list[ProcessInfo]) -> str:
    """``ProcfsBasedProcessTree.getProcessTreeDump``: a header and one ``|-`` line per process."""
    lines = [
        "\t|- PID PPID PGRPID SESSID CMD_NAME USER_MODE_TIME(MILLIS) SYSTEM_TIME(MILLIS) VMEM_USAGE(BYTES) "
        "RSSMEM_USAGE(PAGES) FULL_CMD_LINE"
    ]
    for p in tree:
        lines.append(
            f"\t|- {p.pid} {p.ppid} {p.pgrp} {p.session} ({p.name}) {p.utime_ms} {p.stime_ms} {p.vmem_bytes} "
            f"{p.rss_pages} {p.cmdline}"
        )
    return "\n".join(lines) + "\n"


_PREFIXES = ((1 << 60, "E"), (1 << 50, "P"), (1 << 40, "T"), (1 << 30, "G"), (1 << 20, "M"), (1 << 10, "K"))


def long2string(n: int, unit: str = "", decimal_places: int = 1) -> str:
    """``StringUtils.TraditionalBinaryPrefix.long2String``: 1536 -> "1.5 K", 2 GiB -> "2 G" (with ``unit``
    appended, e.g. "2 GB")."""
    sign = "-" if n < 0 else ""
    n = abs(n)
    if n < 1024:
        return f"{sign}{n}" + (f" {unit}" if unit else "")
    for i, (value, symbol) in enumerate(_PREFIXES):
        if n >= value:
            if n % value == 0:
                text = str(n // value)
            else:
                text = f"{n / value:.{decimal_places}f}"
                if text.startswith("1024") and i > 0:  # Hadoop's rounding-up case: 1023.95 K is "1 M"
                    value, symbol = _PREFIXES[i - 1]
                    text = f"{n / value:.{decimal_places}f}"
            return f"{sign}{text} {symbol}{unit}"
    raise AssertionError("unreachable")
