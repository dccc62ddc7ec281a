"""The ``scorer-studio`` command line: a Typer app with one module per command group.

``cli/app.py`` assembles the app: every group (a ``typer.Typer`` made in its own module, e.g.
``scorers``, ``datasets``, ``labels``) is added there with ``add_typer``, and every top-level
command (``run``, ``stability``, ``ui``, …) with ``app.command``; ``scorer-studio --help``
lists them all. ``main`` is the console script's entry. The work itself lives in the package
it belongs to (a run starts in :mod:`scorer_runtime.runs`); ``report`` prints runs, scores,
scorers and datasets as terminal tables.
"""

from scorer_runtime.cli.app import app, main

__all__ = ["app", "main"]
