"""The seam of the exact shortcuts (actors/_shortcuts/__init__.py): the rest of the package reaches them through the
package only, they import no role actor module at run time (read from the sources' imports), no module patches a
class it imported, and the roles' answers are typed (no response that is a bare int)."""

from __future__ import annotations

import ast
import importlib
import inspect
from pathlib import Path

import yarnball
from yarnball.actors import Actor

PACKAGE = Path(yarnball.__file__).resolve().parent
SEAM = "yarnball.actors._shortcuts"
SHORTCUTS = PACKAGE / "actors" / "_shortcuts"


def _module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _runtime_imports(path: Path, name: str | None = None) -> set[str]:
    """Every module ``path`` (module ``name``) imports outside ``if TYPE_CHECKING:`` blocks, at module level or in
    a function; a ``from m import name`` also counts ``m.name`` (a submodule when it is one)."""
    name = name or _module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()

    def visit(node: ast.AST) -> None:
        if isinstance(node, ast.If) and _is_type_checking(node.test):
            for child in node.orelse:
                visit(child)
            return
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
                base = f"{anchor}.{base}" if base else anchor
            found.add(base)
            found.update(f"{base}.{alias.name}" for alias in node.names)
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(ast.parse(path.read_text(), filename=str(path)))
    return found


def _role_modules() -> set[str]:
    """The modules of yarnball/actors that define an actor class (the role actors: RM, NM, AMs, monitors...)."""
    roles = set()
    for path in (PACKAGE / "actors").glob("*.py"):
        name = _module_name(path)
        module = importlib.import_module(name)
        for _, cls in inspect.getmembers(module, inspect.isclass):
            if cls.__module__ == name and issubclass(cls, Actor) and cls is not Actor:
                roles.add(name)
    return roles


def test_the_role_modules_are_found() -> None:
    roles = _role_modules()
    expected = {f"yarnball.actors._{m}" for m in ("resourcemanager", "nodemanager", "appmaster")}
    assert expected <= roles
    assert not any(r.startswith(SEAM) for r in roles)


def test_only_the_seam_is_imported_from_outside() -> None:
    """No module of the package outside actors/_shortcuts imports one of its modules (or a private name of the
    seam) other than through ``yarnball.actors._shortcuts``."""
    offenders = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if SHORTCUTS in path.parents:
            continue
        for imported in _runtime_imports(path):
            if imported.startswith(SEAM + ".") and imported.rpartition(".")[2].startswith("_"):
                offenders.append((_module_name(path), imported))
    assert offenders == []
    # the role actors do use the seam (the check above is not vacuous)
    for role in ("_resourcemanager", "_containermanager", "_appmaster", "_heartbeats"):
        assert SEAM in _runtime_imports(PACKAGE / "actors" / f"{role}.py"), role


def test_shortcut_modules_import_no_role_actor_at_run_time() -> None:
    roles = _role_modules()
    modules = sorted(SHORTCUTS.glob("*.py"))
    assert len(modules) >= 8
    offenders = [
        (_module_name(path), imported)
        for path in modules
        for imported in _runtime_imports(path)
        if imported in roles or imported.startswith("yarnball.launcher")
    ]
    assert offenders == []


def _patches(path: Path) -> list[tuple[str, str]]:
    """``Name.attr = ...`` (or ``+=``) anywhere in ``path`` where ``Name`` is a name the module imported with
    ``from m import Name``: a class (or registry) of another module changed from this one."""
    tree = ast.parse(path.read_text(), filename=str(path))
    imported = {alias.asname or alias.name for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)
                for alias in node.names}  # fmt: skip
    found = []
    for node in ast.walk(tree):
        targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(
            node, (ast.AugAssign, ast.AnnAssign)) else []  # fmt: skip
        for target in targets:
            if isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) and target.value.id in imported:
                found.append((target.value.id, target.attr))
    return found


def test_no_module_patches_what_it_imported() -> None:
    """No class attribute or registry of another module is set at import or run time (the roles are passed to the
    layer when the cluster is built, or expose what it asks)."""
    offenders = {_module_name(p): found for p in sorted(PACKAGE.rglob("*.py")) if (found := _patches(p))}
    assert offenders == {}


def test_the_patch_reader_sees_a_class_patched(tmp_path: Path) -> None:
    """The reader itself: an attribute set on an imported name is found, one set on a local object is not."""
    source = tmp_path / "_probe.py"
    source.write_text(
        "from m import Timer, ROLES\nTimer.deliver = 1\nROLES.am += 1\nclass C: pass\nC.x = 2\n"
        "def f(obj):\n    obj.y = 3\n"
    )
    assert _patches(source) == [("Timer", "deliver"), ("ROLES", "am")]


def test_heartbeat_responses_are_typed_responses() -> None:
    """ResourceTrackerService's heartbeat chain answers with a NodeHeartbeatResponse, never a bare response id (read
    from the source: a compiled method keeps no annotations)."""
    from yarnball.actors import _resourcetracker
    from yarnball.protocols import NodeHeartbeatResponse

    tree = ast.parse((PACKAGE / "actors" / "_resourcetracker.py").read_text())
    (cls,) = [n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "ResourceTrackerService"]
    returns = {f.name: ast.unparse(f.returns) for f in cls.body if isinstance(f, ast.FunctionDef) and f.returns}
    for name in ("node_heartbeat", "_respond", "_respond_updated"):
        assert returns[name] == "NodeHeartbeatResponse", name
    assert _resourcetracker.NodeHeartbeatResponse is NodeHeartbeatResponse


def test_the_checker_sees_function_level_imports_and_skips_type_checking(tmp_path: Path) -> None:
    """The import reader itself: a function-level import counts, an ``if TYPE_CHECKING:`` one does not."""
    source = tmp_path / "_probe.py"
    source.write_text(
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n    from yarnball.actors._nodemanager import NodeManager\n"
        "def f():\n    from yarnball.actors._resourcemanager import ResourceManager\n"
        "    from . import _routes\n"
    )
    found = _runtime_imports(source, "yarnball.actors._shortcuts._probe")
    assert "yarnball.actors._resourcemanager" in found
    assert "yarnball.actors._nodemanager" not in found
    assert "yarnball.actors._shortcuts._routes" in found  # (relative, resolved)
