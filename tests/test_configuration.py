"""Hadoop's Configuration: XML resources, layering, final keys, ${var} substitution and typed getters."""

from __future__ import annotations

import string
from pathlib import Path
from xml.sax.saxutils import escape

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from structlog.testing import capture_logs

from yarnball.errors import ConfigurationError
from yarnball.protocols import Configuration, keys


def write_xml(path: Path, properties: dict[str, str], final: frozenset[str] = frozenset()) -> Path:
    body = "".join(
        f"  <property>\n    <name>{escape(name)}</name>\n    <value>{escape(value)}</value>\n"
        + ("    <final>true</final>\n" if name in final else "")
        + "  </property>\n"
        for name, value in properties.items()
    )
    path.write_text(f'<?xml version="1.0"?>\n<configuration>\n{body}</configuration>\n', encoding="utf-8")
    return path


# -- defaults ---------------------------------------------------------------------------------------------------
def test_defaults_are_hadoops() -> None:
    """Without any resource, keys read YARN's defaults."""
    conf = Configuration()
    assert conf.get_long(keys.RM_NM_HEARTBEAT_INTERVAL_MS) == 1000
    assert conf.get_int(keys.RM_SCHEDULER_MINIMUM_ALLOCATION_MB) == 1024
    assert conf.get_int(keys.RM_SCHEDULER_MAXIMUM_ALLOCATION_VCORES) == 4
    assert conf.get_float(keys.TOTAL_PREEMPTION_PER_ROUND) == pytest.approx(0.1)
    assert conf.get_bool(keys.RM_SCHEDULER_ENABLE_MONITORS) is False
    assert conf.get(keys.YARN_ADMIN_ACL) == "*"
    assert conf.source_of(keys.RM_AM_MAX_ATTEMPTS) == "default"


def test_load_defaults_false_has_no_defaults() -> None:
    """load_defaults=False gives an empty configuration."""
    conf = Configuration(load_defaults=False)
    assert conf.get(keys.RM_NM_HEARTBEAT_INTERVAL_MS) is None
    assert conf.keys() == []


def test_defaults_table_pairs_every_key_with_its_default() -> None:
    """keys.DEFAULTS renders Python defaults the way yarn-default.xml writes them."""
    assert keys.DEFAULTS[keys.PREEMPTION_OBSERVE_ONLY] == "false"
    assert keys.DEFAULTS[keys.PREEMPTION_MONITORING_INTERVAL] == "3000"
    assert keys.DEFAULTS[keys.CONTINUOUS_SCHEDULING_PACKED_HIGH_MEMORY_THRESHOLD] == "60"
    assert keys.DEFAULTS[keys.SLS_NM_MEMORY_MB] == "10240"
    assert keys.DEFAULTS[keys.NM_CONTAINER_QUEUING_LOAD_COMPARATOR] == "QUEUE_LENGTH"
    assert all(key.startswith("yarn.") for key in keys.DEFAULTS)


# -- mapping and set --------------------------------------------------------------------------------------------
def test_mapping_values_are_strings_and_stripped() -> None:
    """A Python mapping is stored as Hadoop strings: bools lower-case, numbers str(), whitespace stripped."""
    conf = Configuration({"a": True, "b": 3, "c": "  x  "})
    assert (conf.get("a"), conf.get("b"), conf.get("c")) == ("true", "3", "x")
    assert conf.source_of("a") == "mapping"


def test_contains_keys_and_copy() -> None:
    """__contains__/keys see every value; a copy is independent."""
    conf = Configuration({"x.y": "1"}, load_defaults=False)
    clone = conf.copy()
    clone.set("x.y", "2")
    clone.set("z", "3")
    assert "x.y" in conf and "z" not in conf
    assert conf.get("x.y") == "1" and clone.keys() == ["x.y", "z"]


def test_none_value_is_rejected() -> None:
    """A mapping value None names the key."""
    with pytest.raises(ConfigurationError, match="'k' has value None"):
        Configuration({"k": None})


# -- XML resources ----------------------------------------------------------------------------------------------
def test_later_resource_wins(tmp_path: Path) -> None:
    """Layered resources: the later file's value is used and source_of names it."""
    first = write_xml(tmp_path / "a.xml", {"k": "1", "only.a": "a"})
    second = write_xml(tmp_path / "b.xml", {"k": "2"})
    conf = Configuration()
    conf.add_resource(first)
    conf.add_resource(second)
    assert conf.get("k") == "2" and conf.source_of("k") == str(second)
    assert conf.get("only.a") == "a" and conf.source_of("only.a") == str(first)
    assert conf.resources == [str(first), str(second)]


