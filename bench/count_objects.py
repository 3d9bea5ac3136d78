"""Allocations per container allocation in the measured period of a busy run, and the Python lines that make them.

    python bench/count_objects.py --trees . /path/to/other/checkout          # busy 2,000 nodes, 10 s measured
    python bench/count_objects.py --trees . --top 40 --depth 2               # one tree, sites with their callers

Each tree runs in its own process with its own yarnball first on ``sys.path`` (as bench/count_instructions.py), on
bench_simulation.py's busy trace (defaults: 2,000 nodes, SLS-like task lengths, 60 s warm-up, 10 s measured). Just
before the measured period a small C extension (bench/_alloccount.c, built here with gcc against this Python's
headers) wraps CPython's object and memory allocators with counters; just after, it puts them back. What is counted
is every block asked of the allocators: ``PyObject_Malloc`` (objects: structs, strings, ints, dict keys, bound
methods, coroutines...) and ``PyMem_Malloc`` (buffers: list and set storage). Objects CPython takes from its free
lists (small tuples, lists, dicts, floats) are not allocations and are not counted. Each count is charged to the
Python line running when the block was asked for (``--depth`` lines deep: the line and its callers), so a call into
C code (msgspec, a dict copy) is charged to the line that made it.

The count is exact and does not depend on the machine's load: the same tree and seed give the same numbers to
within a few blocks (``PYTHONHASHSEED=0`` in every child). Trees run their Python sources (``YARNBALL_PURE_PYTHON=1``)
unless ``--compiled`` is given: a compiled tree allocates differently (no frames, native attributes), and a
comparison of one compiled and one interpreted tree would compare the builds, not the code.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import sysconfig
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from compare_trees import BUSY_RUN_UNTIL_MEASURED, add_run_arguments, run_params, tree_spec

HERE = Path(__file__).resolve().parent

CHILD = """
import gc, json, linecache, os, sys
root, ext_dir = sys.argv[1], sys.argv[4]
sys.path[:0] = [root, root + "/bench", ext_dir]
import _alloccount
"""
CHILD += BUSY_RUN_UNTIL_MEASURED
CHILD += """\
depth = int(sys.argv[5])
blocks = sys.getallocatedblocks()
_alloccount.start(depth)
cluster.run(until_ms=end * 1000)
objs, mems, reallocs, unattributed, sites = _alloccount.stop()
net = sys.getallocatedblocks() - blocks
prefixes = sorted({os.path.realpath(root) + "/", os.path.realpath(sys.prefix) + "/lib/python3.11/",
                   sys.prefix + "/lib/python3.11/"}, key=len, reverse=True)
def where(code, line, lasti=0):
    name = code.co_filename
    for p in prefixes:
        if name.startswith(p):
            name = name[len(p):]
            break
    if line <= 0:  # the call's set-up, before its first line runs: its cells (closures' variables)
        cells = ", ".join(code.co_cellvars)
        return name, code.co_qualname, code.co_firstlineno, "(call set-up: cells of " + cells + ")"
    return name, code.co_qualname, line, linecache.getline(code.co_filename, line).strip()
lines, functions = {}, {}
for count, domain, frames in sites:
    path, qualname, line, text = where(*frames[0])
    key = " <- ".join("%s:%d" % where(*f)[0:3:2] for f in frames) + (" [buffer]" if domain else "")
    entry = lines.setdefault(key, [0, "%s %s" % (qualname, text)])
    entry[0] += count
    fkey = "%s:%s" % (path, qualname)
    functions[fkey] = functions.get(fkey, 0) + count
print(json.dumps({"events": cluster.kernel.events_processed - events,
                  "allocations": cluster.rm.counters["containers_allocated"] - allocated,
                  "objects": objs, "buffers": mems, "reallocs": reallocs, "net_blocks": net,
                  "unattributed": unattributed, "lines": lines, "functions": functions}))
