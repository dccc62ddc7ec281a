"""Cached reads and the writes of the Trust page (through ``scorer_runtime``)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from scorer_runtime.store import (
    ApprovalInfo,
    database_url,
    list_approvals,
    list_versions,
    save_trust_policy,
)
from scorer_runtime.store.views import example_numbers as read_example_numbers
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


def example_numbers(example_ids: tuple[int, ...]) -> dict[int, int]:
    """Each example's number in its dataset, as the Examples and Results pages number it."""
    return _example_numbers(database_url(), example_ids)


@_cached
def _example_numbers(url: str, example_ids: tuple[int, ...]) -> dict[int, int]:
    with services.reading() as session:
        return read_example_numbers(session, ids=example_ids)
