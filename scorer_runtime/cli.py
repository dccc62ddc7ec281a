"""The ``scorer-studio`` command."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import typer

app = typer.Typer(
    help="Scorer Studio: build, run and export LLM-judge scorers.",
    no_args_is_help=True,
    add_completion=False,
)


@app.callback()
def _group() -> None:
    """Scorer Studio: build, run and export LLM-judge scorers."""


_APP_FILE = Path(__file__).resolve().parent.parent / "studio" / "app.py"


@app.command()
def ui(
    port: int = typer.Option(8501, help="Port to serve the studio on."),
    address: str = typer.Option(
        "127.0.0.1", help="Address to bind; the default keeps the studio on this machine."
    ),
    headless: bool = typer.Option(True, help="Do not open a browser window."),
) -> None:
    """Start the studio in the browser (on 127.0.0.1 unless told otherwise)."""
    env = {**os.environ, "LITELLM_LOCAL_MODEL_COST_MAP": "True", "LITELLM_OFFLINE_MODE": "true"}
    command = [
        sys.executable,
        "-m",
        "streamlit",
        "run",
        str(_APP_FILE),
        "--server.address",
        address,
        "--server.port",
        str(port),
        "--server.headless",
        str(headless).lower(),
        "--browser.gatherUsageStats",
        "false",
        "--client.toolbarMode",
        "minimal",
    ]
    typer.echo(f"Scorer Studio on http://{address}:{port}")
    # The command is built from our own path and validated options, never from user text.
    raise typer.Exit(subprocess.call(command, env=env))  # noqa: S603


def main() -> None:
    """Entry point of the ``scorer-studio`` console script."""
    app()
