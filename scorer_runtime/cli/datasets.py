"""``scorer-studio datasets``: list, import and export datasets of examples."""

from __future__ import annotations

from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer

from scorer_runtime.cli.support import console, friendly, session

datasets_app = typer.Typer(help="List, import and export datasets.", no_args_is_help=True)


class DataFormat(StrEnum):
    """Example file formats."""

    csv = "csv"
    jsonl = "jsonl"


# -- datasets ----------------------------------------------------------------------------------


@datasets_app.command("list")
@friendly
def datasets_list() -> None:
    """List the datasets and their number of examples."""
    from scorer_runtime.cli.report import datasets_table
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
    unless --skip-bad-rows. An example the dataset already holds (the same input, output,
    ground truth, context and tags) is not added again: importing a file twice adds nothing."""
    from scorer_runtime.datasets import import_examples, parse_mapping

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
    out.print(result.words(file.name), markup=False)
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
    from scorer_runtime.datasets import export_examples
    from scorer_runtime.store import get_dataset

    with session() as opened:
        dataset = get_dataset(opened, name=name)
        assert dataset.id is not None
        count = export_examples(
            opened, dataset_id=dataset.id, path=file, format=format.value if format else None
        )
    console().print(f"Wrote {count} examples of {name} to {file}.")
