"""The JSON Schema of spec files, generated from the models and kept in the repository.

Editors validate hand-written specs with it. Regenerate after changing a model::

    python -m scorer_runtime.spec.models.schema          # rewrite the committed file
    python -m scorer_runtime.spec.models.schema --check  # exit 1 when it is stale
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

SCHEMA_PATH = Path(__file__).resolve().parent.parent / "scorer-spec.schema.json"
"""Where the committed schema lives: ``scorer_runtime/spec/scorer-spec.schema.json``."""

SCHEMA_ID = "https://scorer-studio.dev/schemas/scorer-spec.schema.json"


def spec_json_schema() -> dict[str, Any]:
    """The JSON Schema (draft 2020-12) of a scorer spec file."""
    from scorer_runtime.spec.models import ScorerSpec

    schema = ScorerSpec.model_json_schema(by_alias=True, mode="validation")
    return {"$schema": "https://json-schema.org/draft/2020-12/schema", "$id": SCHEMA_ID, **schema}


def schema_text() -> str:
    """The schema as the committed file holds it (stable key order, trailing newline)."""
    return json.dumps(spec_json_schema(), indent=2, ensure_ascii=False) + "\n"


def main(argv: list[str] | None = None) -> int:
    """Write the schema file, or with ``--check`` report whether it is up to date."""
    args = sys.argv[1:] if argv is None else argv
    current = SCHEMA_PATH.read_text(encoding="utf-8") if SCHEMA_PATH.exists() else ""
    if "--check" in args:
        if current == schema_text():
            return 0
        print(f"{SCHEMA_PATH} is stale; run: python -m scorer_runtime.spec.models.schema")
        return 1
    SCHEMA_PATH.write_text(schema_text(), encoding="utf-8")
    print(f"wrote {SCHEMA_PATH}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
