"""The NodeManager REST API (``NMWebServices``, rest.md §4) of every simulated NM, under the RM's server.

A real NM serves ``/ws/v1/node/...`` on its own port (8042); yarnball has one server for the whole cluster, so the
NM is named by its node id right after the base: ``/ws/v1/node/{nodeid}`` and ``/ws/v1/node/{nodeid}/info``
(``nodeInfo``), ``/ws/v1/node/{nodeid}/apps[?state=&user=]`` and ``/apps/{appid}``, ``/ws/v1/node/{nodeid}/containers``
and ``/containers/{containerid}``; after the node id the paths and shapes are the NM's own. A node id is
``host:port`` (rest.md §1), e.g. ``/ws/v1/node/node1:8041/containers``. Refusals are RemoteExceptions as on the
RM side: 400 for a malformed node, application or container id, 404 for an unknown one; ``/ws/v1/node`` without a
node id is a 400 that says how to name one.
"""

from __future__ import annotations

from typing import Any

from aiohttp import web

from yarnball.errors import RestRequestError
from yarnball.launcher.web._rest import (
    SOURCE,
    _bad_request,
    _check_app_id,
    _illegal_argument,
    _not_found,
    _wrap,
    render,
)

__all__ = ["add_nm_routes"]

# NMWebServices.getNodeApps: ApplicationState names (the NM's own application states)
_NM_APP_STATES = (
    "NEW",
    "INITING",
    "RUNNING",
    "FINISHING_CONTAINERS_WAIT",
    "APPLICATION_RESOURCES_CLEANINGUP",
    "FINISHED",
)


def _node(request: web.Request) -> dict[str, Any]:
    node_id = request.match_info["nodeid"]
    host, sep, port = node_id.rpartition(":")
    if not sep or not host or not port.isdigit():
        raise _illegal_argument(f"Invalid NodeId [{node_id}]. Expected host:port")  # NodeId.fromString
    view = request.app[SOURCE].latest().node_managers.get(node_id)
    if view is None:
        raise _not_found(f"nodeId, {node_id}, is not found")
    return view  # type: ignore[no-any-return]


async def get_node_info(request: web.Request) -> web.Response:
    return render(request, {"nodeInfo": _node(request)["nodeInfo"]})


async def get_node_apps(request: web.Request) -> web.Response:
    """``NMWebServices.getNodeApps``: ``state`` (an ApplicationState name) and ``user`` filter."""
    view = _node(request)
    state = request.query.get("state")
    if state and state not in _NM_APP_STATES:
        raise _bad_request(
            f"Invalid application-state {state} specified. It should be one of {', '.join(_NM_APP_STATES)}"
        )
    user = request.query.get("user")
    if user is not None and not user:
        raise _bad_request("Error: You must specify a non-empty string for the user")  # NMWebServices' message
    apps = [a for a in view["apps"] if (not state or a["state"] == state) and (user is None or a["user"] == user)]
    return render(request, _wrap("apps", "app", apps))


async def get_node_app(request: web.Request) -> web.Response:
    view = _node(request)
    app_id = request.match_info["appid"]
    _check_app_id(app_id)
    for app in view["apps"]:
        if app["id"] == app_id:
            return render(request, {"app": app})
    raise _not_found("app with id " + app_id + " not found")  # NMWebServices.getNodeApp


async def get_node_containers(request: web.Request) -> web.Response:
    return render(request, _wrap("containers", "container", _node(request)["containers"]))


async def get_node_container(request: web.Request) -> web.Response:
    view = _node(request)
    cid = request.match_info["containerid"]
    if not cid.startswith("container_") or len(cid.split("_")) < 5:
        raise _bad_request(f"invalid container id, {cid}")  # NMWebServices.getNodeContainer
    for container in view["containers"]:
        if container["id"] == cid:
            return render(request, {"container": container})
    raise _not_found(f"container with id, {cid}, not found")


async def no_node_named(request: web.Request) -> web.Response:
    raise RestRequestError(
        400,
        "BadRequestException",
        "org.apache.hadoop.yarn.webapp.BadRequestException",
        "yarnball serves every NodeManager under one server: name the node after the base, as "
        "/ws/v1/node/<host:port>/info (the node ids are listed by /ws/v1/cluster/nodes)",
    )


def add_nm_routes(webapp: web.Application) -> None:
    base = "/ws/v1/node/{nodeid}"
    webapp.router.add_get("/ws/v1/node", no_node_named)
    webapp.router.add_get("/ws/v1/node/", no_node_named)
    for bare in ("info", "apps", "containers"):
        webapp.router.add_get("/ws/v1/node/" + bare, no_node_named)
    webapp.router.add_get(base, get_node_info)
    webapp.router.add_get(base + "/info", get_node_info)
    webapp.router.add_get(base + "/apps", get_node_apps)
    webapp.router.add_get(base + "/apps/{appid}", get_node_app)
    webapp.router.add_get(base + "/containers", get_node_containers)
    webapp.router.add_get(base + "/containers/{containerid}", get_node_container)
