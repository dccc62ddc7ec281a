"""The ``scorer-studio`` Typer app: its command groups, the database option, ``ui``.

Every command works on the database of ``--database-url`` (or ``SCORER_STUDIO_DATABASE_URL``,
else ``./data/scorer_studio.db``) and brings its schema up to date first. Errors print one
clear line and exit with status 2; ``run --fail-under`` exits 1 when the mean is below it.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from importlib.resources import as_file, files
from pathlib import Path

import typer

from scorer_runtime.cli.align import align
from scorer_runtime.cli.cache import cache_app
from scorer_runtime.cli.database import db_app, seed
from scorer_runtime.cli.datasets import datasets_app
from scorer_runtime.cli.health import health
from scorer_runtime.cli.labels import labels_app
from scorer_runtime.cli.receive import receive
from scorer_runtime.cli.rules import rules_app
from scorer_runtime.cli.runs import history, run
from scorer_runtime.cli.scorers import scorers_app
from scorer_runtime.cli.stability import compare_versions, stability
from scorer_runtime.cli.support import database_url_option, load_env_file
from scorer_runtime.cli.traces import traces_app
from scorer_runtime.cli.trust import add_trust_commands
from scorer_runtime.cli.worker import worker

ALLOWED_HOSTS_ENV = "SCORER_STUDIO_ALLOWED_HOSTS"
"""Host names the studio answers to besides loopback (read by ``studio.hosts``)."""
RUNNER_PIPE_ENV = "SCORER_STUDIO_RUNNER_PIPE"
"""Where the studio finds the pipe to its runner (see ``batch.local_runner``; the same name,
spelled here so that ``--help`` imports no database code)."""
DATABASE_URL_ENV = "SCORER_STUDIO_DATABASE_URL"
STUDIO_PACKAGE = "studio"
STUDIO_ENTRY = "serve.py"
"""The studio's entry script, a resource of the installed ``studio`` package."""

app = typer.Typer(
    help="Scorer Studio: build, run and export LLM-judge scorers.",
    no_args_is_help=True,
    add_completion=False,
    # Said explicitly: a traceback with locals would print a judge's key (a runner's
    # output may be a log file).
    pretty_exceptions_show_locals=False,
)
app.add_typer(scorers_app, name="scorers")
app.add_typer(datasets_app, name="datasets")
app.add_typer(traces_app, name="traces")
app.add_typer(rules_app, name="rules")
app.add_typer(labels_app, name="labels")
app.add_typer(db_app, name="db")
app.add_typer(cache_app, name="cache")
app.command("seed")(seed)


@contextmanager
def studio_entry() -> Iterator[Path]:
    """The studio's entry script as a file on disk, found through the installed package
    (never a path relative to this module, which breaks once installed elsewhere)."""
    with as_file(files(STUDIO_PACKAGE) / STUDIO_ENTRY) as path:
        yield path


@app.callback()
def _group(
    database_url: str | None = typer.Option(
        None,
        "--database-url",
        envvar="SCORER_STUDIO_DATABASE_URL",
        help="SQLAlchemy URL of the database (default: sqlite file data/scorer_studio.db).",
        show_envvar=True,
    ),
) -> None:
    """Scorer Studio: build, run and export LLM-judge scorers."""
    database_url_option["url"] = database_url


# -- the studio --------------------------------------------------------------------------------


