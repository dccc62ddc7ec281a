"""``scorer-studio cache stats|clear``: what the judge answer cache holds, and forgetting it."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

import typer

from scorer_runtime.cli.support import console, friendly, session

cache_app = typer.Typer(help="The judge answer cache.", no_args_is_help=True)

_AGE = re.compile(r"^\s*(\d+)\s*([hdw])\s*$", re.IGNORECASE)
_UNIT = {"h": timedelta(hours=1), "d": timedelta(days=1), "w": timedelta(weeks=1)}

_SCORER_HELP = "Only the answers of this scorer (its name)."


def parse_age(text: str) -> timedelta:
    """``30d``, ``12h`` or ``2w`` as a duration; a ValueError in words otherwise."""
    found = _AGE.match(text)
    if found is None:
        raise ValueError(
            f"--older-than {text!r} is not an age: write a number and a unit, "
            "h (hours), d (days) or w (weeks), e.g. 30d"
        )
    return int(found.group(1)) * _UNIT[found.group(2).lower()]


def _scorer_id(name: str | None) -> int | None:
    if name is None:
        return None
    from scorer_runtime.store import get_scorer

    with session() as opened:
        return get_scorer(opened, name=name).id


@cache_app.command("stats")
@friendly
def stats(scorer: str | None = typer.Option(None, "--scorer", help=_SCORER_HELP)) -> None:
    """How many judge answers the cache holds and what they cost when first asked."""
    from scorer_runtime.money import format_dollars
    from scorer_runtime.store import cache_stats

    scorer_id = _scorer_id(scorer)
    with session() as opened:
        found = cache_stats(opened, scorer_id=scorer_id)
    whose = f" of scorer {scorer}" if scorer else ""
    if found.answers == 0:
        console().print(f"The judge answer cache holds no answer{whose}.")
        return
    console().print(
        f"The judge answer cache holds {found.answers:,} answers{whose}, "
        f"{format_dollars(found.cost)} when first asked; "
        f"stored {_day(found.oldest)} to {_day(found.newest)}."
    )


def _day(moment: datetime | None) -> str:
    return "?" if moment is None else moment.strftime("%Y-%m-%d %H:%M")


@cache_app.command("clear")
@friendly
def clear(
    scorer: str | None = typer.Option(None, "--scorer", help=_SCORER_HELP),
    older_than: str | None = typer.Option(
        None, "--older-than", help="Only answers stored longer ago than this (30d, 12h, 2w)."
    ),
) -> None:
    """Forget judge answers: the next run asks the judge again for them."""
    from scorer_runtime.store import clear_answers

    before = None if older_than is None else datetime.now(UTC) - parse_age(older_than)
    scorer_id = _scorer_id(scorer)
    with session(write=True) as opened:
        removed = clear_answers(opened, scorer_id=scorer_id, before=before)
    whose = f" of scorer {scorer}" if scorer else ""
    age = f" older than {older_than.strip()}" if older_than else ""
    console().print(f"Removed {removed:,} judge answers{whose}{age} from the cache.")
