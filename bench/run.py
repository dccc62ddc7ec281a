"""``make bench``: every benchmark of ``bench/``, one table.

Each module's ``run()`` returns its figures (each a median of several runs). Every module runs
in a process of its own: it starts from a fresh interpreter (no module measures another's warm
imports or the processes another left behind, such as a local Ray cluster), and a module that
hangs is stopped at its time limit (``--limit``). A module that fails or hangs is a "failed"
line of the table instead of stopping the others; the exit status is then 1. Takes a few
minutes.

    python bench/run.py [--only P1,P3] [--smoke] [--limit SECONDS]

``--smoke`` runs every module at a tiny size (``common.size``): it proves each still runs to
its figures; no target is judged. ``make test`` runs it (tests/bench/test_run.py).
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import importlib
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
import traceback
from pathlib import Path
from types import FrameType

import common
from common import Figure, print_table

HERE = Path(__file__).resolve().parent
MODULES = (
    ("P1, P5", "bench_runtime"),
    ("P2", "bench_batch"),
    ("P2r, P2k", "bench_ray"),
    ("P2b, P2c", "bench_judge"),
    ("P3", "bench_store"),
    ("P4", "bench_studio"),
    ("P6", "bench_queue"),
    ("P7", "bench_cache"),
    ("P8", "bench_agreement"),
    ("P9", "bench_estimate"),
    ("P10", "bench_start"),
    ("P11", "bench_limits"),
    ("P12", "bench_receiver"),
    ("P13", "bench_rules"),
    ("P14", "bench_spend_cap"),
    ("P15", "bench_imports"),
)
SMOKE_LIMIT_S = 240.0
"""How long one module may take in a smoke pass (each takes well under a minute on a quiet
machine): past it the module is stopped and reported as failed, so a smoke pass never hangs."""
FULL_LIMIT_S = 1200.0
"""The same for a full measurement (the longest modules take a few minutes)."""
CLEAN_UP_S = 30.0
"""How long a stopped module has to close what it opened (a browser, a studio server)."""


class ModuleFailedError(RuntimeError):
    """A module's process raised, hung or died; the message says which, in a few words."""


class _Stopped(BaseException):
    """Raised on SIGTERM. In a module's process (the driver stops it): its ``finally`` blocks
    and context managers close what it started (servers in their own process groups). In the
    driver: it stops the module running now the same way."""


def _stop_on_sigterm(signum: int, frame: FrameType | None) -> None:
    raise _Stopped(f"stopped by signal {signum}")


def run_one(module_name: str, folder: Path, figures_to: Path) -> int:
    """In a module's own process: run it and write its figures (or its error) as JSON."""
    sys.path.insert(0, str(folder))
    try:
        found: list[Figure] = importlib.import_module(module_name).run()
    except BaseException as e:
        traceback.print_exc()
        figures_to.write_text(json.dumps({"error": f"{type(e).__name__}: {e}"}))
        return 1
    figures_to.write_text(json.dumps([dataclasses.asdict(f) for f in found]))
    return 0


def _stop(process: subprocess.Popen[bytes]) -> None:
    """Stop a module's process: first asked (it closes what it opened), then killed, with
    everything still running in its process group."""
    with contextlib.suppress(ProcessLookupError):
        process.send_signal(signal.SIGTERM)
    with contextlib.suppress(subprocess.TimeoutExpired):
        process.wait(timeout=CLEAN_UP_S)
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, signal.SIGKILL)
    process.wait()


def _figures(module_name: str, *, smoke: bool, limit_s: float) -> list[Figure]:
    """The figures of one module, run in its own process for at most ``limit_s`` seconds."""
    if not (HERE / f"{module_name}.py").exists():
        return []  # written by someone else, not there yet
    with tempfile.TemporaryDirectory(prefix="bench-") as tmp:
        out = Path(tmp) / "figures.json"
        command = [sys.executable, str(Path(__file__).resolve()), "--module", module_name]
        command += ["--folder", str(HERE), "--figures-to", str(out)]
        command += ["--smoke"] if smoke else []
        # The module's own prints go to stderr (fd 2): stdout holds only the table.
        process = subprocess.Popen(command, stdout=2, start_new_session=True)
        try:
            process.wait(timeout=limit_s)
        except subprocess.TimeoutExpired:
            _stop(process)
            raise ModuleFailedError(f"hung: no figures within {limit_s:g} s") from None
        except BaseException:  # Ctrl-C or this driver stopped: so is the module
            _stop(process)
            raise
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(process.pid, signal.SIGKILL)  # whatever it left running
        if not out.exists():
            raise ModuleFailedError(f"its process died (exit status {process.returncode})")
        found = json.loads(out.read_text())
    if isinstance(found, dict):
        raise ModuleFailedError(found["error"])
    return [Figure(**f) for f in found]


def _untargeted(figure: Figure) -> Figure:
    """A smoke pass's figure: measured at a tiny size, so no target is judged."""
    return dataclasses.replace(figure, target="(smoke)", met=None)


def _arguments(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--only", help="comma-separated ids of the figures to run, e.g. P1,P3")
    parser.add_argument(
        "--smoke", action="store_true", help="tiny sizes, no targets: does every figure run?"
    )
    parser.add_argument(
        "--limit",
        type=float,
        help=f"seconds a module may take before it is stopped as hung (default "
        f"{FULL_LIMIT_S:g}, with --smoke {SMOKE_LIMIT_S:g})",
    )
    # In a module's own process (started by this driver):
    parser.add_argument("--module", help=argparse.SUPPRESS)
    parser.add_argument("--folder", type=Path, default=HERE, help=argparse.SUPPRESS)
    parser.add_argument("--figures-to", type=Path, help=argparse.SUPPRESS)
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = _arguments(argv)
    if args.smoke:  # before any module is imported: their sizes are read then
        common.SMOKE = True
        os.environ["SCORER_BENCH_SMOKE"] = "1"  # for what a module runs in another process
    if args.module:
        return run_one(args.module, args.folder, args.figures_to)
    limit_s = args.limit or (SMOKE_LIMIT_S if args.smoke else FULL_LIMIT_S)
    wanted = {w.strip() for w in args.only.split(",")} if args.only else None
    figures: list[Figure] = []
    failed = False
    started = time.perf_counter()
    for ids, name in MODULES:
        if wanted is not None and not wanted & {i.strip() for i in ids.split(",")}:
            continue
        print(f"running {name} ({ids}) ...", file=sys.stderr, flush=True)
        began = time.perf_counter()
        try:
            found = _figures(name, smoke=args.smoke, limit_s=limit_s)
            figures += [_untargeted(f) for f in found] if args.smoke else found
        except ModuleFailedError as e:
            figures.append(Figure(ids, f"{name} failed: {e}"[:58], 0, "", "", False))
            failed = True
        print(f"  {name}: {time.perf_counter() - began:.0f} s", file=sys.stderr, flush=True)
    print(file=sys.stderr)
    print_table(figures)
    print(f"\n{len(figures)} figures in {time.perf_counter() - started:.0f} s", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    signal.signal(signal.SIGTERM, _stop_on_sigterm)
    sys.exit(main())
