"""Deterministic sampling by trace id."""

from __future__ import annotations

import hashlib
import uuid

import pytest
from hypothesis import given
from hypothesis import strategies as st

from scorer_runtime.traces import in_sample, sample_trace_ids, sample_value

IDS = [uuid.UUID(int=n * 7919).hex for n in range(1, 2001)]


def test_the_value_is_the_first_eight_bytes_of_sha256_as_a_fraction():
    # Documented so other implementations (a TypeScript export, SQL) can pick the same traces.
    trace_id = "4bf92f3577b34da6a3ce929d0e0e4736"
    expected = int(hashlib.sha256(trace_id.encode()).hexdigest()[:16], 16) / 2**64
    assert sample_value(trace_id) == expected
    assert 0 <= sample_value(trace_id) < 1


def test_no_ratio_keeps_everything_and_the_bounds_behave():
    assert sample_trace_ids(IDS, None) == IDS
    assert sample_trace_ids(IDS, 1) == IDS
    assert sample_trace_ids(IDS, 0) == []


def test_a_ratio_keeps_about_that_share_in_the_given_order():
    kept = sample_trace_ids(IDS, 0.25)
    assert 0.21 < len(kept) / len(IDS) < 0.29
    assert kept == [t for t in IDS if t in set(kept)]


def test_the_same_ratio_always_picks_the_same_traces():
    assert sample_trace_ids(IDS, 0.1) == sample_trace_ids(list(IDS), 0.1)
    assert sample_trace_ids(reversed(IDS), 0.1) == list(reversed(sample_trace_ids(IDS, 0.1)))


@given(st.text(min_size=1, max_size=40), st.floats(0, 1), st.floats(0, 1))
def test_a_trace_in_a_small_sample_is_in_every_larger_one(trace_id, a, b):
    low, high = sorted((a, b))
    if in_sample(trace_id, low):
        assert in_sample(trace_id, high)


@pytest.mark.parametrize("ratio", [-0.1, 1.5, float("nan"), True, "0.5"])
def test_invalid_ratios_are_refused(ratio):
    with pytest.raises(ValueError, match="sample must be"):
        in_sample("abc", ratio)
