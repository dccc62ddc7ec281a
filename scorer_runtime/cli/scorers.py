"""``scorer-studio scorers``: list, show, import, export, archive and duplicate scorers."""

from __future__ import annotations

import json
from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer

from scorer_runtime.cli.support import console, friendly, session, styled
from scorer_runtime.output_files import write_whole

scorers_app = typer.Typer(help="List, show, import and export scorers.", no_args_is_help=True)


class ExportFormat(StrEnum):
    """What ``scorers export`` writes."""

    python = "python"
    json = "json"
    yaml = "yaml"
    mastra = "mastra"


# -- scorers -----------------------------------------------------------------------------------


@scorers_app.command("list")
@friendly
def scorers_list(
    all: bool = typer.Option(False, "--all", help="Include archived scorers."),
) -> None:
    """List the scorers and their latest version."""
    from scorer_runtime.cli.report import scorers_table
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
    from scorer_runtime.cli.report import versions_table
    from scorer_runtime.spec.export import spec_data
    from scorer_runtime.store import get_scorer, get_version, list_versions

    with session() as opened:
        scorer = get_scorer(opened, name=name)
        assert scorer.id is not None
        versions = list_versions(opened, scorer_id=scorer.id)
        shown = get_version(opened, scorer_id=scorer.id, version=version)
    out = console()
    out.print(styled("bold", scorer.name, f": {scorer.description}"))
    out.print(versions_table(versions))
    out.print(f"Spec of version {shown.version}:")
    out.print_json(json.dumps(spec_data(shown.spec)), ensure_ascii=True)


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
    """Export a scorer as runnable Python or Mastra TypeScript, or as a JSON/YAML spec."""
    from scorer_runtime.saved_scorers import judge_profiles, load_stored_spec
    from scorer_runtime.spec import export_json, export_python, export_yaml
    from scorer_runtime.spec.mastra import export_mastra
    from scorer_runtime.store import get_scorer, get_version

    with session() as opened:
        scorer = get_scorer(opened, name=name)
        assert scorer.id is not None
        stored = get_version(opened, scorer_id=scorer.id, version=version)
        spec = load_stored_spec(opened, stored)
        profiles = judge_profiles(opened)
    if format is ExportFormat.mastra:
        exported = export_mastra(spec, judge_profiles=profiles, version=stored.version)
        _say_differences(exported.differences)
        text = exported.text
    elif format is ExportFormat.python:
        text = export_python(spec, judge_profiles=profiles)
    else:
        text = export_json(spec) if format is ExportFormat.json else export_yaml(spec)
    if output is None:
        typer.echo(text, nl=False)
        return
    write_whole(output, lambda stream: stream.write(text))
    console(stderr=True).print(f"Wrote {name} as {format.value} to {output}")


def _say_differences(differences: list[str]) -> None:
    """Tell, before anything is written, what the Mastra scorer does differently."""
    if not differences:
        return
    err = console(stderr=True)
    err.print("The Mastra scorer differs from the studio's in these ways:", markup=False)
    for difference in differences:
        err.print(f"  - {difference}", markup=False)


@scorers_app.command("import")
@friendly
def scorers_import(
    file: Annotated[Path, typer.Argument(help="A scorer spec, JSON or YAML.")],
    name: str | None = typer.Option(None, help="Save under this name (default: the spec's id)."),
    note: str = typer.Option("", help="A note for this version."),
) -> None:
    """Check a spec file and save it as the scorer's next version (unchanged: no new version)."""
    from scorer_runtime.saved_scorers import import_spec_file
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
