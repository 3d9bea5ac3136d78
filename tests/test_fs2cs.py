"""``yarnball fs2cs``: the SLS sample configuration converted in both modes and the converted directory run by
``yarnball simulate``; bad inputs exit 2 naming the file. Hadoop's TestFSConfigToCSConfigConverter and
TestFSConfigToCSConfigArgumentHandler are ported in tests/conformance/test_hadoop_fs2cs_converter.py and
test_hadoop_fs2cs_argument_handler.py."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

from yarnball.launcher import cli
from yarnball.protocols import Configuration

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "fs2cs"


def _sample(shared_data: Path) -> tuple[str, str]:
    conf = shared_data / "sls" / "sample-conf"
    return str(conf / "yarn-site.xml"), str(conf / "fair-scheduler.xml")


def _fs2cs(*args: str) -> int:
    return cli.main(["fs2cs", *args])


@pytest.mark.parametrize("percentage", [False, True], ids=["weight", "percentage"])
def test_sls_sample_converts_and_the_converted_directory_runs_the_trace(
    shared_data: Path, tmp_path: Path, capsys: Any, percentage: bool
) -> None:
    """The sample's three queues as weights 0.25/0.25/0.5 (or 25/25/50 %), preemption and assignmultiple carried
    over, and `yarnball simulate --conf-dir` on the output runs the sample trace to the end."""
    site, fs = _sample(shared_data)
    out = tmp_path / "converted"
    out.mkdir()
    assert _fs2cs("-y", site, "-f", fs, "-o", str(out), *(["-pc"] if percentage else [])) == 0
    captured = capsys.readouterr()
    assert "Setting <minResources> is not supported, ignoring conversion" in captured.err
    conf = Configuration.from_conf_dir(out)
    capacities = [conf.get(f"yarn.scheduler.capacity.root.sls_queue_{i}.capacity") for i in (1, 2, 3)]
    assert capacities == (["25.000", "25.000", "50.000"] if percentage else ["0.25w", "0.25w", "0.5w"])
    assert conf.get("yarn.scheduler.capacity.root.queues") == "sls_queue_1,sls_queue_2,sls_queue_3"
    assert conf.get("yarn.scheduler.capacity.per-node-heartbeat.multiple-assignments-enabled") == "true"
    policies = str(conf.get("yarn.resourcemanager.scheduler.monitor.policies"))
    assert policies.startswith("org.apache.hadoop.yarn.server.resourcemanager.monitor.capacity.Proportional")
    assert ("AutoCreatedQueueDeletionPolicy" in policies) is not percentage
    shutil.copy(shared_data / "sls" / "sample-conf" / "sls-runner.xml", out)
    run = tmp_path / "run"
    argv = ["simulate", "--tracelocation", str(shared_data / "sls" / "inputsls.json"), "--conf-dir", str(out)]
    assert cli.main([*argv, "--output-dir", str(run), "--no-plots", "--no-progress"]) == 0
    assert "2 submitted, 2 finished" in capsys.readouterr().out


def test_conversion_is_byte_identical_across_runs(shared_data: Path, tmp_path: Path) -> None:
    """The same input gives the same files, byte for byte."""
    site, fs = _sample(shared_data)
    texts = []
    for name in ("a", "b"):
        (tmp_path / name).mkdir()
        assert _fs2cs("-y", site, "-f", fs, "-o", str(tmp_path / name), "-s") == 0
        texts.append([(tmp_path / name / f).read_bytes() for f in ("capacity-scheduler.xml", "yarn-site.xml")])
    assert texts[0] == texts[1]


def test_hadoop_conversion_resource_verifies_in_the_capacity_scheduler(tmp_path: Path, capsys: Any) -> None:
    """fair-scheduler-conversion.xml (found next to the yarn-site that names it): converted and verified."""
    out = tmp_path / "out"
    out.mkdir()
    assert _fs2cs("-y", str(FIXTURES / "yarn-site-with-allocation-file-ref.xml"), "-o", str(out)) == 0
    conf = Configuration.from_conf_dir(out)
    assert conf.get("yarn.scheduler.capacity.root.users.joe.capacity") == "3.0w"
    assert conf.get("yarn.scheduler.capacity.mapping-rule-format") == "json"


# -- bad inputs, dry runs and options through the CLI (Hadoop's methods: tests/conformance/test_hadoop_fs2cs_*) --
def test_missing_file_exits_2_naming_it(tmp_path: Path, capsys: Any) -> None:
    """testEmptyYarnSiteXmlSpecified's check: a path that does not exist is named with the option."""
    missing = tmp_path / "nope.xml"
    assert _fs2cs("-y", str(missing), "-p") == 2
    assert f"Specified path {missing} does not exist (As value of parameter yarn-site.xml)" in capsys.readouterr().err


