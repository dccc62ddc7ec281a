"""What Compare runs shows for two runs: summary deltas, the examples (changed verdicts first),
the two results of one example side by side, and the comparison as CSV."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime

import streamlit as st

from scorer_runtime.store.views import CompareRow, CompareSummary, RunPair
from scorer_runtime.types import OUTCOMES
from studio import services, state
from studio.app_pages.compare.logic import change_words, comparison_csv_file, verdict_words
from studio.app_pages.compare.pick import run_caption
from studio.app_pages.results import data
from studio.app_pages.results.logic import PAGE_SIZE, score_range, short_text
from studio.widgets.common import format_score
from studio.widgets.csv_export import cap_note
from studio.widgets.results_filter import ResultsFilter
from studio.widgets.score_detail import render_score_detail
from studio.words import OUTCOME_LABELS, outcome_label


@dataclass(frozen=True, slots=True)
class ExampleNames:
    """What names the examples of a page of the comparison for a person (never their ids)."""

    previews: dict[int, str]
    """A one-line preview of each example's input, by example id."""
    numbers: dict[int, int]
    """Each example's number in the dataset (1, 2, 3…), by example id."""

    def number_words(self, example_id: int) -> str:
        """``Example 3``; ``An example`` when its number is not known (deleted since)."""
        number = self.numbers.get(example_id)
        return f"Example {number}" if number is not None else "An example"


def render_threshold(pair: RunPair) -> float:
    """The pass mark over both runs' score range; remembered with the selection."""
    ranges = [score_range(data.stats(ResultsFilter(run_id=r))) for r in (pair.before, pair.after)]
    lo, hi = min(r[0] for r in ranges), max(r[1] for r in ranges)
    selection = state.get(state.COMPARE_SELECTION)
    saved = selection.get("threshold")
    current = state.peek(state.COMPARE_THRESHOLD, saved if saved is not None else (lo + hi) / 2)
    state.put(state.COMPARE_THRESHOLD, float(min(max(current, lo), hi)))
    value = float(
        st.slider(
            "Pass mark",
            min_value=lo,
            max_value=hi,
            step=round((hi - lo) / 100, 4),
            key=state.COMPARE_THRESHOLD.name,
            help="A result passes when its score is at least this. A verdict 'changes' when "
            "an example passes in one run and fails in the other (or ends differently).",
        )
    )
    selection["threshold"] = value
    return value


def _signed(value: float | None, *, percent: bool = False) -> str | None:
    if value is None:
        return None
    return f"{value * 100:+.0f} points" if percent else f"{value:+.2f}"


def render_summary(summary: CompareSummary, pair: RunPair) -> None:
    """Summary deltas: verdict changes, mean and pass rate (B against A), outcome counts."""
    st.caption(f"**A:** {run_caption(pair.before)}  \n**B:** {run_caption(pair.after)}")
    before, after = summary.before, summary.after
    cols = st.columns(4)
    cols[0].metric(
        "Examples", f"{summary.examples:,}", help="Examples with a result in either run."
    )
    cols[1].metric(
        "Verdicts changed",
        f"{summary.changed:,}",
        help="Examples that pass in one run and fail in the other, or end differently "
        "(an error, not scorable, or no result in one run).",
    )
    cols[2].metric(
        "Mean score (B)",
        format_score(after.mean),
        delta=_signed(summary.mean_delta),
        help=f"B's mean over its {after.count:,} scored results; the change is against A's "
        f"({format_score(before.mean)}, {before.count:,} scored).",
    )
    rate = "—" if after.pass_rate is None else f"{after.pass_rate:.0%}"
    cols[3].metric(
        "Pass rate (B)",
        rate,
        delta=_signed(summary.pass_rate_delta, percent=True),
        help=f"B's scored results at or above {summary.threshold:g}; the change is against A's.",
    )
    other = summary.changed - summary.flipped
    paired = (
        f"on the {summary.paired:,} examples scored in both runs the score moved by "
        f"{_signed(summary.paired_mean_delta)} on average"
        if summary.paired
        else "no example was scored in both runs"
    )
    st.markdown(
        f"**{summary.pass_to_fail:,}** now fail · **{summary.fail_to_pass:,}** now pass · "
        f"**{other:,}** ended differently · {paired}."
    )
    _outcome_table(summary)


def _outcome_table(summary: CompareSummary) -> None:
    a, b = summary.before.outcome_counts, summary.after.outcome_counts
    seen = [o for o in OUTCOMES if a.get(o) or b.get(o)]
    with st.expander("How the results ended in each run"):
        st.dataframe(
            [
                {
                    "Outcome": outcome_label(o),
                    "A": a.get(o, 0),
                    "B": b.get(o, 0),
                    "Change": b.get(o, 0) - a.get(o, 0),
                }
                for o in seen
            ],
            hide_index=True,
            key=state.COMPARE_OUTCOMES.name,
        )


def _view_changed(signature: tuple[object, ...]) -> None:
    if state.get(state.COMPARE_VIEW) != signature:
        state.put(state.COMPARE_VIEW, signature)
        state.reset(state.COMPARE_PAGE)
        state.reset(state.COMPARE_EXAMPLE_ID)


