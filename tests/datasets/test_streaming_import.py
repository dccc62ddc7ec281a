"""An import reads its file a line at a time and writes examples in batches, and is still
all or nothing: a bad row or a quote left open after several batches were written leaves
nothing (even for a caller that goes on to commit), the rows of every batch are kept in the
file's order, and the memory an import takes does not grow with the file."""

from __future__ import annotations

import tracemalloc
from pathlib import Path

import pytest
from sqlalchemy import func, select

from scorer_runtime.datasets import ImportFailure, import_examples
from scorer_runtime.datasets.files import IMPORT_BATCH
from scorer_runtime.store import list_examples, read_session, session_scope
from scorer_runtime.store.tables import DatasetRecord, ExampleRecord

ROWS = 2 * IMPORT_BATCH + 7
"""Rows enough for two whole batches and part of a third."""


def _csv(path: Path, rows: int, tail: str = "") -> Path:
    lines = "".join(f"question {i},answer {i}\n" for i in range(rows))
    path.write_text(f"input,output\n{lines}{tail}", encoding="utf-8")
    return path


def _counts(engine) -> tuple[int, int]:
    with read_session(engine) as session:
        datasets = session.execute(select(func.count()).select_from(DatasetRecord)).scalar_one()
        examples = session.execute(select(func.count()).select_from(ExampleRecord)).scalar_one()
    return int(datasets), int(examples)


@pytest.mark.parametrize(
    ("tail", "words"),
    [
        ("late,\n", f'line {ROWS + 2}: column "output" is empty'),
        ('late,"open\nrest,of it\n', f"line {ROWS + 2}: a quote"),
    ],
    ids=["a bad row after two batches", "a quote never closed after two batches"],
)
def test_a_late_problem_leaves_nothing_even_for_a_caller_that_commits(
    engine, tmp_path, tail, words
):
    path = _csv(tmp_path / "late.csv", ROWS, tail)
    # The failure is caught inside the session's block, which then commits what it holds.
    with session_scope(engine) as session, pytest.raises(ImportFailure) as failed:
        import_examples(session, path=path)
    assert words in str(failed.value)
    assert _counts(engine) == (0, 0)


def test_skipping_bad_rows_keeps_every_good_row_of_every_batch_in_order(engine, tmp_path):
    path = _csv(tmp_path / "many.csv", ROWS, "late,\nlast,one\n")
    with session_scope(engine) as session:
        result = import_examples(session, path=path, skip_bad_rows=True)
    assert result.imported == ROWS + 1
    assert [str(i) for i in result.skipped] == [f'line {ROWS + 2}: column "output" is empty']
    with read_session(engine) as session:
        stored = list_examples(session, dataset_id=result.dataset_id, limit=ROWS + 10)
    assert [e.output for e in stored] == [*(f"answer {i}" for i in range(ROWS)), "one"]
    assert [e.position for e in stored] == list(range(ROWS + 1))


def _peak_mb(engine, path: Path, name: str) -> float:
    tracemalloc.start()
    try:
        with session_scope(engine) as session:
            import_examples(session, path=path, dataset_name=name)
        return tracemalloc.get_traced_memory()[1] / 1024 / 1024
    finally:
        tracemalloc.stop()


def test_the_memory_an_import_takes_does_not_grow_with_the_file(engine, tmp_path):
    small = _csv(tmp_path / "small.csv", 3 * IMPORT_BATCH)
    large = _csv(tmp_path / "large.csv", 12 * IMPORT_BATCH)  # four times the rows
    _peak_mb(engine, small, "warm-up")  # first use: caches of the store and the parser
    small_peak, large_peak = _peak_mb(engine, small, "small"), _peak_mb(engine, large, "large")
    # Reading the whole file (as imports did) took ~20 times its size: four times the rows
    # took four times the memory. A batch at a time, the peak stays that of a batch.
    assert large_peak < 1.5 * small_peak, (small_peak, large_peak)
