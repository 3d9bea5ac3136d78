"""The what-if tool: plan_preemption, load_snapshot and the `yarnball preempt` entry point."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from yarnball.errors import ConfigurationError
from yarnball.launcher.whatif import load_snapshot, main, plan_preemption

P = "yarn.resourcemanager.monitor.capacity.preemption."


def res(mb: int, vc: int | None = None) -> dict[str, int]:
    return {"memory_mb": mb, "vcores": mb if vc is None else vc}


def queue(path: str, cap: float, used: int, pending: int = 0, **extra) -> dict:
    return {
        "path": path,
        "absolute_capacity": cap,
        "absolute_maximum_capacity": 1.0,
        "used": res(used),
        "pending": res(pending),
        "reserved": res(0),
        **extra,
    }


def snapshot() -> dict:
    """E1 (testPreemptCycle) in JSON: C (guaranteed 20) holds 40 while A waits for 10."""
    containers = [
        {"id": f"c{i}", "resource": res(1), "priority": 1, "start_order": i, "am": False, "reserved": False,
         "node": "n1"}
        for i in range(40)
    ]  # fmt: skip
    return {
        "cluster": res(100),
        "config": {P + "total_preemption_per_round": 1.0, P + "natural_termination_factor": 1.0},
        "queues": [
            queue("root", 1.0, 100, 10),
            queue("root.a", 0.4, 0, 10),
            queue("root.b", 0.4, 60),
            queue("root.c", 0.2, 40),
        ],
        "applications": [
            {
                "id": "app_c",
                "queue": "root.c",
                "user": "u",
                "priority": 0,
                "submission_order": 0,
                "pending": res(0),
                "containers": containers,
            },
        ],
    }


def test_plan_preempts_newest_containers():
    """The plan lists C's 10 newest containers with their application, queue and resource."""
    plan = plan_preemption(snapshot())
    assert [p["container"] for p in plan["preempt"]] == [f"c{i}" for i in range(39, 29, -1)]
    assert plan["preempt"][0] == {"container": "c39", "application": "app_c", "queue": "root.c", "resource": res(1)}


def test_plan_reports_queue_ideals():
    """Each queue has its ideal assignment and what it must give back."""
    queues = {q["path"]: q for q in plan_preemption(snapshot())["queues"]}
    assert [queues[p]["ideal_assigned"]["memory_mb"] for p in ("root.a", "root.b", "root.c")] == [10, 60, 30]
    assert queues["root.c"]["to_preempt"]["memory_mb"] == 10
    assert queues["root.b"]["to_preempt"]["memory_mb"] == 0


def test_plan_uses_hadoop_defaults_without_config():
    """Without config the Hadoop defaults apply: NTF 0.2 turns the 10 into 2 containers."""
    snap = snapshot()
    del snap["config"]
    assert len(plan_preemption(snap)["preempt"]) == 2


def test_bad_type_names_json_path():
    """A wrong type is reported with its JSON path."""
    snap = snapshot()
    snap["queues"][2]["used"]["memory_mb"] = "x"
    with pytest.raises(ConfigurationError, match=r"^\$\.queues\[2\]\.used\.memory_mb: expected int, got str$"):
        plan_preemption(snap)


def test_missing_field_names_json_path():
    """A missing required field is reported with its JSON path."""
    snap = snapshot()
    del snap["queues"][1]["used"]
    with pytest.raises(ConfigurationError, match=r"^\$\.queues\[1\]\.used: required field is missing$"):
        plan_preemption(snap)


def test_unknown_field_is_rejected():
    """A misspelt field is an error, not a silent zero."""
    snap = snapshot()
    snap["applications"][0]["containers"][3]["resource"] = {"memory": 1, "vcores": 1}
    with pytest.raises(ConfigurationError, match=r"\$\.applications\[0\]\.containers\[3\]\.resource\.memory"):
        plan_preemption(snap)


def test_duplicate_container_id_is_rejected():
    """Two containers with one id would let the plan name one container twice (found by the codec fuzzer: two
    containers named ""): the second one is an error naming both JSON paths."""
    snap = snapshot()
    snap["applications"][0]["containers"][7]["id"] = "c2"
    with pytest.raises(
        ConfigurationError,
        match=r"^\$\.applications\[0\]\.containers\[7\]\.id: duplicate container id 'c2' "
        r"\(first at \$\.applications\[0\]\.containers\[2\]\.id\)$",
    ):
        plan_preemption(snap)


def test_capacity_out_of_range_is_rejected():
    """Absolute capacities are fractions between 0 and 1."""
    snap = snapshot()
    snap["queues"][1]["absolute_capacity"] = 40
    with pytest.raises(ConfigurationError, match=r"\$\.queues\[1\]\.absolute_capacity: expected float <= 1"):
        plan_preemption(snap)