def test_final_key_cannot_be_overridden_and_warns(tmp_path: Path) -> None:
    """A <final>true</final> value in an earlier file survives a later file, with a warning."""
    first = write_xml(tmp_path / "a.xml", {"k": "1"}, final=frozenset({"k"}))
    second = write_xml(tmp_path / "b.xml", {"k": "2"})
    conf = Configuration()
    conf.add_resource(first)
    with capture_logs() as logs:
        conf.add_resource(second)
    assert conf.get("k") == "1" and conf.is_final("k")
    assert [entry["key"] for entry in logs if entry["log_level"] == "warning"] == ["k"]


def test_mapping_overrides_resources_like_hadoops_overlay(tmp_path: Path) -> None:
    """Values set programmatically win over resources added later, as Hadoop's overlay does."""
    conf = Configuration({"k": "mine"})
    conf.add_resource(write_xml(tmp_path / "a.xml", {"k": "file"}))
    assert conf.get("k") == "mine" and conf.source_of("k") == "mapping"


def test_values_and_names_are_stripped(tmp_path: Path) -> None:
    """Whitespace around names and values in the XML is dropped."""
    path = tmp_path / "s.xml"
    path.write_text("<configuration><property><name> a.b </name><value>\n  42\n</value></property></configuration>")
    conf = Configuration()
    conf.add_resource(path)
    assert conf.get_int("a.b") == 42


def test_property_without_value_is_dropped(tmp_path: Path) -> None:
    """Hadoop ignores a property that has a name but no <value>; an empty <value/> is the empty string."""
    path = tmp_path / "v.xml"
    path.write_text(
        "<configuration><property><name>a</name></property><property><name>b</name><value/></property></configuration>"
    )
    conf = Configuration(load_defaults=False)
    conf.add_resource(path)
    assert "a" not in conf and conf.get("b") == ""


def test_malformed_xml_names_file_and_line(tmp_path: Path) -> None:
    """Broken XML is a ConfigurationError with the file and the parser's line."""
    path = tmp_path / "bad.xml"
    path.write_text("<configuration>\n<property>\n<name>a</name>\n</configuration>\n")
    with pytest.raises(ConfigurationError, match=rf"{path.name}:4: malformed XML"):
        Configuration().add_resource(path)


def test_property_without_name_names_file_and_line(tmp_path: Path) -> None:
    """A <property> without <name> is rejected with its line."""
    path = tmp_path / "noname.xml"
    path.write_text("<configuration>\n  <property>\n    <value>1</value>\n  </property>\n</configuration>\n")
    with pytest.raises(ConfigurationError, match=rf"{path.name}:2: <property> without a <name>"):
        Configuration().add_resource(path)


def test_wrong_root_element_is_rejected(tmp_path: Path) -> None:
    """The document element must be <configuration>."""
    path = tmp_path / "alloc.xml"
    path.write_text("<allocations/>")
    with pytest.raises(ConfigurationError, match="expected <configuration>"):
        Configuration().add_resource(path)


def test_bad_final_flag_is_rejected(tmp_path: Path) -> None:
    """<final> must be true or false."""
    path = tmp_path / "final.xml"
    path.write_text("<configuration><property><name>a</name><value>1</value><final>yes</final></property>"
                    "</configuration>")  # fmt: skip
    with pytest.raises(ConfigurationError, match="property 'a': <final>yes</final>"):
        Configuration().add_resource(path)


def test_missing_file_is_a_configuration_error(tmp_path: Path) -> None:
    """An unreadable resource names the path."""
    with pytest.raises(ConfigurationError, match=r"nope\.xml: cannot read"):
        Configuration().add_resource(tmp_path / "nope.xml")


# -- substitution -----------------------------------------------------------------------------------------------
def test_substitution_from_other_keys_nested() -> None:
    """${var} expands from other keys, recursively."""
    conf = Configuration({"a": "${b}/x", "b": "${c}-y", "c": "z"}, load_defaults=False)
    assert conf.get("a") == "z-y/x"
    assert conf.get_raw("a") == "${b}/x"


