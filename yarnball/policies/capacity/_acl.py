"""Queue states, queue ACL kinds and ``AccessControlList``: scheduler-neutral, in policies/scheduler/_acl.py."""

from __future__ import annotations

from yarnball.policies.scheduler._acl import WILDCARD_ACL_VALUE, AccessControlList, QueueACL, QueueState

__all__ = ["WILDCARD_ACL_VALUE", "AccessControlList", "QueueACL", "QueueState"]
