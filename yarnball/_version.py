"""The package version (one place: yarnball/__init__.py re-exports it, the REST "about" and `yarnball --version`
show it)."""

__version__ = "0.1.0"
