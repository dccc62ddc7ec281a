"""P15, importing a large CSV of examples: peak memory and time of the streaming import.

    python bench/bench_imports.py [--rows N]

Writes a CSV of N rows (default 1,000,000: about 100 MB, three columns), then imports it
into a fresh SQLite file twice, each time in a fresh Python process whose peak resident
memory (``ru_maxrss``: the interpreter and its imports included) and wall time are taken:
once through ``import_examples`` (the file read a line at a time, examples written in
batches), once the way imports worked before (the whole file read, parsed into a list and
inserted at once: ``read_text``, ``parse_examples``, ``add_examples``), as the reference.
Targets (issue 27): under 300 MB, and within 2x the time of the whole-file import.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from common import ROOT, Figure, size

_CHILD = """
import json, resource, sys, time
from pathlib import Path
from scorer_runtime.store import add_examples, create_dataset, ensure_schema, make_engine
from scorer_runtime.store import session_scope
from scorer_runtime.datasets import import_examples, parse_examples, read_text

how, path, database = sys.argv[1], Path(sys.argv[2]), sys.argv[3]
engine = make_engine(f"sqlite:///{database}")
ensure_schema(engine)
started = time.perf_counter()
with session_scope(engine) as session:
    if how == "streaming":
        imported = import_examples(session, path=path, dataset_name="big").imported
    else:
        parsed = parse_examples(read_text(path), format="csv")
        dataset = create_dataset(session, name="big")
        imported = add_examples(session, dataset_id=dataset.id, examples=parsed.examples)
seconds = time.perf_counter() - started
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(json.dumps({"imported": imported, "seconds": seconds, "peak_mb": peak}))
"""


def write_csv(path: Path, rows: int) -> int:
    """A CSV of ``rows`` examples (question, answer, expected); returns its size in bytes."""
    with path.open("w", encoding="utf-8") as out:
        out.write("input,output,ground_truth\n")
        for i in range(rows):
            out.write(
                f"How do I reset my password in case {i}?,"
                f"Open Settings then Security then Reset ({i}),reset {i % 97}\n"
            )
    return path.stat().st_size


def measure(how: str, path: Path, folder: Path) -> dict[str, float]:
    """Import ``path`` in a fresh process (``how``: streaming or whole); its figures."""
    database = folder / f"{how}.db"
    done = subprocess.run(
        [sys.executable, "-c", _CHILD, how, str(path), str(database)],
        capture_output=True,
        text=True,
        check=True,
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    figures: dict[str, float] = json.loads(done.stdout.strip().splitlines()[-1])
    return figures


def run(rows: int = size(1_000_000, 2_000)) -> list[Figure]:
    """The P15 figures (see the module docstring)."""
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        path = folder / "big.csv"
        megabytes = write_csv(path, rows) / 1024 / 1024
        streaming = measure("streaming", path, folder)
        whole = measure("whole", path, folder)
    assert streaming["imported"] == whole["imported"] == rows
    ratio = streaming["seconds"] / whole["seconds"]
    note = (
        f"{streaming['seconds']:.1f} s; the whole-file import: {whole['seconds']:.1f} s, "
        f"{whole['peak_mb']:,.0f} MB"
    )
    return [
        Figure(
            "P15",
            f"import of a {rows:,}-row CSV ({megabytes:.0f} MB): peak memory",
            streaming["peak_mb"],
            "MB",
            "<= 300",
            streaming["peak_mb"] <= 300,
            note,
        ),
        Figure(
            "P15",
            "same: time ÷ the whole-file import's",
            ratio,
            "x",
            "<= 2",
            ratio <= 2,
        ),
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    args = parser.parse_args()
    from common import print_table

    print_table(run(args.rows))


if __name__ == "__main__":
    main()
