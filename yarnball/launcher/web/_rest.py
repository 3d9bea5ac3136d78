"""The RM REST API (``RMWebServices``, read side) under ``/ws/v1/cluster``, served by aiohttp from snapshots.

Every handler reads one :class:`~yarnball.launcher.web._snapshot.Snapshot` (``source.latest()``) and answers JSON,
or XML for ``Accept: application/xml`` (rest.md §1). Refusals are :class:`~yarnball.errors.RestRequestError`s that
the middleware writes as Hadoop's ``RemoteException`` body with ``GenericExceptionHandler``'s status codes: 400 for
a malformed id or parameter, 404 for an unknown application, attempt or node. Unknown paths under ``/ws/`` get a 404
``RemoteException`` too (Hadoop's servlet container answers those with a bare 404), so a client always has a body
to read; nothing a request sends can stop the server.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Iterable
from typing import Any, Literal, Protocol
from xml.etree import ElementTree

from aiohttp import web

from yarnball._inputs import check_nesting
from yarnball.errors import ConfigurationError, RestRequestError, one_line
from yarnball.launcher.web._snapshot import APP_STATES, NODE_STATES, SnapshotView
from yarnball.launcher.web._xml import to_xml

__all__ = ["SOURCE", "SnapshotSource", "add_rest_routes", "remote_exception_middleware"]

_BAD_REQUEST = ("BadRequestException", "org.apache.hadoop.yarn.webapp.BadRequestException")
_NOT_FOUND = ("NotFoundException", "org.apache.hadoop.yarn.webapp.NotFoundException")
_ILLEGAL_ARGUMENT = ("IllegalArgumentException", "java.lang.IllegalArgumentException")
_FINAL_STATUSES = ("UNDEFINED", "SUCCEEDED", "FAILED", "KILLED")
_LONG_MAX = 9223372036854775807


class SnapshotSource(Protocol):
    """Where the handlers get the state they show: the latest consistent snapshot of the run."""

    def latest(self) -> SnapshotView: ...


SOURCE: web.AppKey[SnapshotSource] = web.AppKey("yarnball_snapshot_source", SnapshotSource)


def _bad_request(message: str) -> RestRequestError:
    return RestRequestError(400, *_BAD_REQUEST, message)


def _illegal_argument(message: str) -> RestRequestError:
    return RestRequestError(400, *_ILLEGAL_ARGUMENT, message)


def _not_found(message: str) -> RestRequestError:
    return RestRequestError(404, *_NOT_FOUND, message)


async def body_text(request: web.Request, entity: str) -> str:
    """The request body as text (its charset, UTF-8 by default); 400 when it is not text in that charset."""
    raw = await request.read()
    try:
        return raw.decode(request.charset or "utf-8")
    except (UnicodeDecodeError, LookupError) as err:
        raise _bad_request(f"The request body is not a valid {entity} entity: {one_line(err)}") from None


def load_body(raw: str, entity: str, fmt: Literal["JSON", "XML"] = "JSON") -> Any:
    """A request body of JSON (decoded) or XML (parsed to an Element), nested at most MAX_NESTING_DEPTH levels; a
    400 ``BadRequestException`` naming ``entity`` (``appstate``, ``application-submission-context``) otherwise."""
    try:
        check_nesting(raw, "The request body", fmt)
        if fmt == "XML":
            return ElementTree.fromstring(raw)
        return json.loads(raw)
    except ConfigurationError as err:
        raise _bad_request(f"{err} ({entity})") from None
    except (ValueError, ElementTree.ParseError, RecursionError) as err:
        raise _bad_request(f"The request body is not a valid {entity} entity: {one_line(err)}") from None


# -- content negotiation ---------------------------------------------------------------------------------------------
def wants_xml(request: web.Request) -> bool:
    """JSON unless the client asks for XML and not for JSON (JSON is first in RMWebServices' @Produces)."""
    accept = request.headers.get("Accept", "")
    return "xml" in accept and "json" not in accept


def render(
    request: web.Request, body: dict[str, Any], status: int = 200, *, json_body: dict[str, Any] | None = None
) -> web.Response:
    """``body`` as XML or JSON (``json_body`` when the JSON form drops the XML root, as ``AppState`` does)."""
    if wants_xml(request):
        return web.Response(text=to_xml(body), status=status, content_type="application/xml", charset="utf-8")
    text = json.dumps(body if json_body is None else json_body, separators=(",", ":"))
    return web.Response(text=text, status=status, content_type="application/json", charset="utf-8")


def remote_exception(request: web.Request, err: RestRequestError) -> web.Response:
    """``GenericExceptionHandler``: ``{"RemoteException": {exception, message, javaClassName}}``."""
    body = {"RemoteException": {"exception": err.exception, "message": err.message, "javaClassName": err.java_class}}
    return render(request, body, status=err.status)


Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


@web.middleware
async def remote_exception_middleware(request: web.Request, handler: Handler) -> web.StreamResponse:
    try:
        return await handler(request)
    except RestRequestError as err:
        return remote_exception(request, err)
    except web.HTTPException as exc:
        if not request.path.startswith("/ws/") or exc.status < 400:
            raise
        if exc.status == 404:
            refusal = _not_found(f"java.lang.Exception: no such resource: {request.path}")
        else:
            refusal = RestRequestError(
                exc.status, "WebApplicationException", "javax.ws.rs.WebApplicationException", exc.reason
            )
        return remote_exception(request, refusal)


# -- parameters ------------------------------------------------------------------------------------------------------
def _comma_values(request: web.Request, name: str) -> list[str]:
    """``WebServices.parseQueries``: every value of a repeated, comma-separated parameter, trimmed, lower-cased."""
    out: list[str] = []
    for raw in request.query.getall(name, []):
        out.extend(v.strip().lower() for v in raw.split(",") if v.strip())
    return out


def _app_states(values: Iterable[str]) -> set[str]:
    states: set[str] = set()
    for v in values:
        upper = v.upper()
        if upper not in APP_STATES:
            raise _bad_request(f"Invalid application-state {v} specified. It should be one of {', '.join(APP_STATES)}")
        states.add(upper)
    return states


def _long(request: web.Request, name: str, default: int) -> int:
    """``ApplicationsRequestBuilder.parseLongValue``."""
    raw = request.query.get(name)
    if raw is None or raw == "":
        return default
    try:
        return int(raw)
    except ValueError:
        raise _bad_request(f"{name} value must be a number!") from None


def _time_range(request: web.Request, begin: str, end: str, label: str) -> tuple[int, int]:
    """``validateStartTime``/``validateFinishTime`` (the messages say ``startTimeBegin``/``finishTimeBegin``)."""
    lo, hi = _long(request, begin, 0), _long(request, end, _LONG_MAX)
    if lo < 0:
        raise _bad_request(f"{label}Begin must be greater than 0")
    if hi < 0:
        raise _bad_request(f"{label}End must be greater than 0")
    if lo > hi:
        first = "startTimeBegin" if label == "startedTime" else f"{label}Begin"
        raise _bad_request(f"{label}End must be greater than {first}")
    return lo, hi


def _queue_known(snap: SnapshotView, name: str) -> bool:
    def walk(q: dict[str, Any]) -> Iterable[dict[str, Any]]:
        yield q
        for child in (q.get("queues") or {}).get("queue", []):
            yield from walk(child)

    return any(name in (q.get("queueName"), q.get("queuePath")) for q in walk(snap.scheduler["schedulerInfo"]))


# -- ids ---------------------------------------------------------------------------------------------------------------
def _check_app_id(text: str) -> None:
    """``WebAppUtils.parseApplicationId`` / ``ApplicationId.fromString``: ``application_<ts>_<seq>``."""
    parts = text.split("_")
    if len(parts) != 3 or parts[0] != "application" or not parts[1].isdigit() or not parts[2].isdigit():
        raise _bad_request(f"Invalid ApplicationId: {text}")


def _app(snap: SnapshotView, app_id: str) -> dict[str, Any]:
    _check_app_id(app_id)
    app = snap.apps.get(app_id)
    if app is None:
        # RMWebServices.getApp on 3.x (trunk drops the prefix)
        raise _not_found(f"java.lang.Exception: app with id: {app_id} not found")
    return app


def _wrap(outer: str, inner: str, items: list[dict[str, Any]]) -> dict[str, Any]:
    """A JAXB collection: ``{outer: {inner: [...]}}``, ``{outer: {}}`` when empty (3.x)."""
    return {outer: {inner: items} if items else {}}


# -- handlers ----------------------------------------------------------------------------------------------------------
async def get_cluster_info(request: web.Request) -> web.Response:
    snap = request.app[SOURCE].latest()
    return render(request, {"clusterInfo": snap.cluster_info})


async def get_cluster_metrics(request: web.Request) -> web.Response:
    snap = request.app[SOURCE].latest()
    return render(request, {"clusterMetrics": snap.metrics})


async def get_scheduler(request: web.Request) -> web.Response:
    snap = request.app[SOURCE].latest()
    return render(request, {"scheduler": snap.scheduler})


def select_apps(snap: SnapshotView, request: web.Request) -> list[dict[str, Any]]:
    """``RMWebServices.getApps`` with ``ApplicationsRequestBuilder``'s checks, in application-id order."""
    states_raw = _comma_values(request, "states")
    single = request.query.get("state")
    if single:
        states_raw.append(single.strip().lower())
    user = request.query.get("user") or None
    queue = request.query.get("queue") or None
    if queue is not None and not _queue_known(snap, queue):
        raise _bad_request(f"Unknown queue: {queue}")  # CapacityScheduler.getQueueInfo's IOException
    limit_raw = request.query.get("limit")
    limit = None
    if limit_raw:
        limit = _long(request, "limit", 0)
        if limit <= 0:
            raise _bad_request("limit value must be greater then 0")
    start_lo, start_hi = _time_range(request, "startedTimeBegin", "startedTimeEnd", "startedTime")
    finish_lo, finish_hi = _time_range(request, "finishedTimeBegin", "finishedTimeEnd", "finishTime")
    states = _app_states(states_raw)
    final_status = request.query.get("finalStatus")
    if final_status and final_status not in _FINAL_STATUSES:
        raise _illegal_argument(
            f"No enum constant org.apache.hadoop.yarn.api.records.FinalApplicationStatus.{final_status}"
        )
    types = set(_comma_values(request, "applicationTypes"))
    tags = set(_comma_values(request, "applicationTags"))
    name = request.query.get("name")
    out: list[dict[str, Any]] = []
    for app in snap.apps.values():
        if states and app["state"] not in states:
            continue
        if final_status and app["finalStatus"] != final_status:
            continue
        if user is not None and app["user"] != user:
            continue
        # ClientRMService.getApplications: a queue filter keeps the unfinished apps currently in that queue
        if queue is not None and (app["queue"] != queue or app["finishedTime"]):
            continue
        if types and app["applicationType"].lower() not in types:
            continue
        if tags and not tags & {t.lower() for t in app["applicationTags"].split(",") if t}:
            continue
        if name is not None and app["name"] != name:
            continue
        if not start_lo <= app["startedTime"] <= start_hi:
            continue
        if not finish_lo <= app["finishedTime"] <= finish_hi:
            continue
        out.append(app)
        if limit is not None and len(out) >= limit:
            break
    return out


_DESELECTABLE = {
    "resourcerequests": "resourceRequests",
    "timeouts": "timeouts",
    "appnodelabelexpression": "appNodeLabelExpression",
    "amnodelabelexpression": "amNodeLabelExpression",
    "resourceinfo": "resourceInfo",
}


def _deselects(request: web.Request) -> set[str]:
    """``DeSelectFields.initFields``: an unknown literal is a 400."""
    out = set()
    for value in _comma_values(request, "deSelects"):
        field = _DESELECTABLE.get(value)
        if field is None:
            raise _bad_request(
                f"Invalid deSelects string {value} specified. It should be one of " + ", ".join(_DESELECTABLE.values())
            )
        out.add(field)
    return out


def server_address(request: web.Request) -> str:
    """``host:port`` of the socket the request came in on: the address this server really runs on (a wildcard bind
    answers with the interface the client reached), bracketed for IPv6; the Host header when there is no socket."""
    sockname = request.transport.get_extra_info("sockname") if request.transport is not None else None
    if not isinstance(sockname, tuple) or len(sockname) < 2:
        return request.host
    host = str(sockname[0])
    return f"[{host}]:{sockname[1]}" if ":" in host else f"{host}:{sockname[1]}"


def _shown(app: dict[str, Any], fields: set[str], address: str) -> dict[str, Any]:
    """The app as the REST API shows it: without the deselected ``fields``, and its tracking URL the RM web proxy's
    on this server (``RMAppAttemptImpl``'s proxied URL ``http://<rm-webapp-address>/proxy/<appId>/``)."""
    shown = {k: v for k, v in app.items() if k not in fields}
    path = app["trackingUrl"]
    if path.startswith("/"):
        shown["trackingUrl"] = f"http://{address}{path}"
    return shown


async def get_apps(request: web.Request) -> web.Response:
    snap = request.app[SOURCE].latest()
    fields = _deselects(request)
    address = server_address(request)
    return render(request, _wrap("apps", "app", [_shown(a, fields, address) for a in select_apps(snap, request)]))


async def get_app(request: web.Request) -> web.Response:
    snap = request.app[SOURCE].latest()
    fields = _deselects(request)
    return render(request, {"app": _shown(_app(snap, request.match_info["appid"]), fields, server_address(request))})


async def get_app_attempts(request: web.Request) -> web.Response:
    snap = request.app[SOURCE].latest()
    app_id = request.match_info["appid"]
    _app(snap, app_id)
    return render(request, _wrap("appAttempts", "appAttempt", snap.attempts.get(app_id, [])))


async def get_app_attempt(request: web.Request) -> web.Response:
    snap = request.app[SOURCE].latest()
    app_id = request.match_info["appid"]
    _app(snap, app_id)
    attempt_id = request.match_info["attemptid"]
    parts = attempt_id.split("_")
    if len(parts) != 4 or parts[0] != "appattempt" or not all(p.isdigit() for p in parts[1:]):
        raise _bad_request(f"Invalid AppAttemptId: {attempt_id}")
    for attempt in snap.attempts.get(app_id, []):
        if attempt["appAttemptId"] == attempt_id:
            return render(request, {"appAttempt": attempt})
    raise _not_found(f"java.lang.Exception: App attempt with id: {attempt_id} not found")


async def get_app_state(request: web.Request) -> web.Response:
    snap = request.app[SOURCE].latest()
    state = {"state": _app(snap, request.match_info["appid"])["state"]}
    return render(request, {"appstate": state}, json_body=state)


async def get_app_statistics(request: web.Request) -> web.Response:
    """``RMWebServices.getAppStatistics``: one item per requested state (all states by default)."""
    snap = request.app[SOURCE].latest()
    states = _app_states(_comma_values(request, "states")) or set(APP_STATES)
    types = _comma_values(request, "applicationTypes")
    if len(set(types)) > 1:
        raise _bad_request(
            f"# of applicationTypes = {len(set(types))}, we temporarily support at most one applicationType"
        )
    app_type = types[0] if types else None
    items = []
    for state in APP_STATES:
        if state not in states:
            continue
        count = sum(
            1
            for a in snap.apps.values()
            if a["state"] == state and (app_type is None or a["applicationType"].lower() == app_type)
        )
        items.append({"state": state, "type": app_type if app_type is not None else "*", "count": count})
    return render(request, _wrap("appStatInfo", "statItem", items))


async def get_nodes(request: web.Request) -> web.Response:
    """``RMWebServices.getNodes``: ``states`` filters (``NodeState.valueOf``), every node by default."""
    snap = request.app[SOURCE].latest()
    wanted: set[str] = set()
    for value in _comma_values(request, "states"):
        if value.upper() not in NODE_STATES:
            raise _illegal_argument(f"No enum constant org.apache.hadoop.yarn.api.records.NodeState.{value.upper()}")
        wanted.add(value.upper())
    items = [n for n in snap.nodes.values() if not wanted or n["state"] in wanted]
    return render(request, _wrap("nodes", "node", items))


async def get_node(request: web.Request) -> web.Response:
    snap = request.app[SOURCE].latest()
    node_id = request.match_info["nodeid"]
    host, sep, port = node_id.rpartition(":")
    if not sep or not host or not port.isdigit():
        raise _illegal_argument(f"Invalid NodeId [{node_id}]. Expected host:port")  # NodeId.fromString
    info = snap.nodes.get(node_id)
    if info is None:
        raise _not_found(f"nodeId, {node_id}, is not found")
    return render(request, {"node": info})


def add_rest_routes(webapp: web.Application) -> None:
    """Register the read endpoints of rest.md §2 on ``webapp`` (which holds a :data:`SOURCE`)."""
    base = "/ws/v1/cluster"
    webapp.router.add_get(base, get_cluster_info)
    webapp.router.add_get(base + "/", get_cluster_info)
    webapp.router.add_get(base + "/info", get_cluster_info)
    webapp.router.add_get(base + "/metrics", get_cluster_metrics)
    webapp.router.add_get(base + "/scheduler", get_scheduler)
    webapp.router.add_get(base + "/apps", get_apps)
    webapp.router.add_get(base + "/apps/{appid}", get_app)
    webapp.router.add_get(base + "/apps/{appid}/state", get_app_state)
    webapp.router.add_get(base + "/apps/{appid}/appattempts", get_app_attempts)
    webapp.router.add_get(base + "/apps/{appid}/appattempts/{attemptid}", get_app_attempt)
    webapp.router.add_get(base + "/appstatistics", get_app_statistics)
    webapp.router.add_get(base + "/nodes", get_nodes)
    webapp.router.add_get(base + "/nodes/{nodeid}", get_node)
