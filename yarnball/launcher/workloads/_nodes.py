"""SLS node (topology) files, ``/rack/host`` names, node labels and generated clusters (SLSUtils)."""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from typing import Any

from yarnball._logs import get_logger
from yarnball.protocols import Resource

from ._defaults import TraceDefaults
from ._json import INT_MAX, KeyPolicy, Where, iter_json_values
from ._keys import NODE_FILE_NODE, NODE_FILE_RACK, check_format
from ._model import DEFAULT_RACK, JobSpec, NodeSpec, SkippedJob, Workload

__all__ = ["check_node_name", "dedupe_nodes", "generate_nodes", "parse_labels", "read_nodes_file", "split_host_path"]

log = get_logger(__name__)

_HOST = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]{0,252}")
_RACK_PART = re.compile(r"[A-Za-z0-9_.-]+")
_LABEL_FORMAT = (
    "Input format for adding node-labels is not correct, it should be "
    "labelName1[(exclusive=true/false)],labelName2[] .."
)


def split_host_path(path: str) -> tuple[str, str] | None:
    """``"/rack/host"`` -> ``("/rack", "host")``; ``None`` for an empty name (= anywhere).

    SLSUtils.getRackHostName uses Hadoop's NodeBase: the host is the last path component and the rack everything
    before it (``/coreSwitchA/TORSwitchB/hostBar`` -> rack ``/coreSwitchA/TORSwitchB``). SLS strips the leading
    slash from the rack; we keep it, since that is how YARN's NetworkTopology names racks and the scheduler must
    match rack requests against node racks. NodeBase rejects a name without a leading slash (SLS then fails to
    create that node or request); we accept it as a host on ``/default-rack`` instead.
    """
    name = path.strip()
    if not name:
        return None
    if not name.startswith("/"):
        return DEFAULT_RACK, name
    name = name.rstrip("/")  # NodeBase.normalize drops a trailing separator
    if not name:
        return None
    rack, _, host = name.rpartition("/")
    return (rack or DEFAULT_RACK), host


