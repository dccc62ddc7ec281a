"""A run's pace: measured from its results, worded alike for the Runs page and the command
line, its time left counted at a rate limit's speed while one holds it back; and a run over
real HTTP with a limited judge says so while it runs, and forgets it once it ends."""

from __future__ import annotations

import pytest
from sqlalchemy import text

from scorer_runtime.batch.outcome import ExampleScore
from scorer_runtime.batch.pace import PaceMeter, RunPace, duration_words, pace_words
from scorer_runtime.runs import run_batch
from scorer_runtime.saved_scorers import compile_version
from scorer_runtime.store import ExampleData, get_version_by_id, read_session
from tests.store.fixtures import judge_step, make_dataset, make_version

R = 20


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def _result(held_by: str | None = None, held_rate: float | None = None, attempts: int = 1):
    execution = {"status": "success", "held_by": held_by, "held_rate": held_rate}
    return ExampleScore(1, "scored", score=1.0, judge={"analyze": execution}, attempts=attempts)


def test_the_meter_measures_examples_a_second_and_calls_an_example():
    clock = Clock()
    meter = PaceMeter(clock)
    assert meter.pace() is None
    for i in range(20):
        clock.now = 100.0 + i * 0.25
        meter.count(_result(attempts=2 if i % 2 else 1))
    pace = meter.pace()
    assert pace is not None
    assert pace.examples_per_s == pytest.approx(20 / 4.75)
    assert pace.calls_per_example == pytest.approx(1.5)
    assert pace.held_by is None


def test_a_run_held_by_a_limit_counts_its_time_left_at_the_limit_s_speed():
    clock = Clock()
    meter = PaceMeter(clock)
    for _ in range(30):  # a first burst: 30 results in the same second
        meter.count(_result("limit", 10.0))
    pace = meter.pace()
    assert pace is not None
    assert pace.held_by == "limit"
    assert pace.seconds_left(100) == pytest.approx(10.0)  # 100 at 10 a second, not at 30
    assert pace_words(pace, 100) == (
        "At the limit of 600 requests a minute: 10 a second. About 10 s left."
    )
    clock.now += 5  # no request held for a while: no longer held back
    assert meter.pace().held_by is None


def test_a_run_slowed_by_the_provider_says_so():
    pace = RunPace(examples_per_s=4.0, held_by="provider", requests_per_s=4.2)
    assert pace_words(pace, 0) == (
        "Slowed down because the judge's provider said 'too many requests': about 4.2 "
        "requests a second."
    )


def test_pace_data_round_trips_and_nonsense_is_no_pace():
    pace = RunPace(3.0, "limit", 10.0, 2.0)
    assert RunPace.from_data(pace.to_data()) == pace
    assert RunPace.from_data(None) is None
    assert RunPace.from_data({"examples_per_s": "fast"}) is None


@pytest.mark.parametrize(
    ("seconds", "words"),
    [(0.2, "1 s"), (45, "45 s"), (130, "2 min 10 s"), (120, "2 min"), (3900, "1 h 5 min")],
)
def test_durations_in_words(seconds, words):
    assert duration_words(seconds) == words


async def test_a_run_with_a_limited_judge_says_it_is_held_back_then_forgets_it(
    engine, fake_judge, monkeypatch
):
    monkeypatch.setenv("PACE_TEST_KEY", "sk-test")
    fake_judge.limit_rate(R)
    fake_judge.reply({"ok": True})
    judge = {
        "model": "openai/fake-judge",
        "instructions": "Grade.",
        "api_base": fake_judge.base_url,
        "api_key_env": "PACE_TEST_KEY",
        "json_prompt_injection": "system",
        "requests_per_minute": R * 60,
    }
    steps = [judge_step(), {"step": "generate_score", "formula": "1"}]
    _, version_id = make_version(engine, "limited", judge=judge, steps=steps)
    dataset_id = make_dataset(engine, "d", [ExampleData(output=f"a{i}") for i in range(2 * R)])
    with read_session(engine) as session:
        scorer = compile_version(session, get_version_by_id(session, version_id=version_id))
    seen: list[str] = []
    stored: list[object] = []

    def progress(p) -> None:
        seen.append(pace_words(p.pace, p.total - p.done) or "")
        if p.done == 3 * R // 2:  # well into the run: its row holds its pace
            with engine.connect() as connection:
                stored.append(connection.execute(text("SELECT pace FROM runs")).scalar_one())

    summary = await run_batch(
        engine,
        scorer,
        scorer_version_id=version_id,
        dataset_id=dataset_id,
        concurrency=16,
        progress=progress,
        use_cache=False,
    )

    assert summary.scored == 2 * R
    assert sum(s.refused for s in fake_judge.seconds()) == 0
    assert any(
        w.startswith(f"At the limit of {R * 60:,} requests a minute: {R} a second") for w in seen
    )
    assert len(stored) == 1
    assert stored[0] is not None
    with engine.connect() as connection:
        assert connection.execute(text("SELECT pace FROM runs")).scalar_one() is None
