"""No module of the package reads or writes another object's private attributes.

The rule (CONTRIBUTING.md, "Private attributes"): a module touches ``obj._x`` (or ``getattr(obj, "_x")``,
``setattr``, ``hasattr``, ``delattr`` with the name spelled out) only if ``_x`` is defined in that same module (assigned
as ``self._x`` or ``cls._x``, a class attribute, a ``__slots__`` entry, a function or method, a module-level name),
or ``obj`` is ``self``, ``cls`` or ``super()``. Dunder names and enum members' sunder names are not private. A private
name from outside the package (the standard library's) goes through the small allowlist below, each with its reason.
"""

from __future__ import annotations

import ast
from pathlib import Path

import yarnball

PACKAGE = Path(yarnball.__file__).resolve().parent

#: Enum's reserved sunder names (``enum`` documents them as part of its API).
ENUM_SUNDER = {"_value_", "_name_", "_missing_", "_ignore_", "_order_", "_generate_next_value_", "_add_alias_"}

#: (module path relative to the package, attribute) -> why the access is allowed.
ALLOWED: dict[tuple[str, str], str] = {
    ("actors/executors/_task.py", "_exit"): "os._exit is the documented way for a forked child to end without running "
    "the atexit handlers and buffers it inherited from its parent",
}


_SELF_NAMES = {"self", "cls"}
_NAMED_ACCESS = {"getattr", "setattr", "hasattr", "delattr"}


def _private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__")) and name not in ENUM_SUNDER


def _defined(tree: ast.Module) -> set[str]:
    """The private names a module defines: attributes it assigns on self/cls, class attributes and slots,
    functions, methods, classes and module-level names."""
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
            if isinstance(node.value, ast.Name) and node.value.id in _SELF_NAMES:
                names.add(node.attr)
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                for leaf in ast.walk(target):
                    if isinstance(leaf, ast.Name):
                        names.add(leaf.id)
                if isinstance(target, ast.Name) and target.id == "__slots__" and node.value is not None:
                    slots = ast.walk(node.value)
                    names.update(c.value for c in slots if isinstance(c, ast.Constant) and isinstance(c.value, str))
    return names


def _is_self(node: ast.expr) -> bool:
    if isinstance(node, ast.Name):
        return node.id in _SELF_NAMES
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "super"


def _accesses(tree: ast.Module) -> list[tuple[int, str, ast.expr]]:
    """Every (line, private attribute name, object) the module reads or writes."""
    out: list[tuple[int, str, ast.expr]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and _private(node.attr):
            out.append((node.lineno, node.attr, node.value))
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id in _NAMED_ACCESS
            and len(node.args) >= 2
            and isinstance(node.args[1], ast.Constant)
            and isinstance(node.args[1].value, str)
            and _private(node.args[1].value)
        ):
            out.append((node.lineno, node.args[1].value, node.args[0]))
    return out


def violations(rel: str, source: str) -> list[str]:
    """The private accesses that the rule forbids in the module ``rel`` (its path in the package) of text ``source``,
    as ``file:line: obj._x``."""
    tree = ast.parse(source, filename=rel)
    defined = _defined(tree)
    found = []
    for line, name, obj in _accesses(tree):
        if name in defined or _is_self(obj) or (rel, name) in ALLOWED:
            continue
        found.append(f"yarnball/{rel}:{line}: {ast.unparse(obj)}.{name}")
    return found


def _package_files() -> list[Path]:
    return sorted(PACKAGE.rglob("*.py"))


def test_no_module_reaches_into_another_objects_private_attributes() -> None:
    """No module touches a private attribute it does not define on a foreign object."""
    found = []
    for path in _package_files():
        rel = path.relative_to(PACKAGE).as_posix()
        found.extend(violations(rel, path.read_text()))
    assert not found, "private attributes of other objects:\n" + "\n".join(found)


def test_every_allowlist_entry_is_still_needed() -> None:
    """Each allowed access still occurs (a stale entry would silently allow a new one)."""
    for rel, name in ALLOWED:
        tree = ast.parse((PACKAGE / rel).read_text())
        assert any(n == name for _, n, _ in _accesses(tree)), f"{rel}: {name} is allowed but no longer accessed"


def test_the_scan_sees_a_reach_in() -> None:
    """The scan flags a foreign private attribute, read, written or named in getattr, and spares self, cls,
    super(), dunders, enum sunders and what the module defines."""
    source = (
        "class A:\n"
        "    _kind = 1\n"
        "    def __init__(self, other):\n"
        "        self._mine = 1\n"
        "        other._mine = 2\n"
        "        other._kind\n"
        "        super()._base()\n"
        "        other.__class__\n"
        "        other._value_\n"
        "        other._theirs\n"
        "        other._set = 3\n"
        "        getattr(other, '_hidden', None)\n"
    )
    assert violations("mod.py", source) == [
        "yarnball/mod.py:10: other._theirs",
        "yarnball/mod.py:11: other._set",
        "yarnball/mod.py:12: other._hidden",
    ]
