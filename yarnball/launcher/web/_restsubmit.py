"""Submitting applications through the RM REST API: ``POST /apps/new-application`` and ``POST /apps``.

``new-application`` is a ``GetNewApplicationRequest`` to the RM; the reply's id and maximum capability come back as
``{"application-id", "maximum-resource-capability": {"memory", "vCores"}}`` (``NewApplication``).

``POST /ws/v1/cluster/apps`` (``RMWebServices.submitApplication``) takes an ``application-submission-context``
(JSON) and answers 202 with ``Location: .../apps/<id>``. **What yarnball can run** is Hadoop's distributed shell: the
AM command (``am-container-spec.commands.command``) must start
``org.apache.hadoop.yarn.applications.distributedshell.ApplicationMaster``, and yarnball reads from it the
ApplicationMaster's own options as DistributedShell's ``Client`` writes them (``--num_containers`` default 1,
``--container_memory`` MB default 10, ``--container_vcores`` default 1, ``--priority`` default 0,
``--container_type`` GUARANTEED or OPPORTUNISTIC) plus the shell command, which the real Client ships in a local
file and yarnball takes from the same command line: ``--shell_command sleep --shell_args <seconds>`` (or
``--shell_command "sleep <seconds>"``). Every container runs for that many (simulated) seconds. Anything else (a
MapReduce AM, another shell command) is a 400 ``BadRequestException`` saying so. From the context yarnball also uses
``application-id`` (required, from ``new-application``), ``application-name``, ``queue``, ``priority``,
``resource {memory, vCores}`` (the AM container), ``application-type``, ``max-app-attempts``; the caller
(``user.name`` or ``Remote-User``, see _restwrite.py) is the application's user. The queue's submit ACL is the
RM's to check: a refused application is accepted here (202) and ends FAILED with Hadoop's diagnostics, as a
rejected submission does.

The AM of a submitted application is an actor like any trace AM; it is started between slices, and its
``SubmitApplicationRequest`` enters the RM's mailbox like any other client message. A submission after the run
ended wakes the driver again (``LiveSource.resume``), so the application runs. On Ray shard hosts the AM is placed
on a host as the workload's AMs are (launcher/web/_shardsource.py); a submission to a Ray run that has ended is
refused (503).
"""

from __future__ import annotations

import shlex
from typing import Any

from aiohttp import web

from yarnball.actors._dshell import DistributedShellAppMaster
from yarnball.launcher.web._rest import _bad_request, _check_app_id, body_text, load_body, render
from yarnball.launcher.web._restwrite import _live, _refused, caller
from yarnball.protocols import (
    ApplicationSubmissionContext,
    ContainerLaunchContext,
    ExecutionType,
    GetNewApplicationRequest,
    Priority,
    Resource,
    SubmitApplicationRequest,
)
from yarnball.protocols._executor import PROCESS_ACTOR_ENV
from yarnball.protocols._records import ApplicationId

__all__ = ["DS_APP_MASTER", "RestShellAppMaster", "ShellSpec", "add_submit_routes", "parse_shell_command"]

DS_APP_MASTER = "org.apache.hadoop.yarn.applications.distributedshell.ApplicationMaster"
_OPTIONS = ("--num_containers", "--container_memory", "--container_vcores", "--priority", "--container_type")


class ShellSpec:
    """What a distributed-shell submission asks for."""

    __slots__ = ("container_type", "memory_mb", "num_containers", "priority", "sleep_ms", "vcores")

    def __init__(self) -> None:
        # DistributedShell Client / ApplicationMaster defaults
        self.num_containers = 1
        self.memory_mb = 10
        self.vcores = 1
        self.priority = 0
        self.container_type = ExecutionType.GUARANTEED
        self.sleep_ms = 0


def _int(option: str, text: str, minimum: int) -> int:
    try:
        value = int(text)
    except ValueError:
        raise _bad_request(f"am-container-spec: {option} expects an integer, got {text!r}") from None
    if value < minimum:
        raise _bad_request(f"am-container-spec: {option} must be >= {minimum}, got {value}")
    return value


def parse_shell_command(command: str) -> ShellSpec:
    """The distributed-shell AM command line -> :class:`ShellSpec` (see the module docstring)."""
    try:
        words = shlex.split(command)
    except ValueError as err:
        raise _bad_request(f"am-container-spec: cannot split the command {command!r}: {err}") from None
    if DS_APP_MASTER not in words:
        raise _bad_request(
            "yarnball can run only DistributedShell's ApplicationMaster submitted through REST: "
            f"am-container-spec.commands.command must start {DS_APP_MASTER}, got {command!r}"
        )
    spec = ShellSpec()
    shell: list[str] = []
    i = words.index(DS_APP_MASTER) + 1
    while i < len(words):
        word = words[i]
        value = words[i + 1] if i + 1 < len(words) else None
        if word in _OPTIONS or word in ("--shell_command", "--shell_args"):
            if value is None:
                raise _bad_request(f"am-container-spec: {word} needs a value")
            if word == "--num_containers":
                spec.num_containers = _int(word, value, 1)
            elif word == "--container_memory":
                spec.memory_mb = _int(word, value, 1)
            elif word == "--container_vcores":
                spec.vcores = _int(word, value, 1)
            elif word == "--priority":
                spec.priority = _int(word, value, 0)
            elif word == "--container_type":
                try:
                    spec.container_type = ExecutionType(value.upper())
                except ValueError:
                    raise _bad_request(
                        f"am-container-spec: --container_type must be GUARANTEED or OPPORTUNISTIC, got {value!r}"
                    ) from None
            else:
                shell.extend(value.split())
            i += 2
            continue
        i += 1  # other AM options (--debug, --container_retry_policy, ...) change nothing here
    if len(shell) != 2 or shell[0] != "sleep":
        raise _bad_request(
            "yarnball runs a distributed shell whose command is `sleep <seconds>` "
            f"(--shell_command sleep --shell_args <seconds>), got {' '.join(shell) or 'no shell command'!r}"
        )
    try:
        seconds = float(shell[1])
    except ValueError:
        raise _bad_request(f"am-container-spec: sleep expects a number of seconds, got {shell[1]!r}") from None
    if not seconds > 0:
        raise _bad_request(f"am-container-spec: sleep must be a positive number of seconds, got {shell[1]!r}")
    spec.sleep_ms = max(1, round(seconds * 1000))
    return spec


