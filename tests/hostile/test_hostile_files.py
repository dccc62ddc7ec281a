"""Hostile spec, example and trace files, from the command line and from the studio's upload
logic alike: each is refused (or, where asked, handled) within the time and memory bounds,
with a short message in plain words (no traceback), and nothing is partially written."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from scorer_runtime.spec import load_spec
from scorer_runtime.store import (
    ExampleData,
    add_examples,
    create_dataset,
    ensure_schema,
    make_engine,
    save_scorer_version,
    session_scope,
)
from tests.hostile.inputs import DATASETS, SPECS, TRACES, Hostile
from tests.hostile.inputs_altered import ALTERED
from tests.hostile.running import (
    CPU_LIMIT_S,
    MEMORY_LIMIT_MB,
    Watched,
    describe,
    message_problems,
    row_counts,
    run_cli,
    run_in_process,
)

ALL = [*SPECS, *DATASETS, *TRACES, *ALTERED]
COMMANDS = {"spec": ["scorers", "import"], "dataset": ["datasets", "import"]}
COMMANDS["traces"] = ["traces", "import"]
# --skip-bad-rows: refusing a whole file must not depend on the option being off.
SKIP = {"quote-skip.csv", "skip.jsonl"}


@pytest.fixture(scope="module")
def database(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A SQLite file holding one scorer and one dataset (so a stray write shows)."""
    path = tmp_path_factory.mktemp("hostile") / "studio.db"
    engine = make_engine(f"sqlite:///{path}")
    ensure_schema(engine)
    spec = {
        "id": "kept",
        "description": "Kept.",
        "steps": [{"step": "generate_score", "formula": "1.0"}],
    }
    with session_scope(engine) as session:
        save_scorer_version(session, spec=load_spec(spec), name="kept", description="Kept.")
        dataset = create_dataset(session, name="kept")
        assert dataset.id is not None
        add_examples(session, dataset_id=dataset.id, examples=[ExampleData(output="a")])
    engine.dispose()
    return path


def _environment(database: Path) -> dict[str, str]:
    env = dict(os.environ)
    env.update(
        SCORER_STUDIO_DATABASE_URL=f"sqlite:///{database}",
        LITELLM_LOCAL_MODEL_COST_MAP="True",
        LITELLM_OFFLINE_MODE="true",
    )
    return env


def _written(before: dict[str, int], after: dict[str, int]) -> dict[str, int]:
    return {t: after[t] - before.get(t, 0) for t in after if after[t] != before.get(t, 0)}


def _expected_writes(hostile: Hostile) -> dict[str, int]:
    # The one handled case: 6 good rows of skip.jsonl imported into a new dataset.
    return {} if hostile.refused else {"datasets": 1, "examples": 6}


def _check_bounds(hostile: Hostile, watched: Watched) -> None:
    assert watched.code is not None, f"{hostile}: still running after the hang guard"
    assert watched.cpu_s <= CPU_LIMIT_S, f"{hostile}: {watched.cpu_s:.1f} s of CPU"
    assert watched.peak_mb <= MEMORY_LIMIT_MB, f"{hostile}: peak {watched.peak_mb:.0f} MB"
    problems = message_problems(
        watched.text, expect=hostile.expect, max_lines=hostile.max_lines, never=hostile.never
    )
    assert not problems, f"{hostile}: message {problems}:\n{describe(watched.text)}"


@pytest.mark.parametrize("hostile", ALL, ids=str)
def test_the_command_line_refuses_it_cleanly(hostile: Hostile, database: Path, tmp_path: Path):
    path = tmp_path / hostile.file_name
    path.write_bytes(hostile.make())
    args = [*COMMANDS[hostile.kind], str(path)]
    if hostile.file_name in SKIP:
        args.append("--skip-bad-rows")
    if hostile.kind == "dataset":
        args += ["--name", f"hostile-{tmp_path.name}"]
    before = row_counts(database)
    watched = run_cli(args, env=_environment(database))
    _check_bounds(hostile, watched)
    assert (watched.code != 0) == hostile.refused, f"{hostile}: exit {watched.code}"
    assert _written(before, row_counts(database)) == _expected_writes(hostile)
    if not hostile.refused:  # leave the store as the next case expects it
        _forget_dataset(database, f"hostile-{tmp_path.name}")


