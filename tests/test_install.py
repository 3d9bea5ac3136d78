"""A fresh machine: the install falls back to pure Python on any compile failure, and says what it built."""

from __future__ import annotations

import shutil
import sys
import threading
import types
from pathlib import Path
from typing import Any

import pytest

import yarnball
from yarnball import _native
from yarnball.launcher import _about, cli

ROOT = Path(__file__).resolve().parents[1]


def _run_setup_py(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, mypycify: Any) -> dict[str, Any]:
    """Execute a copy of setup.py (beside a copy of yarnball/_native.py) with setuptools.setup and mypyc stubbed."""
    (tmp_path / "yarnball").mkdir()
    shutil.copy(ROOT / "yarnball" / "_native.py", tmp_path / "yarnball" / "_native.py")
    shutil.copy(ROOT / "setup.py", tmp_path / "setup.py")
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    captured: dict[str, Any] = {}
    import setuptools

    monkeypatch.setattr(setuptools, "setup", lambda **kw: captured.update(kw))
    fake_build = types.ModuleType("mypyc.build")
    fake_build.mypycify = mypycify  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "mypyc.build", fake_build)
    monkeypatch.delenv("YARNBALL_PURE_PYTHON", raising=False)
    path = tmp_path / "setup.py"
    exec(compile(path.read_text(), str(path), "exec"), {"__file__": str(path), "__name__": "__main__"})
    return captured


def test_a_mypy_failure_falls_back_to_pure_python(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any) -> None:
    """mypy's errors end mypycify with SystemExit before any C exists: the install goes on, pure, and says why."""

    def failing(*args: Any, **kwargs: Any) -> list[object]:
        raise SystemExit(1)

    captured = _run_setup_py(tmp_path, monkeypatch, failing)
    assert captured["ext_modules"] == []
    assert "installing the pure Python modules instead" in capsys.readouterr().err
    note = (tmp_path / "yarnball" / "_build.txt").read_text()
    assert "fell back to pure Python" in note and "SystemExit" in note


