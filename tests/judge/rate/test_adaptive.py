"""After a 429: pause for Retry-After, cut the rate, climb back (times given, no waiting)."""

from __future__ import annotations

import pytest

from scorer_runtime.judge.rate.adaptive import BACKOFF, CLIMB, MAX_PAUSE_S, AdaptiveRate


def _sent(rate: AdaptiveRate, count: int, at: float) -> None:
    for _ in range(count):
        rate.sent(at)


def test_nothing_is_held_back_before_the_first_429():
    rate = AdaptiveRate()
    _sent(rate, 50, 100.2)
    assert rate.current(100.5) is None
    assert rate.paused_until < 100.5


def test_the_first_429_pauses_for_retry_after_and_cuts_to_a_share_of_what_was_sent():
    rate = AdaptiveRate()
    _sent(rate, 20, 100.1)
    assert rate.rate_limited(100.3, sent_at=100.1, retry_after_s=2.0)
    assert rate.paused_until == pytest.approx(102.3)
    assert rate.current(102.3) == pytest.approx(BACKOFF * 20)


def test_a_429_of_a_request_already_in_flight_pauses_but_does_not_cut_again():
    rate = AdaptiveRate()
    _sent(rate, 20, 100.1)
    rate.rate_limited(100.3, sent_at=100.1, retry_after_s=1.0)
    assert not rate.rate_limited(100.4, sent_at=100.2, retry_after_s=1.0)
    assert rate.current(101.4) == pytest.approx(BACKOFF * 20)
    assert rate.paused_until == pytest.approx(101.4)  # the later pause wins
    assert rate.rate_limited(101.5, sent_at=101.45, retry_after_s=None)  # sent after the cut
    climbed = BACKOFF * 20 * (1 + 0.1 * CLIMB)  # 0.1 s of climb since the first pause ended
    assert rate.current(102.5) == pytest.approx(BACKOFF * climbed)
    assert rate.paused_until == pytest.approx(102.5)  # no Retry-After: one second


def test_the_rate_climbs_by_a_fixed_step_each_second_then_is_forgotten_once_doubled():
    rate = AdaptiveRate()
    _sent(rate, 10, 50.0)
    rate.rate_limited(50.0, sent_at=50.0, retry_after_s=1.0)
    cut = BACKOFF * 10
    assert rate.current(51.0) == pytest.approx(cut)
    assert rate.current(53.0) == pytest.approx(cut * (1 + 2 * CLIMB))
    assert rate.current(51.0 + 1 / CLIMB) is None


def test_a_pause_is_never_longer_than_a_minute():
    rate = AdaptiveRate()
    rate.rate_limited(0.0, sent_at=0.0, retry_after_s=3600)
    assert rate.paused_until == MAX_PAUSE_S
