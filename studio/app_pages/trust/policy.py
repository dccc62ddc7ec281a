"""The Policy tab: what a version must show before it is trusted, and approving a version
(with a written reason when its policy does not hold)."""

from __future__ import annotations

import streamlit as st

from scorer_runtime.store import StoreError
from scorer_runtime.trust.policy import TrustPolicy, VersionTrust
from studio import state
from studio.app_pages.trust import data
from studio.widgets.common import show_error

UNTRUSTED_WORDS = {
    "not_enough_evidence": "There is **not enough evidence yet** to trust this version",
    "failing": "This version **fails the trust policy**",
}
"""Why a version that is not trusted needs a reason to be approved, as a sentence."""


def render(scorer_id: int, found: VersionTrust) -> None:
    """The policy form, then the approval of the chosen version and earlier approvals."""
    _policy_form(scorer_id, found)
    st.divider()
    _approval(found)
    _history(scorer_id)


def _policy_form(scorer_id: int, found: VersionTrust) -> None:
    """The policy's choices, each keyed per scorer (a value typed for one scorer never shows
    for another) and nothing stored or shown elsewhere until "Save the policy"."""
    current = data.policy(scorer_id)
    with st.container(border=True):
        st.markdown("**Trust policy of this scorer** — every version is measured against it.")
        pass_mark = _pass_mark(scorer_id, found, current)
        with st.form(state.TRUST_SAVE_POLICY.child("form").name, border=False):
            graded = st.number_input(
                "Examples graded by a person, at least",
                min_value=2,
                max_value=100_000,
                value=current.min_graded,
                step=5,
                key=state.TRUST_MIN_GRADED.child(scorer_id).name,
            )
            kappa = st.slider(
                "Agreement with people (kappa), lower end of its interval at least",
                min_value=0.0,
                max_value=1.0,
                value=current.min_kappa_low,
                step=0.05,
                key=state.TRUST_MIN_KAPPA.child(scorer_id).name,
                help="0.6 is 'substantial' agreement; the lower end of the 95 % interval must "
                "reach it, so a lucky small sample is not enough.",
            )
            flips = st.slider(
                "Verdicts that flip when the judge is asked again, at most (%)",
                min_value=0,
                max_value=100,
                value=round(current.max_flip_rate * 100),
                step=1,
                key=state.TRUST_MAX_FLIPS.child(scorer_id).name,
            )
            swayed = _swayed(scorer_id, current)
            if st.form_submit_button("Save the policy", type="primary"):
                chosen = TrustPolicy(int(graded), float(kappa), flips / 100, pass_mark, swayed)
                _save(scorer_id, chosen)


def _swayed(scorer_id: int, current: TrustPolicy) -> float | None:
    """The health check's share of verdicts swayed per family, at most (None: not asked)."""
    asked = st.checkbox(
        "Ask for a health check",
        value=current.max_swayed_rate is not None,
        key=state.TRUST_ASK_HEALTH.child(scorer_id).name,
        help="A version is then trusted only when its latest health check shows no "
        "perturbation family changing more verdicts than the share below.",
    )
    share = st.slider(
        "Verdicts a perturbation may sway in the health check, at most (%)",
        min_value=0,
        max_value=100,
        value=round((current.max_swayed_rate or 0.1) * 100),
        step=1,
        key=state.TRUST_MAX_SWAYED.child(scorer_id).name,
    )
    return share / 100 if asked else None


def _save(scorer_id: int, chosen: TrustPolicy) -> None:
    try:
        data.save_policy(scorer_id, chosen)
    except StoreError as error:
        show_error(error)
    else:
        state.flash("Saved the trust policy.")
        st.rerun()


def _pass_mark(scorer_id: int, found: VersionTrust, current: TrustPolicy) -> float | None:
    """A pass mark, for number scales only (labels and pass/fail have their own): its box
    is shown only while it is ticked, and it counts only once the policy is saved."""
    if found.scale.kind != "number":
        return current.pass_mark
    use = st.checkbox(
        "Set the score at which an answer passes",
        value=current.pass_mark is not None,
        key=state.TRUST_USE_PASS_MARK.child(scorer_id).name,
        help="Without it, a score passes from the middle of the scorer's range. It counts "
        "for agreement, stability and the Runs page once the policy is saved.",
    )
    if not use:
        return None
    mark = st.number_input(
        "Passes from",
        value=float(current.pass_mark or found.scale.pass_mark),
        min_value=found.scale.low,
        max_value=found.scale.high,
        step=0.05,
        key=state.TRUST_PASS_MARK.child(scorer_id).name,
    )
    return float(mark)


def _approval(found: VersionTrust) -> None:
    st.markdown(f"**Approve version {found.version}** for use (for example in CI).")
    trusted = found.verdict.badge == "trusted"
    approver = st.text_input("Your name", key=state.TRUST_APPROVER.name, placeholder="e.g. Priya")
    reason = ""
    if not trusted:
        st.caption(
            f"{UNTRUSTED_WORDS.get(found.verdict.badge, UNTRUSTED_WORDS['failing'])}, so it can "
            "be approved only with a written reason, which is kept and shown with the approval."
        )
        reason = st.text_area(
            "Why approve it anyway",
            key=state.TRUST_OVERRIDE.name,
            placeholder="e.g. Checked 20 answers by hand; the judge matched us on all of them.",
        )
    ready = bool(approver.strip()) and (trusted or bool(reason.strip()))
    if st.button(
        "Approve this version",
        key=state.TRUST_APPROVE.name,
        type="primary",
        disabled=not ready,
        icon=":material/verified:",
    ):
        try:
            data.approve_version(found.scorer_version_id, approver, reason)
        except StoreError as error:
            show_error(error)
        else:
            state.flash(f"Approved version {found.version}.")
            st.rerun()


def _history(scorer_id: int) -> None:
    done = data.approvals(scorer_id)
    if not done:
        st.caption("No version of this scorer has been approved yet.")
        return
    numbers = {line.id: line.version for line in data.versions(scorer_id)}
    for approval in done:
        version = numbers.get(approval.scorer_version_id, "?")
        when = f"{approval.created_at:%d %b %Y %H:%M}"
        line = f"Version {version} approved by **{approval.approver}** on {when}"
        if approval.override_reason:
            line += f", although it was not trusted: “{approval.override_reason}”"
        st.markdown(f"- {line}")
