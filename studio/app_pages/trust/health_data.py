"""The Trust page's reads and writes for health checks (through the store's package API and
:mod:`scorer_runtime.trust.health`)."""

from __future__ import annotations

from scorer_runtime.store import example_outputs, latest_health_check
from scorer_runtime.trust.health import (
    HealthPlan,
    HealthReport,
    health_report,
    plan_health,
    start_health,
    stop_health,
)
from studio import services
from studio.app_pages.trust.stability_data import _share_keys


def plan(version_id: int, dataset_id: int, sample: int) -> HealthPlan:
    """The check the form describes (ValueError, in words, for one that cannot run)."""
    with services.reading() as session:
        return plan_health(
            session, scorer_version_id=version_id, dataset_id=dataset_id, sample=sample
        )


def start(chosen: HealthPlan) -> int:
    """Store the check and queue its runs for the runner; the check's id."""
    _share_keys([chosen.scorer_version_id])
    check_id = start_health(services.engine(), chosen)
    services.changed()
    return check_id


def stop(check_id: int) -> int:
    """Cancel every run of the check that has not ended; how many were asked to stop."""
    asked = stop_health(services.engine(), check_id)
    services.changed()
    return len(asked)


def latest_report(version_id: int, dataset_id: int) -> HealthReport | None:
    """The newest health check of the version on the dataset as it stands, read now."""
    with services.reading() as session:
        check = latest_health_check(session, scorer_version_id=version_id, dataset_id=dataset_id)
        return None if check is None else health_report(session, check_id=check.id)


def outputs(example_ids: list[int]) -> dict[int, object]:
    """Each example's output as stored (before any perturbation), to show beside its id."""
    with services.reading() as session:
        return example_outputs(session, example_ids=example_ids)
