"""One exception hierarchy for yarnball.

Every error yarnball raises on purpose is a :class:`YarnballError`. The subclasses say which part of the input or
the system is at fault, and their messages name the file, key, line, field or message type involved so that the
user knows what to fix. Exceptions from third-party libraries (msgspec, Ray, the XML parser) are translated at the
boundary with the original kept as ``__cause__``.
"""

from __future__ import annotations

__all__ = [
    "ActorError",
    "AllocationConfigurationException",
    "CheckpointError",
    "ConfigurationError",
    "ContainerKilled",
    "ConversionException",
    "DeadLetterError",
    "InvalidQueueNameException",
    "PreconditionException",
    "ProtocolError",
    "RestRequestError",
    "SchedulerDynamicEditException",
    "SchedulingError",
    "SimulationError",
    "TimeoutError",
    "TraceFormatError",
    "UnsupportedPropertyException",
    "VerificationException",
    "YarnballError",
    "one_line",
]


def one_line(text: object) -> str:
    """``text`` with its control characters escaped, for a message that must stay one line: a value or key read from
    the input (a config value, a field name) may hold a newline or a carriage return; it is shown as it is spelt
    (``mem\\ry_mb``)."""
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in str(text))


class YarnballError(Exception):
    """Base class of every error raised by yarnball."""


class ConfigurationError(YarnballError):
    """A configuration file or mapping is invalid; the message names the file and the key."""


class AllocationConfigurationException(ConfigurationError):
    """Hadoop's ``AllocationConfigurationException``: the FairScheduler's allocation file (``fair-scheduler.xml``) or a
    resource value in it is invalid; the message is Hadoop's, prefixed by the file (and line) at fault."""


class TraceFormatError(YarnballError):
    """A workload trace or node file is malformed; the message names the file, the job and the field."""


class ProtocolError(YarnballError):
    """A frame could not be decoded or a message is not valid; the message names the type and field path."""


class SchedulingError(YarnballError):
    """A scheduling request was refused (unknown or non-leaf queue, ACL, limits)."""


class SchedulerDynamicEditException(SchedulingError):
    """Hadoop's ``SchedulerDynamicEditException``: a dynamic queue could not be created or removed (auto creation
    not enabled, too deep, too many children, not a parent, a static queue); the message is Hadoop's."""


class InvalidQueueNameException(SchedulingError):
    """Hadoop's ``InvalidQueueNameException``: a FairScheduler queue name with an empty part or a part with leading
    or trailing whitespace (``Illegal node name at offset <i> for queue name <name>``)."""


class ActorError(YarnballError):
    """Misuse of the actor runtime (an actor started twice, an unknown handler, a kernel already running)."""


class DeadLetterError(ActorError):
    """An ``ask`` was sent to an actor that does not exist or has stopped, so no reply can ever come."""


class TimeoutError(ActorError):  # deliberately shadows the builtin inside yarnball
    """An ``ask`` got no reply within its timeout, measured in the kernel's clock."""


class SimulationError(YarnballError):
    """A simulation could not run to completion (a backend failed, a shard host died, the run was stalled)."""


class CheckpointError(YarnballError):
    """A task checkpoint could not be saved or read back (missing directory, corrupt file, bad task id); the
    message names the file or the task."""


class ContainerKilled(YarnballError):
    """Raised inside a container's Python callable by ``ContainerContext.check()`` once its NodeManager asked it to
    stop (SIGTERM: the AM stopped it, the RM preempted it, it ran out of memory). Save a checkpoint and let it
    propagate; the process is SIGKILLed ``yarn.nodemanager.sleep-delay-before-sigkill.ms`` after the SIGTERM."""


class RestRequestError(YarnballError):
    """A REST request to the web layer was refused (malformed id, unknown application or node, bad parameter).

    It carries what Hadoop's ``GenericExceptionHandler`` answers with: the HTTP status, the exception's simple name
    and its Java class name, which the web layer writes as a ``RemoteException`` body."""

    def __init__(self, status: int, exception: str, java_class: str, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.exception = exception
        self.java_class = java_class
        self.message = message


# -- fs2cs, the FairScheduler-to-CapacityScheduler converter (policies/fair/converter) -----------------------------
class ConversionException(ConfigurationError):
    """Hadoop's fs2cs ``ConversionException``: the FairScheduler configuration cannot be converted."""


class PreconditionException(ConversionException):
    """Hadoop's fs2cs ``PreconditionException``: a missing or bad input (an option, a file) before converting."""


class UnsupportedPropertyException(ConversionException):
    """Hadoop's fs2cs ``UnsupportedPropertyException``: a setting whose conversion rule's action is ``abort``."""


class VerificationException(ConversionException):
    """Hadoop's fs2cs ``VerificationException``: the converted configuration does not start a CapacityScheduler."""
