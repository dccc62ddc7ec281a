"""Export a scorer as a TypeScript module for Mastra's ``createScorer`` (``@mastra/core`` 1.71)."""

from __future__ import annotations

from scorer_runtime.spec.mastra.formula_ts import Untranslatable
from scorer_runtime.spec.mastra.module import (
    NUMBERS_DIFFER,
    MastraExport,
    MastraExportError,
    export_mastra,
)

__all__ = ["NUMBERS_DIFFER", "MastraExport", "MastraExportError", "Untranslatable", "export_mastra"]