def test_a_successful_compile_stage_keeps_the_extensions(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """When mypycify works, its extensions are built, with the huge-page arena module, and no pure-Python note is
    left."""
    sentinel = types.SimpleNamespace(include_dirs=[], extra_compile_args=[], extra_link_args=[])
    captured = _run_setup_py(tmp_path, monkeypatch, lambda *a, **k: [sentinel])
    modules = captured["ext_modules"]
    assert isinstance(modules, list) and modules[0] is sentinel and len(modules) == 2
    # one C file per module (multi_file), each including the group's header from build/yarnball/
    assert sentinel.include_dirs == [str(Path("build") / "yarnball")]
    if sys.platform.startswith("linux"):  # the group's calls bound inside its library, not through the PLT
        assert sentinel.extra_compile_args == ["-fno-semantic-interposition"]
        assert sentinel.extra_link_args == ["-Wl,-Bsymbolic-functions"]
    assert modules[1].name == "yarnball._hugearena" and modules[1].sources == ["yarnball/_hugearena.c"]
    assert (tmp_path / "yarnball" / "_build.txt").read_text() == ""


def test_the_groups_c_files_compile_on_every_core_and_link_in_their_order(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """setuptools compiles one extension's C files one after another; the mypyc group is one extension of many C
    files, which the build compiles ``parallel`` at a time, handing the link its objects in the sources' order."""
    from setuptools.command.build_ext import build_ext

    captured = _run_setup_py(tmp_path, monkeypatch, lambda *a, **k: [])
    sources = []
    for i, size in enumerate([10, 300, 20, 200]):  # (compiled largest first)
        source = tmp_path / f"m{i}.c"
        source.write_text("x" * size)
        sources.append(str(source))
    both_running = threading.Barrier(2, timeout=60)  # passes only when two compiles run at once
    calls: list[list[str]] = []

    class Compiler:
        def compile(self, files: list[str], output_dir: str | None = None, **kwargs: Any) -> list[str]:
            calls.append(files)
            if len(calls) <= 2:
                both_running.wait()
            return [f"{f}.{output_dir}.o" for f in files]

    command = captured["cmdclass"]["build_ext"].__new__(captured["cmdclass"]["build_ext"])
    command.parallel, command.compiler = 2, Compiler()
    linked: list[str] = []
    monkeypatch.setattr(build_ext, "build_extensions", lambda self: linked.extend(self.compiler.compile(sources, "t")))
    command.build_extensions()
    assert linked == [f"{s}.t.o" for s in sources]
    assert sorted(calls) == sorted([s] for s in sources) and calls[:2] in (
        [[sources[1]], [sources[3]]],
        [[sources[3]], [sources[1]]],
    )


def test_mypyc_checks_with_its_own_settings_which_skip_the_actor_layers(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """mypycify gets setup.py's own mypy settings (not [tool.mypy], the whole package's type check): under them the
    compiled modules type-check and the actor and launcher layers are not even parsed, which keeps the compile at
    seconds."""
    import mypy.api

    seen: dict[str, Any] = {}

    def recording(args: list[str], **kwargs: Any) -> list[object]:
        config = next(a for a in args if a.startswith("--config-file="))
        seen["config"] = Path(config.split("=", 1)[1]).read_text(encoding="utf-8")  # (gone after the call)
        seen["paths"] = [a for a in args if not a.startswith("-")]
        return []

    _run_setup_py(tmp_path, monkeypatch, recording)
    config = tmp_path / "mypyc.ini"
    config.write_text(seen["config"], encoding="utf-8")
    monkeypatch.chdir(ROOT)
    args = [f"--config-file={config}", f"--cache-dir={tmp_path / 'cache'}", "-v", *seen["paths"]]
    out, err, status = mypy.api.run(args)
    assert status == 0, out
    parsed = {line.rsplit("(", 1)[1].rstrip(")") for line in err.splitlines() if line.startswith("LOG:  Parsing ")}
    assert set(_native.MYPYC_MODULES) <= parsed
    assert "yarnball.actors._resourcemanager" not in parsed and "yarnball.launcher._cluster" not in parsed


def test_version_names_version_build_python_and_ray(capsys: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """`yarnball --version`: five lines, the build says pure Python and why when it is."""
    monkeypatch.setattr(_native, "build_status", lambda: (False, "because a test said so"))
    monkeypatch.setattr(_about, "ray_version", lambda: None)
    # as a pure-Python install: no extension (nor the package attribute an earlier import left)
    monkeypatch.setitem(sys.modules, "yarnball._hugearena", None)
    monkeypatch.delattr(yarnball, "_hugearena", raising=False)
    assert cli.main(["--version"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("yarnball ") and lines[0].split()[1][0].isdigit()
    assert lines[1] == "build: pure Python (because a test said so)"
    assert lines[2].startswith("Python 3.")
    assert lines[3] == "Ray: not installed (the ray backend needs `pip install -e '.[ray]'`)"
    assert lines[4] == "memory: CPython's own arenas (the huge-page arena extension is not built)"


def test_version_reports_the_real_build() -> None:
    """The build line agrees with the modules this process actually runs."""
    compiled, _ = _native.build_status()
    assert compiled == bool(_native.compiled_modules())


def test_ray_backend_without_ray_exits_2_with_the_install_command(
    tmp_path: Path, capsys: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """--backend ray on an install without the [ray] extra: exit 2, one line with the exact command."""
    monkeypatch.setattr(_about, "ray_version", lambda: None)
    trace = ROOT / "examples" / "traces"
    code = cli.main(
        [
            "simulate",
            "--tracelocation",
            str(trace / "sample-sls.json"),
            "--nodes",
            str(trace / "sample-nodes.json"),
            "--output-dir",
            str(tmp_path / "out"),
            "--backend",
            "ray",
        ]
    )
    assert code == 2
    err = capsys.readouterr().err
    assert "--backend ray needs Ray" in err and "pip install -e '.[ray]'" in err
    assert not (tmp_path / "out").exists()


def test_a_pure_build_says_so_once_at_the_start_of_simulate(
    tmp_path: Path, capsys: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A pure-Python build prints one note on stderr when `yarnball simulate` starts; a compiled one none."""
    trace = ROOT / "examples" / "traces"
    args = [
        "simulate",
        "--tracelocation",
        str(trace / "sample-sls.json"),
        "--nodes",
        str(trace / "sample-nodes.json"),
        "--no-plots",
        "--no-progress",
    ]
    monkeypatch.setattr(_native, "build_status", lambda: (False, "for the test"))
    assert cli.main([*args, "--output-dir", str(tmp_path / "a")]) == 0
    err = capsys.readouterr().err
    assert err.count("note: running the pure-Python build (for the test)") == 1
    monkeypatch.setattr(_native, "build_status", lambda: (True, "14 modules"))
    assert cli.main([*args, "--output-dir", str(tmp_path / "b")]) == 0
    assert "pure-Python" not in capsys.readouterr().err
