"""The Improve tab: from people's grades to a better judge version, proven on a holdout.

Step 1 asks a judge model for guidelines written from the disagreements of the examples to
learn from (the person may edit them); step 2 scores the version and its candidates (worked
examples, guidelines, both) and saves the best as a new, unapproved version when it agrees
with people better on the examples kept apart. Both steps run here, with a progress bar.
"""

from __future__ import annotations

import streamlit as st

from scorer_runtime.batch.runner import BatchProgress
from scorer_runtime.costs.cap import JUDGE_CAP
from scorer_runtime.trust.align import Candidates, NotReadyError
from scorer_runtime.trust.align_plan import AlignPlan
from scorer_runtime.trust.align_report import AlignReport
from studio import state
from studio.app_pages.trust import improve_data as data
from studio.app_pages.trust.improve_logic import (
    KIND_WORDS,
    WHAT_IT_DOES,
    added_instructions,
    read_lines,
    result_rows,
)
from studio.app_pages.trust.stability_logic import cost_words

OWN_JUDGE = ""
"""The writer choice meaning the scorer's own judge."""


def render(version_id: int) -> None:
    """The tab for one version."""
    st.markdown(WHAT_IT_DOES)
    try:
        plan = data.plan(version_id)
    except NotReadyError as error:
        st.info(str(error), icon=":material/info:")
        return
    except ValueError as error:  # a scorer with no judge step to improve
        st.info(f"This version cannot be improved here: {error}", icon=":material/info:")
        return
    st.markdown(plan.describe())
    found = _guidelines(plan, version_id)
    if found is not None:
        _try(plan, version_id, found)
    report = state.peek(state.TRUST_IMPROVE_REPORT.child(version_id))
    if isinstance(report, AlignReport):
        _result(report)


def _guidelines(plan: AlignPlan, version_id: int) -> Candidates | None:
    """Step 1; the candidates with the guidelines as edited (None until they are written)."""
    st.markdown("##### 1. Guidelines from the disagreements")
    names = data.judge_names()
    left, right = st.columns([2, 1], vertical_alignment="bottom")
    writer = left.selectbox(
        "Written by",
        [OWN_JUDGE, *names],
        format_func=lambda n: "This scorer's own judge" if n == OWN_JUDGE else f"Saved judge: {n}",
        key=state.TRUST_IMPROVE_WRITER.child(version_id).name,
        help="The judge model that reads where this judge and people disagreed (only the "
        "examples to learn from) and writes a few rules for it.",
    )
    box = state.TRUST_IMPROVE_GUIDELINES.child(version_id)
    made = state.TRUST_IMPROVE_CANDIDATES.child(version_id)
    if right.button("Write guidelines", key=state.TRUST_IMPROVE_WRITE.child(version_id).name):
        with st.spinner("The judge model reads the disagreements…"):
            try:
                written = data.candidates(plan, writer or None)
            except ValueError as error:  # a key not set, a judge that does not answer
                st.error(f"No guidelines were written: {error}", icon=":material/error:")
            else:
                state.put(made, written)
                state.put(box, "\n".join(written.guidelines.lines))
    written = state.peek(made)
    if not isinstance(written, Candidates):
        st.caption("Write the guidelines first: the candidates are tried with them.")
        return None
    text = st.text_area(
        "Guidelines to try (one a line; edit them, or write your own)",
        key=box.name,
        height=140,
    )
    lines = read_lines(text or "")
    if not lines:
        st.warning("Keep at least one guideline to try.", icon=":material/info:")
        return None
    st.caption("Added to the end of the judge's instructions:")
    st.code(added_instructions(lines), language="diff")
    return written.edited(lines)


def _try(plan: AlignPlan, version_id: int, tried: Candidates) -> None:
    st.markdown("##### 2. Try the candidates on the examples kept apart")
    kinds = [KIND_WORDS[c.kind].lower() for c in tried.items]
    st.caption(
        f"The version and {len(kinds)} candidates ({', '.join(kinds)}) each score the "
        f"{len(plan.graded)} graded examples. " + cost_words([data.estimate(version_id)])
    )
    cap = st.number_input(
        "Stop spending at ($)",
        min_value=0.01,
        value=None,
        step=0.5,
        format="%.2f",
        placeholder="the judge's own cap",
        key=state.TRUST_IMPROVE_CAP.child(version_id).name,
        help="Shared equally by the runs, what the guidelines cost included: no example is "
        "scored that could pass it. Empty: each run stops at the judge's own spend cap.",
    )
    if not st.button(
        "Try the candidates", type="primary", key=state.TRUST_IMPROVE_TRY.child(version_id).name
    ):
        return
    order = ["current", *(c.kind for c in tried.items)]
    bar = st.progress(0.0, text="Scoring…")

    def progress(kind: str, where: BatchProgress) -> None:
        step = order.index(kind) if kind in order else 0
        share = (step + where.done / max(where.total, 1)) / len(order)
        who = "The current version" if kind == "current" else KIND_WORDS.get(kind, kind)
        bar.progress(min(share, 1.0), text=f"{who}: {where.done} of {where.total} examples")

    try:
        report = data.improve(
            plan, tried, max_cost=JUDGE_CAP if cap is None else float(cap), progress=progress
        )
    except ValueError as error:  # a cap no run could keep, a key not set
        bar.empty()
        st.error(f"The candidates were not tried: {error}", icon=":material/error:")
        return
    state.put(state.TRUST_IMPROVE_REPORT.child(version_id), report)
    st.rerun()  # the badges above the tabs name the version just saved


def _result(report: AlignReport) -> None:
    st.markdown("##### Result")
    st.dataframe(result_rows(report), hide_index=True)
    st.caption(
        "Agreement is Cohen's kappa with its 95 % interval; \"could the difference be "
        "chance?\" is McNemar's exact test on the examples kept apart: when it could, "
        "grade more examples to be sure."
    )
    shown = st.success if report.chosen_version is not None else st.warning
    shown(report.words(), icon=":material/info:")
