"""The RM REST API's write side (``RMWebServices``): kill, move to a queue, change priority.

``PUT /ws/v1/cluster/apps/{appid}/state`` ``{"state":"KILLED"}``, ``PUT .../queue`` ``{"queue":"<name>"}`` and
``PUT .../priority`` ``{"priority":<int>}`` (JSON, or XML roots ``appstate``, ``appqueue``, ``applicationpriority``)
become ClientRMService requests (``KillApplicationRequest``, ``MoveApplicationAcrossQueuesRequest``,
``UpdateApplicationPriorityRequest``) sent to the RM actor between slices (:meth:`LiveSource.ask_rm`); the handler
never touches the cluster's state itself. The RM checks the ACLs (actors/_clientrmservice.py) and answers with the
response or a ``RemoteRefusal``, which is mapped here as ``RMWebServices`` maps the exceptions:

* no caller: 401 ``AuthorizationException`` "Unable to obtain user name, user not authenticated";
* ``AccessControlException``: 403 ``ForbiddenException`` "Unauthorized attempt to kill appid ... by remote user ...";
  Hadoop sends that text as a bare body, yarnball wraps it in a ``RemoteException`` like every other refusal;
* "App in X state cannot be moved." / "Application in X state cannot update priority.": 400 ``BadRequestException``;
* any other ``YarnException`` (unknown or non-leaf target queue, queue limits): 503, ``GenericExceptionHandler``'s
  status for an exception it has no mapping for;
* a body that does not parse or lacks its field: 400 ``BadRequestException``; unknown or malformed ids as the read
  side (404 / 400).

**The caller** is the ``user.name`` query parameter, as with Hadoop's pseudo authentication
(``hadoop.http.authentication.type=simple``); without it, the ``Remote-User`` header (what an authenticating proxy in
front of the RM sets). A request with neither is anonymous and every write refuses it.
"""

from __future__ import annotations

from typing import Any

from aiohttp import web

from yarnball.errors import RestRequestError
from yarnball.launcher.web._rest import SOURCE, _app, _bad_request, body_text, load_body, render
from yarnball.protocols import (
    KillApplicationRequest,
    MoveApplicationAcrossQueuesRequest,
    Priority,
    RemoteRefusal,
    UpdateApplicationPriorityRequest,
)
from yarnball.protocols._records import ApplicationId

__all__ = ["USER_HEADER", "USER_PARAM", "add_write_routes", "caller"]

USER_PARAM = "user.name"
USER_HEADER = "Remote-User"

_FORBIDDEN = ("ForbiddenException", "org.apache.hadoop.yarn.webapp.ForbiddenException")
_UNAUTHORIZED = ("AuthorizationException", "org.apache.hadoop.security.authorize.AuthorizationException")
_YARN = ("YarnException", "org.apache.hadoop.yarn.exceptions.YarnException")


def caller(request: web.Request) -> str:
    """The remote user (see the module docstring); 401 when there is none."""
    user = (request.query.get(USER_PARAM) or request.headers.get(USER_HEADER) or "").strip()
    if not user:
        raise RestRequestError(401, *_UNAUTHORIZED, "Unable to obtain user name, user not authenticated")
    return user


async def _body(request: web.Request, root: str, field: str) -> str | None:
    """The ``field`` of a JSON object or of an XML document rooted at ``root``; None when it is absent."""
    raw = await body_text(request, root)
    if "xml" in request.content_type or raw.lstrip().startswith("<"):
        doc = load_body(raw, root, "XML")
        if doc.tag != root:
            raise _bad_request(f"expected an XML document with root element <{root}>, got <{doc.tag}>")
        return doc.findtext(field)  # type: ignore[no-any-return]
    data = load_body(raw, root) if raw.strip() else None
    if not isinstance(data, dict):
        raise _bad_request(f'The request body must be a JSON object such as {{"{field}": ...}} ({root})')
    value = data.get(field)
    return None if value is None else str(value)


def _live(request: web.Request) -> Any:
    source = request.app[SOURCE]
    if not hasattr(source, "ask_rm"):
        raise RestRequestError(
            503, *_YARN, "this server shows a fixed snapshot of a run, which has no ResourceManager to change"
        )
    return source


def _app_id(text: str) -> ApplicationId:
    _, ts, seq = text.split("_")
    return ApplicationId(int(ts), int(seq))


