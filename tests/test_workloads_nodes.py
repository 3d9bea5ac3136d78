"""SLS node files, /rack/host names and generated clusters (SLSUtils)."""

from __future__ import annotations

from pathlib import Path

import pytest

from yarnball.errors import TraceFormatError
from yarnball.launcher.workloads import (
    DEFAULT_RACK,
    TraceDefaults,
    generate_nodes,
    read_nodes_file,
    split_host_path,
)
from yarnball.protocols import Resource

DATA = Path("/work/shared/data/sls")
SLS_TEST_NM = TraceDefaults(nm_memory_mb=1024, nm_vcores=2)  # TestSLSUtils passes Resources.createResource(1024, 2)


def test_nodes_json_has_twenty_nodes_on_five_racks() -> None:
    """nodes.json gives 20 nodes, 4 per rack on /rack1../rack5, as TestSLSUtils asserts."""
    nodes = read_nodes_file(DATA / "nodes.json", TraceDefaults())
    assert len(nodes) == 20
    assert [sum(n.rack == f"/rack{r}" for n in nodes) for r in range(1, 6)] == [4, 4, 4, 4, 4]
    assert nodes[0].path == "/rack1/node1" and nodes[0].resource == Resource(10240, 10)


def test_empty_node_entry_becomes_host_null_like_sls() -> None:
    """nodes.json's "{ }" entry is host "null" on /rack5 (Java's rack + "/" + null)."""
    nodes = read_nodes_file(DATA / "nodes.json", TraceDefaults())
    assert nodes[-1].path == "/rack5/null"
    assert [n.hostname for n in nodes if n.rack == "/rack5"] == ["node17", "node18", "node19", "null"]


def test_nodes_with_resources_override_memory_and_vcores() -> None:
    """memory-mb / vcores override the NM default per node; others keep it."""
    nodes = {n.hostname: n for n in read_nodes_file(DATA / "nodes-with-resources.json", SLS_TEST_NM)}
    assert len(nodes) == 4
    assert nodes["node1"].resource == Resource(2048, 6)
    assert nodes["node2"].resource == Resource(1024, 2)
    assert nodes["node4"].resource == Resource(6144, 12)


def test_nodes_with_resources_read_labels_and_exclusivity() -> None:
    """Labels "label1, label2(exclusive=false)": two labels, label2 non-exclusive; node2 has none."""
    nodes = {n.hostname: n for n in read_nodes_file(DATA / "nodes-with-resources.json", SLS_TEST_NM)}
    assert nodes["node3"].labels == ("label1", "label2")
    assert nodes["node3"].non_exclusive_labels == ("label2",)
    assert nodes["node3"].resource == Resource(1024, 2)
    assert nodes["node2"].labels == ()
    assert nodes["node4"].labels == ("label1", "label2")


def test_extra_resource_types_are_read_when_configured(tmp_path: Path) -> None:
    """A configured resource type such as yarn.io/gpu is read from the node entry."""
    path = tmp_path / "n.json"
    path.write_text('{"rack": "r", "nodes": [{"node": "h", "yarn.io/gpu": 4}]}')
    nodes = read_nodes_file(path, TraceDefaults(resource_types=("yarn.io/gpu",)))
    assert nodes[0].resource.extended == (("yarn.io/gpu", 4),)


@pytest.mark.parametrize(
    "text",
    [
        '{"rack": "a", "nodes": [{"node": "h", "vcores": 3}]}{"rack": "b", "nodes": [{"node": "h"}]}',
        '{"rack": "a", "nodes": [{"node": "h"}, {"node": "h"}]}',
    ],
)
def test_repeated_host_is_an_error_naming_both_entries(tmp_path: Path, text: str) -> None:
    """A host listed twice (on one rack or two) is refused, naming the file, the host and both entries."""
    path = tmp_path / "n.json"
    path.write_text(text)
    with pytest.raises(TraceFormatError) as err:
        read_nodes_file(path, TraceDefaults())
    message = str(err.value)
    assert str(path) in message and "host 'h' is listed twice" in message
    assert "first at rack 'a' nodes[0] (/a/h), again at rack '" in message and "nodes[" in message


