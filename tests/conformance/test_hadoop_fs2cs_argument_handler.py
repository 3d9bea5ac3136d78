"""Hadoop's TestFSConfigToCSConfigArgumentHandler, method by method, through ``yarnball fs2cs`` (exit 2 for Hadoop's
-1, the messages on stderr).

Hadoop hands the parsed arguments to a mocked converter (and a mocked validator); here the real converter runs, so
each method's outcome is the conversion's: where Hadoop reads the captured FSConfigToCSConfigConverterParams the
ports read the params the real ``convert`` was called with (:func:`calls`), and where Hadoop makes the mock throw
the ports make ``convert`` throw the same exception (:func:`throwing`). The files are FSConfigConverterTestCommons'
(:class:`Commons`), with two changes: its yarn-site.xml files have a bare ``<property>`` root, which Hadoop's parser
reads and yarnball's refuses, so they are written inside ``<configuration>`` (and the empty one without its nameless
``<property></property>``, which Hadoop skips and yarnball refuses); and its allocation file declares
``root.default``, the queue Hadoop's converted configuration gets from the test classpath's capacity-scheduler.xml
(without a child, root would fail the verification: "Queue configuration missing child queue names for root")."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from fs2cs_helpers import FIXTURES
from structlog.testing import capture_logs

from yarnball.errors import ConversionException, PreconditionException, UnsupportedPropertyException
from yarnball.launcher import cli
from yarnball.policies.fair.converter import FSConfigToCSConfigConverter, FSConfigToCSConfigConverterParams

VALIDATED = "Capacity scheduler was successfully started"


def fs2cs(*args: str) -> int:
    return cli.main(["fs2cs", *args])


class Commons:
    """``FSConfigConverterTestCommons``: the test files in TEST_DIR and the (created) conversion-output directory."""

    def __init__(self, test_dir: Path) -> None:
        self.test_dir = test_dir
        self.fs_alloc_file = str(test_dir / "test-fair-scheduler.xml")
        self.yarn_site_xml = str(test_dir / "test-yarn-site.xml")
        self.conversion_rules_file = str(test_dir / "test-conversion-rules.properties")
        self.output_dir = str(test_dir / "conversion-output")
        (test_dir / "conversion-output").mkdir()

    def setup_files(self, define_allocation_file: bool = True) -> None:
        """``setupFSConfigConversionFiles``."""
        self.configure_fair_scheduler_xml()
        if define_allocation_file:
            self.configure_yarn_site_xml_with_fs_alloc_file_defined()
        else:
            self.configure_empty_yarn_site_xml()
        self.write(self.conversion_rules_file, "dummy_key=dummy_value\n")

    def configure_fair_scheduler_xml(self) -> None:
        self.write(
            self.fs_alloc_file,
            "<allocations>\n<queueMaxAMShareDefault>-1.0</queueMaxAMShareDefault>\n"
            "<defaultQueueSchedulingPolicy>fair</defaultQueueSchedulingPolicy>\n"
            '<queue name="root"><schedulingPolicy>fair</schedulingPolicy><weight>1.0</weight>'
            "<fairSharePreemptionTimeout>100</fairSharePreemptionTimeout>"
            "<minSharePreemptionTimeout>120</minSharePreemptionTimeout>"
            "<fairSharePreemptionThreshold>0.5</fairSharePreemptionThreshold>"
            '<queue name="default"/></queue>\n</allocations>\n',
        )

    def configure_empty_fair_scheduler_xml(self) -> None:
        self.write(self.fs_alloc_file, "<allocations>\n</allocations>\n")

    def configure_yarn_site_xml_with_fs_alloc_file_defined(self) -> None:
        self.write(
            self.yarn_site_xml,
            "<configuration><property><name>yarn.scheduler.fair.allocation.file</name>"
            f"<value>{self.fs_alloc_file}</value></property></configuration>\n",
        )

    def configure_empty_yarn_site_xml(self) -> None:
        self.write(self.yarn_site_xml, "<configuration></configuration>\n")

    def configure_invalid_conversion_rules_file(self) -> None:
        self.write(self.conversion_rules_file, "bla\n")

    def configure_empty_conversion_rules_file(self) -> None:
        self.write(self.conversion_rules_file, "")

    @staticmethod
    def write(path: str, text: str) -> None:
        Path(path).write_text('<?xml version="1.0"?>\n' + text if text.startswith("<") else text)

    def defaults(self, *args: str) -> list[str]:
        """``getArgumentsAsArrayWithDefaults``: -y and -o, then ``args``."""
        return ["-y", self.yarn_site_xml, "-o", self.output_dir, *args]


@pytest.fixture
def commons(tmp_path: Path) -> Commons:
    return Commons(tmp_path)


@pytest.fixture
def calls(monkeypatch: pytest.MonkeyPatch) -> list[FSConfigToCSConfigConverterParams]:
    """The params each ``convert`` was called with (Hadoop's ArgumentCaptor), the real conversion still running."""
    seen: list[FSConfigToCSConfigConverterParams] = []
    real = FSConfigToCSConfigConverter.convert

    def convert(self: FSConfigToCSConfigConverter, params: FSConfigToCSConfigConverterParams) -> Any:
        seen.append(params)
        return real(self, params)

    monkeypatch.setattr(FSConfigToCSConfigConverter, "convert", convert)
    return seen


def throwing(monkeypatch: pytest.MonkeyPatch, exc: Exception) -> None:
    """``Mockito.doThrow(exc).when(mockConverter).convert(any())``."""

    def convert(self: FSConfigToCSConfigConverter, params: FSConfigToCSConfigConverterParams) -> Any:
        raise exc

    monkeypatch.setattr(FSConfigToCSConfigConverter, "convert", convert)


def test_testMissingYarnSiteXmlArgument(commons: Commons, capsys: Any) -> None:
    """testMissingYarnSiteXmlArgument: -1 and "Missing yarn-site.xml parameter"."""
    commons.setup_files()
    assert fs2cs("-o", commons.output_dir) == 2
    assert capsys.readouterr().err.strip() == (
        "yarnball fs2cs: error: Cannot start FS config conversion due to the following precondition error: "
        "Missing yarn-site.xml parameter (switch: y|yarnsiteconfig)."
    )


@pytest.mark.parametrize(
    "method",
    [
        "testMissingFairSchedulerXmlArgument",
        "testMissingRulesConfiguration",
        "testFairSchedulerXmlIsNotDefinedIfItsDefinedInYarnSiteXml",
    ],
)
def test_allocation_file_from_yarn_site(commons: Commons, calls: list[Any], method: str) -> None:
    """testMissingFairSchedulerXmlArgument, testMissingRulesConfiguration,
    testFairSchedulerXmlIsNotDefinedIfItsDefinedInYarnSiteXml (no assertion in Hadoop): -y and -o alone convert, the
    allocation file named by the yarn-site.xml, without a rules file."""
    commons.setup_files()
    assert fs2cs(*commons.defaults()) == 0
    assert calls[0].fair_scheduler_xml_config is None and calls[0].conversion_rules_config is None
    assert (Path(commons.output_dir) / "capacity-scheduler.xml").exists()


def test_testMissingOutputDirArgument(commons: Commons, capsys: Any) -> None:
    """testMissingOutputDirArgument: -1 and "Output directory or console mode was not defined"."""
    commons.setup_files()
    assert fs2cs("-y", commons.yarn_site_xml) == 2
    assert "Output directory or console mode was not defined" in capsys.readouterr().err


def test_testInvalidRulesConfigFile(commons: Commons) -> None:
    """testInvalidRulesConfigFile (no assertion in Hadoop, whose arguments do not name the file): a rules file holding
    "bla" converts, passed or not (an unknown key is ignored, as Properties.load reads it)."""
    commons.configure_yarn_site_xml_with_fs_alloc_file_defined()
    commons.configure_fair_scheduler_xml()
    commons.configure_invalid_conversion_rules_file()
    assert fs2cs(*commons.defaults()) == 0
    assert fs2cs("-y", commons.yarn_site_xml, "-r", commons.conversion_rules_file, "-p") == 0


def test_testInvalidOutputDir(commons: Commons, capsys: Any) -> None:
    """testInvalidOutputDir: -o naming a file is a precondition error."""
    commons.setup_files()
    assert fs2cs("-y", commons.yarn_site_xml, "-o", commons.yarn_site_xml) == 2
    assert "Cannot start FS config conversion due to the following precondition error" in capsys.readouterr().err


def test_testVerificationException(commons: Commons, capsys: Any) -> None:
    """testVerificationException (Hadoop verifies a mocked ConversionOptions.handleVerificationFailure): a converted
    configuration the CapacityScheduler refuses fails the verification; a dry run reports it FAILED."""
    commons.configure_yarn_site_xml_with_fs_alloc_file_defined()
    commons.write(
        commons.fs_alloc_file,
        '<allocations><queue name="root"><queue name="big">'
        "<maxContainerAllocation>vcores=2,memory-mb=16384</maxContainerAllocation></queue></queue></allocations>",
    )
    assert fs2cs(*commons.defaults()) == 2
    out, err = capsys.readouterr()
    assert "yarnball fs2cs: error: Verification failed: " in err
    assert "Queue maximum allocation cannot be larger than the cluster setting for queue root.big" in err
    (commons.test_dir / "dry").mkdir()
    assert fs2cs("-y", commons.yarn_site_xml, "-o", str(commons.test_dir / "dry"), "-d") == 2
    out, err = capsys.readouterr()
    assert "Verification result: FAILED" in out
    assert "Verification failed: " in err


@pytest.mark.parametrize(
    ("method", "empty_fs", "rules"),
    [
        ("testEmptyYarnSiteXmlSpecified", False, None),
        ("testEmptyFairSchedulerXmlSpecified", True, None),
        ("testEmptyRulesConfigurationSpecified", True, ""),
    ],
)
def test_empty_files(commons: Commons, method: str, empty_fs: bool, rules: str | None) -> None:
    """testEmptyYarnSiteXmlSpecified, testEmptyFairSchedulerXmlSpecified, testEmptyRulesConfigurationSpecified (no
    assertion in Hadoop): an empty yarn-site.xml with -f, an empty allocation file, an empty rules file all convert
    (-s: an allocation without queues converts to a root without children, which the verification refuses)."""
    commons.configure_empty_yarn_site_xml()
    if empty_fs:
        commons.configure_empty_fair_scheduler_xml()
    else:
        commons.configure_fair_scheduler_xml()
    args = ["-f", commons.fs_alloc_file]
    if rules is not None:
        commons.configure_empty_conversion_rules_file()
        args += ["-r", commons.conversion_rules_file]
    assert fs2cs(*commons.defaults(*args), *(["-s"] if empty_fs else [])) == 0
    assert (Path(commons.output_dir) / "capacity-scheduler.xml").exists()


def test_nameless_property_in_yarn_site_is_refused(commons: Commons, capsys: Any) -> None:
    """FSConfigConverterTestCommons.configureEmptyYarnSiteXml's ``<property></property>``: Hadoop's Configuration
    skips a property without a name; yarnball refuses it, naming the file and line."""
    commons.configure_fair_scheduler_xml()
    commons.write(commons.yarn_site_xml, "<configuration><property></property></configuration>\n")
    assert fs2cs(*commons.defaults("-f", commons.fs_alloc_file)) == 2
    assert f"{commons.yarn_site_xml}:2: <property> without a <name>" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("method", "extra", "console", "cluster_resource"),
    [
        ("testConvertFSConfigurationDefaults", [], False, None),
        ("testConvertFSConfigurationWithConsoleParam", ["-p"], True, None),
        (
            "testConvertFSConfigurationClusterResource",
            ["-p", "-c", "vcores=20, memory-mb=240"],
            True,
            "vcores=20, memory-mb=240",
        ),
    ],
)
def test_converter_params(
    commons: Commons, calls: list[Any], method: str, extra: list[str], console: bool, cluster_resource: str | None
) -> None:
    """testConvertFSConfigurationDefaults, ...WithConsoleParam, ...ClusterResource: the params the converter gets."""
    commons.setup_files()
    assert fs2cs(*commons.defaults("-f", commons.fs_alloc_file, "-r", commons.conversion_rules_file, *extra)) == 0
    params = calls[0]
    assert params.yarn_site_xml_config == commons.yarn_site_xml
    assert params.fair_scheduler_xml_config == commons.fs_alloc_file
    assert params.conversion_rules_config == commons.conversion_rules_file
    assert params.console is console
    assert params.cluster_resource == cluster_resource


