"""ScorerRegistry: register by id, look up, list."""

from __future__ import annotations

import pytest

from scorer_runtime import create_scorer
from scorer_runtime.traces import ScorerRegistry, UnknownScorerError


def _scorer(scorer_id: str):
    return create_scorer(id=scorer_id, description="d").generate_score(lambda: 1.0)


def test_register_look_up_and_list_sorted_by_id():
    tone, length = _scorer("tone"), _scorer("length")
    registry = ScorerRegistry([tone])
    assert registry.register(length) is length
    assert registry.get("tone") is tone
    assert registry.ids() == ["length", "tone"]
    assert registry.scorers() == [length, tone]
    assert list(registry) == [length, tone]
    assert "tone" in registry
    assert "nope" not in registry
    assert len(registry) == 2
    assert repr(registry) == "ScorerRegistry(['length', 'tone'])"


def test_an_unknown_id_lists_the_registered_ones():
    registry = ScorerRegistry([_scorer("tone"), _scorer("length")])
    with pytest.raises(UnknownScorerError) as caught:
        registry.get("tool-use")
    assert str(caught.value) == "no scorer 'tool-use'; registered scorers: 'length', 'tone'"
    assert caught.value.known == ["length", "tone"]
    with pytest.raises(UnknownScorerError, match="none are registered"):
        ScorerRegistry().get("tone")


def test_a_taken_id_needs_replace():
    registry = ScorerRegistry([_scorer("tone")])
    newer = _scorer("tone")
    with pytest.raises(ValueError, match="already registered; pass replace=True"):
        registry.register(newer)
    registry.register(newer, replace=True)
    assert registry.get("tone") is newer


def test_only_scorers_can_be_registered_and_unregister_removes():
    registry = ScorerRegistry()
    with pytest.raises(TypeError, match="not function"):
        registry.register(lambda: 1.0)  # type: ignore[arg-type]
    tone = registry.register(_scorer("tone"))
    assert registry.unregister("tone") is tone
    assert len(registry) == 0
    with pytest.raises(UnknownScorerError):
        registry.unregister("tone")
