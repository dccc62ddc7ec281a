"""The store's revision changes after every write the studio's numbers depend on, and only
then (SQLite and PostgreSQL)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from scorer_runtime.store import (
    Engine,
    ExampleData,
    add_approval,
    add_label,
    add_scores,
    beat,
    create_run,
    create_stability_check,
    finish_run,
    list_examples,
    mark_running,
    read_session,
    request_cancel,
    save_scorer_version,
    save_trust_policy,
    session_scope,
    store_revision,
)
from tests.store.fixtures import make_dataset, make_version, valid_spec


def _revision(engine: Engine) -> tuple[Any, ...]:
    with read_session(engine) as session:
        return store_revision(session)


def _changes(engine: Engine, write: Callable[[Any], object]) -> bool:
    before = _revision(engine)
    with session_scope(engine) as session:
        write(session)
    return _revision(engine) != before


def test_the_revision_is_the_same_while_nothing_is_written(engine: Engine) -> None:
    make_dataset(engine, "faq", [ExampleData(output="a")])
    make_version(engine)
    first = _revision(engine)
    with read_session(engine) as session:
        list_examples(session, dataset_id=1)
    assert _revision(engine) == first
    hash(first)  # a cache key


def test_every_write_the_pages_show_gives_a_new_revision(engine: Engine) -> None:
    dataset_id = make_dataset(engine, "faq", [ExampleData(output=str(i)) for i in range(2)])
    scorer_id, version_id = make_version(engine)
    with read_session(engine) as session:
        example_ids = [e.id for e in list_examples(session, dataset_id=dataset_id)]
    run: dict[str, int] = {}

    def new_run(session: Any) -> None:
        run["id"] = create_run(session, scorer_version_id=version_id, dataset_id=dataset_id).id

    first = {"example_id": example_ids[0]}
    score = {
        "scorer_id": scorer_id,
        "scorer_version_id": version_id,
        "dataset_id": dataset_id,
        "outcome": "scored",
        "score": 1.0,
    }
    writes: list[Callable[[Any], object]] = [
        lambda s: add_label(
            s, example_id=example_ids[0], scorer_id=scorer_id, value=1.0, labeller="p"
        ),
        lambda s: add_label(  # a second grade of the same example
            s, example_id=example_ids[0], scorer_id=scorer_id, value=0.0, labeller="p"
        ),
        new_run,
        lambda s: mark_running(s, run_id=run["id"]),
        lambda s: beat(s, run_id=run["id"], done=1, failed=0, cost=0.0),
        lambda s: add_scores(s, rows=[{**score, **first, "run_id": run["id"]}]),
        lambda s: request_cancel(s, run_id=run["id"]),
        lambda s: finish_run(s, run_id=run["id"], status="cancelled"),
        lambda s: create_stability_check(
            s,
            scorer_version_id=version_id,
            dataset_id=dataset_id,
            example_ids=example_ids,
            repeats=2,
        ),
        lambda s: save_trust_policy(
            s, scorer_id=scorer_id, min_graded=10, min_kappa_low=0.5, max_flip_rate=0.1
        ),
        lambda s: save_trust_policy(  # the same policy saved again with another pass mark
            s,
            scorer_id=scorer_id,
            min_graded=10,
            min_kappa_low=0.5,
            max_flip_rate=0.1,
            pass_mark=0.7,
        ),
        lambda s: add_approval(
            s, scorer_version_id=version_id, approver="Priya", badge="trusted", override_reason=""
        ),
        lambda s: save_scorer_version(s, spec=valid_spec("tone", description="version 2")),
    ]
    for number, write in enumerate(writes):
        assert _changes(engine, write), f"write {number} left the revision as it was"


def test_a_rule_changed_and_its_alerts_raised_and_sent_give_a_new_revision(engine: Engine) -> None:
    from datetime import UTC, datetime

    from scorer_runtime.store.rule_alerts import add_alerts, list_alerts, mark_sent
    from scorer_runtime.store.rules import add_rule, change_alerts, get_rule
    from scorer_runtime.trust.drift import DriftReading, alert_settings

    _, version_id = make_version(engine)
    rule: dict[str, Any] = {}
    hourly = alert_settings("hour", "mean", 0.2, "HOOK")
    drop = DriftReading(
        datetime(2026, 12, 5, 9, tzinfo=UTC), 20, 0.5, 20, 1.0, -0.5, -0.7, -0.3, True, "drop"
    )

    def alert_id(session: Any) -> int:
        return list_alerts(session, rule_id=rule["id"])[0].id

    writes: list[Callable[[Any], object]] = [
        lambda s: rule.update(id=add_rule(s, scorer_version_id=version_id).id),
        lambda s: change_alerts(s, rule_id=rule["id"], alerts=hourly),
        lambda s: change_alerts(  # the same kind of alert, another threshold
            s, rule_id=rule["id"], alerts=alert_settings("hour", "mean", 0.3, "HOOK")
        ),
        lambda s: add_alerts(s, rule=get_rule(s, rule_id=rule["id"]), readings=[drop]),
        lambda s: mark_sent(s, alert_id=alert_id(s), error="the webhook could not be reached"),
        lambda s: mark_sent(s, alert_id=alert_id(s)),
    ]
    for number, write in enumerate(writes):
        assert _changes(engine, write), f"write {number} left the revision as it was"
