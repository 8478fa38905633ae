"""Deduction Arena: games, runner, store, metrics and the Gradio app."""

__version__ = "0.3.0"  # the package version (pyproject.toml reads it)