def test_negative_resource_is_rejected():
    """Resources cannot be negative."""
    snap = snapshot()
    snap["cluster"]["vcores"] = -1
    with pytest.raises(ConfigurationError, match=r"\$\.cluster\.vcores: expected int >= 0"):
        plan_preemption(snap)


def test_tree_error_names_json_path():
    """A queue whose parent is missing is reported at its path in the queues list."""
    snap = snapshot()
    snap["queues"][3]["path"] = "root.x.c"
    with pytest.raises(ConfigurationError, match=r"^\$\.queues\[3\]\.path: parent queue 'root.x'"):
        plan_preemption(snap)


def test_bad_config_value_names_config_key():
    """A config value Hadoop cannot parse is reported under $.config with the key."""
    snap = snapshot()
    snap["config"][P + "natural_termination_factor"] = "half"
    with pytest.raises(ConfigurationError, match=r'^\$\.config\["yarn\.resourcemanager.*natural_termination_factor"\]'):
        plan_preemption(snap)


def test_load_snapshot_names_the_file(tmp_path: Path):
    """load_snapshot's errors start with the file name."""
    f = tmp_path / "snap.json"
    f.write_text("{not json")
    with pytest.raises(ConfigurationError, match=r"snap\.json: \$: invalid JSON"):
        load_snapshot(f)


def test_load_snapshot_missing_file(tmp_path: Path):
    """A missing file is a ConfigurationError naming it."""
    with pytest.raises(ConfigurationError, match=r"nope\.json: cannot read snapshot"):
        load_snapshot(tmp_path / "nope.json")


def test_main_prints_plan_and_returns_0(tmp_path: Path, capsys):
    """`yarnball preempt SNAPSHOT.json` prints the plan as JSON and exits 0."""
    f = tmp_path / "snap.json"
    f.write_text(json.dumps(snapshot()))
    assert main([str(f)]) == 0
    plan = json.loads(capsys.readouterr().out)
    assert len(plan["preempt"]) == 10 and set(plan) == {"observe_only", "preempt", "queues"}
    assert plan["observe_only"] is False


def test_main_bad_snapshot_returns_2(tmp_path: Path, capsys):
    """A bad snapshot prints an error naming the JSON path to stderr and exits 2."""
    snap = snapshot()
    snap["queues"][2]["used"]["memory_mb"] = "x"
    f = tmp_path / "snap.json"
    f.write_text(json.dumps(snap))
    assert main([str(f)]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert "$.queues[2].used.memory_mb: expected int, got str" in captured.err


def test_main_error_with_a_control_character_in_a_key_is_one_line(tmp_path: Path, capsys):
    """A key holding a carriage return (found by the codec fuzzer) is shown escaped: the error stays one line."""
    snap = snapshot()
    snap["applications"][0]["containers"][3]["resource"] = {"mem\rory_mb": 1, "vcores": 1}
    f = tmp_path / "snap.json"
    f.write_text(json.dumps(snap))
    assert main([str(f)]) == 2
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 1
    assert lines[0].endswith("$.applications[0].containers[3].resource.mem\\rory_mb: unknown field")


def test_main_missing_file_returns_2(tmp_path: Path, capsys):
    """A missing snapshot file exits 2 with a message on stderr."""
    assert main([str(tmp_path / "missing.json")]) == 2
    assert "missing.json" in capsys.readouterr().err


def test_main_warns_about_unmodelled_settings(tmp_path: Path, capsys):
    """Switching on a selector the policy does not model is reported on stderr, the plan stays on stdout."""
    snap = snapshot()
    snap["config"][P + "intra-queue-preemption.enabled"] = True
    f = tmp_path / "snap.json"
    f.write_text(json.dumps(snap))
    assert main([str(f)]) == 0
    captured = capsys.readouterr()
    assert "intra-queue-preemption.enabled=true is not modelled" in captured.err
    json.loads(captured.out)


def test_observe_only_plans_nothing_and_says_so(tmp_path: Path, capsys):
    """With observe_only the round is computed (the queues' figures as without it) but no container is preempted,
    as ProportionalCapacityPreemptionPolicy returns before any action; the plan and stderr say observe-only."""
    acting = plan_preemption(snapshot())
    doc = snapshot()
    doc["config"][P + "observe_only"] = True
    plan = plan_preemption(doc)
    assert acting["preempt"] and not acting["observe_only"]
    assert plan["observe_only"] is True and plan["preempt"] == []
    assert plan["queues"] == acting["queues"]
    path = tmp_path / "snap.json"
    path.write_text(json.dumps(doc))
    assert main([str(path)]) == 0
    out, err = capsys.readouterr()
    assert json.loads(out)["preempt"] == []
    assert "observe-only" in err
