"""A private folder for runs' logs and launch records, whose processes are killed on teardown."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from scorer_runtime.batch.launch import runs_dir

__all__ = ["run_logs"]


@pytest.fixture
def run_logs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """Runs' logs and launch records go to this test's folder; every process a test started
    (and its children) is killed at the end, whatever happened."""
    folder = tmp_path / "tmp"
    folder.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(folder))
    assert runs_dir().parent == folder
    yield runs_dir()
    for record in runs_dir().glob("*.json"):
        pid = int(json.loads(record.read_text())["pid"])
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(pid, signal.SIGKILL)
        with contextlib.suppress(ChildProcessError):
            os.waitpid(pid, 0)
