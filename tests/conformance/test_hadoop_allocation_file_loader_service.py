"""TestAllocationFileLoaderService ported from Hadoop (trunk): the allocation file read into an
AllocationConfiguration.

Hadoop's ``reloadAllocations`` hands the new configuration to a listener and installs the placement rules in the
scheduler's PlacementManager; here :func:`reload_allocations` returns the configuration, which holds the rules. The
files are written with the AllocationFileWriter port (tests/fair_allocationfile.py). The HDFS and classpath tests
(testGetAllocationFileFromFileSystem, testGetAllocationFileFromClasspath) are ported over local files and the
configuration directory, yarnball's classpath.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from fair_allocationfile import (
    AllocationFileQueue,
    AllocationFileQueuePlacementPolicy,
    AllocationFileQueuePlacementRule,
    AllocationFileWriter,
)

from yarnball.errors import AllocationConfigurationException, ConfigurationError
from yarnball.policies.capacity import AccessControlList, QueueACL
from yarnball.policies.fair import (
    AllocationConfiguration,
    DefaultPlacementRule,
    FSQueueType,
    PrimaryGroupPlacementRule,
    SpecifiedPlacementRule,
    UserPlacementRule,
    get_allocation_file,
    reload_allocations,
    reload_due,
)
from yarnball.protocols import Configuration, Resource

LONG_MAX, INT_MAX = 2**63 - 1, 2**31 - 1
UNBOUNDED = Resource(LONG_MAX, INT_MAX)
LEAF, PARENT = FSQueueType.LEAF, FSQueueType.PARENT


def load(path: Path, **conf: object) -> AllocationConfiguration:
    return reload_allocations(Configuration({"yarn.scheduler.fair.allocation.file": str(path), **conf}))


def refused(path: Path, message: str) -> None:
    with pytest.raises(AllocationConfigurationException, match=re.escape(message)) as err:
        load(path)
    assert str(path) in str(err.value)


def test_testGetAllocationFileFromFileSystem(tmp_path: Path) -> None:
    """An absolute path, and a file: URI, name the file itself."""
    path = AllocationFileWriter().write_to_file(tmp_path / "test-fair-scheduler.xml")
    for name in (str(path), f"file://{path}", f"file:{path}"):
        assert get_allocation_file(Configuration({"yarn.scheduler.fair.allocation.file": name})) == path


def test_testDenyGetAllocationFileFromUnsupportedFileSystem() -> None:
    conf = Configuration({"yarn.scheduler.fair.allocation.file": "badfs:///badfile"})
    with pytest.raises(ConfigurationError, match="Allocation file badfs:///badfile uses an unsupported filesystem"):
        get_allocation_file(conf)


def test_testGetAllocationFileFromClasspath(tmp_path: Path) -> None:
    """A relative name is looked up on the classpath: the configuration directory."""
    AllocationFileWriter().write_to_file(tmp_path / "test-fair-scheduler.xml")
    conf = Configuration({"yarn.scheduler.fair.allocation.file": "test-fair-scheduler.xml"})
    allocation_file = get_allocation_file(conf, tmp_path)
    assert allocation_file is not None and allocation_file.name == "test-fair-scheduler.xml"
    assert allocation_file.exists()


def test_testReload(tmp_path: Path) -> None:
    """A changed file read again gives a new configuration with the new queues and rules (the reload thread's
    timing is reload_due)."""
    path = tmp_path / "test-queues"
    AllocationFileWriter().add_queue(AllocationFileQueue("queueA", max_running_apps=1)).add_queue(
        AllocationFileQueue("queueB")
    ).queue_placement_policy(
        AllocationFileQueuePlacementPolicy().add_rule(AllocationFileQueuePlacementRule("default"))
    ).write_to_file(path)
    conf = load(path)
    rules = conf.placement_policy.rules
    assert len(rules) == 1 and type(rules[0]) is DefaultPlacementRule
    assert conf.get_queue_max_apps("root.queueA") == 1
    assert len(conf.get_configured_queues(LEAF)) == 2
    assert "root.queueA" in conf.get_configured_queues(LEAF) and "root.queueB" in conf.get_configured_queues(LEAF)

    AllocationFileWriter().add_queue(AllocationFileQueue("queueB", max_running_apps=3)).queue_placement_policy(
        AllocationFileQueuePlacementPolicy()
        .add_rule(AllocationFileQueuePlacementRule("specified"))
        .add_rule(
            AllocationFileQueuePlacementRule("nestedUserQueue").add_nested_rule(
                AllocationFileQueuePlacementRule("primaryGroup")
            )
        )
    ).write_to_file(path)
    assert reload_due(now_ms=10_000 + 5_001, modified_ms=10_000, last_successful_reload_ms=0)
    reloaded = load(path)
    assert reloaded is not conf
    rules = reloaded.placement_policy.rules
    assert len(rules) == 2
    assert type(rules[0]) is SpecifiedPlacementRule and type(rules[1]) is UserPlacementRule
    assert type(rules[1].parent) is PrimaryGroupPlacementRule
    assert reloaded.get_queue_max_apps("root.queueB") == 3
    assert reloaded.get_configured_queues(LEAF) == ("root.queueB",)
    assert conf.get_queue_max_apps("root.queueA") == 1  # the old configuration is untouched


def test_reload_waits_for_the_file_to_settle() -> None:
    """The reload thread reads a file modified after the last load once it has been still for 5 s."""
    assert not reload_due(now_ms=15_000, modified_ms=10_000, last_successful_reload_ms=0)
    assert not reload_due(now_ms=60_000, modified_ms=10_000, last_successful_reload_ms=20_000)


def test_testAllocationFileParsing(tmp_path: Path) -> None:
    path = tmp_path / "test-queues"
    types = "a-custom-resource"
    AllocationFileWriter().add_queue(
        AllocationFileQueue("queueA", min_resources="1024mb,0vcores", max_resources="2048mb,10vcores")
    ).add_queue(
        AllocationFileQueue(
            "queueB",
            min_resources="2048mb,0vcores",
            max_resources="5120mb,110vcores",
            acl_administer_apps="alice,bob admins",
            scheduling_policy="fair",
        )
    ).add_queue(
        AllocationFileQueue("queueC", min_resources="5120mb,0vcores", acl_submit_apps="alice,bob admins")
    ).add_queue(AllocationFileQueue("queueD", max_running_apps=3, max_am_share=0.4)).add_queue(
        AllocationFileQueue("queueE", min_share_preemption_timeout=60)
    ).add_queue(AllocationFileQueue("queueF", parent=True, max_child_resources="2048mb,64vcores")).add_queue(
        AllocationFileQueue(
            "queueG",
            max_child_resources="2048mb,64vcores",
            fair_share_preemption_timeout=120,
            min_share_preemption_timeout=50,
            fair_share_preemption_threshold=0.6,
            max_container_allocation=f"vcores=16, memory-mb=512, {types}=10",
            sub_queues=(
                AllocationFileQueue(
                    "queueH",
                    fair_share_preemption_timeout=180,
                    min_share_preemption_timeout=40,
                    fair_share_preemption_threshold=0.7,
                    max_container_allocation="1024mb,8vcores",
                ),
            ),
        )
    ).set("queueMaxAppsDefault", 15).set("queueMaxResourcesDefault", "4096mb,100vcores").set(
        "userMaxAppsDefault", 5
    ).set("queueMaxAMShareDefault", 0.5).set("defaultMinSharePreemptionTimeout", 120).set(
        "defaultFairSharePreemptionTimeout", 300
    ).set("defaultFairSharePreemptionThreshold", 0.4).set("defaultQueueSchedulingPolicy", "drf").user_settings(
        "user1", 10
    ).write_to_file(path)
    conf = load(path, **{"yarn.resource-types": types})

    def custom(memory: int, vcores: int, value: int) -> Resource:
        return Resource(memory, vcores, ((types, value),))

    assert len(conf.get_configured_queues(LEAF)) == 6
    assert conf.get_min_resources("root.default") == custom(0, 0, 0)
    assert conf.get_max_resources("root.queueA").get_resource() == custom(2048, 10, 0)
    assert conf.get_max_resources("root.queueB").get_resource() == custom(5120, 110, 0)
    for queue in ("queueC", "queueD", "queueE", "queueF", "queueG", "queueG.queueH"):
        assert conf.get_max_resources("root." + queue).get_resource() == custom(4096, 100, 0)
    expected_min = {"queueA": 1024, "queueB": 2048, "queueC": 5120, "queueD": 0, "queueE": 0, "queueF": 0}
    for queue, memory in {**expected_min, "queueG": 0, "queueG.queueH": 0}.items():
        assert conf.get_min_resources("root." + queue) == custom(memory, 0, 0)
    for queue in ("queueA", "queueB", "queueC", "queueD", "queueE", "queueG.queueH"):
        assert conf.get_max_child_resources("root." + queue) is None
    for queue in ("queueF", "queueG"):
        child = conf.get_max_child_resources("root." + queue)
        assert child is not None and child.get_resource() == custom(2048, 64, 0)
    for queue in ("default", "queueA", "queueB", "queueC", "queueE"):
        assert conf.get_queue_max_apps("root." + queue) == 15
    assert conf.get_queue_max_apps("root.queueD") == 3
    assert conf.get_user_max_apps("user1") == 10
    assert conf.get_user_max_apps("user2") == 5
    for queue in ("default", "queueA", "queueB", "queueC", "queueE"):
        assert conf.get_queue_max_am_share("root." + queue) == pytest.approx(0.5, abs=0.01)
    assert conf.get_queue_max_am_share("root.queueD") == pytest.approx(0.4, abs=0.01)
    unbounded = Resource(LONG_MAX, INT_MAX, ((types, LONG_MAX),))
    for queue in ("default", "queueA", "queueB", "queueC", "queueD", "queueE", "queueF"):
        assert conf.get_queue_max_container_allocation("root." + queue) == unbounded
    assert conf.get_queue_max_container_allocation("root.queueG") == custom(512, 16, 10)
    assert conf.get_queue_max_container_allocation("root.queueG.queueH") == custom(1024, 8, 0)
    assert conf.get_min_share_preemption_timeout("root") == 120000
    for queue in ("default", "queueA", "queueB", "queueC", "queueD", "queueF"):
        assert conf.get_min_share_preemption_timeout("root." + queue) == -1
    assert conf.get_min_share_preemption_timeout("root.queueE") == 60000
    assert conf.get_min_share_preemption_timeout("root.queueG") == 50000
    assert conf.get_min_share_preemption_timeout("root.queueG.queueH") == 40000
    assert conf.get_fair_share_preemption_timeout("root") == 300000
    for queue in ("default", "queueA", "queueB", "queueC", "queueD", "queueE", "queueF"):
        assert conf.get_fair_share_preemption_timeout("root." + queue) == -1
    assert conf.get_fair_share_preemption_timeout("root.queueG") == 120000
    assert conf.get_fair_share_preemption_timeout("root.queueG.queueH") == 180000
    assert conf.get_fair_share_preemption_threshold("root") == pytest.approx(0.4, abs=0.01)
    for queue in ("default", "queueA", "queueB", "queueC", "queueD", "queueE", "queueF"):
        assert conf.get_fair_share_preemption_threshold("root." + queue) == pytest.approx(-1, abs=0.01)
    assert conf.get_fair_share_preemption_threshold("root.queueG") == pytest.approx(0.6, abs=0.01)
    assert conf.get_fair_share_preemption_threshold("root.queueG.queueH") == pytest.approx(0.7, abs=0.01)
    assert "root.queueF" in conf.get_configured_queues(PARENT)
    assert "root.queueG" in conf.get_configured_queues(PARENT)
    assert "root.queueG.queueH" in conf.get_configured_queues(LEAF)
    assert conf.get_scheduling_policy("root").name == "DRF"
    assert conf.get_scheduling_policy("root.queueA").name == "DRF"
    assert conf.get_scheduling_policy("root.queueB").name == "fair"
    assert conf.get_scheduling_policy("root.newqueue").name == "DRF"
    # The ACLs the test writes (its assertions on them are in TestFairSchedulerQueueACLs): set, or Hadoop's default.
    acls = conf.get_queue_acls()
    assert acls["root.queueB"][QueueACL.ADMINISTER_QUEUE] == AccessControlList("alice,bob admins")
    assert acls["root.queueB"][QueueACL.SUBMIT_APPLICATIONS] == AccessControlList.nobody()


def test_testBackwardsCompatibleAllocationFileParsing(tmp_path: Path) -> None:
    path = tmp_path / "test-queues"
    AllocationFileWriter().use_legacy_tag_name_for_queues().add_queue(
        AllocationFileQueue("queueA", min_resources="1024mb,0vcores")
    ).add_queue(
        AllocationFileQueue("queueB", min_resources="2048mb,0vcores", acl_administer_apps="alice,bob admins")
    ).add_queue(AllocationFileQueue("queueC", acl_administer_apps="alice,bob admins")).add_queue(
        AllocationFileQueue("queueD", max_running_apps=3)
    ).add_queue(
        AllocationFileQueue("queueE", min_share_preemption_timeout=60, fair_share_preemption_threshold=0.3)
    ).set("queueMaxAppsDefault", 15).set("userMaxAppsDefault", 5).set(
        "queueMaxResourcesDefault", "4096mb,100vcores"
    ).set("queueMaxAMShareDefault", 0.5).set("defaultMinSharePreemptionTimeout", 120).set(
        "defaultFairSharePreemptionTimeout", 300
    ).set("defaultFairSharePreemptionThreshold", 0.6).set("defaultQueueSchedulingPolicy", "drf").user_settings(
        "user1", 10
    ).write_to_file(path)
    assert "<pool " in path.read_text()
    conf = load(path)
    assert len(conf.get_configured_queues(LEAF)) == 5
    assert conf.get_min_resources("root.default") == Resource(0, 0)
    for queue, memory in {"queueA": 1024, "queueB": 2048, "queueC": 0, "queueD": 0, "queueE": 0}.items():
        assert conf.get_min_resources("root." + queue) == Resource(memory, 0)
    for queue in ("default", "queueA", "queueB", "queueC", "queueE"):
        assert conf.get_queue_max_apps("root." + queue) == 15
    assert conf.get_queue_max_apps("root.queueD") == 3
    assert (conf.get_user_max_apps("user1"), conf.get_user_max_apps("user2")) == (10, 5)
    assert conf.get_min_share_preemption_timeout("root") == 120000
    for queue in ("default", "queueA", "queueB", "queueC", "queueD"):
        assert conf.get_min_share_preemption_timeout("root." + queue) == -1
    assert conf.get_min_share_preemption_timeout("root.queueE") == 60000
    assert conf.get_fair_share_preemption_timeout("root") == 300000
    for queue in ("default", "queueA", "queueB", "queueC", "queueD", "queueE"):
        assert conf.get_fair_share_preemption_timeout("root." + queue) == -1
    assert conf.get_fair_share_preemption_threshold("root") == pytest.approx(0.6, abs=0.01)
    for queue in ("default", "queueA", "queueB", "queueC", "queueD"):
        assert conf.get_fair_share_preemption_threshold("root." + queue) == pytest.approx(-1, abs=0.01)
    assert conf.get_fair_share_preemption_threshold("root.queueE") == pytest.approx(0.3, abs=0.01)


def test_testSimplePlacementPolicyFromConf(tmp_path: Path) -> None:
    path = AllocationFileWriter().write_to_file(tmp_path / "test-queues")
    conf = load(
        path,
        **{"yarn.scheduler.fair.allow-undeclared-pools": "false", "yarn.scheduler.fair.user-as-default-queue": "false"},
    )
    rules = conf.placement_policy.rules
    assert len(rules) == 2
    assert type(rules[0]) is SpecifiedPlacementRule and rules[0].create is False
    assert type(rules[1]) is DefaultPlacementRule


def test_testQueueAlongsideRoot(tmp_path: Path) -> None:
    path = AllocationFileWriter().add_queue(AllocationFileQueue("root")).add_queue(AllocationFileQueue("other"))
    refused(
        path.write_to_file(tmp_path / "test-queues"),
        "If configuring root queue, no other queues can be placed alongside it.",
    )


def test_testQueueNameContainingPeriods(tmp_path: Path) -> None:
    path = AllocationFileWriter().add_queue(AllocationFileQueue("parent1.child")).write_to_file(tmp_path / "q")
    refused(path, "Bad fair scheduler config file: queue name (parent1.child) shouldn't contain period.")


@pytest.mark.parametrize("name", ["      ", "\u00a0"])
def test_testQueueNameContainingOnlyWhitespace(tmp_path: Path, name: str) -> None:
    """testQueueNameContainingOnlyWhitespace and testQueueNameContainingNBWhitespace."""
    path = AllocationFileWriter().add_queue(AllocationFileQueue(name)).write_to_file(tmp_path / "q")
    refused(path, "Bad fair scheduler config file: queue name shouldn't be empty or consist only of whitespace.")


def _parent_refusal(element: str) -> str:
    return (
        "The configuration settings for root.parent are invalid. A queue element that contains child queue elements"
        f" or that has the type='parent' attribute cannot also include a {element} element."
    )


def test_testParentTagWithReservation(tmp_path: Path) -> None:
    path = AllocationFileWriter().add_queue(AllocationFileQueue("parent", parent=True, reservation=True))
    refused(path.write_to_file(tmp_path / "q"), _parent_refusal("reservation"))


def test_testParentWithReservation(tmp_path: Path) -> None:
    queue = AllocationFileQueue("parent", parent=True, reservation=True, sub_queues=(AllocationFileQueue("child"),))
    refused(AllocationFileWriter().add_queue(queue).write_to_file(tmp_path / "q"), _parent_refusal("reservation"))


def test_testParentTagWithMaxAMShare(tmp_path: Path) -> None:
    queue = AllocationFileQueue("parent", parent=True, max_am_share=0.75)
    refused(AllocationFileWriter().add_queue(queue).write_to_file(tmp_path / "q"), _parent_refusal("maxAMShare"))


def test_testParentWithMaxAMShare(tmp_path: Path) -> None:
    queue = AllocationFileQueue("parent", max_am_share=0.76, sub_queues=(AllocationFileQueue("child"),))
    refused(AllocationFileWriter().add_queue(queue).write_to_file(tmp_path / "q"), _parent_refusal("maxAMShare"))


def test_testParentTagWithChild(tmp_path: Path) -> None:
    queue = AllocationFileQueue("parent", parent=True, sub_queues=(AllocationFileQueue("child"),))
    conf = load(AllocationFileWriter().add_queue(queue).write_to_file(tmp_path / "q"))
    assert "root.parent" in conf.get_configured_queues(PARENT)
    assert "root.parent.child" in conf.get_configured_queues(LEAF)


def test_testDefaultQueueSchedulingModeIsFIFO(tmp_path: Path) -> None:
    path = AllocationFileWriter().set("defaultQueueSchedulingPolicy", "fifo").write_to_file(tmp_path / "q")
    refused(
        path,
        "Bad fair scheduler config file: defaultQueueSchedulingPolicy or defaultQueueSchedulingMode can't be FIFO.",
    )


def test_testReservableQueue(tmp_path: Path) -> None:
    path = (
        AllocationFileWriter()
        .add_queue(AllocationFileQueue("reservable", reservation=True))
        .add_queue(AllocationFileQueue("other"))
        .set("reservation-agent", "DummyAgentName")
        .set("reservation-policy", "AnyAdmissionPolicy")
        .write_to_file(tmp_path / "q")
    )
    conf = load(path)
    assert not conf.is_reservable("root.other")
    assert conf.is_reservable("root.reservable")
    assert "root.reservable" in conf.get_configured_queues(PARENT)
    assert "root.reservable" not in conf.get_configured_queues(LEAF)
    reservations = conf.reservation_config
    assert reservations.move_on_expiry
    assert reservations.reservation_window == 86400000  # ReservationSchedulerConfiguration.DEFAULT_RESERVATION_WINDOW
    assert reservations.max_over_time_multiplier * 100 == pytest.approx(100, abs=0.0001)
    assert reservations.reservation_agent == "DummyAgentName"
    assert reservations.avg_over_time_multiplier * 100 == pytest.approx(100, abs=0.001)
    assert not reservations.show_reservation_as_queues
    assert reservations.reservation_admission_policy == "AnyAdmissionPolicy"
    assert reservations.planner == "org.apache.hadoop.yarn.server.resourcemanager.reservation.planning." \
        "SimpleCapacityReplanner"  # fmt: skip
    assert reservations.enforcement_window == 3600000


def test_testReservableCannotBeCombinedWithDynamicUserQueue(tmp_path: Path) -> None:
    path = AllocationFileWriter().add_queue(AllocationFileQueue("notboth", parent=True, reservation=True))
    with pytest.raises(AllocationConfigurationException):
        load(path.write_to_file(tmp_path / "q"))