@pytest.mark.parametrize(
    ("exc", "message"),
    [
        (UnsupportedPropertyException("test"), "Unsupported property/setting encountered"),
        (ConversionException("test"), "Fatal error during FS config conversion"),
    ],
    ids=["testConvertFSConfigurationErrorHandling", "testConvertFSConfigurationErrorHandling2"],
)
def test_error_handling(
    commons: Commons, capsys: Any, monkeypatch: pytest.MonkeyPatch, exc: Exception, message: str
) -> None:
    """testConvertFSConfigurationErrorHandling and ...2: the converter's exception is -1 and its message."""
    commons.setup_files()
    throwing(monkeypatch, exc)
    assert fs2cs(*commons.defaults("-f", commons.fs_alloc_file, "-r", commons.conversion_rules_file, "-p")) == 2
    assert f"yarnball fs2cs: error: {message}" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["-r", str(FIXTURES / "conversion-rules.properties")], "Unsupported property/setting encountered during FS "
         "config conversion: Setting <maxChildResources> is not supported"),
        (["-c", "vcores=20, memory-mb=240G"], "Fatal error during FS config conversion: Error while parsing resource."),
    ],
    ids=["abort-rule", "bad-cluster-resource"],
)  # fmt: skip
def test_error_handling_of_real_failures(capsys: Any, args: list[str], message: str) -> None:
    """testConvertFSConfigurationErrorHandling and ...2 without the stub: an abort rule (Hadoop's
    conversion-rules.properties aborts on root.admins' maxChildResources) and a malformed -c."""
    assert fs2cs("-y", str(FIXTURES / "yarn-site-with-allocation-file-ref.xml"), "-p", *args) == 2
    assert f"yarnball fs2cs: error: {message}" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("exc", "message"),
    [
        (PreconditionException("test"), "Cannot start FS config conversion"),
        (UnsupportedPropertyException("test"), "Unsupported property/setting encountered"),
        (ConversionException("test"), "Fatal error during FS config conversion"),
        (ValueError("test"), "Fatal error during FS config conversion"),
    ],
    ids=[
        "testDryRunWhenPreconditionExceptionOccurs",
        "testDryRunWhenUnsupportedPropertyExceptionExceptionOccurs",
        "testDryRunWhenConversionExceptionExceptionOccurs",
        "testDryRunWhenIllegalArgumentExceptionExceptionOccurs",
    ],
)
def test_dry_run_with_exception(
    commons: Commons, capsys: Any, monkeypatch: pytest.MonkeyPatch, exc: Exception, message: str
) -> None:
    """testDryRunWhen...Occurs (``testDryRunWithException``): -1, one dry-run error with the handler's message, and
    nothing on stderr (IllegalArgumentException is Python's ValueError)."""
    commons.setup_files()
    throwing(monkeypatch, exc)
    args = ["-y", commons.yarn_site_xml, "-f", commons.fs_alloc_file, "-r", commons.conversion_rules_file, "-d"]
    assert fs2cs(*args) == 2
    out, err = capsys.readouterr()
    assert "Number of errors: 1" in out
    errors = out.split("List of errors:\n", 1)[1].splitlines()
    assert errors[0].startswith(message) and errors[0].endswith(": test")
    assert err == ""


