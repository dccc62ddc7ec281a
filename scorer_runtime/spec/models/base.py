"""What every spec model shares: strict, immutable, plain-data pydantic models."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict


class SpecModel(BaseModel):
    """Base of the spec models.

    Unknown keys are rejected (a typo must not be silently ignored), instances are immutable
    (a saved scorer version never changes under its scores) and fields may be given by name
    or alias (``with_`` or ``"with"``).
    """

    model_config = ConfigDict(
        extra="forbid",
        frozen=True,
        validate_by_name=True,
        validate_by_alias=True,
        serialize_by_alias=True,
    )


# Tags of the discriminated unions. They appear in pydantic error locations; they contain a
# "-" so they can never be mistaken for a field name, and error paths leave them out.
TAGS = frozenset(
    {
        "judge-settings",
        "judge-profile",
        "delay-ms",
        "delay-exponential",
        "function-step",
        "formula-step",
        "prompt-step",
        "score-field",
        "score-formula",
        "score-use",
    }
)