def parse_labels(text: str, where: Where, field: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """YarnClientUtils.buildNodeLabelsFromStr: ``"l1, l2(exclusive=false)"`` -> (names, non-exclusive names)."""
    names: list[str] = []
    non_exclusive: list[str] = []
    for part in text.split(","):
        if not part.strip():
            continue
        left, right = part.find("("), part.find(")")
        exclusive = True  # NodeLabel.DEFAULT_NODE_LABEL_EXCLUSIVITY
        if (left == -1) != (right == -1) or (left > right):
            where.fail(field, f"{_LABEL_FORMAT}; got {text!r}")
        if left > 0:
            prop = part[left + 1 : right]
            if "=" in prop:
                key, _, value = prop.partition("=")
                if key.strip() != "exclusive" or value.strip() not in ("true", "false"):
                    where.fail(field, f"{_LABEL_FORMAT}; got {text!r}")
                exclusive = value.strip() == "true"
            elif prop.strip():
                where.fail(field, f"{_LABEL_FORMAT}; got {text!r}")
        elif left == 0:
            where.fail(field, f"{_LABEL_FORMAT}; got {text!r}")
        # Hadoop trims the name only when it has "(...)"; a name with spaces is not a valid label, so trim always.
        name = part[: part.index("(")] if "(" in part else part
        name = name.strip()
        if not name:
            where.fail(field, f"{_LABEL_FORMAT}; got {text!r}")
        if name not in names:
            names.append(name)
            if not exclusive:
                non_exclusive.append(name)
    if not names:
        where.fail(field, f"No cluster node-labels are specified; got {text!r}")
    return tuple(names), tuple(non_exclusive)


def read_nodes_file(
    path: str | os.PathLike[str], defaults: TraceDefaults | None = None, *, strict: bool = False
) -> tuple[NodeSpec, ...]:
    """Read an SLS ``--nodes`` file: concatenated ``{"rack": r, "nodes": [{"node": h, ...}]}`` objects.

    As SLSUtils.parseNodesFromNodeFile: a node gets the NM defaults unless it sets ``memory-mb`` / ``vcores`` (or
    another resource type), ``labels`` is a node-label list. Quirk kept: a node entry without ``"node"`` (the
    ``{ }`` in SLS's own nodes.json) becomes host ``null`` (Java's ``rack + "/" + null``), so nodes.json has 20
    nodes, as SLS's TestSLSUtils asserts; likewise a rack object without ``"rack"`` names rack ``/null``.
    A host listed twice is an error naming both entries (SLS keeps a set of ``rack/host`` strings: an exact repeat
    silently merges, the same host on two racks becomes two NodeManagers of one name). Host names are RFC 1123 names
    (and ``_``); racks are NetworkTopology paths without empty, ``.`` or ``..`` parts (:func:`check_node_name`).
    Memory and vcores must be in [1, 2^31-1] (SLS parses them with Integer.parseInt); an unknown key draws a
    warning naming the closest known one (an error when ``strict``).
    """
    name = os.fspath(path)
    defaults = defaults or TraceDefaults()
    policy = KeyPolicy(strict)
    node_keys = NODE_FILE_NODE | {"memory-mb", "vcores", *defaults.resource_types}
    nodes: list[NodeSpec] = []
    first_entry: dict[str, str] = {}  # hostname -> where it was listed first
    for index, line, raw in iter_json_values(path, what="node file"):
        if index == 0:
            check_format(path, raw, "node file")
        where = Where(name, f"rack object #{index} (line {line})", policy)
        entry = where.obj(raw, "<root>")
        where.check_keys(entry, NODE_FILE_RACK)
        rack_name = entry.get("rack")
        if rack_name is None:
            log.warning("node file rack without a name; SLS calls it 'null'", file=name, object=index)
        rack_text = "null" if rack_name is None else where.text(rack_name, "rack")
        if isinstance(rack_name, str):
            where = where.at(f"rack '{rack_text}'")
        if "nodes" not in entry:
            where.fail("nodes", "missing (SLS needs a 'nodes' array in every rack object)")
        for i, node_raw in enumerate(where.list(entry["nodes"], "nodes")):
            field = f"nodes[{i}]"
            node = where.obj(node_raw, field)
            where.check_keys(node, node_keys, field)
            host = node.get("node")
            if host is None:
                log.warning("node file entry without 'node'; SLS names the host 'null'", file=name, entry=field)
                host_text = "null"
            else:
                host_text = where.text(host, f"{field}.node")
                if not host_text.strip("/ \t\r\n"):
                    where.fail(f"{field}.node", f"expected a host name, got {host_text!r}")
            parsed = split_host_path(f"/{rack_text}/{host_text}")
            if parsed is None:
                where.fail(f"{field}.node", "empty host name")
            rack, hostname = parsed
            check_node_name(where, f"{field}.node", rack, hostname)
            entry_ref = f"{where.what} {field} ({rack}/{hostname})"
            if hostname in first_entry:
                where.fail(
                    f"{field}.node",
                    f"host {hostname!r} is listed twice: first at {first_entry[hostname]}, again at {entry_ref} "
                    "(expected each host once)",
                )
            first_entry[hostname] = entry_ref

            mem = _size(node, "memory-mb", defaults.nm_memory_mb, where, field, minimum=1)
            vcores = _size(node, "vcores", defaults.nm_vcores, where, field, minimum=1)
            extended = tuple(
                (rt, _size(node, rt, 0, where, field, minimum=0)) for rt in defaults.resource_types if rt in node
            )
            labels: tuple[str, ...] = ()
            non_exclusive: tuple[str, ...] = ()
            if node.get("labels") is not None:
                labels, non_exclusive = parse_labels(
                    where.text(node["labels"], f"{field}.labels"), where, f"{field}.labels"
                )
            nodes.append(NodeSpec(hostname, rack, Resource(mem, vcores, extended), labels, non_exclusive))
    return tuple(nodes)


def check_node_name(where: Where, field: str, rack: str, host: str) -> None:
    """Refuse a host name that is not an RFC 1123 name (letters, digits, ``-``, ``.``, and the ``_`` Hadoop's
    NetUtils lets through), and a rack that is not a NetworkTopology path: NodeBase.normalize wants a leading
    ``/``; an empty, ``.`` or ``..`` part (``"rack": ""`` gives ``/``, ``"../../etc"`` climbs) names no rack."""
    if not _HOST.fullmatch(host):
        where.fail(
            field,
            f"expected a host name (letters, digits, '-', '_' and '.', at most 253 characters), got {_quoted(host)}",
        )
    parts = rack.split("/")
    if parts[0] or any(part in ("", ".", "..") or not _RACK_PART.fullmatch(part) for part in parts[1:]):
        hint = "; SLS writes the '/' before a node file's rack: give \"rack\" without it" if rack[:2] == "//" else ""
        where.fail(
            "rack",
            "expected a rack path such as /default-rack or /dc1/rack1 (parts of letters, digits, '-', '_' and '.'; "
            f"none empty, '.' or '..'), got {_quoted(rack)}{hint}",
        )


def _quoted(text: str) -> str:
    shown = repr(text)
    return shown if len(shown) <= 60 else shown[:57] + "..."


def _size(node: dict[str, Any], key: str, default: int, where: Where, field: str, *, minimum: int) -> int:
    value = node.get(key)  # SLSUtils.parseNodesFromNodeFile: Integer.parseInt
    return default if value is None else where.long(value, f"{field}.{key}", minimum=minimum, maximum=INT_MAX)


def generate_nodes(num_nodes: int, num_racks: int, resource: Resource) -> tuple[NodeSpec, ...]:
    """SLSUtils.generateNodes: ``/rack{i % racks}/node{i}``; racks clamped to ``[1, num_nodes]``."""
    num_racks = max(1, min(num_racks, num_nodes))
    return tuple(NodeSpec(f"node{i}", f"/rack{i % num_racks}", resource) for i in range(num_nodes))


def collect_workload(items: Iterable[JobSpec | SkippedJob | NodeSpec], name: str, source: str) -> Workload:
    """The workload of a trace read whole: its jobs, refused jobs and nodes (deduplicated) in the trace's order."""
    jobs: list[JobSpec] = []
    skipped: list[SkippedJob] = []
    nodes: list[NodeSpec] = []
    for item in items:
        if isinstance(item, JobSpec):
            jobs.append(item)
        elif isinstance(item, SkippedJob):
            skipped.append(item)
        else:
            nodes.append(item)
    return Workload(tuple(jobs), dedupe_nodes(nodes, name), tuple(skipped), source)


def dedupe_nodes(nodes: Iterable[NodeSpec], source: str) -> tuple[NodeSpec, ...]:
    """Keep the first node of each hostname, in first-seen order (deterministic, unlike SLS's HashSet)."""
    seen: dict[str, NodeSpec] = {}
    for node in nodes:
        first = seen.get(node.hostname)
        if first is None:
            seen[node.hostname] = node
        elif first != node:
            log.warning(
                "host listed twice with different settings; keeping the first",
                source=source,
                host=node.hostname,
                first=first.path,
                second=node.path,
            )
    return tuple(seen.values())
