"""``scorer-studio labels``: people's grades of a scorer's examples, in and out of CSV files."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from scorer_runtime.cli.support import console, friendly, session

if TYPE_CHECKING:
    from sqlmodel import Session

labels_app = typer.Typer(
    help="Import and export people's grades (labels) of a scorer's examples.",
    no_args_is_help=True,
)

_SCORER_HELP = "Name of the scorer the grades are for (or its number)."


def _scorer_id(opened: Session, scorer: str) -> int:
    """The id of the scorer named ``scorer`` (a number is taken as its id when no name fits)."""
    from scorer_runtime.store import NotFoundError, get_scorer

    try:
        return get_scorer(opened, name=scorer).id
    except NotFoundError:
        if not scorer.isdigit():
            raise
        return get_scorer(opened, id=int(scorer)).id


@labels_app.command("import")
@friendly
def labels_import(
    file: Annotated[Path, typer.Argument(help="A CSV file with a header: one grade a row.")],
    scorer: Annotated[str, typer.Option("--scorer", help=_SCORER_HELP)],
    map: Annotated[
        list[str] | None,
        typer.Option("--map", help="Field=column, e.g. --map grade=verdict (repeatable)."),
    ] = None,
    dataset: Annotated[
        str | None,
        typer.Option(
            "--dataset",
            help="The dataset the grades are for: rows find their example by number or "
            "content in it (default: by content in every dataset).",
        ),
    ] = None,
    grader: Annotated[
        str | None,
        typer.Option(
            "--grader",
            help="Who graded, for a file without a grader column (default: the file's name).",
        ),
    ] = None,
) -> None:
    """Import grades: which example (an example_id column; or the example's number in the
    dataset, with --dataset; or its input and output, e.g. columns question and answer), the
    grade (a score or a grade's name), and optionally grader, note and time (when it was
    graded, e.g. 2026-03-01T09:30:00+02:00; UTC when it has no zone; the time of the import
    when there is none). Rows that match no example or several, and other bad rows, are
    listed by their line; the good ones are imported."""
    from scorer_runtime.datasets import LABEL_FIELDS, import_labels, parse_mapping, read_text
    from scorer_runtime.store import get_dataset

    mapping = parse_mapping(map or [], LABEL_FIELDS, example="grade=verdict")
    text = read_text(file)
    with session(write=True) as opened:
        result = import_labels(
            opened,
            scorer_id=_scorer_id(opened, scorer),
            text=text,
            mapping=mapping,
            source=file.name,
            dataset_id=get_dataset(opened, name=dataset).id if dataset else None,
            grader=grader if grader is not None else file.name,
        )
    out = console()
    out.print(result.words(file.name), markup=False)
    if result.skipped:
        out.print(f"Left out {len(result.skipped)} bad rows:")
        for issue in result.skipped:
            out.print(f"  {issue}", markup=False)


@labels_app.command("export")
@friendly
def labels_export(
    scorer: Annotated[str, typer.Option("--scorer", help=_SCORER_HELP)],
    output: Annotated[
        Path | None,
        typer.Option("-o", "--output", help="Where to write the CSV (default: the screen)."),
    ] = None,
) -> None:
    """Export the latest grade of each graded example as CSV (it imports back as it is)."""
    from scorer_runtime.datasets import write_labels
    from scorer_runtime.output_files import write_whole

    with session() as opened:
        scorer_id = _scorer_id(opened, scorer)
        if output is None:
            write_labels(opened, scorer_id=scorer_id, stream=sys.stdout)
            return
        count = write_whole(
            output, lambda stream: write_labels(opened, scorer_id=scorer_id, stream=stream)
        )
    console().print(f"Wrote {count} grades of scorer {scorer} to {output}.")
