"""The root of every yarnball message: one tagged union of frozen msgspec Structs.

Each protocol module (``_resourcetracker``, ``_amprotocol``, ``_containermanagement``, ``_clientprotocol``,
``_schedulerevents``) subclasses :class:`Message` once per YARN request, response or event, with ``tag=`` the YARN
class name. On the wire every message is a MessagePack map whose ``"type"`` key carries that tag, so the codec can
decode any frame into the right class without knowing in advance what it holds.

The registry (``MESSAGE_TYPES``, ``message_type``) lives in ``yarnball.protocols._codec``, which imports every
protocol module; this module only defines the base, so protocol modules never need to import the codec.
"""

from __future__ import annotations

import msgspec

__all__ = ["Message"]


# gc=False (inherited by every message class): messages are frozen and their fields hold only immutable values
# (ints, strs, enums, records, tuples of those; see yarnball.protocols._records.Record), so a message can never be
# part of a reference cycle and the cyclic garbage collector need not track it. This changes nothing on the wire.
class Message(msgspec.Struct, frozen=True, kw_only=True, tag_field="type", gc=False):
    """Base of every message an actor sends: frozen (safe to share in-process), keyword-only, tagged.

    Subclasses set ``tag="<YARN class name>"`` explicitly so that renaming a Python class can never silently change
    the wire format. Sequence fields are tuples (frozen and cheap), and every field that YARN treats as optional has
    a default, so tests and actors can build messages tersely.
    """

    @classmethod
    def type_tag(cls) -> str:
        """The wire tag of this message class (the YARN class name)."""
        tag = cls.__struct_config__.tag
        assert isinstance(tag, str)
        return tag
