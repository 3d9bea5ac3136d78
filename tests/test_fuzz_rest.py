"""Fuzzing the RM REST API's request bodies: submit (POST /apps), state, queue and priority (PUT), as JSON and XML.

One live cluster (the bundled trace driven to 5 s) serves every example through aiohttp's test client; each example
sends one mutated body (tests/test_fuzz_traces.py's JSON mutations, deep nesting, XML cut short or with stray bytes,
bytes that are not UTF-8). The property: the answer is a success status, or a 4xx/503 whose body is Hadoop's
``RemoteException`` (exception, message on one line, javaClassName); never a 500 or a plain-text error. Counts are in
tests/FUZZ_INPUTS.md.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from typing import Any

import pytest

pytest.importorskip("aiohttp")

from aiohttp.test_utils import TestClient, TestServer
from hypothesis import given
from hypothesis import strategies as st

from tests.test_fuzz_traces import mutate
from tests.test_web_submit import context, ds_command
from tests.web_helpers import build_cluster
from yarnball.launcher.web._driver import LiveSource, drive
from yarnball.launcher.web._server import build_app

try:  # pytest puts tests/ on sys.path (no package) or the project root (tests as a package)
    from fuzz_inputs import FUZZ, record
except ImportError:  # pragma: no cover
    from tests.fuzz_inputs import FUZZ, record

APPS = "/ws/v1/cluster/apps"
ROOTS = {"state": "appstate", "queue": "appqueue", "priority": "applicationpriority"}
SEEDS = {"state": {"state": "KILLED"}, "queue": {"queue": "default"}, "priority": {"priority": 3}}
OK = (200, 202)
REFUSALS = (400, 401, 403, 404, 503)


class Server:
    """One served cluster for a whole test function: the event loop, the client, and a running application."""

    def __init__(self) -> None:
        cluster, _ = build_cluster()
        self.source = LiveSource(cluster)
        self.loop = asyncio.new_event_loop()
        self.client = TestClient(TestServer(build_app(self.source)), loop=self.loop)
        self.loop.run_until_complete(self.client.start_server())
        self.loop.run_until_complete(drive(cluster, self.source, until_ms=5000))
        apps = self.run(self.client.get(APPS, params={"states": "RUNNING"}))
        self.app_id = self.loop.run_until_complete(apps.json())["apps"]["app"][0]["id"]
        self.user = next(a.user for a in cluster.rm.apps.values() if str(a.id) == self.app_id)
        new = self.run(self.client.post(f"{APPS}/new-application", params={"user.name": "fuzz"}))
        self.new_id = self.run(new.json())["application-id"]  # one id: a second submission of it is a 202 no-op

    def run(self, coroutine: Any) -> Any:
        return self.loop.run_until_complete(coroutine)

    def close(self) -> None:
        self.run(self.client.close())
        self.loop.close()


@pytest.fixture(scope="module")
def server() -> Iterator[Server]:
    srv = Server()
    yield srv
    srv.close()


def _xml(root: str, doc: dict[str, Any]) -> str:
    inner = "".join(f"<{k}>{v}</{k}>" for k, v in doc.items() if isinstance(k, str) and k.isidentifier())
    return f'<?xml version="1.0" encoding="UTF-8"?><{root}>{inner}</{root}>'


@st.composite
def bodies(draw: st.DrawFn, seed: dict[str, Any], root: str) -> tuple[bytes, str, list[str]]:
    """A mutated body, its content type and the mutation labels."""
    text, _, labels = mutate(json.dumps([seed]), draw)
    form = draw(st.sampled_from(["json", "json", "json", "xml", "nest", "bytes"]))
    content_type = "application/json"
    if form == "xml":
        try:
            doc = json.loads(text)
        except ValueError:
            doc = {}
        text = _xml(root, doc if isinstance(doc, dict) else {})
        cut = draw(st.integers(0, len(text)))
        text = text[:cut] if draw(st.booleans()) else text
        content_type = "application/xml"
    elif form == "nest":
        depth = draw(st.sampled_from([5, 199, 200, 201, 1000, 100_000]))
        brackets = draw(st.sampled_from([("[", "]"), ('{"a":', "}")]))
        text = json.dumps(seed)[:-1] + f', "x": {brackets[0] * depth}1{brackets[1] * depth}}}'
    labels.append(form)
    data = text.encode("utf-8", "surrogatepass")
    if form == "bytes":
        pos = draw(st.integers(0, len(data)))
        data = data[:pos] + draw(st.sampled_from([b"\xff", b"\xc3", b"\x00", b"\xed\xa0\x80"])) + data[pos:]
    return data, content_type, labels


def check_answer(kind: str, status: int, text: str, labels: list[str]) -> None:
    """A success, or a RemoteException with a refusal status and a one-line message."""
    assert status in OK + REFUSALS, f"{status}: {text[:300]}"
    if status in OK:
        record(kind, "accepted", labels)
        return
    body = json.loads(text)
    exc = body["RemoteException"]
    assert set(exc) == {"exception", "message", "javaClassName"}, body
    assert "\n" not in exc["message"] and exc["message"], body
    record(kind, "rejected", labels, exc["message"])


def _put(server: Server, what: str, data: bytes, content_type: str) -> tuple[int, str]:
    async def go() -> tuple[int, str]:
        url = f"{APPS}/{server.app_id}/{what}"
        resp = await server.client.put(
            url, params={"user.name": server.user}, data=data, headers={"Content-Type": content_type}
        )
        return resp.status, await resp.text()

    return server.run(go())  # type: ignore[no-any-return]


def _fuzz_put(server: Server, data: st.DataObject, what: str) -> None:
    body, content_type, labels = data.draw(bodies(SEEDS[what], ROOTS[what]))
    status, text = _put(server, what, body, content_type)
    check_answer(f"REST {what} body", status, text, labels)


@FUZZ
@given(data=st.data())
def test_fuzzed_rest_queue(server: Server, data: st.DataObject) -> None:
    """Mutated PUT .../queue bodies: a success or a RemoteException, never a 500."""
    _fuzz_put(server, data, "queue")


@FUZZ
@given(data=st.data())
def test_fuzzed_rest_priority(server: Server, data: st.DataObject) -> None:
    """Mutated PUT .../priority bodies: a success or a RemoteException, never a 500."""
    _fuzz_put(server, data, "priority")


@FUZZ
@given(data=st.data())
def test_fuzzed_rest_state(server: Server, data: st.DataObject) -> None:
    """Mutated PUT .../state bodies (the seed asks for KILLED on a copy of the state: the kill is not sent, the
    first success would end the application every later example is about)."""
    seed = {"state": "RUNNING"}
    body, content_type, labels = data.draw(bodies(seed, "appstate"))
    status, text = _put(server, "state", body, content_type)
    check_answer("REST state body", status, text, labels)


@FUZZ
@given(data=st.data())
def test_fuzzed_rest_submit(server: Server, data: st.DataObject) -> None:
    """Mutated POST /apps application-submission-contexts: a success or a RemoteException, never a 500."""
    seed = context(server.new_id, ds_command(1, 1.0))
    body, content_type, labels = data.draw(bodies(seed, "application-submission-context"))

    async def go() -> tuple[int, str]:
        resp = await server.client.post(
            APPS, params={"user.name": "fuzz"}, data=body, headers={"Content-Type": content_type}
        )
        return resp.status, await resp.text()

    status, text = server.run(go())
    if status == 202:
        assert text == "", text
        record("REST submit body", "accepted", labels)
        return
    check_answer("REST submit body", status, text, labels)
