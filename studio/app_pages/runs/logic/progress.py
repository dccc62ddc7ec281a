"""A run's progress in plain words: how far it is, what it cost so far, when it started.

Durations, amounts and counts are worded by :mod:`studio.words`, like on every page.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

from scorer_runtime.batch.pace import RunPace, pace_words
from scorer_runtime.money import cache_words
from scorer_runtime.store import ScoreRow
from scorer_runtime.store.views import RunLine
from studio.words import CostWords, cost_words, noun


def run_cost_words(line: RunLine) -> CostWords:
    """The run's cost so far in words, saying how much of it is known."""
    return cost_words(line.cost, line.priced, line.unpriced)


def run_cache_words(line: RunLine) -> str | None:
    """``3 of 8 judge answers from the cache, $0.0012 saved`` as a sentence of its own (the
    run summary's words); None while the run has no judge answer, or takes none from the
    cache and got none from it."""
    if not line.use_cache and not line.cached_answers:
        return None
    words = cache_words(line.cached_answers, line.judge_answers, line.saved_cost)
    return None if words is None else f"{words[:1].upper()}{words[1:]}."


def run_pace_words(line: RunLine) -> str | None:
    """Whether a judge's rate limit holds the running run back, and its time left, in the
    words the command line uses too ("At the limit of 600 requests a minute: 10 a second.
    About 1 min 40 s left."); None before its runner has measured a pace, or once it ended."""
    if line.status != "running":
        return None
    return pace_words(RunPace.from_data(line.pace), line.remaining)


def format_when(moment: datetime | None) -> str:
    """A stored time (UTC) as ``30 Nov 2026, 14:03 UTC`` (``—`` when not yet)."""
    return "—" if moment is None else f"{moment:%d %b %Y, %H:%M} UTC"


def progress_words(done: int, total: int, failed: int) -> str:
    """``12 of 24 examples have a result (2 failed)``."""
    text = f"{done:,} of {total:,} {noun(total, 'example has', 'examples have')} a result"
    return f"{text} ({failed:,} failed)" if failed else text


def share(done: int, total: int) -> float:
    """The part done, between 0 and 1 (1 for an empty run, which has nothing left)."""
    return 1.0 if total <= 0 else min(max(done / total, 0.0), 1.0)


def preview(value: Any, width: int = 100) -> str:
    """An example's input in one line of at most ``width`` characters."""
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)
    line = " ".join(text.split())
    return line if len(line) <= width else line[: width - 1] + "…"


def live_rows(
    rows: Sequence[ScoreRow],
    inputs: Mapping[int, str],
    outcome_labels: Mapping[str, str],
    cached: Mapping[int, tuple[int, int]] | None = None,
) -> list[dict[str, Any]]:
    """A run's newest results as its live list shows them: the example's input first, then
    the score (text, "—" for none), why, and (``cached``: judge answers from the cache, of
    how many, by result) whether the judge answered it or the cache did."""
    out = []
    for row in rows:
        shown = {
            "Input": inputs.get(row.example_id, "") if row.example_id is not None else "",
            "Score": "—" if row.score is None else f"{row.score:.2f}",
            "Outcome": outcome_labels.get(row.outcome, row.outcome),
            "Reason or problem": " ".join((row.error or row.reason or "").split())[:160],
        }
        if cached is not None:
            shown["Judge answers"] = _answered_by(*cached.get(row.id, (0, 0)))
        out.append(shown)
    return out


def _answered_by(cached: int, answers: int) -> str:
    if answers == 0:
        return ""
    if cached == 0:
        return "asked the judge"
    if cached == answers:
        return "from cache"
    return f"{cached} of {answers} from cache"
