"""The NodeManager REST API of every simulated NM, under the RM's server (/ws/v1/node/{nodeid}/...)."""

from __future__ import annotations

import asyncio
import re
from typing import Any

import pytest

pytest.importorskip("aiohttp")

from aiohttp.test_utils import TestClient, TestServer

from tests.web_helpers import REST_MD, build_cluster
from yarnball.launcher.web._driver import LiveSource, drive
from yarnball.launcher.web._server import build_app

NODE = "/ws/v1/node"


def nm_doc_fields(path_cell: str) -> set[str]:
    """The field names rest.md §4 lists for the NM endpoint whose first cell is ``path_cell``."""
    text = REST_MD.read_text(encoding="utf-8")
    section = text[text.index("## 4. NodeManager REST") :]
    row = next(line for line in section.splitlines() if line.startswith(f"| {path_cell} "))
    fields = row.split("|")[3]
    return set(re.findall(r"`([a-zA-Z]+)`", re.sub(r"\(.*?\)", "", fields)))


def midrun() -> tuple[dict[str, Any], Any]:
    """Every NM's endpoints five seconds into the bundled trace, with the RM's /nodes beside them."""
    cluster, _ = build_cluster()
    source = LiveSource(cluster)

    async def go() -> dict[str, Any]:
        async with TestClient(TestServer(build_app(source))) as client:
            await drive(cluster, source, until_ms=5000)
            nodes = (await (await client.get("/ws/v1/cluster/nodes")).json())["nodes"]["node"]
            out: dict[str, Any] = {"rm_nodes": nodes, "nm": {}}
            for node in nodes:
                base = f"{NODE}/{node['id']}"
                out["nm"][node["id"]] = {
                    "info": await (await client.get(base + "/info")).json(),
                    "bare": await (await client.get(base)).json(),
                    "apps": await (await client.get(base + "/apps")).json(),
                    "containers": await (await client.get(base + "/containers")).json(),
                }
            busy = next(n["id"] for n in nodes if n["numContainers"] > 0)
            view = out["nm"][busy]
            cid = view["containers"]["containers"]["container"][0]["id"]
            app = view["apps"]["apps"]["app"][0]
            out["one_container"] = await (await client.get(f"{NODE}/{busy}/containers/{cid}")).json()
            out["one_app"] = await (await client.get(f"{NODE}/{busy}/apps/{app['id']}")).json()
            out["by_user"] = await (await client.get(f"{NODE}/{busy}/apps", params={"user": app["user"]})).json()
            out["by_nobody"] = await (await client.get(f"{NODE}/{busy}/apps", params={"user": "nobody"})).json()
            out["busy"], out["cid"], out["app"] = busy, cid, app
            refusals = []
            for url in [
                f"{NODE}/nohost/info",
                f"{NODE}/ghost:1/info",
                f"{NODE}/{busy}/containers/container_bad",
                f"{NODE}/{busy}/containers/container_1_0001_01_999999",
                f"{NODE}/{busy}/apps/application_x",
                f"{NODE}/{busy}/apps/application_1_9999",
                f"{NODE}/{busy}/apps?state=BOGUS",
                f"{NODE}/info",
            ]:
                r = await client.get(url)
                refusals.append((r.status, (await r.json())["RemoteException"]["exception"]))
            out["refusals"] = refusals
            return out

    return asyncio.run(go()), cluster


@pytest.fixture(scope="module")
def seen() -> tuple[dict[str, Any], Any]:
    return midrun()


def test_every_nm_answers_with_rest_md_fields(seen: tuple[dict[str, Any], Any]) -> None:
    """nodeInfo, app and container carry the fields rest.md §4 lists; /ws/v1/node/{id} is /info."""
    out, _ = seen
    info_fields = nm_doc_fields("(base) and `/info`")
    app_fields = nm_doc_fields("`/apps/{appid}`")
    container_fields = nm_doc_fields("`/containers/{containerid}`")
    assert out["nm"] and len(out["nm"]) == len(out["rm_nodes"])
    for node_id, view in out["nm"].items():
        assert view["bare"] == view["info"]
        assert set(view["info"]["nodeInfo"]) == info_fields and view["info"]["nodeInfo"]["id"] == node_id
        for app in (view["apps"]["apps"] or {}).get("app", []):
            assert set(app) == app_fields
        for container in (view["containers"]["containers"] or {}).get("container", []):
            assert set(container) == container_fields and container["nodeId"] == node_id


def test_nm_views_agree_with_the_rm(seen: tuple[dict[str, Any], Any]) -> None:
    """Each NM lists containers the scheduler has allocated on that node (the RM also counts those allocated and
    not yet started there), and its apps are exactly those containers' applications."""
    out, cluster = seen
    scheduler_nodes = {str(node_id): node for node_id, node in cluster.rm.scheduler.nodes.items()}
    for node in out["rm_nodes"]:
        view = out["nm"][node["id"]]
        containers = (view["containers"]["containers"] or {}).get("container", [])
        apps = (view["apps"]["apps"] or {}).get("app", [])
        assert len(containers) <= node["numContainers"]
        assert {c["id"] for c in containers} <= {str(cid) for cid in scheduler_nodes[node["id"]].containers}
        owners = {re.sub(r"^container_(\d+)_(\d+)_.*$", r"application_\1_\2", c["id"]) for c in containers}
        assert {a["id"] for a in apps} == owners
        assert sorted(cid for a in apps for cid in a["containerids"]) == sorted(c["id"] for c in containers)
    assert sum(len((v["containers"]["containers"] or {}).get("container", [])) for v in out["nm"].values()) > 0


def test_single_items_and_filters(seen: tuple[dict[str, Any], Any]) -> None:
    out, _ = seen
    assert out["one_container"]["container"]["id"] == out["cid"]
    assert out["one_app"]["app"] == out["app"]
    assert out["app"] in out["by_user"]["apps"]["app"] and out["by_nobody"] == {"apps": {}}


def test_nm_refusals_are_remote_exceptions(seen: tuple[dict[str, Any], Any]) -> None:
    """Malformed ids are 400, unknown ones 404, a path without a node id a 400 naming how to give one."""
    out, _ = seen
    assert out["refusals"] == [
        (400, "IllegalArgumentException"),
        (404, "NotFoundException"),
        (400, "BadRequestException"),
        (404, "NotFoundException"),
        (400, "BadRequestException"),
        (404, "NotFoundException"),
        (400, "BadRequestException"),
        (400, "BadRequestException"),
    ]
