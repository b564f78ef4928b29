"""The package version, in a module of its own so that any module can read it without importing the
package's public API (``cursedsim/__init__.py`` imports the runner and the research tools)."""

__version__ = "0.1.0"
