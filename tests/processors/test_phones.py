"""Phone numbers in every common written shape are hidden; the text around them is kept
exactly; dates, ids, versions and amounts are left alone."""

from __future__ import annotations

import pytest

from scorer_runtime.processors import RedactPII
from scorer_runtime.processors.phones import PHONE, is_phone
from studio.widgets.processor_forms import before_preview
from tests.processors.phone_shapes import AROUND, NOT_PHONES, PHONES


@pytest.mark.parametrize("phone", PHONES)
def test_every_phone_shape_is_hidden_and_the_text_around_it_kept(phone: str) -> None:
    redactor = RedactPII()
    for template, expected in AROUND:
        assert redactor.redact(template.format(phone, phone)) == expected
    assert PHONE.fullmatch(phone) is not None
    assert is_phone(phone)


def test_the_reported_sentence_keeps_its_closing_parenthesis() -> None:
    text = "Write to me (ana@example.com, 0049 30 1234567). Or (jo@example.org, +1 (415) 555-2671)."
    assert RedactPII().redact(text) == (
        "Write to me ([REDACTED:email], [REDACTED:phone]). Or ([REDACTED:email], [REDACTED:phone])."
    )
    settings = {"redact_pii": {"kinds": ["email", "phone"]}}
    preview = before_preview(settings, "Mail (ana@example.com, +49 30 1234567).")
    assert preview.text == "Mail ([REDACTED:email], [REDACTED:phone])."
    assert len(preview.notes) == 2


def test_only_the_number_itself_is_replaced_in_a_long_mixed_text() -> None:
    text = " ~ ".join(f"({i}: {phone})." for i, phone in enumerate(PHONES))
    redacted = RedactPII().redact(text)
    assert redacted.count("[REDACTED:phone]") == len(PHONES)
    expected = " ~ ".join(f"({i}: [REDACTED:phone])." for i in range(len(PHONES)))
    assert redacted == expected


@pytest.mark.parametrize("text", NOT_PHONES)
def test_what_is_not_a_phone_number_is_left_alone(text: str) -> None:
    assert RedactPII(kinds=["phone"]).redact(text) == text


def test_a_run_of_digits_too_long_for_a_phone_is_left_whole() -> None:
    text = ("+" + "1" * 40 + " (0" + "2" * 30 + ") ") * 50
    assert RedactPII(kinds=["phone"]).redact(text) == text