@app.command()
def ui(
    port: int = typer.Option(8501, help="Port to serve the studio on."),
    address: str = typer.Option(
        "127.0.0.1", help="Address to bind; the default keeps the studio on this machine."
    ),
    headless: bool = typer.Option(True, help="Do not open a browser window."),
    runner: bool = typer.Option(
        True, help="Start a runner beside the studio (--no-runner: runs wait for another one)."
    ),
    receiver: bool = typer.Option(
        True,
        help="Start the OTLP receiver beside the studio, taking traces an application sends "
        "to http://127.0.0.1:4318/v1/traces (--no-receiver: none).",
    ),
    receiver_port: int = typer.Option(
        4318, min=1, max=65535, help="Port of the receiver started beside the studio."
    ),
    allow_host: list[str] = typer.Option(  # noqa: B008 (typer reads its options from defaults)
        [],
        "--allow-host",
        help="Another host name the studio answers to (besides 127.0.0.1 and localhost); "
        "repeat for several. Requests for any other name are refused (DNS rebinding).",
    ),
) -> None:
    """Start the studio in the browser (on 127.0.0.1 unless told otherwise).

    Keys in ``.env`` of the working folder are read first (variables already set win). A
    runner (``scorer-studio worker``) starts beside the studio to score its runs, and an OTLP
    receiver (``scorer-studio receive``, on 127.0.0.1) to store the traces apps send. The command
    then becomes Streamlit (the process is replaced, not forked), so stopping it stops the
    studio: no server is left running behind a killed command, and the runner and the
    receiver, whose standard input is a pipe the studio holds, stop when the studio does.
    """
    load_env_file()
    env = {**os.environ, "LITELLM_LOCAL_MODEL_COST_MAP": "True", "LITELLM_OFFLINE_MODE": "true"}
    if database_url_option["url"]:
        env[DATABASE_URL_ENV] = database_url_option["url"] or ""
    env[ALLOWED_HOSTS_ENV] = _allowed(env.get(ALLOWED_HOSTS_ENV, ""), address, allow_host)
    if runner:
        env[RUNNER_PIPE_ENV] = str(_start_runner(env))
    if receiver:
        _start_receiver(env, receiver_port)
    with studio_entry() as app_file:
        command = _streamlit_command(app_file, address=address, port=port, headless=headless)
        typer.echo(f"Scorer Studio on http://{address}:{port}")
        sys.stdout.flush()
        sys.stderr.flush()
        # The command is built from our own path and validated options, never from user text.
        os.execve(command[0], command, env)  # noqa: S606


# Registered after ui, so --help lists the commands in the order they always had.
app.command("run")(run)
app.command("history")(history)
app.command("worker")(worker)
app.command("receive")(receive)
add_trust_commands(app)
app.command("stability")(stability)
app.command("health")(health)
app.command("align")(align)
app.command("compare-versions")(compare_versions)


def _allowed(listed: str, address: str, names: list[str]) -> str:
    """The host names the studio answers to besides loopback: those already listed, the
    address it binds (unless it binds every interface) and ``--allow-host`` names."""
    found = [name.strip() for name in listed.split(",") if name.strip()]
    if address not in ("0.0.0.0", "::", ""):  # noqa: S104 (compared, never bound here)
        found.append(address)
    return ",".join(dict.fromkeys([*found, *(name.strip() for name in names)]))


def _start_runner(env: dict[str, str]) -> int:
    """Start the studio's runner; the pipe's end it watches, kept open across the exec."""
    from scorer_runtime.batch.local_runner import start_attached_runner
    from scorer_runtime.store import database_url

    process = start_attached_runner(database_url(env.get(DATABASE_URL_ENV)), environ=env)
    assert process.stdin is not None
    pipe = process.stdin.fileno()
    os.set_inheritable(pipe, True)
    return pipe


def _start_receiver(env: dict[str, str], port: int) -> None:
    """Start the OTLP receiver on 127.0.0.1; the pipe it watches kept open across the exec
    (it stops when the studio does). A port already taken is told on the terminal by the
    receiver, and the studio starts all the same."""
    from scorer_runtime.batch.local_runner import start_attached_receiver
    from scorer_runtime.store import database_url

    process = start_attached_receiver(database_url(env.get(DATABASE_URL_ENV)), port, environ=env)
    assert process.stdin is not None
    os.set_inheritable(process.stdin.fileno(), True)


def _streamlit_command(app_file: Path, *, address: str, port: int, headless: bool) -> list[str]:
    return [
        sys.executable,
        "-m",
        "streamlit",
        "run",
        str(app_file),
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


def main() -> None:
    """Entry point of the ``scorer-studio`` console script."""
    app()
