"""Cached reads and the writes of the Trust page (through ``scorer_runtime``)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from scorer_runtime.store import (
    ApprovalInfo,
    database_url,
    list_approvals,
    list_scorers,
    list_versions,
    save_trust_policy,
)
from scorer_runtime.store.views import scorer_titles
from scorer_runtime.trust.policy import TrustPolicy, VersionTrust, approve, policy_of, version_trust
from studio import services

_TTL = 10
"""Seconds a read is reused: grades and scores arrive from other pages and runs."""
_cached = services.cached(ttl=_TTL)


@dataclass(frozen=True)
class VersionLine:
    """A version as the picker and the chart over time show it."""

    id: int
    version: int
    created_at: datetime
    note: str


def scorers() -> dict[int, str]:
    """Scorer id → what people call it (its display name, as the other pages' pickers show
    it), of the scorers not archived, by that name."""
    return _scorers(database_url())


@_cached
def _scorers(url: str) -> dict[int, str]:
    with services.reading() as session:
        titles = scorer_titles(session)
        found = {s.id: titles.get(s.id, s.name) for s in list_scorers(session)}
    return dict(sorted(found.items(), key=lambda item: item[1].casefold()))


def versions(scorer_id: int) -> list[VersionLine]:
    """The scorer's versions, newest first."""
    return _versions(database_url(), scorer_id)


@_cached
def _versions(url: str, scorer_id: int) -> list[VersionLine]:
    with services.reading() as session:
        found = list_versions(session, scorer_id=scorer_id)
    return [VersionLine(v.id, v.version, v.created_at, v.note) for v in found]


def trust(version_id: int) -> VersionTrust:
    """Agreement, evidence and badge of one version."""
    return _trust(database_url(), version_id)


@_cached
def _trust(url: str, version_id: int) -> VersionTrust:
    with services.reading() as session:
        return version_trust(session, scorer_version_id=version_id)


def policy(scorer_id: int) -> TrustPolicy:
    """The scorer's trust policy (the default one until it is saved)."""
    return _policy(database_url(), scorer_id)


@_cached
def _policy(url: str, scorer_id: int) -> TrustPolicy:
    with services.reading() as session:
        return policy_of(session, scorer_id)


def approvals(scorer_id: int) -> list[ApprovalInfo]:
    """Approvals of the scorer's versions, newest first."""
    return _approvals(database_url(), scorer_id)


@_cached
def _approvals(url: str, scorer_id: int) -> list[ApprovalInfo]:
    with services.reading() as session:
        return list_approvals(session, scorer_id=scorer_id)


def save_policy(scorer_id: int, chosen: TrustPolicy) -> None:
    """Save the scorer's trust policy (raises StoreError with words when it is refused)."""
    with services.writing() as session:
        save_trust_policy(
            session,
            scorer_id=scorer_id,
            min_graded=chosen.min_graded,
            min_kappa_low=chosen.min_kappa_low,
            max_flip_rate=chosen.max_flip_rate,
            pass_mark=chosen.pass_mark,
            max_swayed_rate=chosen.max_swayed_rate,
        )


def approve_version(version_id: int, approver: str, reason: str) -> None:
    """Approve a version (raises StoreError with words when the policy asks for a reason)."""
    with services.writing() as session:
        approve(session, scorer_version_id=version_id, approver=approver, override_reason=reason)
