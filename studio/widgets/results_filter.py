"""The Results page's filter and the choices of its pickers, as plain values (Streamlit-free).

Shared by the Results and Compare runs pages and by the links that open Results from any page
(:mod:`studio.widgets.results_links`), so it lives with the widgets rather than in one page.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from typing import Any

from scorer_runtime.store import ScoreFilter
from scorer_runtime.types import OUTCOMES


@dataclass(frozen=True, slots=True)
class ResultsFilter:
    """The Results page's filters as plain values (``until`` is an inclusive UTC day).

    Kept separate from the store's :class:`ScoreFilter` so it can be cached, remembered in the
    session and written by another page ("show the results of this run") as a plain dict.
    """

    scorer_id: int | None = None
    version_id: int | None = None
    dataset_id: int | None = None
    run_id: int | None = None
    since: date | None = None
    until: date | None = None
    outcomes: tuple[str, ...] | None = None
    """None (or empty) means every outcome."""

    def score_filter(self) -> ScoreFilter:
        """The store's filter: whole UTC days, ``until`` made exclusive; the scores of
        stability checks' repeats left out (they belong to the check, on the Trust page)."""
        return ScoreFilter(
            scorer_id=self.scorer_id,
            scorer_version_id=self.version_id,
            dataset_id=self.dataset_id,
            run_id=self.run_id,
            outcomes=self.outcomes or None,
            since=_day_start(self.since) if self.since else None,
            until=_day_start(self.until + timedelta(days=1)) if self.until else None,
            repeats=False,
        )

    def problem(self) -> str | None:
        """Why this filter can match nothing, in plain words (None when it is fine)."""
        if self.since and self.until and self.since > self.until:
            return (
                f"The start date ({self.since:%d %b %Y}) is after the end date "
                f"({self.until:%d %b %Y}). Swap them, or clear one of them."
            )
        return None

    def to_state(self) -> dict[str, Any]:
        """Plain data to remember in the session (dates as ISO text)."""
        return {
            "scorer_id": self.scorer_id,
            "version_id": self.version_id,
            "dataset_id": self.dataset_id,
            "run_id": self.run_id,
            "since": self.since.isoformat() if self.since else None,
            "until": self.until.isoformat() if self.until else None,
            "outcomes": list(self.outcomes) if self.outcomes else None,
        }

    @classmethod
    def from_state(cls, data: Mapping[str, Any] | None) -> ResultsFilter:
        """The filter remembered by :meth:`to_state` (or preset by another page); junk is
        dropped rather than raised, since the session may hold values from an older page."""
        data = data or {}
        outcomes = tuple(o for o in data.get("outcomes") or () if o in OUTCOMES)
        return cls(
            scorer_id=_int_or_none(data.get("scorer_id")),
            version_id=_int_or_none(data.get("version_id")),
            dataset_id=_int_or_none(data.get("dataset_id")),
            run_id=_int_or_none(data.get("run_id")),
            since=_date_or_none(data.get("since")),
            until=_date_or_none(data.get("until")),
            outcomes=outcomes or None,
        )


def _day_start(day: date) -> datetime:
    return datetime.combine(day, time.min, tzinfo=UTC)


def _int_or_none(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, str) and value.isdigit():
        return int(value)
    return None


def _date_or_none(value: Any) -> date | None:
    if isinstance(value, datetime):
        return value.date()
    if isinstance(value, date):
        return value
    if isinstance(value, str):
        try:
            return date.fromisoformat(value)
        except ValueError:
            return None
    return None


@dataclass(frozen=True, slots=True)
class Choice:
    """One option of a select box: the id it stands for and its label."""

    id: int
    label: str
