"""Shared helpers for the web-layer tests: the bundled trace's finished run, and rest.md's field tables."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
TRACE = REPO / "examples" / "traces" / "sample-sls.json"
NODES = REPO / "examples" / "traces" / "sample-nodes.json"
REST_MD = REPO.parent.parent / "shared" / "reference" / "rest.md"
if not REST_MD.is_file():  # a worktree lives at /work/wt/NAME, CI's clone beside shared/
    REST_MD = next(
        (p / "shared" / "reference" / "rest.md" for p in REPO.parents if (p / "shared/reference/rest.md").is_file()),
        REST_MD,
    )


def build_cluster(conf: Any = None) -> tuple[Any, Any]:
    """The bundled trace on its nodes, seed 0, as the CLI builds it (not yet run)."""
    from yarnball.launcher._cluster import Cluster
    from yarnball.launcher.workloads import TraceDefaults, load_workload
    from yarnball.protocols import Configuration

    conf = conf if conf is not None else Configuration()
    workload = load_workload("SLS", str(TRACE), str(NODES), TraceDefaults.from_configuration(conf), 0)
    cluster = Cluster(conf, workload.nodes, seed=0)
    cluster.submit_workload(workload)
    return cluster, workload


# -- rest.md -----------------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class DocField:
    name: str
    types: tuple[str, ...]  # the doc's type words for this field ("long", "string", "resource", ...)
    meaning: str


def _section(text: str, heading: str) -> str:
    start = text.index(heading)
    nxt = re.search(r"^#{2,3} ", text[start + len(heading) :], re.M)
    return text[start : start + len(heading) + nxt.start()] if nxt else text[start:]


def _tables(section: str) -> list[list[list[str]]]:
    """Every markdown table of ``section`` as rows of cells (header and rule rows dropped)."""
    tables: list[list[list[str]]] = []
    current: list[list[str]] = []
    for line in section.splitlines():
        if line.startswith("|"):
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if all(set(c) <= set("-: ") for c in cells):
                continue
            current.append(cells)
        elif current:
            tables.append(current[1:])  # drop the header row
            current = []
    if current:
        tables.append(current[1:])
    return tables


def doc_fields(heading: str, *, after: str | None = None, table: int = 0) -> list[DocField]:
    """The field rows of the ``table``-th table of the section ``heading`` (from the paragraph ``after`` on)."""
    section = _section(REST_MD.read_text(encoding="utf-8"), heading)
    if after is not None:
        section = section[section.index(after) :]
    out: list[DocField] = []
    for row in _tables(section)[table]:
        field_cell = re.sub(r"\(.*?\)", "", row[0])  # "(`percentage`/`absolute`)" lists values, not fields
        names = [n.rstrip("[]") for n in re.findall(r"`([A-Za-z][A-Za-z0-9]*(?:\[\])?)`", field_cell)]
        types = tuple(t.strip() for t in re.split(r"[/,]", re.sub(r"\(.*?\)", "", row[1])) if t.strip())
        meaning = row[2] if len(row) > 2 else ""
        if len(types) == len(names) and len(names) > 1:
            out += [DocField(n, (t,), meaning) for n, t in zip(names, types, strict=True)]
        else:
            out += [DocField(n, types, meaning) for n in names]
    return out


def doc_prose_names(heading: str, start: str) -> list[str]:
    """The backticked names of the paragraph of section ``heading`` that begins with ``start``."""
    section = _section(REST_MD.read_text(encoding="utf-8"), heading)
    para = section[section.index(start) :].split("\n", 1)[0]
    return re.findall(r"`([A-Za-z]+)`", para.split(":", 1)[1])


def doc_remote_exception_keys() -> list[str]:
    """The keys of §1's RemoteException body, e.g. ``{"RemoteException":{"exception":...}}``."""
    text = REST_MD.read_text(encoding="utf-8")
    body = re.search(r'`(\{"RemoteException":\{.*?\}\})`', text)
    assert body is not None, "rest.md §1 has no RemoteException example"
    return re.findall(r'"([A-Za-z]+)":"', body.group(1))


def doc_statitem_keys() -> list[str]:
    text = REST_MD.read_text(encoding="utf-8")
    m = re.search(r'"statItem":\[\{([^}]*)\}\]', text)
    assert m is not None, "rest.md §3.7 has no statItem shape"
    return re.findall(r'"([A-Za-z]+)"', m.group(1))


_PY_TYPES: dict[str, tuple[type, ...]] = {
    "long": (int,),
    "int": (int,),
    "float": (int, float),
    "double": (int, float),
    "string": (str,),
    "boolean": (bool,),
    "bool": (bool,),
    "resource": (dict,),
    "object": (dict,),
    "wrapper": (dict,),
    "array": (list,),
    "map": (dict,),
}


def check_fields(obj: dict[str, Any], fields: list[DocField], where: str) -> None:
    """Every documented field is present with a value of its documented type."""
    for f in fields:
        assert f.name in obj, f"{where}: {f.name} (rest.md: {f.types}) is missing"
        if "\u2013" in f.types:  # the doc's en dash: no type given
            continue  # the doc gives no type for some of the names of this row: presence only
        allowed: tuple[type, ...] = ()
        for t in f.types:
            allowed += _PY_TYPES.get(t.split()[0].lower(), ())
        if not allowed:
            continue  # an unknown word: presence only
        value = obj[f.name]
        if bool not in allowed and isinstance(value, bool):
            raise AssertionError(f"{where}: {f.name} is a bool, rest.md says {f.types}")
        assert isinstance(value, allowed), f"{where}: {f.name}={value!r} is not {f.types}"
        if f.types == ("resource",):
            assert {"memory", "vCores"} <= set(value), f"{where}: {f.name} is not a resource object"


# -- a real socket -----------------------------------------------------------------------------------------------------
class ThreadServer:
    """An aiohttp app served on 127.0.0.1:<free port> from a thread with its own event loop (for clients that use
    blocking sockets: requests, a browser). ``with ThreadServer(app) as url: ...``"""

    def __init__(self, app: Any) -> None:
        self.app = app
        self.url = ""
        self._ready = __import__("threading").Event()
        self._stop: Any = None
        self._thread: Any = None

    def _serve(self) -> None:
        import asyncio

        from aiohttp import web

        loop = asyncio.new_event_loop()
        runner = web.AppRunner(self.app, handle_signals=False)
        loop.run_until_complete(runner.setup())
        loop.run_until_complete(web.TCPSite(runner, "127.0.0.1", 0).start())
        self.url = f"http://127.0.0.1:{runner.addresses[0][1]}"
        self._stop = loop.create_future()
        self._ready.set()
        loop.run_until_complete(self._stop)
        loop.run_until_complete(runner.cleanup())
        loop.close()

    def __enter__(self) -> str:
        import threading

        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()
        assert self._ready.wait(60), "the test server did not start"
        return self.url

    def __exit__(self, *exc: object) -> None:
        stop = self._stop
        stop.get_loop().call_soon_threadsafe(stop.set_result, None)
        self._thread.join(60)
