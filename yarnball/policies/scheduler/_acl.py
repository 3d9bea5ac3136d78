"""Queue states, queue ACL kinds and Hadoop's ``AccessControlList``."""

from __future__ import annotations

import enum
from collections.abc import Iterable, Sequence

__all__ = ["WILDCARD_ACL_VALUE", "AccessControlList", "QueueACL", "QueueState"]

#: Hadoop's ``AccessControlList.WILDCARD_ACL_VALUE``.
WILDCARD_ACL_VALUE = "*"


class QueueState(enum.StrEnum):
    """``org.apache.hadoop.yarn.api.records.QueueState``."""

    RUNNING = "RUNNING"
    STOPPED = "STOPPED"
    DRAINING = "DRAINING"


class QueueACL(enum.StrEnum):
    """``org.apache.hadoop.yarn.api.records.QueueACL``; the configuration key suffix is ``acl_<name lowercased>``."""

    SUBMIT_APPLICATIONS = "SUBMIT_APPLICATIONS"
    ADMINISTER_QUEUE = "ADMINISTER_QUEUE"

    @property
    def key_suffix(self) -> str:
        """``acl_submit_applications`` or ``acl_administer_queue`` (CapacitySchedulerConfiguration.getAclKey)."""
        return "acl_" + self.value.lower()


def _trimmed_collection(part: str) -> list[str]:
    # StringUtils.getTrimmedStringCollection: split on commas, trim, drop empties, keep first-seen order.
    seen: dict[str, None] = {}
    for item in part.split(","):
        item = item.strip()
        if item:
            seen.setdefault(item, None)
    return list(seen)


class AccessControlList:
    """Hadoop's ``org.apache.hadoop.security.authorize.AccessControlList``.

    The format is ``"user1,user2 group1,group2"``: users, one space, groups. ``"*"`` allows everyone; ``" "``
    (Hadoop's NONE_ACL) or ``""`` allows nobody. ``str()`` gives back the ACL string in Hadoop's
    ``getAclString()`` form.
    """

    __slots__ = ("_all_allowed", "_groups", "_users")

    def __init__(self, acl_string: str = " ") -> None:
        # Java's aclString.split(" ", 2): only the first space separates users from groups.
        parts = acl_string.split(" ", 1)
        self._all_allowed = any(WILDCARD_ACL_VALUE in part and part.strip() == WILDCARD_ACL_VALUE for part in parts)
        self._users: list[str] = []
        self._groups: list[str] = []
        if not self._all_allowed:
            self._users = _trimmed_collection(parts[0])
            if len(parts) == 2:
                self._groups = _trimmed_collection(parts[1])

    @classmethod
    def everyone(cls) -> AccessControlList:
        """The ACL that allows every user (``"*"``)."""
        return cls(WILDCARD_ACL_VALUE)

    @classmethod
    def nobody(cls) -> AccessControlList:
        """The ACL that allows no user (``" "``)."""
        return cls(" ")

    @property
    def all_allowed(self) -> bool:
        """True for the wildcard ACL."""
        return self._all_allowed

    @property
    def users(self) -> tuple[str, ...]:
        return tuple(self._users)

    @property
    def groups(self) -> tuple[str, ...]:
        return tuple(self._groups)

    def is_user_allowed(self, user: str, groups: Sequence[str] | Iterable[str] = ()) -> bool:
        """``isUserAllowed``: the wildcard, the user by (short) name, or any of the user's groups."""
        if self._all_allowed or user in self._users:
            return True
        return any(group in self._groups for group in groups)

    def __str__(self) -> str:
        if self._all_allowed:
            return WILDCARD_ACL_VALUE
        return ",".join(self._users) + " " + ",".join(self._groups)

    def __repr__(self) -> str:
        return f"AccessControlList({str(self)!r})"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, AccessControlList):
            return NotImplemented
        return (self._all_allowed, self._users, self._groups) == (
            other._all_allowed,
            other._users,
            other._groups,
        )

    def __hash__(self) -> int:
        return hash((self._all_allowed, tuple(self._users), tuple(self._groups)))
