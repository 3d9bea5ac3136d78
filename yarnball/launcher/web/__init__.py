"""The web layer: the RM REST API and web UI served from snapshots of a running cluster.

aiohttp is an optional dependency (the ``web`` extra); everything here that needs it is imported only through
:func:`require_aiohttp`'s check, so ``yarnball simulate`` without ``--webapp`` never imports it. The snapshot
(``_snapshot``) and the slicing driver (``_driver``) do not need aiohttp.
"""

from __future__ import annotations

import importlib.util
from typing import Any

from yarnball.errors import ConfigurationError

__all__ = ["WEB_INSTALL", "require_aiohttp", "serve_cluster"]

#: The exact command that adds the web layer's dependency to an install from this source tree.
WEB_INSTALL = "pip install -e '.[web]'"


def require_aiohttp(what: str) -> None:
    """Raise a ConfigurationError (the CLI's exit 2) naming the install command when aiohttp is missing."""
    if importlib.util.find_spec("aiohttp") is None:
        raise ConfigurationError(
            f"{what} needs aiohttp, which is not installed: install the extra with `{WEB_INSTALL}` "
            "(or `pip install 'yarnball[web]'`)"
        )


def serve_cluster(*args: Any, **kwargs: Any) -> Any:
    """:func:`yarnball.launcher.web._server.serve_cluster`, after checking that aiohttp is there."""
    require_aiohttp("serving the web UI")
    from yarnball.launcher.web._server import serve_cluster as serve

    return serve(*args, **kwargs)
