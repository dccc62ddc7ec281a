"""Reading a stored spec back as a :class:`~scorer_runtime.spec.ScorerSpec`, never failing.

Versions are saved as valid specs, but a row written before the store checked specs on save,
or before the spec format moved on, may no longer validate. Such a row must not crash a page
that lists it: :func:`read_stored_spec` gives the spec *as far as it can be read* (every
part that is valid on its own; a placeholder id and description where those are not) and the
problems that made it fall back. Nothing may run such a version: compiling it reports the
problems (:func:`scorer_runtime.saved_scorers.scorer_source`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError

if TYPE_CHECKING:
    from scorer_runtime.spec import ScorerSpec, SpecProblem

_PLACEHOLDER_DESCRIPTION = "(this stored version no longer reads as a valid spec)"
_OPTIONAL_PARTS = ("schema_version", "name", "type", "judge", "prepare")


def stored_spec_data(spec: ScorerSpec) -> dict[str, Any]:
    """The JSON the store keeps for ``spec``: every value it was written with, and only
    those (a default spelled out stays, so a version reads back exactly as it was saved)."""
    return spec.model_dump(mode="json", by_alias=True, exclude_unset=True)


def read_stored_spec(
    data: object, *, fallback_id: str
) -> tuple[ScorerSpec, tuple[SpecProblem, ...]]:
    """The spec stored as ``data`` and ``()``; or, for data that does not validate, what
    can be read of it and its problems (``fallback_id``, the scorer's name, stands in for
    an id that is missing or invalid)."""
    from scorer_runtime.spec import ScorerSpec
    from scorer_runtime.spec.models.problems import validation_problems

    try:
        return ScorerSpec.model_validate(data), ()
    except ValidationError as error:
        problems = tuple(validation_problems(error, ScorerSpec))
    return _salvage(data if isinstance(data, Mapping) else {}, fallback_id), problems


def _salvage(data: Mapping[str, Any], name: str) -> ScorerSpec:
    from scorer_runtime.spec import ScorerSpec

    description = data.get("description")
    parts: dict[str, Any] = {
        "id": data.get("id"),
        "description": description if isinstance(description, str) and description else None,
        **{key: data[key] for key in _OPTIONAL_PARTS if key in data},
    }
    kept = {key: value for key, value in parts.items() if _valid_alone(key, value)}
    steps = data.get("steps")
    kept["steps"] = (
        [s for s in steps if _valid_alone("steps", [s])] if isinstance(steps, list) else []
    )
    kept.setdefault("description", _PLACEHOLDER_DESCRIPTION)
    spec_id = kept.pop("id", None)
    try:
        fields = _validated(kept)
    except ValidationError:  # parts valid alone but not together: keep the description only
        fields = _validated({"description": kept["description"]})
    # A scorer's name need not be a valid id: the id is set without checking it.
    return ScorerSpec.model_construct(**fields, id=spec_id or name)


def _validated(parts: dict[str, Any]) -> dict[str, Any]:
    """The validated values of ``parts`` (with a placeholder id), by field name."""
    from scorer_runtime.spec import ScorerSpec

    spec = ScorerSpec.model_validate({**_MINIMAL, **parts})
    return {key: getattr(spec, key) for key in spec.model_fields_set if key != "id"}


_MINIMAL: dict[str, Any] = {"id": "x", "description": "x", "steps": []}


def _valid_alone(key: str, value: Any) -> bool:
    """Whether ``value`` is valid as the spec's ``key`` (checked in an otherwise minimal spec)."""
    from scorer_runtime.spec import ScorerSpec

    if value is None:
        return False
    try:
        ScorerSpec.model_validate({**_MINIMAL, key: value})
    except ValidationError:
        return False
    return True