def _step_page(delta: int) -> None:
    state.put(state.COMPARE_PAGE, max(0, state.get(state.COMPARE_PAGE) + delta))


def render_rows(pair: RunPair, threshold: float) -> tuple[list[CompareRow], ExampleNames]:
    """The examples, changed verdicts first then the largest score changes; returns the page
    and what names its examples (their inputs and numbers)."""
    only = st.toggle(
        "Only examples whose verdict changed",
        key=state.COMPARE_ONLY_CHANGED.name,
        help="Hide the examples that pass (or fail) in both runs.",
    )
    _view_changed((pair, threshold, only))
    total = data.compare_count(pair, threshold, only)
    index = min(state.get(state.COMPARE_PAGE), max(0, (total - 1) // PAGE_SIZE))
    rows, previews, numbers = data.compare_page(pair, threshold, index * PAGE_SIZE, only)
    names = ExampleNames(previews, numbers)
    if not rows:
        st.info("No example changed its verdict." if only else "These runs have no results yet.")
        return [], names
    st.dataframe(
        [_table_row(r, names) for r in rows],
        hide_index=True,
        key=state.COMPARE_TABLE.name,
        column_config={
            "Input": st.column_config.TextColumn(width="large"),
            "Example": st.column_config.NumberColumn(
                help="The example's number in the dataset, as the Examples page shows it."
            ),
        },
    )
    pages = max(1, -(-total // PAGE_SIZE))
    left, middle, right = st.columns([1, 3, 1])
    left.button(
        "Previous",
        key=state.COMPARE_PREVIOUS.name,
        on_click=_step_page,
        args=(-1,),
        disabled=index == 0,
    )
    middle.caption(f"Page {index + 1} of {pages} · {total:,} examples")
    right.button(
        "Next",
        key=state.COMPARE_NEXT.name,
        on_click=_step_page,
        args=(1,),
        disabled=index + 1 >= pages,
    )
    return rows, names


def _table_row(row: CompareRow, names: ExampleNames) -> dict[str, object]:
    return {
        "Input": names.previews.get(row.example_id, ""),
        "What changed": change_words(row, OUTCOME_LABELS),
        "A verdict": verdict_words(row.before.verdict, OUTCOME_LABELS),
        "A score": format_score(row.before.score),
        "B verdict": verdict_words(row.after.verdict, OUTCOME_LABELS),
        "B score": format_score(row.after.score),
        "Score change": _signed(row.delta) or "—",
        "Example": names.numbers.get(row.example_id),
    }


def _example_label(row: CompareRow, names: ExampleNames) -> str:
    """The example's input first, then what changed: ``“question” · Now passes · 0.40 → 0.90``
    (an example without input is named by its number: ``Example 3 · …``)."""
    scores = f"{format_score(row.before.score)} → {format_score(row.after.score)}"
    asked = names.previews.get(row.example_id)
    shown = f"“{short_text(asked, 70)}”" if asked else names.number_words(row.example_id)
    return f"{shown} · {change_words(row, OUTCOME_LABELS)} · {scores}"


def _example_changed() -> None:
    state.put(state.COMPARE_EXAMPLE_ID, state.peek(state.COMPARE_EXAMPLE))


def render_side_by_side(
    rows: list[CompareRow], pair: RunPair, names: ExampleNames | None = None
) -> None:
    """Pick an example of the page (by its input); its two results side by side."""
    names = names or ExampleNames({}, {})
    by_id = {r.example_id: r for r in rows}
    chosen = state.get(state.COMPARE_EXAMPLE_ID)
    state.put(state.COMPARE_EXAMPLE, chosen if chosen in by_id else None)
    picked = st.selectbox(
        "Open one example in both runs",
        [None, *by_id],
        key=state.COMPARE_EXAMPLE.name,
        on_change=_example_changed,
        placeholder="Pick an example",
        format_func=lambda i: "Pick an example" if i is None else _example_label(by_id[i], names),
        help="Shows how each run scored it: each step, the judge's prompts and answers.",
    )
    if picked is None:
        return
    row = by_id[picked]
    for column, side, run_id, name in zip(
        st.columns(2), (row.before, row.after), (pair.before, pair.after), ("A", "B"), strict=True
    ):
        with column, st.container(border=True):
            st.subheader(f"{name} — run {run_id}")
            found = data.score(side.score_id) if side.score_id is not None else None
            if found is None:
                st.info("This run has no result for this example.", icon=":material/block:")
            else:
                render_score_detail(found, key=state.COMPARE_DETAIL.child(name))


def render_download(pair: RunPair, threshold: float, examples: int) -> None:
    """The comparison as CSV, in the table's order (built only when clicked)."""
    engine = services.engine()
    stamp = datetime.now(UTC).strftime("%Y%m%d-%H%M")
    st.download_button(
        "Download the comparison (CSV)",
        data=lambda: comparison_csv_file(engine, pair=pair, threshold=threshold),
        file_name=f"compare-run{pair.before}-run{pair.after}-{stamp}.csv",
        mime="text/csv",
        key=state.COMPARE_DOWNLOAD.name,
        on_click="ignore",
        icon=":material/download:",
        help="One row per example: both verdicts and scores, the change, and the result ids.",
    )
    note = cap_note(examples, noun="examples", which="first")
    if note:
        st.caption(note)
