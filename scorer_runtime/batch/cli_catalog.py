"""``scorer-studio scorers|datasets|db|seed``: the commands that manage what is stored."""

from __future__ import annotations

import json
from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer

from scorer_runtime.batch.cli_support import console, friendly, session, url

scorers_app = typer.Typer(help="List, show, import and export scorers.", no_args_is_help=True)
datasets_app = typer.Typer(help="List, import and export datasets.", no_args_is_help=True)
db_app = typer.Typer(help="Manage the database.", no_args_is_help=True)
_DATA = Path("data")


class ExportFormat(StrEnum):
    """What ``scorers export`` writes."""

    python = "python"
    json = "json"
    yaml = "yaml"


class DataFormat(StrEnum):
    """Example file formats."""

    csv = "csv"
    jsonl = "jsonl"


# -- scorers -----------------------------------------------------------------------------------


@scorers_app.command("list")
@friendly
def scorers_list(
    all: bool = typer.Option(False, "--all", help="Include archived scorers."),
) -> None:
    """List the scorers and their latest version."""
    from scorer_runtime.batch.report import scorers_table
    from scorer_runtime.store import latest_version_numbers, list_scorers

    with session() as opened:
        scorers = list_scorers(opened, include_archived=all)
        latest = latest_version_numbers(opened)
    if not scorers:
        console().print("No scorers yet. Import one with: scorer-studio scorers import FILE")
        return
    console().print(scorers_table(scorers, latest))


@scorers_app.command("show")
@friendly
def scorers_show(
    name: Annotated[str, typer.Argument(help="Name of the scorer.")],
    version: int | None = typer.Option(None, help="Version to show (default: the latest)."),
) -> None:
    """Show a scorer's versions and the spec of one of them."""
    from scorer_runtime.batch.report import versions_table
    from scorer_runtime.store import get_scorer, get_version, list_versions

    with session() as opened:
        scorer = get_scorer(opened, name=name)
        assert scorer.id is not None
        versions = list_versions(opened, scorer_id=scorer.id)
        shown = get_version(opened, scorer_id=scorer.id, version=version)
    out = console()
    out.print(f"[bold]{scorer.name}[/]: {scorer.description}")
    out.print(versions_table(versions))
    out.print(f"Spec of version {shown.version}:")
    out.print_json(json.dumps(shown.spec))


@scorers_app.command("export")
@friendly
def scorers_export(
    name: Annotated[str, typer.Argument(help="Name of the scorer.")],
    format: Annotated[ExportFormat, typer.Option("--format", help="What to write.")] = (
        ExportFormat.python
    ),
    version: int | None = typer.Option(None, help="Version to export (default: the latest)."),
    output: Annotated[
        Path | None, typer.Option("--output", "-o", help="File to write (default: stdout).")
    ] = None,
) -> None:
    """Export a scorer as runnable Python, or as a JSON/YAML spec that imports back."""
    from scorer_runtime.batch.stored import judge_profiles, load_stored_spec
    from scorer_runtime.spec import export_json, export_python, export_yaml
    from scorer_runtime.store import get_scorer, get_version

    with session() as opened:
        scorer = get_scorer(opened, name=name)
        assert scorer.id is not None
        spec = load_stored_spec(opened, get_version(opened, scorer_id=scorer.id, version=version))
        profiles = judge_profiles(opened)
    if format is ExportFormat.python:
        text = export_python(spec, judge_profiles=profiles)
    else:
        text = export_json(spec) if format is ExportFormat.json else export_yaml(spec)
    if output is None:
        typer.echo(text, nl=False)
        return
    output.write_text(text, encoding="utf-8")
    console(stderr=True).print(f"Wrote {name} as {format.value} to {output}")


@scorers_app.command("import")
@friendly
def scorers_import(
    file: Annotated[Path, typer.Argument(help="A scorer spec, JSON or YAML.")],
    name: str | None = typer.Option(None, help="Save under this name (default: the spec's id)."),
    note: str = typer.Option("", help="A note for this version."),
) -> None:
    """Check a spec file and save it as the scorer's next version (unchanged: no new version)."""
    from scorer_runtime.batch.stored import import_spec_file
    from scorer_runtime.store import get_scorer

    with session(write=True) as opened:
        version = import_spec_file(opened, path=file, name=name, note=note)
        scorer = get_scorer(opened, id=version.scorer_id)
    console().print(f"Scorer {scorer.name}: version {version.version} ({version.note})")


@scorers_app.command("archive")
@friendly
def scorers_archive(
    name: Annotated[str, typer.Argument(help="Name of the scorer.")],
    undo: bool = typer.Option(False, "--undo", help="Bring an archived scorer back."),
) -> None:
    """Hide a scorer from lists; its versions and scores are kept."""
    from scorer_runtime.store import archive_scorer, get_scorer

    with session(write=True) as opened:
        scorer = get_scorer(opened, name=name)
        assert scorer.id is not None
        archive_scorer(opened, scorer_id=scorer.id, archived=not undo)
    console().print(f"Scorer {name} {'restored' if undo else 'archived'}.")


