"""Trust: can this scorer's judge be trusted? Agreement with people, stability, versions
compared, and the trust policy a version must meet before it is approved."""

from __future__ import annotations

import streamlit as st

from studio import state
from studio.app_pages.trust import agreement, data, health, improve, policy, stability, versions
from studio.app_pages.trust import stability_data as checks
from studio.app_pages.trust.logic import STABILITY_HERE
from studio.widgets import pickers
from studio.widgets.common import empty_state, page_header
from studio.widgets.current_scorer import scorer_to_open, work_on
from studio.widgets.trust_badge import approved_versions, trust_badge

SHOWN_BADGES = 6  # versions whose badge is shown above the version picker (the newest)

state.show_flashes()
page_header(
    "Trust",
    "Before a scorer is trusted, measure it against people: how often the judge agrees with "
    "their grades, how sure that measurement is, and whether each version meets your policy.",
)

names = pickers.scorer_choices()
if not names:
    empty_state(
        "**No scorer yet.** Trust is measured per scorer: build one (or load the demo "
        "scorers) on the Scorers page, run it on a dataset, and grade some of the same "
        "examples on the Review page."
    )
    st.stop()

opened = scorer_to_open(state.TRUST_FOLLOWED, state.TRUST_SCORER)
if opened in names:
    state.put(state.TRUST_SCORER, opened)
scorer_id = st.selectbox(
    "Scorer",
    options=list(names),
    format_func=lambda sid: names[sid],
    key=state.TRUST_SCORER.name,
    on_change=lambda: work_on(state.peek(state.TRUST_SCORER), state.TRUST_FOLLOWED),
)
lines = data.versions(scorer_id)
if not lines:
    st.info("This scorer has no saved version yet.", icon=":material/info:")
    st.stop()

# Every verdict drawn above the tabs, read once: the Stability tab reruns the page when a
# check it shows ended after they were read.
drawn = {line.id: data.trust(line.id) for line in lines[:SHOWN_BADGES]}
approved = approved_versions(scorer_id)
with st.container(horizontal=True, wrap=True):  # each badge as wide as its words
    for line in lines[:SHOWN_BADGES]:
        trust_badge(
            drawn[line.id].verdict,
            prefix=f"v{line.version} · ",
            approved=line.id in approved,
            stability_where=STABILITY_HERE,
        )
state.choose_valid(state.TRUST_VERSION, [line.id for line in lines])  # the latest, if none
version_id = st.selectbox(
    "Version",
    options=[line.id for line in lines],
    format_func=lambda vid: next(
        f"Version {line.version}{' (latest)' if line is lines[0] else ''}"
        + (f" — {line.note}" if line.note else "")
        for line in lines
        if line.id == vid
    ),
    key=state.TRUST_VERSION.name,
)
if version_id not in drawn:
    drawn[version_id] = data.trust(version_id)
found = drawn[version_id]
shown = {"trusted": st.success, "failing": st.error}.get(found.verdict.badge, st.warning)
reasons = found.verdict.reasons_for(stability_where=STABILITY_HERE)
shown(
    f"**Version {found.version}: {found.verdict.words}.**\n\n"
    + "\n".join(f"- {r}" for r in reasons)
)

tabs = st.tabs(["Agreement", "Stability", "Health", "Compare versions", "Improve", "Policy"])
with tabs[0]:
    agreement.render(scorer_id, found)
with tabs[1]:
    stability.render(scorer_id, {version: t.flips for version, t in drawn.items()})
with tabs[2]:
    health.render(scorer_id, version_id, found.version, checks.asks_judge(version_id))
with tabs[3]:
    versions.render(scorer_id)
with tabs[4]:
    improve.render(version_id)
with tabs[5]:
    policy.render(scorer_id, found)