@pytest.mark.parametrize(
    ("rack", "node", "field", "shown"),
    [
        ("r", "a b", "'nodes[0].node'", "'a b'"),
        ("r", "a:8041", "'nodes[0].node'", "'a:8041'"),
        ("r", "a\\u0000b", "'nodes[0].node'", "'a\\x00b'"),
        ("r", "-a", "'nodes[0].node'", "'-a'"),
        ("", "h", "'rack'", "'/'"),
        ("../../etc", "h", "'rack'", "'/../../etc'"),
        ("a/./b", "h", "'rack'", "'/a/./b'"),
        ("r k", "h", "'rack'", "'/r k'"),
        ("/r1", "h", "'rack'", "give \"rack\" without it"),
    ],
)
def test_bad_host_and_rack_names_are_refused(tmp_path: Path, rack: str, node: str, field: str, shown: str) -> None:
    """Host names that are not RFC 1123 names (NUL, a space, a port) and racks that are not NetworkTopology paths
    (empty, '.', '..' parts) are refused, naming the file, the field and the value."""
    path = tmp_path / "nodes.json"
    path.write_text(f'{{"rack": "{rack}", "nodes": [{{"node": "{node}"}}]}}')
    with pytest.raises(TraceFormatError) as err:
        read_nodes_file(path, TraceDefaults())
    message = str(err.value)
    assert str(path) in message and f"field {field}" in message and shown in message
    assert "\n" not in message and "\x00" not in message


def test_host_and_rack_names_hadoop_uses_are_accepted(tmp_path: Path) -> None:
    """Dotted, hyphenated and underscored hosts, multi-level racks and SLS's 'null' host load."""
    path = tmp_path / "nodes.json"
    path.write_text('{"rack": "dc-1/rack_2", "nodes": [{"node": "a2115.smile.com"}, {"node": "n_1"}, {}]}')
    assert [n.path for n in read_nodes_file(path, TraceDefaults())] == [
        "/dc-1/rack_2/a2115.smile.com",
        "/dc-1/rack_2/n_1",
        "/dc-1/rack_2/null",
    ]


@pytest.mark.parametrize(
    ("text", "field"),
    [
        ('{"rack": "r"}', "'nodes'"),
        ('{"rack": "r", "nodes": "h1"}', "'nodes'"),
        ('{"rack": "r", "nodes": [7]}', "'nodes[0]'"),
        ('{"rack": "r", "nodes": [{"node": "h", "memory-mb": "lots"}]}', "'nodes[0].memory-mb'"),
        ('{"rack": "r", "nodes": [{"node": "h", "vcores": -1}]}', "'nodes[0].vcores'"),
        ('{"rack": "r", "nodes": [{"node": "h", "labels": "a(exclusive=maybe)"}]}', "'nodes[0].labels'"),
        ('{"rack": "r", "nodes": [{"node": "h", "labels": "a(b"}]}', "'nodes[0].labels'"),
        ('{"rack": "r", "nodes": [{"node": "h", "labels": " , "}]}', "'nodes[0].labels'"),
    ],
)
def test_bad_node_files_name_file_rack_and_field(tmp_path: Path, text: str, field: str) -> None:
    """Malformed node files raise TraceFormatError naming the file, the rack and the field."""
    path = tmp_path / "nodes.json"
    path.write_text(text)
    with pytest.raises(TraceFormatError) as err:
        read_nodes_file(path, TraceDefaults())
    assert str(path) in str(err.value) and "rack 'r'" in str(err.value) and field in str(err.value)


def test_split_host_path_follows_node_base() -> None:
    """/rack/host splits at the last slash; multi-level racks stay whole; bare hosts go to /default-rack."""
    assert split_host_path("/rack1/node1") == ("/rack1", "node1")
    assert split_host_path("/rackA/rackB/node1") == ("/rackA/rackB", "node1")
    assert split_host_path("node1") == (DEFAULT_RACK, "node1")
    assert split_host_path("") is None


def test_generate_nodes_clamps_rack_count() -> None:
    """generateNodes: racks are clamped to [1, nodes] (TestSLSUtils.testGenerateNodes)."""
    assert len({n.rack for n in generate_nodes(3, 3, Resource(1, 1))}) == 3
    assert len({n.rack for n in generate_nodes(3, 4, Resource(1, 1))}) == 3
    assert len({n.rack for n in generate_nodes(3, 0, Resource(1, 1))}) == 1
    assert [n.path for n in generate_nodes(3, 2, Resource(1, 1))] == ["/rack0/node0", "/rack1/node1", "/rack0/node2"]
