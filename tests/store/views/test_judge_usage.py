"""Which scorers name a judge profile (what deleting it affects), and taken profile names."""

from __future__ import annotations

from scorer_runtime.spec import ScorerSpec
from scorer_runtime.store import (
    archive_scorer,
    read_session,
    save_judge_profile,
    save_scorer_version,
    session_scope,
)
from scorer_runtime.store.judges import judge_profile_exists
from scorer_runtime.store.views import ProfileUsage, profile_usage_by_name
from tests.store.fixtures import SCORE_ONE, judge_step, valid_spec


def _spec(scorer_id: str, **extra) -> ScorerSpec:
    return valid_spec(scorer_id, "d", **extra)


def test_usage_lists_versions_and_whether_the_latest_still_names_it(engine):
    with session_scope(engine) as session:
        save_scorer_version(session, spec=_spec("b", judge="strict"))
        save_scorer_version(session, spec=_spec("b", judge="strict", name="B"))
        save_scorer_version(session, spec=_spec("b", judge={"model": "openai/x"}))
        old = save_scorer_version(
            session, spec=_spec("a", steps=[judge_step("analyze", judge="strict"), SCORE_ONE])
        )
        archive_scorer(session, scorer_id=old.scorer_id)  # archived scorers still count
        save_scorer_version(session, spec=_spec("c", judge="lenient"))
    with read_session(engine) as session:
        usage = profile_usage_by_name(session)
    assert usage == {
        "strict": [ProfileUsage("a", (1,), True), ProfileUsage("b", (1, 2), False)],
        "lenient": [ProfileUsage("c", (1,), True)],
    }


def test_judge_profile_exists(engine):
    with session_scope(engine) as session:
        save_judge_profile(session, name="fast", model="openai/x")
    with read_session(engine) as session:
        assert judge_profile_exists(session, name="fast")
        assert not judge_profile_exists(session, name="Fast")
