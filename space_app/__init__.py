"""Deduction Arena: games, runner, store, metrics and the Gradio app."""

__version__ = "0.1.0"