@pytest.mark.parametrize(
    ("switch", "status"), [(["-t"], 0), ([], 2)], ids=["testDisabledTerminalRuleCheck", "testEnabledTerminalRuleCheck"]
)
def test_terminal_rule_check(capsys: Any, switch: list[str], status: int) -> None:
    """testDisabledTerminalRuleCheck / testEnabledTerminalRuleCheck: -t lets rules after a terminal one through."""
    site, fs = (
        FIXTURES / "yarn-site-with-allocation-file-ref.xml",
        FIXTURES / "fair-scheduler-invalidplacementrules.xml",
    )
    assert fs2cs("-y", str(site), "-f", str(fs), "-p", *switch) == status
    assert ("can never be reached" in capsys.readouterr().err) is (status == 2)


def test_testYarnSiteOptionInOutputFolder(commons: Commons, capsys: Any) -> None:
    """testYarnSiteOptionInOutputFolder: the output directory may not hold the input yarn-site.xml."""
    commons.setup_files()
    assert fs2cs("-y", commons.yarn_site_xml, "-o", str(commons.test_dir)) == 2
    assert "contains the yarn-site.xml" in capsys.readouterr().err


@pytest.mark.parametrize(
    "name",
    ["yarn-site.xml", "capacity-scheduler.xml", "mapping-rules.json"],
    ids=[
        "testYarnSiteExistsInOutputFolder",
        "testCapacitySchedulerXmlExistsInOutputFolder",
        "testMappingRulesJsonExistsInOutputFolder",
    ],
)
def test_file_exists_in_output_folder(commons: Commons, capsys: Any, name: str) -> None:
    """``testFileExistsInOutputFolder`` (with -e): an output file already in the output directory is refused."""
    (Path(commons.output_dir) / name).touch()
    commons.setup_files()
    assert fs2cs("-y", commons.yarn_site_xml, "-o", commons.output_dir, "-e") == 2
    assert f"already contains a file or directory named {name}" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("switch", "enabled"),
    [([], True), (["-sp"], False)],
    ids=["testPlacementRulesConversionEnabled", "testPlacementRulesConversionDisabled"],
)
def test_placement_rule_conversion(
    commons: Commons, calls: list[Any], capsys: Any, switch: list[str], enabled: bool
) -> None:
    """``testPlacementRuleConversion``: converted by default, not with -sp."""
    commons.setup_files()
    assert fs2cs(*commons.defaults("-f", commons.fs_alloc_file, "-p", *switch)) == 0
    assert calls[0].convert_placement_rules is enabled
    assert ("yarn.scheduler.capacity.mapping-rule-json" in capsys.readouterr().out) is enabled


