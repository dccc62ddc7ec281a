"""Runs in the background: the command a run's process is started with, its launch record,
stopping it, and whether a running run's recorded runner has ended — with real processes."""

from __future__ import annotations

import json
import socket
import subprocess
import sys

from scorer_runtime.batch.launch import (
    cli_command,
    launcher,
    log_path,
    stop_launcher,
)
from scorer_runtime.process import runner_is_gone
from scorer_runtime.store import utc_now
from tests.batch.launch_fixtures import run_logs

__all__ = ["run_logs"]


def _dead_pid() -> int:
    done = subprocess.Popen([sys.executable, "-c", "pass"])
    done.wait()
    return done.pid


def test_a_runner_on_this_host_whose_process_ended_is_gone():
    assert runner_is_gone(f"{socket.gethostname()}:{_dead_pid()}")
    # A runner on another machine is judged by its heartbeat alone.
    assert not runner_is_gone(f"elsewhere.example:{_dead_pid()}")


def test_names_come_after_a_separator_so_they_are_never_options():
    command = cli_command(run_id=3, scorer="-weird name", dataset="--help", concurrency=2)
    assert command[-3:] == ["--", "-weird name", "--help"]
    assert command[command.index("--resume") + 1] == "3"
    assert command[command.index("--concurrency") + 1] == "2"


def test_stopping_a_process_that_has_not_begun(run_logs, tmp_path):
    url = f"sqlite:///{tmp_path / 'runs.db'}"
    assert launcher(url, 99) is None
    sleeper = subprocess.Popen(
        [sys.executable, "-c", "import time; time.sleep(60)"], start_new_session=True
    )
    record = {"pid": sleeper.pid, "launched_at": utc_now().isoformat()}
    run_logs.mkdir(parents=True, exist_ok=True)
    log_path(url, 99).with_suffix(".json").write_text(json.dumps(record))
    assert launcher(url, 99).alive
    assert stop_launcher(url, 99) is True
    assert sleeper.wait(timeout=10) != 0
    assert launcher(url, 99).alive is False
