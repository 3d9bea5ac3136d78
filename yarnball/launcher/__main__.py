"""``python -m yarnball.launcher``: the ``yarnball`` command."""

from __future__ import annotations

from yarnball.launcher.cli import main

if __name__ == "__main__":
    raise SystemExit(main())