def _forget_dataset(database: Path, name: str) -> None:
    import sqlite3

    with sqlite3.connect(database) as connection:
        (dataset_id,) = connection.execute(
            "SELECT id FROM datasets WHERE name = ?", (name,)
        ).fetchone()
        connection.execute("DELETE FROM examples WHERE dataset_id = ?", (dataset_id,))
        connection.execute("DELETE FROM datasets WHERE id = ?", (dataset_id,))


# -- the studio's upload logic (the Streamlit-free functions its pages call) -------------------


def _studio_spec(hostile: Hostile, data: bytes, database: Path) -> tuple[bool, str]:
    from studio.app_pages.export.logic import check_import

    check = check_import(data, hostile.file_name)
    lines = [f"{p.where}: {p.message}" for p in check.problems]
    if check.more:
        lines.append(f"… and {check.more:,} more")
    return not check.ok, "\n".join(lines)


def _studio_dataset(hostile: Hostile, data: bytes, database: Path) -> tuple[bool, str]:
    from scorer_runtime.datasets import ImportFailure
    from studio.app_pages.examples.logic import (
        check_file,
        decode_upload,
        file_format,
        guess_mapping,
        import_upload,
        preview_file,
    )

    try:  # what the Examples page does with an upload, in order
        text = decode_upload(data, hostile.file_name)
        fmt = file_format(hostile.file_name)
        mapping = guess_mapping(preview_file(text, fmt).columns)
        check_file(text, fmt, mapping)
        engine = make_engine(f"sqlite:///{database}")
        try:
            with session_scope(engine) as session:
                result = import_upload(
                    session,
                    data=data,
                    filename=hostile.file_name,
                    dataset_name="hostile-studio",
                    mapping=mapping,
                    skip_bad_rows=hostile.file_name in SKIP,
                    append=False,
                )
        finally:
            engine.dispose()
    except ImportFailure as failure:
        return True, "\n".join(str(issue) for issue in failure.issues)
    skipped = "\n".join(str(issue) for issue in result.skipped)
    return False, f"Imported {result.imported} examples; skipped {len(result.skipped)}\n{skipped}"


def _studio_traces(hostile: Hostile, data: bytes, database: Path) -> tuple[bool, str]:
    from studio.app_pages.traces.logic import read_upload

    loaded = read_upload(data, hostile.file_name)
    lines = [f"{p.where}: {p.message}" for p in loaded.problems]
    return not loaded.traces, "\n".join(lines)


STUDIO = {"spec": _studio_spec, "dataset": _studio_dataset, "traces": _studio_traces}


@pytest.mark.parametrize("hostile", ALL, ids=str)
def test_the_studio_upload_refuses_it_cleanly(hostile: Hostile, database: Path):
    data = hostile.make()
    before = row_counts(database)
    (refused, text), cpu, peak = run_in_process(
        lambda: STUDIO[hostile.kind](hostile, data, database)
    )
    max_lines = max(hostile.max_lines, 21) if hostile.kind == "spec" else hostile.max_lines
    # tracemalloc counts what Python allocates (the upload's own bytes included).
    _check_bounds(hostile, Watched(0, text, cpu, peak))
    assert len(text.splitlines()) <= max_lines
    assert refused == hostile.refused, f"{hostile}: refused={refused}: {describe(text)}"
    assert _written(before, row_counts(database)) == _expected_writes(hostile)
    if not hostile.refused:
        _forget_dataset(database, "hostile-studio")
