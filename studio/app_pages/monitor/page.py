"""Monitor: the scoring rules that score traces as they arrive, what each scored today, the
newest scores, and a form to add a rule."""

from __future__ import annotations

import streamlit as st

from scorer_runtime.costs.cap import CapError
from scorer_runtime.runs import RunRefusedError
from studio import state
from studio.app_pages.monitor import data
from studio.app_pages.monitor.logic import read_rule_form, rule_rows, score_rows
from studio.widgets import pickers
from studio.widgets.common import empty_state, page_header
from studio.widgets.judge_fix import fix_judge_link

page_header(
    "Monitor",
    "Score your agents' traces as they arrive: a rule scores each new trace it takes with a "
    "scorer, within a daily spend cap. Runners apply the rules within a second.",
)
state.show_flashes()


def render_rules() -> None:
    """The rules and what each did today, or what a rule is when there is none."""
    lines = data.rules()
    if not lines:
        empty_state(
            "**No rules yet.** A rule scores every new trace that passes its filters (a "
            "service, an environment, an agent…) with one of your scorers. Add one below; "
            "a rule scores the traces stored after it is added (an engineer can score "
            "the earlier ones with a backfill from the command line)."
        )
        return
    st.dataframe(rule_rows(lines), hide_index=True, width="stretch")


def render_scores() -> None:
    """The newest scores the rules stored."""
    st.subheader("Newest scores")
    scores = data.newest_scores()
    if not scores:
        st.caption("No trace was scored by a rule yet: scores show here as traces arrive.")
        return
    st.dataframe(score_rows(scores), hide_index=True, width="stretch")


def render_add_form() -> None:
    """Add a rule: a scorer, filters, a share of traces and a daily cap."""
    st.subheader("Add a rule")
    names = pickers.scorer_choices()
    if not names:
        st.info("Build a scorer first: a rule scores traces with one of your scorers.")
        return
    with st.form(state.MONITOR_ADD.name, border=True):
        scorer_id = st.selectbox(
            "Score with", list(names), format_func=names.__getitem__, key=state.MONITOR_SCORER.name
        )
        filters = st.text_area(
            "Only traces with (one per line, KEY=VALUE; empty: every trace)",
            placeholder="service=checkout\nenvironment=production\nagent=support-agent",
            key=state.MONITOR_FILTERS.name,
            help="service, environment, agent, span (a span's name), or the name of any span "
            "or resource attribute. * matches any text. Every line must hold.",
        )
        sample = st.number_input(
            "Share of traces to score (%)",
            min_value=1.0,
            max_value=100.0,
            value=100.0,
            step=1.0,
            key=state.MONITOR_SAMPLE.name,
            help="Picked by trace id: rules with the same share score the same traces.",
        )
        cap = st.text_input(
            "Stop for the day at $ (empty: no cap)",
            placeholder="5.00",
            key=state.MONITOR_CAP.name,
            help="When a day's spend reaches it, the rule pauses until 00:00 UTC.",
        )
        added = st.form_submit_button("Add rule", type="primary")
    if added:  # outside the form: a refusal may offer a button to fix the judge
        _add(int(scorer_id), filters, sample, cap)


def _add(scorer_id: int, filters: str, sample: float, cap: str) -> None:
    try:
        form = read_rule_form(filters, sample, cap)
        rule = data.add_rule(scorer_id, form)
    except (RunRefusedError, CapError, ValueError) as error:
        st.error(f"{str(error)[:1].upper()}{str(error)[1:]}", icon=":material/error:")
        if isinstance(error, RunRefusedError):  # a judge's key not set, or a broken spec
            fix_judge_link(scorer_id, key=state.MONITOR_FIX_JUDGE)
        return
    state.flash(f"Rule {rule.id} added: new traces it takes are scored as they arrive.")
    st.rerun()


render_rules()
render_scores()
render_add_form()
