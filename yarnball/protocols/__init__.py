"""WHAT is said: YARN's records and messages as frozen msgspec Structs, and the MessagePack codec."""

from __future__ import annotations

from yarnball.protocols._adminprotocol import *  # noqa: F403
from yarnball.protocols._adminprotocol import __all__ as _adminprotocol_all
from yarnball.protocols._amprotocol import *  # noqa: F403
from yarnball.protocols._amprotocol import __all__ as _amprotocol_all
from yarnball.protocols._clientprotocol import *  # noqa: F403
from yarnball.protocols._clientprotocol import __all__ as _clientprotocol_all
from yarnball.protocols._codec import *  # noqa: F403
from yarnball.protocols._codec import __all__ as _codec_all
from yarnball.protocols._configuration import Configuration
from yarnball.protocols._containermanagement import *  # noqa: F403
from yarnball.protocols._containermanagement import __all__ as _containermanagement_all
from yarnball.protocols._executor import *  # noqa: F403
from yarnball.protocols._executor import __all__ as _executor_all
from yarnball.protocols._messages import *  # noqa: F403
from yarnball.protocols._messages import __all__ as _messages_all
from yarnball.protocols._records import *  # noqa: F403
from yarnball.protocols._records import ANY
from yarnball.protocols._records import __all__ as _records_all
from yarnball.protocols._resourcetracker import *  # noqa: F403
from yarnball.protocols._resourcetracker import __all__ as _resourcetracker_all
from yarnball.protocols._schedulerevents import *  # noqa: F403
from yarnball.protocols._schedulerevents import __all__ as _schedulerevents_all

__all__ = [
    "ANY",
    "Configuration",
    *_records_all,
    *_messages_all,
    *_resourcetracker_all,
    *_amprotocol_all,
    *_containermanagement_all,
    *_executor_all,
    *_clientprotocol_all,
    *_schedulerevents_all,
    *_adminprotocol_all,
    *_codec_all,
]
