"""Running a hostile call under watch: its time, its peak memory, what it printed, and what
the database holds before and after."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
import time
import tracemalloc
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

CPU_LIMIT_S = 5.0
"""The issue's bound. Measured as CPU seconds: on a shared machine (2 cores, several test
runs at once) wall-clock time measures the neighbours; a hang or a runaway loop shows in
CPU time all the same. The wall clock only guards against hangs (``HANG_S``)."""
HANG_S = 60.0
MEMORY_LIMIT_MB = 200.0

# Runs the command as its only child and reports the child's own peak RSS and CPU time
# (RUSAGE_CHILDREN of a fresh process: nothing else it waited for can inflate it).
_WATCH = """
import json, resource, subprocess, sys
command, timeout = json.loads(sys.argv[1]), float(sys.argv[2])
try:
    done = subprocess.run(command, capture_output=True, text=True, timeout=timeout)
    rc, out, err = done.returncode, done.stdout, done.stderr
except subprocess.TimeoutExpired:
    rc, out, err = None, "", "timed out"
usage = resource.getrusage(resource.RUSAGE_CHILDREN)
print(json.dumps({"rc": rc, "out": out, "err": err, "cpu": usage.ru_utime + usage.ru_stime,
                  "rss_mb": usage.ru_maxrss / 1024}))
"""


@dataclass(frozen=True)
class Watched:
    """What a watched call did."""

    code: int | None
    """Exit status (None: it hung and was killed)."""
    text: str
    """Everything it printed (stdout, then stderr), or the message the studio shows."""
    cpu_s: float
    peak_mb: float


def cli() -> list[str]:
    """The ``scorer-studio`` command of this environment."""
    script = Path(sys.executable).with_name("scorer-studio")
    if script.exists():
        return [str(script)]
    return [sys.executable, "-c", "from scorer_runtime.cli import main; main()"]


def run_cli(args: list[str], *, env: dict[str, str]) -> Watched:
    """``scorer-studio ARGS`` in a watched child process."""
    command = [*cli(), *args]
    done = subprocess.run(
        [sys.executable, "-c", _WATCH, json.dumps(command), str(HANG_S)],
        capture_output=True,
        text=True,
        env=env,
        timeout=HANG_S + 30,
        check=True,
    )
    report = json.loads(done.stdout)
    return Watched(report["rc"], report["out"] + report["err"], report["cpu"], report["rss_mb"])


T = TypeVar("T")


def run_in_process(call: Callable[[], T]) -> tuple[T, float, float]:
    """``call()`` with its CPU seconds and the peak MB it allocated (tracemalloc)."""
    tracemalloc.start()
    start = time.process_time()
    try:
        result = call()
    finally:
        cpu = time.process_time() - start
        peak = tracemalloc.get_traced_memory()[1] / 1024 / 1024
        tracemalloc.stop()
    return result, cpu, peak


def row_counts(database: Path) -> dict[str, int]:
    """Rows of every table of the SQLite file (read with sqlite3, not the store)."""
    with sqlite3.connect(database) as connection:
        tables = [
            name
            for (name,) in connection.execute("SELECT name FROM sqlite_master WHERE type='table'")
            if not name.startswith(("sqlite_", "alembic"))
        ]
        return {t: connection.execute(f'SELECT COUNT(*) FROM "{t}"').fetchone()[0] for t in tables}


FORBIDDEN_WORDS = (
    "Traceback",
    'File "',
    "Error:",
    "RecursionError",
    "ValueError",
    "MemoryError",
    "JSONDecodeError",
    "YAMLError",
    "ConstructorError",
    "KeyError",
    "TypeError",
    "IndexError",
)
"""What a message for a person never holds: a traceback or an exception class's name."""


def message_problems(
    text: str, *, expect: str | tuple[str, ...], max_lines: int, never: tuple[str, ...] = ()
) -> list[str]:
    """What is wrong with a message (empty when it is fine): ``expect`` are words it must
    say (any case), ``never`` words it must not (such as the first line of a file it
    refuses)."""
    found = []
    lines = [line for line in text.strip().splitlines() if line.strip()]
    if not lines:
        found.append("no message at all")
    if len(lines) > max_lines:
        found.append(f"{len(lines)} lines, more than {max_lines}")
    found += [f"holds {word!r}" for word in (*FORBIDDEN_WORDS, *never) if word in text]
    for words in (expect,) if isinstance(expect, str) else expect:
        if words.lower() not in text.lower():
            found.append(f"does not say {words!r}")
    return found


def describe(value: Any) -> str:
    text = str(value)
    return text if len(text) < 600 else text[:600] + "…"
