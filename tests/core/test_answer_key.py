"""A judge answer's cache key is the SHA-256 of the canonical JSON of everything that decides
the answer, whatever the text of the request holds."""

from __future__ import annotations

import hashlib
import json

from hypothesis import given, settings
from hypothesis import strategies as st

from scorer_runtime.judge.cache import answer_key, key_document


class Trim:
    """An output processor (the key holds its class's name)."""


TEXT = st.text(max_size=40)  # any code point, lone surrogates and quotes included


@settings(max_examples=300, deadline=None)
@given(
    model=TEXT,
    api_base=st.none() | TEXT,
    temperature=st.none() | st.floats(allow_nan=False),
    messages=st.lists(
        st.fixed_dictionaries({"role": st.sampled_from(["system", "user"]), "content": TEXT}),
        max_size=3,
    ),
    response_format=st.none() | st.dictionaries(TEXT, TEXT | st.integers(), max_size=3),
    schema=st.none() | TEXT,
    mode=st.sampled_from(["native", "system", "inline"]),
    processors=st.sampled_from([(), (Trim(),)]),
    hardened=st.booleans(),
)
def test_the_key_hashes_the_canonical_json_of_the_request(
    model, api_base, temperature, messages, response_format, schema, mode, processors, hardened
):
    given_fields = {
        "model": model,
        "api_base": api_base,
        "temperature": temperature,
        "messages": messages,
        "response_format": response_format,
        "schema": schema,
        "mode": mode,
        "output_processors": processors,
        "hardened": hardened,
    }
    document = key_document(**given_fields)
    text = json.dumps(document, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    expected = hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()
    assert answer_key(**given_fields) == expected
    assert answer_key(**given_fields) == expected  # the second time from the kept frame


def test_equal_numbers_written_differently_give_their_own_keys():
    base = {
        "model": "m",
        "api_base": None,
        "messages": [],
        "response_format": None,
        "schema": None,
        "mode": "system",
    }
    keys = [answer_key(**base, temperature=t) for t in (0.0, -0.0, 0, 1, 1.0)]
    texts = [
        json.dumps(key_document(**base, temperature=t), sort_keys=True, separators=(",", ":"))
        for t in (0.0, -0.0, 0, 1, 1.0)
    ]
    assert keys == [hashlib.sha256(t.encode()).hexdigest() for t in texts]
    assert len(set(keys)) == 5


def test_the_key_covers_each_part_of_the_request():
    base = {
        "model": "openai/gpt-4o-mini",
        "api_base": "http://judge/",
        "temperature": None,
        "messages": [{"role": "user", "content": "Rate: hi"}],
        "response_format": None,
        "schema": '{"type":"object"}',
        "mode": "system",
    }
    key = answer_key(**base)
    assert answer_key(**{**base, "api_base": "http://judge"}) == key  # a trailing / is no change
    for name, other in [
        ("model", "openai/gpt-4o"),
        ("api_base", "http://other"),
        ("temperature", 0.0),
        ("messages", [{"role": "user", "content": "Rate: ho"}]),
        ("response_format", {"type": "json_object"}),
        ("schema", None),
        ("mode", "inline"),
        ("hardened", True),
    ]:
        assert answer_key(**{**base, name: other}) != key, name
