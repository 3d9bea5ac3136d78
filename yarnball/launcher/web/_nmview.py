"""Each NodeManager's own view, as the NM REST API (``NMWebServices``, rest.md §4) shows it: plain data.

Read from the NM actors between kernel events, like the rest of the snapshot (launcher/web/_snapshot.py): the node
(``NodeInfo``), the applications that have containers on it (``AppInfo``: RUNNING with their container ids) and
those containers (``ContainerInfo``). An NM forgets a container once it has reported it complete, and an application
once its last container is gone, so finished ones are not listed (Hadoop's NM keeps them until
``yarn.nodemanager.log.retain-seconds``-style cleanup; yarnball has no logs to keep them for).
"""

from __future__ import annotations

from typing import Any

from yarnball.protocols import ContainerState

__all__ = ["NM_HTTP_PORT", "node_managers"]

NM_HTTP_PORT = 8042  # yarn.nodemanager.webapp.address's default port
_VMEM_PMEM_RATIO = 2.1  # yarn.nodemanager.vmem-pmem-ratio's default
_CONTAINER_RUNNING_EXIT = -1000  # ContainerExitStatus.INVALID: "exitCode" while the container has not exited


def _container_state(entry: Any) -> str:
    """The NM's ``ContainerState`` name: SCHEDULED (queued by the ContainerScheduler), RUNNING, or PAUSING, PAUSED,
    RESUMING (actors/_nmstates.py)."""
    if entry.state is ContainerState.RUNNING:
        return entry.phase.value if entry.phase is not None else "RUNNING"
    return "SCHEDULED"


def node_managers(cluster: Any, ts: int, version: str, build: str) -> dict[str, dict[str, Any]]:
    """node id -> ``{"nodeInfo": ..., "apps": [...], "containers": [...]}``, in node-id order."""
    rm = cluster.rm
    clock = rm.heartbeats
    out: dict[str, dict[str, Any]] = {}
    for nm in sorted(cluster.node_managers.values(), key=lambda nm: (nm.node_id.host, nm.node_id.port)):
        node_id = nm.node_id
        key = str(node_id)
        http = f"{node_id.host}:{NM_HTTP_PORT}"
        rmnode = rm.nodes.get(node_id)
        last = 0
        if rmnode is not None:
            beat = rmnode.last_heartbeat
            if clock is not None:
                beat = clock.last_heartbeat(node_id, beat)
            last = ts + int(beat)
        containers: list[dict[str, Any]] = []
        by_app: dict[str, list[str]] = {}
        users: dict[str, str] = {}
        for cid in sorted(nm.containers, key=str):
            entry = nm.containers[cid]
            app_id = cid.application_attempt_id.application_id
            app = rm.apps.get(app_id)
            user = app.user if app is not None else ""
            resource = entry.container.resource
            containers.append(
                {
                    "id": str(cid),
                    "state": _container_state(entry),
                    "nodeId": key,
                    "containerLogsLink": f"http://{http}/node/containerlogs/{cid}/{user}",
                    "user": user,
                    "exitCode": _CONTAINER_RUNNING_EXIT,
                    "diagnostics": "",
                    "totalMemoryNeededMB": resource.memory_mb,
                    "totalVCoresNeeded": resource.vcores,
                    "executionType": entry.container.execution_type.value,
                    "containerLogFiles": [],
                }
            )
            by_app.setdefault(str(app_id), []).append(str(cid))
            users[str(app_id)] = user
        apps = [
            {"id": app_key, "state": "RUNNING", "user": users[app_key], "containerids": by_app[app_key]}
            for app_key in sorted(by_app)
        ]
        total = nm.resource
        out[key] = {
            "nodeInfo": {
                "id": key,
                "nodeHostName": node_id.host,
                "totalPmemAllocatedContainersMB": total.memory_mb,
                "totalVmemAllocatedContainersMB": int(total.memory_mb * _VMEM_PMEM_RATIO),
                "totalVCoresAllocatedContainers": total.vcores,
                "vmemCheckEnabled": False,
                "pmemCheckEnabled": False,
                "lastNodeUpdateTime": last,
                "nmStartupTime": ts,
                "healthReport": "",
                "nodeHealthy": rmnode is not None,
                "nodeManagerVersion": version,
                "nodeManagerBuildVersion": build,
                "nodeManagerVersionBuiltOn": "N/A",
                "hadoopVersion": version,
                "hadoopBuildVersion": build,
                "hadoopVersionBuiltOn": "N/A",
            },
            "apps": apps,
            "containers": containers,
        }
    return out
