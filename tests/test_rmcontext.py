"""The RM actor's view of its RMContext (actors/_rmcontextfields.py) stays the context's: the same fields with the
same declared types, each read and set through the RM, and an RM restart's empty books seen through it."""

from __future__ import annotations

import ast
from pathlib import Path

import yarnball
from yarnball.actors._resourcemanager import ResourceManager
from yarnball.launcher import Cluster
from yarnball.launcher.workloads import synthetic_workload
from yarnball.protocols import Configuration

ACTORS = Path(yarnball.__file__).parent / "actors"


def _annotations(module: str, class_name: str) -> dict[str, str]:
    """The class's annotated names in ``actors/<module>.py`` and their annotations as written, ``if TYPE_CHECKING:``
    blocks included (read from the source: the context's module is compiled)."""
    tree = ast.parse((ACTORS / f"{module}.py").read_text(encoding="utf-8"))
    cls = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == class_name)
    found: dict[str, str] = {}
    for node in ast.walk(cls):
        if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            found[node.target.id] = ast.unparse(node.annotation)
    return found


def test_the_rm_view_declares_the_context_fields_with_their_types() -> None:
    context = _annotations("_rmcontext", "RMContext")
    view = _annotations("_rmcontextfields", "RMContextFields")
    view.pop("context")
    # the services and the kernel are the RM's own slots and attribute (its delivery reads them on every message)
    own = {"kernel", "dispatcher", "app_manager", "resource_tracker", "application_master_service"}
    assert set(view) == set(context) - own
    mismatched = {name: (view[name], context[name]) for name in view if view[name] != context[name]}
    # (the view names the scheduler by its interface and the secret managers by their class; the compiled context
    # holds them as plain objects)
    assert mismatched == {"scheduler": ("ResourceScheduler", "Any"), "secrets": ("RMSecretManagers", "Any")}


def test_each_field_is_read_and_set_through_the_rm() -> None:
    workload = synthetic_workload(4, 3, seed=1, maps=(1, 3), reduces=(0, 1), load=1.0)
    cluster = Cluster(Configuration({}), workload.nodes, seed=1)
    cluster.submit_workload(workload)
    cluster.run(until_ms=60_000)
    rm: ResourceManager = cluster.rm
    assert rm.apps and rm.apps is rm.context.apps and rm.nodes is rm.context.nodes
    for name in _annotations("_rmcontextfields", "RMContextFields"):
        if name != "context":
            value = getattr(rm, name)
            assert value == getattr(rm.context, name), name
            if not isinstance(value, int):  # (a compiled int field is a new int object per read)
                assert value is getattr(rm.context, name), name
    fresh: dict[object, object] = {}
    rm.apps = fresh  # type: ignore[assignment]
    assert rm.context.apps is fresh
    # an RM restart's loss of state empties the context's books, which the RM's attributes show
    rm.context.reset_books()
    assert rm.apps == {} and rm.nodes == {} and rm.live == set() and rm.context.apps is rm.apps