def _refused(reply: Any, action: str, app_id: str, user: str, bad_request_marker: str) -> None:
    """``RMWebServices.killApp`` / ``moveApp`` / ``modifyApplicationPriority``'s handling of a refusal."""
    if not isinstance(reply, RemoteRefusal):
        return
    if reply.exception == "AccessControlException":
        raise RestRequestError(
            403, *_FORBIDDEN, f"Unauthorized attempt to {action} appid {app_id} by remote user {user}"
        )
    if reply.exception == "ApplicationNotFoundException":
        raise RestRequestError(
            404, "NotFoundException", "org.apache.hadoop.yarn.webapp.NotFoundException", reply.message
        )
    if bad_request_marker and bad_request_marker in reply.message:
        raise _bad_request(reply.message)
    raise RestRequestError(503, *_YARN, reply.message)


async def put_app_state(request: web.Request) -> web.Response:
    """``RMWebServices.updateAppState``: 200 when already in the target state, else kill and answer 202."""
    user = caller(request)
    source = _live(request)
    app_id = request.match_info["appid"]
    app = _app(source.latest(), app_id)
    target = await _body(request, "appstate", "state")
    if target is None:
        raise _bad_request('The request body must name the target state, as {"state": "KILLED"}')
    if target == app["state"]:
        return render(request, {"appstate": {"state": target}}, json_body={"state": target})
    if target != "KILLED":
        raise _bad_request("java.lang.Exception: Only 'KILLED' is allowed as a target state.")
    diagnostics = request.query.get("diagnostics") or ""
    reply = await source.ask_rm(
        KillApplicationRequest(application_id=_app_id(app_id), diagnostics=diagnostics, user=user)
    )
    _refused(reply, "kill", app_id, user, "")
    state = {"state": source.latest().apps[app_id]["state"]}
    response = render(request, {"appstate": state}, status=202, json_body=state)
    response.headers["Location"] = str(request.url.with_query(None))  # getRequestURL(): no query
    return response


async def get_app_queue(request: web.Request) -> web.Response:
    queue = {"queue": _app(request.app[SOURCE].latest(), request.match_info["appid"])["queue"]}
    return render(request, {"appqueue": queue}, json_body=queue)


async def put_app_queue(request: web.Request) -> web.Response:
    """``RMWebServices.updateAppQueue`` / ``moveApp``."""
    user = caller(request)
    source = _live(request)
    app_id = request.match_info["appid"]
    app = _app(source.latest(), app_id)
    target = await _body(request, "appqueue", "queue")
    if not target:
        raise _bad_request('The request body must name the target queue, as {"queue": "<queue>"}')
    if target == app["queue"]:
        return render(request, {"appqueue": {"queue": target}}, json_body={"queue": target})
    message = MoveApplicationAcrossQueuesRequest(application_id=_app_id(app_id), target_queue=target, user=user)
    _refused(await source.ask_rm(message), "move", app_id, user, "cannot be moved.")
    queue = {"queue": source.latest().apps[app_id]["queue"]}
    return render(request, {"appqueue": queue}, json_body=queue)


async def get_app_priority(request: web.Request) -> web.Response:
    priority = {"priority": _app(request.app[SOURCE].latest(), request.match_info["appid"])["priority"]}
    return render(request, {"applicationpriority": priority}, json_body=priority)


async def put_app_priority(request: web.Request) -> web.Response:
    """``RMWebServices.updateApplicationPriority`` / ``modifyApplicationPriority``."""
    user = caller(request)
    source = _live(request)
    app_id = request.match_info["appid"]
    _app(source.latest(), app_id)
    raw = await _body(request, "applicationpriority", "priority")
    if raw is None:
        raise _bad_request("Target Priority cannot be null")  # the YarnException RMWebServices throws
    try:
        value = int(raw)
    except ValueError:
        raise _bad_request(f"priority must be an integer, got {raw!r}") from None
    message = UpdateApplicationPriorityRequest(
        application_id=_app_id(app_id), application_priority=Priority(value), user=user
    )
    _refused(await source.ask_rm(message), "change priority of", app_id, user, "cannot update priority.")
    priority = {"priority": source.latest().apps[app_id]["priority"]}
    return render(request, {"applicationpriority": priority}, json_body=priority)


def add_write_routes(webapp: web.Application) -> None:
    """The writable application endpoints of rest.md §3.9 (and their GETs for queue and priority)."""
    base = "/ws/v1/cluster/apps/{appid}"
    webapp.router.add_put(base + "/state", put_app_state)
    webapp.router.add_get(base + "/queue", get_app_queue)
    webapp.router.add_put(base + "/queue", put_app_queue)
    webapp.router.add_get(base + "/priority", get_app_priority)
    webapp.router.add_put(base + "/priority", put_app_priority)
