"""``make bench``: every benchmark of ``bench/``, one table.

Each module's ``run()`` returns its figures (each a median of several runs); a module that
fails is reported in the table instead of stopping the others. Takes a few minutes.

    python bench/run.py [--only P1,P3] [--smoke]

``--smoke`` runs every module at a tiny size (``common.size``): it proves each still runs to
its figures; no target is judged. ``make test`` runs it (tests/bench/test_run.py).
"""

from __future__ import annotations

import argparse
import dataclasses
import importlib
import os
import sys
import time
import traceback
from pathlib import Path

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
)


def _figures(module_name: str) -> list[Figure]:
    if not (HERE / f"{module_name}.py").exists():
        return []  # written by someone else, not there yet
    module = importlib.import_module(module_name)
    figures: list[Figure] = module.run()
    return figures


def _untargeted(figure: Figure) -> Figure:
    """A smoke pass's figure: measured at a tiny size, so no target is judged."""
    return dataclasses.replace(figure, target="(smoke)", met=None)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--only", help="comma-separated ids of the figures to run, e.g. P1,P3")
    parser.add_argument(
        "--smoke", action="store_true", help="tiny sizes, no targets: does every figure run?"
    )
    args = parser.parse_args(argv)
    if args.smoke:  # before any module is imported: their sizes are read then
        common.SMOKE = True
        os.environ["SCORER_BENCH_SMOKE"] = "1"  # for what a module runs in another process
    wanted = {w.strip() for w in args.only.split(",")} if args.only else None
    figures: list[Figure] = []
    failed = False
    started = time.perf_counter()
    for ids, name in MODULES:
        if wanted is not None and not wanted & {i.strip() for i in ids.split(",")}:
            continue
        print(f"running {name} ({ids}) ...", file=sys.stderr, flush=True)
        try:
            found = _figures(name)
            figures += [_untargeted(f) for f in found] if args.smoke else found
        except Exception as e:
            traceback.print_exc()
            figures.append(
                Figure(ids, f"{name} failed: {type(e).__name__}: {e}"[:58], 0, "", "", False)
            )
            failed = True
    print(file=sys.stderr)
    print_table(figures)
    print(f"\n{len(figures)} figures in {time.perf_counter() - started:.0f} s", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
