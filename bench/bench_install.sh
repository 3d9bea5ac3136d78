#!/usr/bin/env bash
# Fresh-install time of `pip install -e .` (what the README's first command installs), compiled vs
# YARNBALL_PURE_PYTHON=1, alternating, each round in a new virtualenv (no system site-packages) from a clean clone.
# Packages come from pip's cache when it has them, so this times the build, not the download.
#   bash bench/bench_install.sh [SOURCE_REPO] [ROUNDS]
set -u
SRC=${1:-$(cd "$(dirname "$0")/.." && pwd)}
ROUNDS=${2:-2}
for round in $(seq 1 "$ROUNDS"); do
  for mode in compiled pure; do
    d=$(mktemp -d); git clone -q "$SRC" "$d/yb"; python3 -m venv "$d/venv"
    "$d/venv/bin/python" -m pip install -q --upgrade pip >/dev/null 2>&1
    if [ "$mode" = pure ]; then export YARNBALL_PURE_PYTHON=1; else unset YARNBALL_PURE_PYTHON; fi
    s=$(date +%s.%N); (cd "$d/yb" && "$d/venv/bin/pip" install -q -e . >/dev/null 2>&1); rc=$?; e=$(date +%s.%N)
    unset YARNBALL_PURE_PYTHON
    build=$(cd "$d/yb" && "$d/venv/bin/yarnball" --version | sed -n 2p)
    echo "round $round $mode rc=$rc $(python3 -c "print(f'{$e - $s:.1f}')") s  [$build]  load $(cut -d' ' -f1-3 /proc/loadavg)"
    rm -rf "$d"
  done
done