@scorers_app.command("duplicate")
@friendly
def scorers_duplicate(
    name: Annotated[str, typer.Argument(help="Name of the scorer to copy.")],
    new_name: Annotated[str, typer.Argument(help="Name of the copy.")],
) -> None:
    """Copy a scorer's latest version into a new scorer."""
    from scorer_runtime.store import duplicate_scorer, get_scorer

    with session(write=True) as opened:
        scorer = get_scorer(opened, name=name)
        assert scorer.id is not None
        duplicate_scorer(opened, scorer_id=scorer.id, new_name=new_name)
    console().print(f"Scorer {new_name} created as a copy of {name}.")


# -- datasets ----------------------------------------------------------------------------------


@datasets_app.command("list")
@friendly
def datasets_list() -> None:
    """List the datasets and their number of examples."""
    from scorer_runtime.batch.report import datasets_table
    from scorer_runtime.store import example_counts, list_datasets

    with session() as opened:
        datasets = list_datasets(opened)
        counts = example_counts(opened)
    if not datasets:
        console().print("No datasets yet. Import one with: scorer-studio datasets import FILE")
        return
    console().print(datasets_table(datasets, counts))


@datasets_app.command("import")
@friendly
def datasets_import(
    file: Annotated[Path, typer.Argument(help="A CSV (with a header) or JSONL file of examples.")],
    name: str | None = typer.Option(None, help="Dataset name (default: the file name)."),
    map: Annotated[
        list[str] | None,
        typer.Option("--map", help="Field=column, e.g. --map input=question (repeatable)."),
    ] = None,
    skip_bad_rows: bool = typer.Option(
        False, "--skip-bad-rows", help="Import the good rows and list the bad ones."
    ),
    append: bool = typer.Option(False, help="Add to an existing dataset of that name."),
    format: Annotated[
        DataFormat | None, typer.Option("--format", help="Default: from the name.")
    ] = None,
) -> None:
    """Import examples; every bad row is reported with its line, and nothing is imported
    unless --skip-bad-rows."""
    from scorer_runtime.batch import import_examples, parse_mapping

    mapping = parse_mapping(map or [])
    with session(write=True) as opened:
        result = import_examples(
            opened,
            path=file,
            dataset_name=name,
            mapping=mapping,
            skip_bad_rows=skip_bad_rows,
            append=append,
            format=format.value if format else None,
        )
    out = console()
    out.print(f"Imported {result.imported} examples into dataset {result.dataset_name}.")
    if result.skipped:
        out.print(f"Skipped {len(result.skipped)} bad rows:")
        for issue in result.skipped:
            out.print(f"  {issue}", markup=False)


@datasets_app.command("export")
@friendly
def datasets_export(
    name: Annotated[str, typer.Argument(help="Name of the dataset.")],
    file: Annotated[Path, typer.Argument(help="Where to write (.csv or .jsonl).")],
    format: Annotated[
        DataFormat | None, typer.Option("--format", help="Default: from the name.")
    ] = None,
) -> None:
    """Export a dataset's examples to CSV or JSONL."""
    from scorer_runtime.batch import export_examples
    from scorer_runtime.store import get_dataset

    with session() as opened:
        dataset = get_dataset(opened, name=name)
        assert dataset.id is not None
        count = export_examples(
            opened, dataset_id=dataset.id, path=file, format=format.value if format else None
        )
    console().print(f"Wrote {count} examples of {name} to {file}.")


# -- database ----------------------------------------------------------------------------------


@db_app.command("upgrade")
@friendly
def db_upgrade() -> None:
    """Bring the database schema to the newest revision (also done on every start)."""
    from scorer_runtime.store import current_revision, describe_url, make_engine, upgrade

    engine = make_engine(url())
    try:
        before = current_revision(engine)
        after = upgrade(engine)
    finally:
        engine.dispose()
    change = "already up to date" if before == after else f"upgraded from {before or 'empty'}"
    console().print(f"Database {describe_url(url())}: {change} (revision {after}).")


@friendly
def seed(
    data_dir: Annotated[
        Path, typer.Option(help="Folder with scorers/, datasets/ and traces/.")
    ] = _DATA,
) -> None:
    """Load the demo scorers, datasets and agent traces, if the database has none yet."""
    from scorer_runtime.batch.stored import seed_demo_data

    with session(write=True) as opened:
        result = seed_demo_data(opened, data_dir=data_dir)
    if result.skipped_reason:
        console().print(f"Nothing to seed: {result.skipped_reason}.")
        return
    parts = [
        f"{len(result.scorers)} scorers ({', '.join(result.scorers) or 'none'})",
        f"{len(result.datasets)} datasets ({', '.join(result.datasets) or 'none'})",
    ]
    if result.traces:
        parts.append(f"{result.traces} agent traces")
    console().print(f"Seeded {', '.join(parts[:-1])} and {parts[-1]}.")
