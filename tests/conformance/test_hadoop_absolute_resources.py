"""Absolute-resource capacity vectors, parsed as CapacitySchedulerConfiguration does (Hadoop 3.1+).

Only the parsing step of issue 19 item 7 is done; TestAbsoluteResourceConfiguration's scheduler tests are not
ported yet. The configured values below are those TestAbsoluteResourceConfiguration sets (QUEUE_A_MINRES etc.).
"""

from __future__ import annotations

import pytest

from yarnball.errors import ConfigurationError
from yarnball.policies.capacity._absolute import parse_resource_vector

KEY = "yarn.scheduler.capacity.root.qA.capacity"


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        # TestAbsoluteResourceConfiguration: QUEUE_A_MINRES = Resource.newInstance(100 * GB, 10), written by
        # setMinimumResourceRequirement as "[memory=102400,vcores=10]".
        ("[memory=102400,vcores=10]", (102400, 10)),
        ("[memory=204800,vcores=30]", (204800, 30)),
        ("[memory=4Gi,vcores=2]", (4096, 2)),
        ("[memory=2048Ki,vcores=1]", (2, 1)),
        ("[vcores=2,memory=1024]", (1024, 2)),
        # Memory has to be configured always: otherwise Resources.none().
        ("[vcores=10]", None),
        ("[memory=0,vcores=10]", None),
        ("[]", None),
        # Keys are compared untrimmed, so " vcores" is skipped; unknown types are skipped.
        ("[memory=1024, vcores=2]", (1024, 0)),
        ("[memory=1024,gpu=2]", (1024, 0)),
        # Not a bracketed vector (a percentage).
        ("50", None),
    ],
)
def test_parse_resource_vector(value: str, expected: tuple[int, int] | None) -> None:
    assert parse_resource_vector(KEY, value) == expected


@pytest.mark.parametrize("value", ["[memory=4GB,vcores=2]", "[memory=abc]"])
def test_bad_values_name_the_key(value: str) -> None:
    with pytest.raises(ConfigurationError, match=r"root\.qA\.capacity"):
        parse_resource_vector(KEY, value)
