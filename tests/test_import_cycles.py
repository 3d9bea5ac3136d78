"""No import cycles among yarnball's modules, function-level imports included.

The graph: one node per module of the package (``yarnball/**/*.py``; a package is its ``__init__``; a compiled
module is known by its ``.pyi``). Every ``import`` and ``from ... import`` anywhere in a module's source is an edge
-- at module level, inside functions and classes, inside ``try`` -- except those under ``if TYPE_CHECKING:``, which
never run. Relative imports are resolved against the module's package. ``from pkg import name`` is an edge to
``pkg.name`` when that is a module, else to ``pkg`` (its ``__init__``: it re-exports its submodules, so importing
``yarnball.launcher`` imports whatever its ``__init__`` does). ``import a.b.c`` and ``from a.b.c import x`` are one
edge to ``a.b.c``: the parent packages Python initializes on the way are not counted, so a package's ``__init__``
that imports its own submodules is not a cycle with each of them; what the ``__init__`` imports is counted for
whoever imports the package by its name.
"""

from __future__ import annotations

import ast
from pathlib import Path

import yarnball

PACKAGE = Path(yarnball.__file__).parent


def _modules() -> dict[str, tuple[Path | None, bool]]:
    """Module name -> (its source, or None for a compiled module; whether it is a package)."""
    found: dict[str, tuple[Path | None, bool]] = {}
    for path in sorted(PACKAGE.rglob("*.py*")):
        if path.suffix not in (".py", ".pyi"):
            continue
        parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
        is_package = parts[-1] == "__init__"
        name = ".".join(parts[:-1] if is_package else parts)
        if path.suffix == ".py":
            found[name] = (path, is_package)
        else:
            found.setdefault(name, (None, False))
    return found


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _imports(node: ast.AST) -> list[ast.Import | ast.ImportFrom]:
    """Every import under ``node``, leaving out the bodies of ``if TYPE_CHECKING:`` (their ``else`` is kept)."""
    out: list[ast.Import | ast.ImportFrom] = []
    for child in ast.iter_child_nodes(node):
        if isinstance(child, ast.If) and _is_type_checking(child.test):
            for other in child.orelse:
                out += _imports_of(other)
            continue
        out += _imports_of(child)
    return out


def _imports_of(node: ast.AST) -> list[ast.Import | ast.ImportFrom]:
    here = [node] if isinstance(node, ast.Import | ast.ImportFrom) else []
    return here + _imports(node)


def _known(name: str, modules: dict[str, tuple[Path | None, bool]]) -> str | None:
    """``name``, or the nearest enclosing module that exists (``a.b.attr`` -> ``a.b``)."""
    while name and name not in modules:
        name = name.rpartition(".")[0]
    return name or None


def import_graph() -> dict[str, set[str]]:
    """Module -> the yarnball modules it imports (the rule is the module docstring's)."""
    modules = _modules()
    graph: dict[str, set[str]] = {}
    for name, (path, is_package) in modules.items():
        edges: set[str] = set()
        graph[name] = edges
        if path is None:
            continue
        package = name if is_package else name.rpartition(".")[0]
        for node in _imports(ast.parse(path.read_text(encoding="utf-8"), str(path))):
            if isinstance(node, ast.Import):
                targets = [_known(alias.name, modules) for alias in node.names]
            else:
                if node.level:
                    base = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                    source = ".".join([*base, *([node.module] if node.module else [])])
                else:
                    source = node.module or ""
                if not source.startswith("yarnball"):
                    continue
                targets = [
                    f"{source}.{alias.name}" if f"{source}.{alias.name}" in modules else _known(source, modules)
                    for alias in node.names
                ]
            edges.update(t for t in targets if t is not None and t.split(".")[0] == "yarnball" and t != name)
    return graph


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One cycle of ``graph`` (its modules in import order, the first repeated at the end), or None."""
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    path: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        path.append(node)
        for nxt in sorted(graph[node]):
            if state.get(nxt) == 1:
                return [*path[path.index(nxt) :], nxt]
            if nxt not in state:
                found = visit(nxt)
                if found is not None:
                    return found
        path.pop()
        state[node] = 2
        return None

    for start in sorted(graph):
        if start not in state:
            found = visit(start)
            if found is not None:
                return found
    return None


def test_the_graph_sees_function_level_and_relative_imports() -> None:
    """The graph has the imports the rule names: a function-level one, a submodule named in ``from pkg import``."""
    graph = import_graph()
    assert "yarnball.launcher.web" in graph["yarnball.launcher._cluster"]  # inside Cluster.serve
    assert "yarnball._native" in graph["yarnball"]  # `from yarnball import _native`: the submodule
    assert "yarnball._hugearena" in graph["yarnball.launcher._memory"]  # a compiled module, known by its .pyi


def test_a_cycle_is_found_and_printed() -> None:
    """find_cycle returns the modules of a cycle in import order."""
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": set()}
    assert find_cycle(graph) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": set()}) is None


def test_no_import_cycles() -> None:
    """No module of yarnball imports, directly or through others, a module that imports it back."""
    cycle = find_cycle(import_graph())
    assert cycle is None, "import cycle: " + " -> ".join(cycle or [])
