"""Sweep specs: expansion into scenarios, stable names, bad specs named by file and field."""

from __future__ import annotations

import io
import tomllib
from contextlib import redirect_stderr
from pathlib import Path

import pytest

from yarnball.errors import ConfigurationError
from yarnball.launcher import sweep as sweep_pkg
from yarnball.launcher.sweep import load_spec, parse_spec, scenario_name

MONITOR = "yarn.resourcemanager.scheduler.monitor.enable"

SPEC = """
seeds = [1, 2]

[[traces]]
name = "t"
location = "traces/a.json"
nodes = "traces/nodes.json"

[fixed]
conf = { "yarn.sls.metrics.record.interval.ms" = 500 }
until-ms = 60000

[[axes.preemption]]
label = "off"
conf = { "yarn.resourcemanager.scheduler.monitor.enable" = false }

[[axes.preemption]]
label = "on"
conf = { "yarn.resourcemanager.scheduler.monitor.enable" = true }

[axes]
"yarn.scheduler.capacity.node-locality-delay" = [0, 40, 80]
"""


def write(tmp_path: Path, text: str, name: str = "spec.toml") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def arg(args: tuple[str, ...], option: str) -> list[str]:
    """Every value given to ``option`` in an argument list."""
    return [args[i + 1] for i, a in enumerate(args) if a == option]


def test_scenarios_are_the_product_of_traces_axes_and_seeds(tmp_path: Path) -> None:
    """2 preemption values x 3 delays x 2 seeds = 12 scenarios, seeds varying fastest, in file order."""
    spec = load_spec(write(tmp_path, SPEC))
    assert spec.axes == ("trace", "preemption", "yarn.scheduler.capacity.node-locality-delay", "seed")
    assert len(spec.scenarios) == 12
    params = [dict(s.params) for s in spec.scenarios]
    assert [p["seed"] for p in params[:4]] == ["1", "2", "1", "2"]
    assert [p["preemption"] for p in params] == ["off"] * 6 + ["on"] * 6
    assert len({s.name for s in spec.scenarios}) == 12


def test_scenario_arguments_merge_fixed_and_axis_values(tmp_path: Path) -> None:
    """A scenario's simulate arguments carry [fixed], each axis value's keys and options, and its seed."""
    spec = load_spec(write(tmp_path, SPEC))
    s = spec.scenarios[-1]  # preemption on, delay 80, seed 2
    confs = arg(s.args, "--conf")
    assert f"{MONITOR}=true" in confs
    assert "yarn.scheduler.capacity.node-locality-delay=80" in confs
    assert "yarn.sls.metrics.record.interval.ms=500" in confs
    assert arg(s.args, "--seed") == ["2"]
    assert arg(s.args, "--until-ms") == ["60000"]
    assert arg(s.args, "--tracetype") == ["SLS"]


def test_relative_paths_are_relative_to_the_spec_file(tmp_path: Path) -> None:
    """Trace, nodes and conf-dir paths resolve against the spec's directory, not the working directory."""
    sub = tmp_path / "specs"
    sub.mkdir()
    spec = load_spec(write(sub, SPEC + '\n[[axes.layout]]\nlabel = "x"\nconf-dir = "conf/x"\n'))
    s = spec.scenarios[0]
    assert arg(s.args, "--tracelocation") == [str(sub.resolve() / "traces/a.json")]
    assert arg(s.args, "--nodes") == [str(sub.resolve() / "traces/nodes.json")]
    assert arg(s.args, "--conf-dir") == [str(sub.resolve() / "conf/x")]


def test_bare_values_of_an_option_axis_set_the_option(tmp_path: Path) -> None:
    """An axis named after a simulate option (latency-ms) sets that option, not a Hadoop key."""
    spec = parse_spec({"traces": [{"location": "/x.json"}], "axes": {"latency-ms": [0, 1.5]}})
    assert [arg(s.args, "--latency-ms") for s in spec.scenarios] == [["0.0"], ["1.5"]]
    assert all(not arg(s.args, "--conf") for s in spec.scenarios)


def test_explicit_scenario_list_is_one_axis(tmp_path: Path) -> None:
    """[[scenarios]] entries are the points themselves (an axis named scenario), crossed with seeds only."""
    spec = parse_spec(
        {
            "traces": [{"location": "/x.json"}],
            "seeds": [3],
            "scenarios": [
                {"label": "baseline"},
                {"label": "eager", "conf": {MONITOR: True}, "until-ms": 5000},
            ],
        }
    )
    assert [dict(s.params)["scenario"] for s in spec.scenarios] == ["baseline", "eager"]
    assert arg(spec.scenarios[0].args, "--conf") == []
    assert arg(spec.scenarios[1].args, "--conf") == [f"{MONITOR}=true"]
    assert arg(spec.scenarios[1].args, "--until-ms") == ["5000"]


def test_names_are_stable_readable_and_safe() -> None:
    """The directory name is a function of the parameters alone, with unsafe characters replaced."""
    params = (("trace", "my trace"), ("conf", "a/b"), ("seed", "1"))
    assert scenario_name(params) == scenario_name(tuple(params))
    name = scenario_name(params)
    assert "/" not in name and " " not in name
    assert name.startswith("trace-my_trace__")
    assert scenario_name((("trace", "t"), ("seed", "2"))) != scenario_name((("trace", "t"), ("seed", "1")))


