"""A scorer version's trust badge (Trusted / Not enough evidence / Failing), shown on the
Scorers list, in Results and on the Trust page."""

from __future__ import annotations

import streamlit as st

from scorer_runtime.store import database_url, list_approvals, version_or_latest
from scorer_runtime.trust.policy import STABILITY_WHERE, TrustVerdict, version_trust
from studio import services

BADGE_COLORS = {"trusted": "green", "not_enough_evidence": "gray", "failing": "red"}
BADGE_ICONS = {
    "trusted": ":material/verified:",
    "not_enough_evidence": ":material/help:",
    "failing": ":material/gpp_bad:",
}


def verdict(version_id: int) -> TrustVerdict:
    """The version's badge and reasons (measured again after a few seconds)."""
    return _verdict(database_url(), version_id)


@services.cached(ttl=60)
def _verdict(url: str, version_id: int) -> TrustVerdict:
    with services.reading() as session:
        return version_trust(session, scorer_version_id=version_id).verdict


APPROVED = " · approved"
"""Said after the badge of a version a person approved."""


def trust_badge(
    found: TrustVerdict,
    *,
    prefix: str = "",
    approved: bool = False,
    stability_where: str = STABILITY_WHERE,
) -> None:
    """The badge, with its reasons on hover (and "approved" when a person approved it;
    ``stability_where``: where a stability check is run, said from the page the badge is on)."""
    st.badge(
        f"{prefix}{found.words}{APPROVED if approved else ''}",
        color=BADGE_COLORS[found.badge],  # type: ignore[arg-type]
        icon=BADGE_ICONS[found.badge],
        help=" ".join(found.reasons_for(stability_where=stability_where)),
    )


def version_badge(version_id: int, *, prefix: str = "") -> None:
    """The badge of a version, read from the store."""
    trust_badge(verdict(version_id), prefix=prefix)


def scorer_badge(scorer_id: int, version_id: int | None = None, *, side: str = "") -> None:
    """The badge of a scorer's version (its latest when None), named by its number (after
    ``side``, e.g. "A — ") and saying when it is approved; nothing when the scorer has no
    version. Its words are long ("Version 2: Not enough evidence"): draw it where it has the
    width of the page, not in a narrow column, which would cut it."""
    found = _of_scorer(database_url(), scorer_id, version_id)
    if found is not None:
        chosen, number, shown = found
        approved = chosen in approved_versions(scorer_id)
        trust_badge(shown, prefix=f"{side}Version {number}: ", approved=approved)


def scorer_badges(scorer_id: int) -> None:
    """The latest version's badge, and beside it the approved version's when another one is
    approved (the version to hand over is then not the latest)."""
    with st.container(horizontal=True, gap="small"):
        scorer_badge(scorer_id)
        approved = approved_version(scorer_id)
        latest = _of_scorer(database_url(), scorer_id, None)
        if approved is not None and latest is not None and latest[0] != approved:
            scorer_badge(scorer_id, approved)


@services.cached(ttl=60)
def _of_scorer(
    url: str, scorer_id: int, version_id: int | None
) -> tuple[int, int, TrustVerdict] | None:
    """The version's id, number and verdict (the latest version when ``version_id`` is None)."""
    with services.reading() as session:
        chosen = version_or_latest(session, scorer_id=scorer_id, version_id=version_id)
        if chosen is None:
            return None
        found = version_trust(session, scorer_version_id=chosen)
    return chosen, found.version, found.verdict


def version_words(scorer_id: int, version_id: int) -> str:
    """The version's badge in words for a version picker ("Trusted", "Failing", …), with
    "approved" when a person approved it."""
    words = verdict(version_id).words
    return f"{words}{APPROVED}" if version_id in approved_versions(scorer_id) else words


def approved_versions(scorer_id: int) -> list[int]:
    """The scorer's approved versions, the last approved first."""
    return _approved(database_url(), scorer_id)


def approved_version(scorer_id: int) -> int | None:
    """The scorer's version approved last (None when none is approved)."""
    found = _approved(database_url(), scorer_id)
    return found[0] if found else None


@services.cached(ttl=60)
def _approved(url: str, scorer_id: int) -> list[int]:
    """The scorer's approved versions, the last approved first."""
    with services.reading() as session:
        found = [a.scorer_version_id for a in list_approvals(session, scorer_id=scorer_id)]
    return list(dict.fromkeys(found))