class RestShellAppMaster(DistributedShellAppMaster):
    """A distributed shell whose client is a REST caller: it has its application id already and does not ask for
    one (the REST handler submits on its behalf)."""

    def on_start(self) -> None:
        pass


async def post_new_application(request: web.Request) -> web.Response:
    """``RMWebServices.createNewApplication``."""
    caller(request)
    reply = await _live(request).ask_rm(GetNewApplicationRequest())
    cap = reply.maximum_resource_capability
    body = {
        "application-id": str(reply.application_id),
        "maximum-resource-capability": {"memory": cap.memory_mb, "vCores": cap.vcores},
    }
    return render(request, {"NewApplication": body}, json_body=body)


def _field(context: dict[str, Any], name: str, kind: type, default: Any) -> Any:
    value = context.get(name, default)
    if value is default:
        return default
    if kind is int:
        try:
            return int(value)
        except (TypeError, ValueError, OverflowError):  # OverflowError: int() of an infinite JSON number
            raise _bad_request(f"application-submission-context: {name} must be an integer, got {value!r}") from None
    if not isinstance(value, kind):
        raise _bad_request(f"application-submission-context: {name} must be a {kind.__name__}, got {value!r}")
    return value


async def post_app(request: web.Request) -> web.Response:
    """``RMWebServices.submitApplication`` for a distributed shell (see the module docstring)."""
    user = caller(request)
    source = _live(request)
    entity = "application-submission-context"
    context = load_body(await body_text(request, entity), entity)
    if isinstance(context, dict) and set(context) == {"application-submission-context"}:
        context = context["application-submission-context"]
    if not isinstance(context, dict):
        raise _bad_request("The request body must be a JSON application-submission-context object")
    app_id_text = _field(context, "application-id", str, None)
    if not app_id_text:
        raise _bad_request("application-submission-context: application-id is required (POST new-application)")
    _check_app_id(app_id_text)
    spec_json = _field(context, "am-container-spec", dict, {})
    commands = spec_json.get("commands") or {}
    command = commands.get("command") if isinstance(commands, dict) else None
    if not isinstance(command, str):
        raise _bad_request("am-container-spec: commands.command (the AM's command line) is required")
    shell = parse_shell_command(command)
    resource = _field(context, "resource", dict, {})
    am_resource = Resource(_field(resource, "memory", int, 1024), _field(resource, "vCores", int, 1))
    url = f"{request.url.with_query(None)}/{app_id_text}"
    snap = source.latest()
    if app_id_text in snap.apps:  # ClientRMService: "This is an earlier submitted application"
        return web.Response(status=202, headers={"Location": url})
    _, ts, seq = app_id_text.split("_")
    app_id = ApplicationId(int(ts), int(seq))
    name = _field(context, "application-name", str, "N/A")
    queue = _field(context, "queue", str, "default")
    am = RestShellAppMaster(
        num_containers=shell.num_containers,
        container_resource=Resource(shell.memory_mb, shell.vcores),
        container_type=shell.container_type,
        duration_ms=shell.sleep_ms,
        container_priority=shell.priority,
        name=name,
        queue=queue,
        user=user,
        am_resource=am_resource,
        priority=_field(context, "priority", int, 0),
        max_app_attempts=_field(context, "max-app-attempts", int, 0),
        application_type=_field(context, "application-type", str, "YARN"),
    )
    am.application_id = app_id
    am.submitted_at = snap.now_ms
    actor_id = source.start_am(am)  # (on shard hosts the AM runs elsewhere: its id comes back)
    submission = ApplicationSubmissionContext(
        application_id=app_id,
        application_name=name,
        queue=queue,
        priority=Priority(am.app_priority),
        user=user,
        am_container_spec=ContainerLaunchContext(commands=(command,), environment=((PROCESS_ACTOR_ENV, actor_id),)),
        am_container_resource=am_resource,
        application_type=am.application_type,
        max_app_attempts=am.max_app_attempts,
    )
    reply = await source.ask_rm(SubmitApplicationRequest(application_submission_context=submission))
    _refused(reply, "submit", app_id_text, user, "")
    return web.Response(status=202, headers={"Location": url})


def add_submit_routes(webapp: web.Application) -> None:
    webapp.router.add_post("/ws/v1/cluster/apps/new-application", post_new_application)
    webapp.router.add_post("/ws/v1/cluster/apps", post_app)
