"""``yarnball fs2cs``: Hadoop's ``yarn fs2cs`` (``FSConfigToCSConfigArgumentHandler``), the FairScheduler-to-
CapacityScheduler configuration converter, with Hadoop's options and messages.

``yarnball fs2cs -y yarn-site.xml [-f fair-scheduler.xml] -o DIR`` writes ``DIR/capacity-scheduler.xml`` and
``DIR/yarn-site.xml`` (the keys to put in place of the FairScheduler's), then verifies them by building yarnball's
CapacityScheduler from ``DIR`` (``-s`` skips it). ``-p`` prints the files instead, ``-d`` only reports what would not
convert. Exit statuses: 0, converted (or a dry run); 2, a user error, one ``yarnball fs2cs: error:`` line with
Hadoop's message (a missing option or file, a bad file, a setting whose rule says abort, a failed verification).
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Final

from yarnball.errors import (
    ConversionException,
    PreconditionException,
    UnsupportedPropertyException,
    VerificationException,
    YarnballError,
    one_line,
)
from yarnball.launcher._console import os_error_text
from yarnball.policies.fair.converter import (
    CAPACITY_SCHEDULER_XML,
    MAPPING_RULES_JSON,
    YARN_SITE_XML,
    ConversionOptions,
    ConvertedConfigValidator,
    DryRunResultHolder,
    FSConfigToCSConfigConverter,
    FSConfigToCSConfigConverterParams,
    PreemptionMode,
)

__all__ = ["build_parser", "main"]

PROG: Final = "yarnball fs2cs"
# CliOption: (name, short switch, long switch)
YARN_SITE: Final = ("yarn-site.xml", "y", "yarnsiteconfig")
FAIR_SCHEDULER: Final = ("fair-scheduler.xml", "f", "fsconfig")
CONVERSION_RULES: Final = ("conversion rules config file", "r", "rulesconfig")
OUTPUT_DIR: Final = ("output directory", "o", "output-directory")


def build_parser() -> argparse.ArgumentParser:
    """The options of ``FSConfigToCSConfigArgumentHandler.CliOption`` (single-dash short switches, as commons-cli)."""
    parser = argparse.ArgumentParser(
        prog=PROG,
        allow_abbrev=False,
        description="Convert a FairScheduler configuration (yarn-site.xml and fair-scheduler.xml) into a "
        "CapacityScheduler configuration (capacity-scheduler.xml and yarn-site.xml), as Hadoop's `yarn fs2cs`.",
    )
    add = parser.add_argument
    add("-y", "--yarnsiteconfig", metavar="FILE", help="Path to a valid yarn-site.xml config file")
    add(
        "-f",
        "--fsconfig",
        metavar="FILE",
        help="Path to a valid fair-scheduler.xml config file (default: yarn.scheduler.fair.allocation.file of the "
        "yarn-site.xml)",
    )
    add(
        "-r",
        "--rulesconfig",
        metavar="FILE",
        help="Optional parameter. If given, should specify a valid path to the conversion rules file (property "
        "format): <rule>.action=warning|abort",
    )
    add("-p", "--print", action="store_true", help="If defined, the converted configuration will only be emitted to "
        "the console.")  # fmt: skip
    add(
        "-c",
        "--cluster-resource",
        metavar="RESOURCE",
        help="Needs to be given if maxResources is defined as percentages for any queue, otherwise this parameter "
        "can be omitted.",
    )
    add(
        "-o",
        "--output-directory",
        metavar="DIR",
        help="Output directory for yarn-site.xml and capacity-scheduler.xml files.",
    )
    add(
        "-d",
        "--dry-run",
        action="store_true",
        help="Performs a dry-run of the conversion. Outputs whether the conversion is possible or not.",
    )
    add(
        "-t",
        "--no-terminal-rule-check",
        action="store_true",
        help="Disables checking whether a placement rule is terminal to maintain backward compatibility with "
        "configs that were made before YARN-8967.",
    )
    add("-s", "--skip-verification", action="store_true",
        help="Skips the verification of the converted configuration")  # fmt: skip
    add("-sp", "--skip-convert-placement-rules", action="store_true", help="Do not convert placement rules")
    add(
        "-a",
        "--enable-async-scheduler",
        action="store_true",
        help="Enables the Asynchronous scheduler which decouples the CapacityScheduler scheduling from Node "
        "Heartbeats.",
    )
    add(
        "-e",
        "--rules-to-file",
        action="store_true",
        help="Generates the converted placement rules to an external JSON file called mapping-rules.json",
    )
    add("-pc", "--percentage", action="store_true", help="Converts FS queue weights to percentages")
    add(
        "-dp",
        "--disable-preemption",
        metavar="MODE",
        help="Disable the preemption with nopolicy or observeonly mode. Preemption is enabled by default. nopolicy "
        "removes ProportionalCapacityPreemptionPolicy from the list of monitor policies, observeonly sets "
        "yarn.resourcemanager.monitor.capacity.preemption.observe_only to true.",
    )
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """``parseAndConvert``: 0 when converted, 2 for an error (Hadoop's -1), with Hadoop's message on stderr."""
    args_list = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser()
    if not args_list:  # Hadoop: "Missing command line arguments" and the help, status 0
        parser.print_help()
        return 0
    try:
        args = parser.parse_args(args_list)
    except SystemExit as exc:  # argparse exits 2 on bad options and 0 on --help
        return exc.code if isinstance(exc.code, int) else 2
    holder = DryRunResultHolder()
    options = ConversionOptions(
        holder,
        args.dry_run,
        no_terminal_rule_check=args.no_terminal_rule_check,
        enable_async_scheduler=args.enable_async_scheduler,
        warn=lambda message: print(f"{PROG}: warning: {one_line(message)}", file=sys.stderr),
    )
    status = 0
    try:
        _convert(args, options)
    except PreconditionException as exc:
        status = _failed(options, f"Cannot start FS config conversion due to the following precondition error: {exc}")
    except UnsupportedPropertyException as exc:
        status = _failed(options, f"Unsupported property/setting encountered during FS config conversion: {exc}")
    except VerificationException as exc:
        print(f"{PROG}: error: Verification failed: {one_line(exc)}", file=sys.stderr)
        holder.set_verification_failed()
        status = 2
    except (ConversionException, ValueError) as exc:
        status = _failed(options, f"Fatal error during FS config conversion: {exc}")
    except YarnballError as exc:  # a bad input file: its name and line, and what was expected
        print(f"{PROG}: error: {one_line(exc)}", file=sys.stderr)
        status = 2
    except OSError as exc:
        print(f"{PROG}: error: {one_line(os_error_text(exc))}", file=sys.stderr)
        status = 2
    if options.dry_run:  # handleParsingFinished
        print("\n".join(holder.dry_run_results()))
    return status


def _failed(options: ConversionOptions, message: str) -> int:
    """``handleGenericException``: collected in a dry run, else printed."""
    if options.dry_run:
        options.dry_run_result_holder.add_dry_run_error(message)
    else:
        print(f"{PROG}: error: {one_line(message)}", file=sys.stderr)
    return 2


def _convert(args: argparse.Namespace, options: ConversionOptions) -> None:
    """``prepareAndGetConverter``, ``convert`` and the verification of the written directory."""
    if args.yarnsiteconfig is None:
        raise PreconditionException(f"Missing {YARN_SITE[0]} parameter (switch: {YARN_SITE[1]}|{YARN_SITE[2]}).")
    if not args.print and args.output_directory is None and not args.dry_run:
        raise PreconditionException(
            "Output directory or console mode was not defined. Please use -h or --help to see command line switches"
        )
    params = _validate_input_files(args)
    converter = FSConfigToCSConfigConverter(conversion_options=options)
    result = converter.convert(params)
    if params.console:
        print(FSConfigToCSConfigConverter.console_text(result))
    elif params.output_directory is not None:
        print(f"{PROG}: wrote {', '.join(_written(params))} to {params.output_directory}")
    if params.output_directory is not None and not args.skip_verification and not params.console:
        ConvertedConfigValidator().validate_converted_config(params.output_directory)


def _written(params: FSConfigToCSConfigConverterParams) -> list[str]:
    files = [CAPACITY_SCHEDULER_XML, YARN_SITE_XML]
    return [*files, MAPPING_RULES_JSON] if params.placement_rules_to_file and params.convert_placement_rules else files


def _validate_input_files(args: argparse.Namespace) -> FSConfigToCSConfigConverterParams:
    _check_path(YARN_SITE, args.yarnsiteconfig, is_file=True)
    _check_path(FAIR_SCHEDULER, args.fsconfig, is_file=True)
    _check_path(CONVERSION_RULES, args.rulesconfig, is_file=True)
    _check_path(OUTPUT_DIR, args.output_directory, is_file=False)
    _check_output_dir_does_not_contain_xmls(args.yarnsiteconfig, args.output_directory)
    mode = PreemptionMode.from_string(args.disable_preemption)
    if args.disable_preemption is not None and mode is PreemptionMode.ENABLED:
        raise PreconditionException("Specified disable-preemption mode is illegal,  use nopolicy or observeonly.")
    if not args.print and args.rules_to_file and args.output_directory is not None:
        _check_file_not_in_output_dir(Path(args.output_directory), MAPPING_RULES_JSON)
    return FSConfigToCSConfigConverterParams(
        yarn_site_xml_config=args.yarnsiteconfig,
        fair_scheduler_xml_config=args.fsconfig,
        conversion_rules_config=args.rulesconfig,
        cluster_resource=args.cluster_resource,
        console=args.print,
        output_directory=args.output_directory,
        convert_placement_rules=not args.skip_convert_placement_rules,
        placement_rules_to_file=args.rules_to_file,
        use_percentages=args.percentage,
        preemption_mode=mode,
    )


def _check_path(option: tuple[str, str, str], path: str | None, *, is_file: bool) -> None:
    """``checkFileInternal``, with Hadoop's messages (its double space included)."""
    if path is None:
        return
    if is_file and os.path.isdir(path):
        raise PreconditionException(
            f"Specified path {path} is a directory but should be  a file (As value of parameter {option[0]})"
        )
    if not is_file and not os.path.isdir(path):
        raise PreconditionException(f"Specified path {path} is not a directory (As value of parameter {option[0]})")
    if not os.path.exists(path):
        raise PreconditionException(f"Specified path {path} does not exist (As value of parameter {option[0]})")


def _check_output_dir_does_not_contain_xmls(yarn_site: str | None, output_dir: str | None) -> None:
    """The output directory may not be the input yarn-site.xml's, nor hold the files the conversion writes."""
    if yarn_site is None or output_dir is None:
        return
    if Path(output_dir) == Path(yarn_site).parent:  # Java's File.equals: the paths as given, not resolved
        raise ValueError(
            f"The {OUTPUT_DIR[0]} (provided with {OUTPUT_DIR[1]}|{OUTPUT_DIR[2]} arguments) contains the "
            f"{YARN_SITE[0]} provided with the {YARN_SITE[1]}|{YARN_SITE[2]} options."
        )
    _check_file_not_in_output_dir(Path(output_dir), YARN_SITE_XML)
    _check_file_not_in_output_dir(Path(output_dir), CAPACITY_SCHEDULER_XML)


def _check_file_not_in_output_dir(output: Path, name: str) -> None:
    if (output / name).exists():
        raise ValueError(
            f"The {OUTPUT_DIR[0]} {output} (provided with {OUTPUT_DIR[1]}|{OUTPUT_DIR[2]} arguments) already "
            f"contains a file or directory named {name} which will be the output of the conversion!"
        )