@pytest.mark.parametrize(
    ("switches", "validated"),
    [([], True), (["-s"], False), (["-s", "-p"], False), (["-p"], False)],
    ids=[
        "testValidatorInvocation",
        "testValidationSkippedWhenCmdLineSwitchIsDefined",
        "testValidationSkippedWhenOutputIsConsole",
        "console-without-s",
    ],
)
def test_validation(commons: Commons, switches: list[str], validated: bool) -> None:
    """testValidatorInvocation (not annotated @Test in Hadoop), testValidationSkippedWhenCmdLineSwitchIsDefined,
    testValidationSkippedWhenOutputIsConsole: the written directory is verified unless -s or -p."""
    commons.setup_files()
    with capture_logs() as logs:
        assert fs2cs(*commons.defaults("-f", commons.fs_alloc_file, *switches)) == 0
    assert any(entry["event"] == VALIDATED for entry in logs) is validated


@pytest.mark.parametrize(
    ("switch", "enabled"),
    [(["-a"], True), ([], False)],
    ids=["testEnabledAsyncScheduling", "testDisabledAsyncScheduling"],
)
def test_async_scheduling(commons: Commons, capsys: Any, switch: list[str], enabled: bool) -> None:
    """testEnabledAsyncScheduling / testDisabledAsyncScheduling: -a sets schedule-asynchronously.enable."""
    commons.setup_files()
    assert fs2cs(*commons.defaults("-f", commons.fs_alloc_file, "-p", *switch)) == 0
    key = "<name>yarn.scheduler.capacity.schedule-asynchronously.enable</name><value>true</value>"
    assert (key in capsys.readouterr().out) is enabled


@pytest.mark.parametrize(
    ("switch", "capacity"), [(["-pc"], "100.000"), ([], "1.0w")], ids=["testUsePercentages", "testUseWeights"]
)
def test_use_percentages(commons: Commons, calls: list[Any], capsys: Any, switch: list[str], capacity: str) -> None:
    """``testUsePercentages``: -pc converts weights to percentages."""
    commons.setup_files()
    assert fs2cs(*commons.defaults("-f", commons.fs_alloc_file, "-p", *switch)) == 0
    assert calls[0].use_percentages is bool(switch)
    key = f"<name>yarn.scheduler.capacity.root.default.capacity</name><value>{capacity}</value>"
    assert key in capsys.readouterr().out
