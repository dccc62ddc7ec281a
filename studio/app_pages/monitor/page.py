"""Monitor: the scoring rules that score traces as they arrive, what each scored today, their
drift alerts, a rule's scores by hour or day, the newest scores, and a form to add a rule.
The live parts refresh on their own every few seconds."""

from __future__ import annotations

from dataclasses import dataclass

import streamlit as st

from scorer_runtime.costs.cap import CapError
from scorer_runtime.runs import RunRefusedError
from scorer_runtime.store import RuleInfo
from scorer_runtime.trust.drift import AlertSettings
from studio import state
from studio.app_pages.monitor import data
from studio.app_pages.monitor.charts import windows_chart
from studio.app_pages.monitor.logic import (
    MEASURE_WORDS,
    PERIOD_WORDS,
    AlertFields,
    alert_rows,
    read_alerts,
    read_rule_form,
    rule_rows,
    rule_title,
    score_rows,
)
from studio.widgets import pickers
from studio.widgets.common import empty_state, page_header
from studio.widgets.judge_fix import fix_judge_link

REFRESH_S = 5.0  # how often the rules, alerts, chart and newest scores are read again

page_header(
    "Monitor",
    "Score your agents' traces as they arrive: a rule scores each new trace it takes with a "
    "scorer, within a daily spend cap, and can alert you when its scores drop. Runners apply "
    "the rules within a second.",
)
state.show_flashes()


@st.fragment(run_every=REFRESH_S)
def render_live() -> None:
    """The parts that change as traces arrive: rules, alerts, the chart, the newest scores."""
    lines = data.rules()
    if not lines:
        empty_state(
            "**No rules yet.** A rule scores every new trace that passes its filters (a "
            "service, an environment, an agent…) with one of your scorers. Add one below; "
            "a rule scores the traces stored after it is added (an engineer can score "
            "the earlier ones with a backfill from the command line)."
        )
        return
    titles = pickers.scorer_titles_by_id()
    labels = {line.rule.id: rule_title(line.rule, titles) for line in lines}
    st.dataframe(rule_rows(lines, titles), hide_index=True, width="stretch")
    render_alerts()
    render_windows(labels)
    render_scores(titles)


def render_alerts() -> None:
    """The newest drift alerts, the latest one called out."""
    st.subheader("Alerts")
    alerts = data.alerts()
    if not alerts:
        st.caption(
            "No alert yet. A rule with alerts compares each hour (or day) with the one before "
            "and alerts when its scores drop by more than chance would explain."
        )
        return
    newest = alerts[0]
    st.error(
        f"**Rule {newest.rule_id}, {newest.window_start:%d %b %H:%M} UTC:** {newest.words}",
        icon=":material/trending_down:",
    )
    st.dataframe(alert_rows(alerts), hide_index=True, width="stretch")


def render_windows(labels: dict[int, str]) -> None:
    """One rule's scores by window, alerts in red."""
    st.subheader("Scores over time")
    rule_id = st.selectbox(
        "Rule", list(labels), format_func=labels.__getitem__, key=state.MONITOR_CHART_RULE.name
    )
    windows = data.windows(int(rule_id))
    if not windows.windows:
        st.caption("No scores in the last 24 windows yet: they show here as traces arrive.")
        return
    st.altair_chart(windows_chart(windows), width="stretch")
    what = MEASURE_WORDS[windows.measure].lower()
    st.caption(
        f"Each bar is the {what} of the traces that ran in that {windows.period} (UTC); red: "
        "the window raised an alert."
    )


def render_scores(titles: dict[int, str]) -> None:
    """The newest scores the rules stored."""
    st.subheader("Newest scores")
    scores = data.newest_scores()
    if not scores:
        st.caption("No trace was scored by a rule yet: scores show here as traces arrive.")
        return
    st.dataframe(score_rows(scores, titles), hide_index=True, width="stretch")


def render_add_form() -> None:
    """Add a rule: a scorer, filters, a share of traces, a daily cap, and alerts."""
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
        st.markdown("**Alerts** (optional)")
        alerts = alert_fields()
        added = st.form_submit_button("Add rule", type="primary")
    if added:  # outside the form: a refusal may offer a button to fix the judge
        _add(int(scorer_id), filters, sample, cap, alerts)


@dataclass(frozen=True, slots=True)
class AlertKeys:
    """The widget keys of one set of alert fields (the add form's, or a rule's change form's)."""

    drop: state.Key
    period: state.Key
    measure: state.Key
    webhook: state.Key