def test_names_do_not_depend_on_paths(tmp_path: Path) -> None:
    """Moving the spec moves the paths in the arguments but keeps the scenario names."""
    a = load_spec(write(tmp_path, SPEC))
    (tmp_path / "elsewhere").mkdir()
    b = load_spec(write(tmp_path / "elsewhere", SPEC))
    assert [s.name for s in a.scenarios] == [s.name for s in b.scenarios]
    assert a.scenarios[0].args != b.scenarios[0].args


@pytest.mark.parametrize(
    ("text", "field"),
    [
        ("seeds = [1]\n", "traces"),  # no trace
        ('seeds = ["one"]\n[[traces]]\nlocation = "a"\n', "seeds[0]"),
        ('[[traces]]\nlocation = "a"\nkind = "SLS"\n', "traces[0].kind"),
        ('[[traces]]\nlocation = "a"\ntype = "CSV"\n', "traces[0].type"),
        ('[[traces]]\nlocation = "a"\n[fixed]\nuntil-ms = "soon"\n', "fixed.until-ms"),
        ('[[traces]]\nlocation = "a"\n[fixed]\nbackend = "ray"\n', "fixed.backend"),
        ('[[traces]]\nlocation = "a"\n[[axes.p]]\nconf = {}\n', "axes.p[0].label"),
        ('[[traces]]\nlocation = "a"\n[axes]\np = []\n', "axes.p"),
        ('[[traces]]\nlocation = "a"\n[axes]\n"until-ms" = ["x"]\n', "axes.until-ms[0]"),
        ('[[traces]]\nlocation = "a"\n[axes]\nseed = [1, 2]\n', "axes.seed"),
        ("seeds = [1, 1]\n[[traces]]\nlocation = 'a'\n", "seeds"),
        ('[[traces]]\nlocation = "a"\n[axes]\nk = ["a b", "a/b"]\n', "axes.k"),  # same directory name
        ('[[traces]]\nlocation = "a"\n[fixed]\nlabel = "x"\n', "fixed.label"),
    ],
)
def test_bad_spec_names_the_file_and_the_field(tmp_path: Path, text: str, field: str) -> None:
    """Each bad spec is refused before anything runs, with the file and the field in the message."""
    path = write(tmp_path, text)
    with pytest.raises(ConfigurationError) as info:
        load_spec(path)
    assert str(path) in str(info.value)
    assert f"field {field}" in str(info.value)


def test_two_axes_setting_one_key_is_refused(tmp_path: Path) -> None:
    """Two axes that set the same Hadoop key would hide one another: refused, naming both axes."""
    spec = {
        "traces": [{"location": "/x.json"}],
        "axes": {MONITOR: [True, False], "other": [{"label": "x", "conf": {MONITOR: True}}]},
    }
    with pytest.raises(ConfigurationError, match=rf"field axes.other: sets {MONITOR}, which axis '{MONITOR}'"):
        parse_spec(spec)


def test_invalid_toml_names_the_file(tmp_path: Path) -> None:
    """A spec that is not TOML is refused with the file name and the parser's line."""
    path = write(tmp_path, "seeds = [1]\nmax-failures = \n")
    with pytest.raises(ConfigurationError, match=rf"{path}: not a valid TOML sweep spec .*line"):
        load_spec(path)


def test_cli_exits_2_on_a_bad_spec_before_running(tmp_path: Path) -> None:
    """`yarnball sweep` with a bad spec prints one error line naming file and field, exits 2, writes nothing."""
    path = write(tmp_path, '[[traces]]\nlocation = "a"\n[fixed]\nuntil-ms = -1\n')
    err = io.StringIO()
    with redirect_stderr(err):
        rc = sweep_pkg.main([str(path), "--output-dir", str(tmp_path / "out"), "--workers", "0"])
    assert rc == 2
    assert err.getvalue().startswith(f"yarnball sweep: error: {path}: field fixed.until-ms:")
    assert not (tmp_path / "out").exists()


def test_example_spec_is_the_documented_grid() -> None:
    """examples/sweeps: preemption off/on x two layouts x 3 seeds on the two-queue trace, every path present."""
    examples = Path(__file__).resolve().parents[1] / "examples"
    spec = load_spec(examples / "sweeps" / "preemption-queues.toml")
    assert spec.axes == ("trace", "preemption", "layout", "seed")
    assert len(spec.scenarios) == 12
    for s in spec.scenarios:
        for option in ("--tracelocation", "--nodes", "--conf-dir"):
            (path,) = arg(s.args, option)
            assert Path(path).exists(), path
    assert {Path(arg(s.args, "--tracelocation")[0]).resolve() for s in spec.scenarios} == {
        (examples / "sweeps" / "two-queue-sls.json").resolve()
    }


def test_documented_spec_parses() -> None:
    """The TOML spec shown in the SLS user's guide's Sweeps section is a valid spec."""
    readme = (Path(__file__).resolve().parents[1] / "docs" / "guides" / "sls-user.md").read_text(encoding="utf-8")
    section = readme[readme.index("## Sweeps") :]
    block = section[section.index("```toml\n") + len("```toml\n") :]
    spec = parse_spec(tomllib.loads(block[: block.index("```")]), source="sls-user.md")
    assert spec.axes == ("trace", "preemption", "yarn.scheduler.capacity.node-locality-delay", "seed")
    assert len(spec.scenarios) == 2 * 2 * 3