def test_missing_output_directory_is_refused(tmp_path: Path, capsys: Any) -> None:
    site = str(FIXTURES / "yarn-site-with-allocation-file-ref.xml")
    assert _fs2cs("-y", site, "-o", str(tmp_path / "nodir")) == 2
    assert "is not a directory (As value of parameter output directory)" in capsys.readouterr().err


def test_malformed_fair_scheduler_xml_exits_2_naming_it(tmp_path: Path, capsys: Any) -> None:
    """Malformed XML: exit 2, the file and line named."""
    site = str(FIXTURES / "yarn-site-with-allocation-file-ref.xml")
    assert _fs2cs("-y", site, "-f", str(FIXTURES / "fair-scheduler-invalid.xml"), "-p") == 2
    assert f"{FIXTURES / 'fair-scheduler-invalid.xml'}:" in capsys.readouterr().err


def test_malformed_yarn_site_xml_exits_2_naming_it(capsys: Any) -> None:
    assert _fs2cs("-y", str(FIXTURES / "yarn-site-with-invalid-allocation-file-ref.xml"), "-p") == 2
    assert "yarn-site-with-invalid-allocation-file-ref.xml:" in capsys.readouterr().err


def test_rules_file_with_unknown_action_exits_2(tmp_path: Path, capsys: Any) -> None:
    rules = tmp_path / "rules.properties"
    rules.write_text("maxResources.action=stop\n")
    site, fs = str(FIXTURES / "yarn-site-with-allocation-file-ref.xml"), str(FIXTURES / "fair-scheduler-conversion.xml")
    assert _fs2cs("-y", site, "-f", fs, "-r", str(rules), "-p") == 2
    assert f"{rules}:1: Unknown action stop set for rule maxResources.action" in capsys.readouterr().err


def test_dry_run_collects_an_aborting_rule(capsys: Any) -> None:
    """A dry run collects the abort as an error and prints the results."""
    site, rules = (
        str(FIXTURES / "yarn-site-with-allocation-file-ref.xml"),
        str(FIXTURES / "conversion-rules.properties"),
    )
    assert _fs2cs("-y", site, "-r", rules, "-d", "-p") == 0
    out = capsys.readouterr().out
    assert "Results of dry run:" in out
    assert "List of errors:\nSetting <maxChildResources> is not supported" in out


def test_rules_to_file_writes_mapping_rules_json(tmp_path: Path) -> None:
    """-e: mapping-rules.json beside the XML files, and no mapping-rule-json key."""
    assert _fs2cs("-y", str(FIXTURES / "yarn-site-with-allocation-file-ref.xml"), "-o", str(tmp_path), "-e") == 0
    assert (tmp_path / "mapping-rules.json").read_text().startswith('{\n  "rules" : [ {')
    assert Configuration.from_conf_dir(tmp_path).get("yarn.scheduler.capacity.mapping-rule-json") is None


def test_illegal_disable_preemption_mode_exits_2(capsys: Any) -> None:
    assert _fs2cs("-y", str(FIXTURES / "yarn-site-with-allocation-file-ref.xml"), "-p", "-dp", "x") == 2
    assert "Specified disable-preemption mode is illegal,  use nopolicy or observeonly." in capsys.readouterr().err
