"""``python -m studio [Streamlit options]``: serve the studio (what ``scorer-studio ui`` runs).

Runs Streamlit's own command line in this process and, meanwhile, imports the studio's
modules in a background thread. Once the server answers, the browser spends about a second
loading Streamlit's scripts before it asks for the first page; the imports (the store,
SQLAlchemy, the page components: ~0.7 s) happen during that second instead of after it, so
the first page draws that much sooner.
"""

from __future__ import annotations

import importlib
import pkgutil
import sys
import threading
import time
from pathlib import Path

APP = Path(__file__).resolve().parent / "app.py"
FIRST = ("studio.services", "studio.components.common", "studio.components.home_sections")
"""What Home needs, loaded first; then every other component module."""


def _server_started(timeout_s: float = 30.0) -> None:
    """Wait until Streamlit's runtime has started (its server then answers): importing during
    the server's own start would slow the start down (one interpreter lock)."""
    from streamlit.runtime import Runtime, RuntimeState

    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if Runtime.exists() and Runtime.instance().state != RuntimeState.INITIAL:
            return
        time.sleep(0.02)  # the runtime offers no start event to wait on


def warm_up() -> None:
    """Import the studio's modules (the pages import them again: this only fills the cache)."""
    import studio.components

    _server_started()

    names = [*FIRST]
    names += [
        f"studio.components.{m.name}" for m in pkgutil.iter_modules(studio.components.__path__)
    ]
    for name in names:
        try:
            importlib.import_module(name)
        except Exception:  # noqa: S112 - the page importing it shows the error where it matters
            continue


def main() -> None:
    """Start the warm-up, then Streamlit serving the studio with the options given."""
    from streamlit.web import cli

    threading.Thread(target=warm_up, name="studio-warm-up", daemon=True).start()
    sys.argv = ["streamlit", "run", str(APP), *sys.argv[1:]]
    cli.main(prog_name="streamlit")


if __name__ == "__main__":
    main()
