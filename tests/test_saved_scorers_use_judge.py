"""``use_judge_profile``: a stored scorer pointed at a saved judge profile gets a new version
that names it, and that version scores through the profile's judge (fake server, real store)."""

from __future__ import annotations

import pytest

from scorer_runtime.saved_scorers import compile_version, load_demo, use_judge_profile
from scorer_runtime.store import (
    NotFoundError,
    get_scorer,
    list_versions,
    save_judge_profile,
    session_scope,
)
from tests.store.fixtures import db_url, engine

__all__ = ["db_url", "engine"]


def _demo(engine) -> int:
    with session_scope(engine) as session:
        load_demo(session, parts=["scorers"])
        return get_scorer(session, name="tool-call-accuracy").id


def _profile(session, base_url: str, name: str = "my-judge") -> None:
    save_judge_profile(
        session,
        name=name,
        model="openai/local-model",
        api_base=base_url,
        api_key_env="MY_JUDGE_KEY",
        settings={"json_prompt_injection": "system"},
    )


def test_the_demo_agent_scorer_scores_with_a_saved_judge_after_use_judge(
    engine, fake_judge, monkeypatch
):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.setenv("MY_JUDGE_KEY", "anything")
    scorer_id = _demo(engine)
    with session_scope(engine) as session:
        _profile(session, fake_judge.base_url)
        version = use_judge_profile(session, scorer_id=scorer_id, profile="my-judge")
        assert version.version == 2
        assert version.note == "uses the saved judge my-judge"
        assert version.spec.judge == "my-judge"
        again = use_judge_profile(session, scorer_id=scorer_id, profile="my-judge")
        assert again.id == version.id  # nothing changed: no third version
        assert [v.version for v in list_versions(session, scorer_id=scorer_id)] == [2, 1]
        scorer = compile_version(session, version)
    fake_judge.reply("It called the tools it should have.", when="Explain the score")
    result = scorer.run_sync(
        input=[{"role": "user", "content": "Where is order 7?"}],
        output=[
            {
                "role": "assistant",
                "content": "",
                "tool_calls": [{"id": "1", "name": "lookup_order", "arguments": {"id": 7}}],
            },
            {"role": "assistant", "content": "On its way."},
        ],
        ground_truth=["lookup_order"],
    )
    assert result.reason == "It called the tools it should have."
    assert fake_judge.last_request is not None
    assert fake_judge.last_request.json["model"] == "local-model"


def test_a_missing_profile_or_a_scorer_without_judge_is_refused(engine):
    scorer_id = _demo(engine)
    with session_scope(engine) as session:
        with pytest.raises(NotFoundError):
            use_judge_profile(session, scorer_id=scorer_id, profile="nobody")
        _profile(session, "http://127.0.0.1:9/v1")
        no_judge = get_scorer(session, name="keyword-coverage").id
        with pytest.raises(ValueError, match="asks no judge"):
            use_judge_profile(session, scorer_id=no_judge, profile="my-judge")
        assert [v.version for v in list_versions(session, scorer_id=no_judge)] == [1]