ADD_KEYS = AlertKeys(
    state.MONITOR_ALERT_DROP,
    state.MONITOR_ALERT_PERIOD,
    state.MONITOR_ALERT_MEASURE,
    state.MONITOR_WEBHOOK,
)


def alert_fields(keys: AlertKeys = ADD_KEYS, now: AlertSettings | None = None) -> AlertFields:
    """The alert fields: the drop worth an alert (0: none), the window, what to watch, and
    the variable holding a webhook's address; filled with ``now`` when given."""
    left, middle, right = st.columns(3)
    drop = left.number_input(
        "Alert on a drop of at least (0: no alerts)",
        min_value=0.0,
        max_value=100.0,
        value=now.drop if now else 0.0,
        step=0.05,
        key=keys.drop.name,
        help="Compared with the window before, and only when chance alone would rarely give "
        "such a drop (at least 10 scores in each window). For a pass rate, 0.1 is ten points.",
    )
    period = middle.selectbox(
        "Compare each",
        list(PERIOD_WORDS),
        index=list(PERIOD_WORDS).index(now.period) if now else 0,
        format_func=PERIOD_WORDS.__getitem__,
        key=keys.period.name,
    )
    measure = right.selectbox(
        "Watch",
        list(MEASURE_WORDS),
        index=list(MEASURE_WORDS).index(now.measure) if now else 0,
        format_func=MEASURE_WORDS.__getitem__,
        key=keys.measure.name,
    )
    webhook = st.text_input(
        "Also post alerts to the webhook whose address is in the variable (optional)",
        value=(now.webhook_env or "") if now else "",
        placeholder="SCORER_STUDIO_ALERT_WEBHOOK",
        key=keys.webhook.name,
        help="A Slack incoming webhook, for one. Its address is a secret: ask an engineer to "
        "put it in this environment variable where the runner runs; only the name is kept.",
    )
    return AlertFields(float(drop), str(period), str(measure), webhook)


def render_change_alerts(rules: dict[int, RuleInfo], labels: dict[int, str]) -> None:
    """Change (or end) the alerts of a rule already added."""
    with st.expander("Change a rule's alerts"):
        rule_id = st.selectbox(
            "Rule", list(labels), format_func=labels.__getitem__, key=state.MONITOR_EDIT_RULE.name
        )
        rule = rules[int(rule_id)]
        keys = AlertKeys(  # a rule's own keys: its fields open on its own alerts
            ADD_KEYS.drop.child(rule.id),
            ADD_KEYS.period.child(rule.id),
            ADD_KEYS.measure.child(rule.id),
            ADD_KEYS.webhook.child(rule.id),
        )
        with st.form(state.MONITOR_EDIT.child(rule.id).name, border=False):
            fields = alert_fields(keys, rule.alerts)
            saved = st.form_submit_button("Save alerts")
        if saved:
            _change(rule, fields)


def _change(rule: RuleInfo, fields: AlertFields) -> None:
    try:
        data.set_alerts(rule.id, read_alerts(fields))
    except ValueError as error:
        st.error(f"{str(error)[:1].upper()}{str(error)[1:]}", icon=":material/error:")
        return
    state.flash(f"Rule {rule.id}'s alerts are saved.")
    st.rerun()


def _add(scorer_id: int, filters: str, sample: float, cap: str, alerts: AlertFields) -> None:
    try:
        form = read_rule_form(filters, sample, cap, alerts)
        rule = data.add_rule(scorer_id, form)
    except (RunRefusedError, CapError, ValueError) as error:
        st.error(f"{str(error)[:1].upper()}{str(error)[1:]}", icon=":material/error:")
        if isinstance(error, RunRefusedError):  # a judge's key not set, or a broken spec
            fix_judge_link(scorer_id, key=state.MONITOR_FIX_JUDGE)
        return
    watched = " and alerts you when its scores drop" if rule.alerts else ""
    state.flash(f"Rule {rule.id} added: it scores new traces as they arrive{watched}.")
    st.rerun()


render_live()
if rules_now := data.rules():  # outside the live part: a form being filled is not redrawn
    render_change_alerts(
        {line.rule.id: line.rule for line in rules_now},
        {line.rule.id: rule_title(line.rule, pickers.scorer_titles_by_id()) for line in rules_now},
    )
render_add_form()