def test_substitution_environment_and_system_properties(monkeypatch: pytest.MonkeyPatch) -> None:
    """${env.NAME} reads the environment (with :- defaults); other names try system properties first."""
    monkeypatch.setenv("YB_TEST_HOME", "/opt/yb")
    monkeypatch.delenv("YB_TEST_UNSET", raising=False)
    conf = Configuration(
        {"a": "${env.YB_TEST_HOME}/conf", "b": "${env.YB_TEST_UNSET:-fallback}", "c": "${user.name}", "user.name": "k"},
        system_properties={"user.name": "alice"},
    )
    assert conf.get("a") == "/opt/yb/conf"
    assert conf.get("b") == "fallback"
    assert conf.get("c") == "alice"


def test_unresolved_variable_stays() -> None:
    """An unbound ${x} is left as written (and, like Hadoop, stops further expansion)."""
    conf = Configuration({"a": "${nope}/${b}", "b": "1"}, load_defaults=False)
    assert conf.get("a") == "${nope}/${b}"


def test_self_reference_is_returned_unexpanded() -> None:
    """A value that refers to itself is returned as written."""
    conf = Configuration({"a": "x${a}"}, load_defaults=False)
    assert conf.get("a") == "x${a}"


def test_substitution_depth_is_limited_to_max_subst() -> None:
    """More than 20 nested expansions is an error naming the key."""
    mapping = {f"k{i}": f"${{k{i + 1}}}" for i in range(25)}
    mapping["k25"] = "end"
    conf = Configuration(mapping, load_defaults=False)
    assert conf.get("k10") == "end"  # 15 expansions are fine
    with pytest.raises(ConfigurationError, match="'k0': variable substitution depth too large: 20"):
        conf.get("k0")


# -- typed getters ----------------------------------------------------------------------------------------------
def test_get_int_accepts_hex_and_rejects_garbage_naming_file_and_key(tmp_path: Path) -> None:
    """get_int parses decimal and 0x hex; a bad number names file:line and key and what was expected."""
    conf = Configuration()
    conf.add_resource(write_xml(tmp_path / "yarn-site.xml", {"h": "0x10", "bad": "12abc"}))
    assert conf.get_int("h") == 16
    with pytest.raises(ConfigurationError, match=r"yarn-site\.xml:\d+: property 'bad' = '12abc': expected an integer"):
        conf.get_int("bad")


def test_get_int_range_is_javas() -> None:
    """get_int is a 32-bit int; get_long takes 64 bits."""
    conf = Configuration({"big": "3000000000"})
    with pytest.raises(ConfigurationError, match="32-bit int range"):
        conf.get_int("big")
    assert conf.get_long("big") == 3_000_000_000


def test_get_int_default_and_required() -> None:
    """A missing key returns the default; without a default it is an error."""
    conf = Configuration(load_defaults=False)
    assert conf.get_int("missing", 7) == 7
    with pytest.raises(ConfigurationError, match="required int property 'missing'"):
        conf.get_int("missing")


@pytest.mark.parametrize(
    ("text", "value"), [("1.5", 1.5), ("2f", 2.0), ("1e3", 1000.0), (".5", 0.5), ("-Infinity", float("-inf"))]
)
def test_get_float_java_syntax(text: str, value: float) -> None:
    """get_float reads what Java's Float.parseFloat reads."""
    assert Configuration({"f": text}).get_float("f") == value


@pytest.mark.parametrize("text", ["abc", "inf", "1_0", ""])
def test_get_float_rejects_non_java_numbers(text: str) -> None:
    """Python-only spellings and garbage are rejected."""
    with pytest.raises(ConfigurationError, match="expected a floating-point number"):
        Configuration({"f": text}).get_float("f")


def test_get_bool_case_insensitive_else_error() -> None:
    """true/false in any case; anything else is an error (Hadoop would silently use the default)."""
    conf = Configuration({"t": "TRUE", "f": "False", "x": "yes"})
    assert conf.get_bool("t") is True and conf.get_bool("f") is False
    with pytest.raises(ConfigurationError, match='expected "true" or "false"'):
        conf.get_bool("x")


def test_get_strings_trims_and_drops_empties() -> None:
    """Comma lists are trimmed (getTrimmedStrings)."""
    conf = Configuration({"l": " a , b,,c ,\n d"})
    assert conf.get_strings("l") == ["a", "b", "c", "d"]
    assert conf.get_strings("missing", ["d"]) == ["d"]


