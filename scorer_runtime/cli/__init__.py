"""The ``scorer-studio`` command line: a Typer app with one module per command group.

``app`` holds the groups (``scorers``, ``datasets``, ``traces``, ``db``) and the top-level
commands (``ui``, ``run``, ``history``, ``seed``); ``main`` is the console script's entry.
``report`` prints runs, scores, scorers and datasets as terminal tables.
"""

from scorer_runtime.cli.app import app, main

__all__ = ["app", "main"]
