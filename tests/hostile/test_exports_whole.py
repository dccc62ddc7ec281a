"""An export that fails half-way leaves the file it was asked to replace as it was: written
to a temporary file beside it, moved over it only when complete."""

from __future__ import annotations

import json

import pytest

from scorer_runtime.output_files import write_whole
from scorer_runtime.store import (
    ExampleData,
    add_examples,
    get_dataset,
    make_engine,
    session_scope,
)
from tests.cli.helpers import cli


def test_a_failed_write_leaves_the_old_file_and_no_temporary_file(tmp_path):
    target = tmp_path / "grades.csv"
    target.write_text("precious\n", encoding="utf-8")
    target.chmod(0o600)

    def half_then_fail(stream):
        stream.write("half of it")
        raise OSError("disk full")

    with pytest.raises(OSError, match="disk full"):
        write_whole(target, half_then_fail)
    assert target.read_text(encoding="utf-8") == "precious\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["grades.csv"]

    assert write_whole(target, lambda stream: stream.write("new\n")) == 4
    assert target.read_text(encoding="utf-8") == "new\n"
    assert target.stat().st_mode & 0o777 == 0o600  # the old file's permissions kept
    fresh = tmp_path / "fresh.csv"
    write_whole(fresh, lambda stream: stream.write("x"))
    assert fresh.stat().st_mode & 0o777 == 0o644


def test_a_dataset_export_that_cannot_finish_keeps_the_file_it_would_replace(tmp_path):
    url = f"sqlite:///{tmp_path / 'studio.db'}"
    rows = tmp_path / "rows.jsonl"
    good = [json.dumps({"input": f"q{i}", "output": f"a{i}"}) for i in range(3)]
    rows.write_text("\n".join(good) + "\n")
    assert cli(url, "datasets", "import", str(rows), "--name", "odd").exit_code == 0
    # A lone surrogate, as an import stored it before imports refused one (its line named):
    # no UTF-8 file can hold it, so the export fails half-way.
    engine = make_engine(url)
    with session_scope(engine) as session:
        dataset = get_dataset(session, name="odd")
        add_examples(session, dataset_id=dataset.id, examples=[ExampleData("q", "bad \ud800")])
    engine.dispose()
    target = tmp_path / "export.jsonl"
    target.write_text("what was there before\n", encoding="utf-8")

    done = cli(url, "datasets", "export", "odd", str(target))

    assert done.exit_code != 0
    assert target.read_text(encoding="utf-8") == "what was there before\n"
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(".export")) == []
