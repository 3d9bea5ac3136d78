"""The per-node report of the RM's Nodes page (``NodesPage``), with its opportunistic columns.

When opportunistic containers are enabled Hadoop's Nodes page splits the usage columns: Running Containers (G),
Running Containers (O), Mem Used (G), Mem Used (O), VCores Used (G), VCores Used (O) and Queued Containers. The
GUARANTEED side comes from the scheduler's node; the OPPORTUNISTIC side from the ``OpportunisticContainersStatus``
the NM sent in its last heartbeat, as the RM web UI reads it from the ``RMNode``.
"""

from __future__ import annotations

from typing import Any

from yarnball.protocols import OpportunisticContainersStatus

__all__ = ["NODE_REPORT_COLUMNS", "node_report"]

NODE_REPORT_COLUMNS: tuple[str, ...] = (
    "Rack",
    "Node State",
    "Node Address",
    "Running Containers (G)",
    "Running Containers (O)",
    "Mem Used (G)",
    "Mem Used (O)",
    "Mem Avail (G)",
    "VCores Used (G)",
    "VCores Used (O)",
    "VCores Avail (G)",
    "Queued Containers",
)


def node_report(cluster: Any) -> list[dict[str, Any]]:
    """One row per node the RM knows, in node-address order; memory in MB."""
    rm = cluster.rm
    statuses = rm.opportunistic.node_status if rm.opportunistic is not None else {}
    rows: list[dict[str, Any]] = []
    for node_id in sorted(rm.nodes, key=lambda n: (n.host, n.port)):
        report = rm.scheduler.node_report(node_id)
        if report is None:
            continue
        s = statuses.get(node_id) or OpportunisticContainersStatus()
        rows.append(
            {
                "Rack": report.rack_name,
                "Node State": report.node_state.value,
                "Node Address": str(node_id),
                "Running Containers (G)": report.num_containers,
                "Running Containers (O)": s.running_opport_containers,
                "Mem Used (G)": report.used.memory_mb,
                "Mem Used (O)": s.opport_memory_used,
                "Mem Avail (G)": report.capability.memory_mb - report.used.memory_mb,
                "VCores Used (G)": report.used.vcores,
                "VCores Used (O)": s.opport_cores_used,
                "VCores Avail (G)": report.capability.vcores - report.used.vcores,
                "Queued Containers": s.queued_opport_containers,
            }
        )
    return rows
