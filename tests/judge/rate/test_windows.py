"""A limit kept second by second: budgets that add up to the limit, slots spread evenly."""

from __future__ import annotations

import pytest

from scorer_runtime.judge.rate import MemoryLedger, RateLimit, plan_grant


@pytest.mark.parametrize("per_minute", [1, 7, 59, 60, 61, 500, 600, 10_000])
def test_the_budgets_of_any_minute_add_up_to_the_limit(per_minute):
    limit = RateLimit(requests_per_minute=per_minute)
    for start in (0, 1_790_000_013):
        budgets = [limit.budgets(start + i)[0] for i in range(60)]
        assert sum(b or 0 for b in budgets) == per_minute
        assert max(b or 0 for b in budgets) - min(b or 0 for b in budgets) <= 1


def test_a_limit_needs_a_whole_number_of_one_or_more():
    with pytest.raises(ValueError, match="1 or more"):
        RateLimit(requests_per_minute=0)


def test_a_grant_stops_at_the_request_budget_and_at_the_token_budget():
    assert plan_grant(0, 0, (5, None), [1] * 8) == 5
    assert plan_grant(3, 0, (5, None), [1] * 8) == 2
    assert plan_grant(5, 0, (5, None), [1] * 8) == 0
    assert plan_grant(0, 0, (None, 100), [30, 30, 30, 30]) == 3
    assert plan_grant(0, 90, (None, 100), [30]) == 0


def test_a_request_bigger_than_a_window_goes_alone_into_an_empty_window():
    assert plan_grant(0, 0, (None, 100), [500, 10]) == 1
    assert plan_grant(1, 10, (None, 100), [500]) == 0
    assert plan_grant(0, 0, (None, 0), [1]) == 0  # a window of a slow limit with no share


def test_two_takers_of_one_window_share_its_budget_and_its_second_evenly():
    ledger, limit = MemoryLedger(), RateLimit(requests_per_minute=600)  # 10 a second
    first = ledger.take("judge", 100, limit, [0] * 4)
    second = ledger.take("judge", 100, limit, [0] * 8)
    third = ledger.take("judge", 100, limit, [0] * 8)
    assert (first.count, second.count, third.count) == (4, 6, 0)
    moments = first.moments([0] * 4) + second.moments([0] * 6)
    assert moments == pytest.approx([100 + i / 10 for i in range(10)])
    assert ledger.take("judge", 101, limit, [0]).count == 1  # the next second is new
    assert ledger.take("other", 100, limit, [0]).count == 1  # another judge counts apart


def test_tokens_spread_a_window_by_their_share_of_its_budget():
    ledger, limit = MemoryLedger(), RateLimit(tokens_per_minute=6_000)  # 100 a second
    grant = ledger.take("judge", 7, limit, [25, 25, 25, 25, 25])
    assert grant.count == 4
    assert grant.moments([25] * 4) == pytest.approx([7.0, 7.25, 7.5, 7.75])


def test_tokens_used_beyond_the_estimate_are_paid_in_the_next_grant():
    ledger, limit = MemoryLedger(), RateLimit(tokens_per_minute=6_000)
    assert ledger.take("judge", 8, limit, [40], debt=50).count == 1  # 50 + 40 of 100
    assert ledger.take("judge", 8, limit, [40]).count == 0
    assert ledger.take("judge", 9, limit, [40], debt=-500).count == 1  # never below 0