"""


def build_extension(out_dir: str) -> None:
    """Compile bench/_alloccount.c into ``out_dir`` (an importable ``_alloccount`` for this Python)."""
    suffix = sysconfig.get_config_var("EXT_SUFFIX")
    include = sysconfig.get_paths()["include"]
    cmd = ["gcc", "-O2", "-shared", "-fPIC", f"-I{include}", str(HERE / "_alloccount.c"), "-o"]
    try:
        subprocess.run([*cmd, f"{out_dir}/_alloccount{suffix}"], check=True, capture_output=True, text=True)
    except FileNotFoundError:
        raise SystemExit("count_objects.py: gcc is not installed (Debian: apt-get install gcc)") from None
    except subprocess.CalledProcessError as e:
        raise SystemExit(f"count_objects.py: building bench/_alloccount.c failed:\n{e.stderr[-2000:]}") from None


def count(path: str, params: str, tokens: str, ext_dir: str, depth: int, compiled: bool) -> dict:
    env = dict(os.environ, PYTHONHASHSEED="0")
    if not compiled:
        env["YARNBALL_PURE_PYTHON"] = "1"
    out = subprocess.run(
        [sys.executable, "-c", CHILD, path, params, tokens, ext_dir, str(depth)],
        capture_output=True, text=True, cwd="/", env=env,
    )  # fmt: skip
    if out.returncode != 0:
        raise SystemExit(f"count_objects.py: the run of {path} failed:\n{out.stderr[-3000:]}")
    result: dict = json.loads(out.stdout.strip().splitlines()[-1])
    return result


def per(n: float, run: dict) -> float:
    return n / max(run["allocations"], 1)


def print_totals(names: list[str], runs: list[dict]) -> None:
    rows = [
        ("containers allocated", [f"{r['allocations']:,}" for r in runs]),
        ("kernel events", [f"{r['events']:,}" for r in runs]),
        ("object allocations", [f"{r['objects']:,}" for r in runs]),
        ("  per container allocation", [f"{per(r['objects'], r):,.1f}" for r in runs]),
        ("buffer allocations", [f"{r['buffers']:,}" for r in runs]),
        ("  per container allocation", [f"{per(r['buffers'], r):,.1f}" for r in runs]),
        ("reallocations", [f"{r['reallocs']:,}" for r in runs]),
        ("blocks still held after", [f"{r['net_blocks']:,}" for r in runs]),
    ]
    if len(runs) > 1:
        base = per(runs[0]["objects"] + runs[0]["buffers"], runs[0])
        ratios = [f"{per(r['objects'] + r['buffers'], r) / base:.3f}" for r in runs]
        rows.append(("all allocations vs the first", ratios))
    for i, name in enumerate(names):
        print(f"tree {i + 1}: {name}")
    print(f"{'':34}" + "".join(f"{'tree ' + str(i + 1):>16}" for i in range(len(runs))))
    for label, cells in rows:
        print(f"{label:34}" + "".join(f"{c:>16}" for c in cells))


def print_functions(runs: list[dict], top: int) -> None:
    """The functions allocating most in any tree (keyed by file and qualified name, which survive edits that move
    lines), allocations per container allocation side by side."""
    keys = set()
    for r in runs:
        keys.update(sorted(r["functions"], key=lambda k: -r["functions"][k])[:top])
    order = sorted(keys, key=lambda k: -max(r["functions"].get(k, 0) for r in runs))
    print(f"\ntop functions, allocations per container allocation{'':6}" + "".join(
        f"{'tree ' + str(i + 1):>9}" for i in range(len(runs))))  # fmt: skip
    for k in order[:top]:
        print(f"{k[-64:]:64}" + "".join(f"{per(r['functions'].get(k, 0), r):9.2f}" for r in runs))


def print_lines(names: list[str], runs: list[dict], top: int) -> None:
    for i, r in enumerate(runs):
        print(f"\ntop lines of tree {i + 1}, allocations per container allocation")
        for key, (n, text) in sorted(r["lines"].items(), key=lambda kv: -kv[1][0])[:top]:
            print(f"{per(n, r):8.2f}  {key}  {text[:90]}")


def main() -> None:
    parser = argparse.ArgumentParser()
    add_run_arguments(parser)
    parser.set_defaults(
        nodes=2000, map_ms=[5_000, 60_000], reduce_ms=[10_000, 120_000], load=1.5, warmup_seconds=60, sim_seconds=10
    )
    parser.add_argument("--top", type=int, default=25, help="how many functions and lines to list (default 25)")
    parser.add_argument("--depth", type=int, default=1, choices=range(1, 5), help="frames per site (default 1)")
    parser.add_argument("--compiled", action="store_true", help="run the trees' compiled modules where built")
    parser.add_argument("--json", help="also write every tree's counts, lines and functions to this file")
    args = parser.parse_args()
    params = run_params(args)
    specs = [tree_spec(t) for t in args.trees]
    with tempfile.TemporaryDirectory() as ext_dir:
        build_extension(ext_dir)
        runs = [count(path, params, tokens, ext_dir, args.depth, args.compiled) for _, path, tokens in specs]
    names = [name for name, _, _ in specs]
    if args.json:
        Path(args.json).write_text(json.dumps(dict(zip(names, runs)), indent=1))
    print_totals(names, runs)
    print_functions(runs, args.top)
    print_lines(names, runs, args.top)


if __name__ == "__main__":
    main()
