"""A scorer that turns the judge answer cache off keeps that setting in its Python export."""

from __future__ import annotations

from collections.abc import Callable
from types import ModuleType
from typing import Any

from scorer_runtime.spec import compile_spec, export_python, load_spec

SPEC: dict[str, Any] = {
    "id": "no-cache",
    "description": "asks the judge every time",
    "judge": {"model": "openai/fake-judge", "instructions": "Grade.", "api_key_env": "K"},
    "cache_answers": False,
    "steps": [
        {
            "step": "generate_score",
            "description": "score",
            "template": "Rate: {{ output }}",
            "output_schema": {
                "type": "object",
                "properties": {"score": {"type": "number"}},
                "required": ["score"],
            },
            "calculate_score": {"field": "score"},
        }
    ],
}


Importer = Callable[[str], ModuleType]


def test_the_switch_turned_off_is_in_the_exported_python(import_code: Importer) -> None:
    source = export_python(load_spec(SPEC))
    assert "cache_answers=False" in source
    assert compile_spec(SPEC).cache_answers is False
    assert import_code(source).scorer.cache_answers is False


def test_the_default_is_not_written_and_stays_on(import_code: Importer) -> None:
    spec = {k: v for k, v in SPEC.items() if k != "cache_answers"}
    source = export_python(load_spec(spec))
    assert "cache_answers" not in source
    assert compile_spec(spec).cache_answers is True
    assert import_code(source).scorer.cache_answers is True