@pytest.mark.parametrize(
    ("text", "unit", "expected"),
    [("10s", "ms", 10_000), ("1500", "ms", 1500), ("2m", "s", 120), ("1d", "h", 24), ("1500ms", "s", 1),
     ("5us", "ns", 5000), ("3H", "m", 180), ("-1500ms", "s", -1)],
)  # fmt: skip
def test_get_time_duration_suffixes(text: str, unit: str, expected: int) -> None:
    """Durations take Hadoop's suffixes and convert by truncation toward zero."""
    assert Configuration({"d": text}).get_time_duration("d", 0, unit) == expected


def test_get_time_duration_default_and_errors() -> None:
    """A missing key uses the default; a bad duration or unit names the key."""
    conf = Configuration({"d": "ten seconds"})
    assert conf.get_time_duration("missing", "3s") == 3000
    with pytest.raises(ConfigurationError, match="'d' = 'ten seconds': expected a duration"):
        conf.get_time_duration("d", 0)
    with pytest.raises(ConfigurationError, match="unknown time unit 'weeks'"):
        conf.get_time_duration("d", 0, "weeks")


# -- conf directories and the shared files ----------------------------------------------------------------------
def test_from_conf_dir_sls_sample(shared_data: Path) -> None:
    """The SLS sample-conf loads yarn-site.xml then capacity-scheduler.xml."""
    conf_dir = shared_data / "sls" / "sample-conf"
    conf = Configuration.from_conf_dir(conf_dir)
    assert conf.resources == [str(conf_dir / "yarn-site.xml"), str(conf_dir / "capacity-scheduler.xml")]
    assert conf.get(keys.RM_SCHEDULER, "").endswith("fair.FairScheduler")
    assert conf.get_int(keys.MAXIMUM_SYSTEM_APPLICATIONS) == 1000
    assert conf.source_of(keys.MAXIMUM_SYSTEM_APPLICATIONS) == str(conf_dir / "yarn-site.xml")
    assert conf.get_strings("yarn.scheduler.capacity.root.queues") == ["sls_queue_1", "sls_queue_2", "sls_queue_3"]
    assert conf.get_bool("yarn.scheduler.fair.assignmultiple") is True
    assert conf.location_of("yarn.scheduler.capacity.root.queues").startswith(str(conf_dir / "capacity-scheduler.xml:"))


def test_sls_runner_xml_reads(shared_data: Path) -> None:
    """sls-runner.xml is a plain Hadoop resource too."""
    conf = Configuration()
    conf.add_resource(shared_data / "sls" / "sample-conf" / "sls-runner.xml")
    assert conf.get_int(keys.SLS_RUNNER_POOL_SIZE) == 100
    assert conf.get_int(keys.SLS_CONTAINER_MEMORY_MB) == 1024


def test_all_shared_hadoop_conf_files_parse(shared_data: Path) -> None:
    """Every verbatim Hadoop XML under shared/data/hadoop-conf parses."""
    for path in sorted((shared_data / "hadoop-conf").glob("*.xml")):
        conf = Configuration(load_defaults=False)
        conf.add_resource(path)
        assert conf.keys(), path


def test_from_conf_dir_missing_directory(tmp_path: Path) -> None:
    """A conf directory that does not exist is an error naming it."""
    with pytest.raises(ConfigurationError, match="does not exist"):
        Configuration.from_conf_dir(tmp_path / "absent")


# -- property-based ---------------------------------------------------------------------------------------------
_NAME = st.text(string.ascii_letters + string.digits + ".-_", min_size=1, max_size=30).filter(
    lambda s: s.strip(".") == s
)
_VALUE = st.text(st.characters(blacklist_categories=("Cs", "Cc"), blacklist_characters="${}"), max_size=40).map(
    str.strip
)


@settings(max_examples=60, deadline=None)
@given(st.dictionaries(_NAME, _VALUE, min_size=1, max_size=8))
def test_xml_round_trip(tmp_path_factory: pytest.TempPathFactory, properties: dict[str, str]) -> None:
    """Any names and values written as Hadoop XML read back identically."""
    path = write_xml(tmp_path_factory.mktemp("rt") / "conf.xml", properties)
    conf = Configuration(load_defaults=False)
    conf.add_resource(path)
    assert {name: conf.get(name) for name in properties} == properties
