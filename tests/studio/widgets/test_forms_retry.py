"""The retry policy's form values <-> spec mapping (studio.widgets.forms), shared by the builder
and the Judges page: round trips, constant waits, and problems said in plain words."""

from __future__ import annotations

import pytest

from scorer_runtime.spec import RetryPolicySpec
from studio.widgets.forms import RetryForm, RetryFormError, describe_retry, retry_form, retry_policy


def test_retry_form_round_trips_and_reads_in_words():
    form = RetryForm(
        max_retries=3,
        first_wait_s=0.5,
        longest_wait_s=8,
        extra_statuses="529, 520",
        extra_texts="overloaded\n\n",
    )
    policy = retry_policy(form)
    assert policy == {
        "max_retries": 3,
        "delay": {"initial_ms": 500, "max_ms": 8000},
        "retry_on_status": [529, 520],
        "retry_on_text": ["overloaded"],
    }
    assert retry_form(policy) == RetryForm(
        max_retries=3,
        first_wait_s=0.5,
        longest_wait_s=8,
        extra_statuses="529, 520",
        extra_texts="overloaded",
    )
    assert describe_retry(policy) == (
        "Up to 4 attempts per judge request; waits 500 ms, then 1 s, then 2 s; honours "
        "Retry-After up to 30 s; also retries 529, 520, “overloaded”."
    )


def test_a_constant_wait_and_no_retries():
    constant = retry_policy(RetryForm(growing=False, first_wait_s=2))
    assert constant == {"delay": 2000}
    back = retry_form(constant)
    assert back is not None
    assert (back.growing, back.first_wait_s) == (False, 2.0)
    assert retry_form(None) is None
    assert retry_policy(RetryForm()) == {}  # the usual policy: nothing to write down


def test_every_setting_of_a_policy_survives_the_form():
    policy = {
        "max_retries": 5,
        "delay": {"initial_ms": 250, "factor": 3.0, "max_ms": 4000},
        "max_retry_after_ms": 12_000,
        "retry_unknown_errors": True,
        "retry_on_status": [529],
        "retry_on_text": ["overloaded", "try again later"],
    }
    form = retry_form(policy)
    assert form is not None
    assert retry_policy(form) == policy
    assert RetryPolicySpec.model_validate(retry_policy(form)) == RetryPolicySpec.model_validate(
        policy
    )


def test_retry_policy_names_a_bad_status_code():
    with pytest.raises(RetryFormError) as caught:
        retry_policy(RetryForm(extra_statuses="529, busy, 99"))
    assert caught.value.problems == [
        "Retries: busy, 99 is not an HTTP status code (a number like 529)"
    ]


def test_values_the_spec_refuses_are_named_by_their_field():
    with pytest.raises(RetryFormError) as caught:
        retry_policy(RetryForm(max_retries=50, factor=0.5))
    assert caught.value.problems == [
        "Retries: retries: Input should be less than or equal to 20",
        "Retries: multiply the wait by: Input should be greater than or equal to 1",
    ]


def test_a_stored_policy_that_is_not_valid_is_explained():
    with pytest.raises(RetryFormError) as caught:
        retry_form({"max_retries": -1})
    assert caught.value.problems == ["Retries: retries: Input should be greater than or equal to 0"]
